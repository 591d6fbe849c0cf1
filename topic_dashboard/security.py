"""Secrets: random tokens stored as SHA-256 digests, passwords as argon2id hashes."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()  # argon2id with the library's current recommended parameters

MIN_PASSWORD_LENGTH = 10

# Token prefixes tell a reader what a leaked secret is for.
BOT_TOKEN_PREFIX = "tdb_"
API_TOKEN_PREFIX = "tda_"
SESSION_TOKEN_PREFIX = "tds_"
SETUP_TOKEN_PREFIX = "tdsetup_"


def new_token(prefix: str) -> str:
    """A fresh high-entropy token (256 bits)."""
    return prefix + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """The digest under which a token is stored and looked up.

    Tokens carry 256 bits of entropy, so a fast digest is safe; it makes look-up by index possible.
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    """Constant-time comparison of a presented token with a stored digest."""
    return hmac.compare_digest(hash_token(token), stored_hash)


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password: str, password_hash: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


# A valid hash to verify against when the user does not exist, so that timing does not
# reveal which usernames exist.
DUMMY_PASSWORD_HASH = _hasher.hash(secrets.token_urlsafe(16))
