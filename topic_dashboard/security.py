"""Secrets: random tokens stored as SHA-256 digests, passwords as argon2id hashes."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()  # argon2id with the library's current recommended parameters

MIN_PASSWORD_LENGTH = 12
# The admin-token setting is a long-lived master key typed into an environment: a short one could be guessed.
MIN_ADMIN_TOKEN_LENGTH = 32

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


# --- the password policy -------------------------------------------------------------------------------

# Passwords people pick first that pass the length rule; compared case-insensitively, spaces and
# separators ignored. Shorter favourites ("password1", "qwerty") already fail the length rule.
COMMON_PASSWORDS = frozenset(
    {
        "password1234",
        "password12345",
        "password123456",
        "passwordpassword",
        "password1234!",
        "password123!",
        "123456789012",
        "1234567890123",
        "12345678901234",
        "111111111111",
        "000000000000",
        "123123123123",
        "qwertyuiopas",
        "qwertyuiopasdf",
        "qwerty123456",
        "qwertyqwerty",
        "1q2w3e4r5t6y",
        "1qaz2wsx3edc",
        "asdfghjkl123",
        "zxcvbnm12345",
        "iloveyou1234",
        "letmein12345",
        "welcome12345",
        "welcome123!",
        "changeme1234",
        "administrator",
        "administrator1",
        "adminadmin123",
        "adminpassword",
        "admin1234567",
        "rootpassword",
        "monkey123456",
        "dragon123456",
        "football1234",
        "baseball1234",
        "sunshine1234",
        "princess1234",
        "trustno11234",
        "correcthorsebatterystaple",
        "topicdashboard",
        "nanobotnanobot",
    }
)


def _folded(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def password_problems(password: str, username: str) -> list[str]:
    """Why a password is too weak, one sentence per reason (empty when it is fine). The UI shows these."""
    problems = []
    if not password.strip():
        problems.append("the password is only spaces: choose one with letters, digits or symbols")
    elif len(password) < MIN_PASSWORD_LENGTH:
        problems.append(f"the password must be at least {MIN_PASSWORD_LENGTH} characters")
    name = username.strip().casefold()
    # A one- or two-letter name is in too many good passwords to forbid as a part.
    if name and (password.casefold() == name or (len(name) >= 3 and name in password.casefold())):
        problems.append("the password must not contain your username")
    if password.strip() and _folded(password) in {_folded(common) for common in COMMON_PASSWORDS}:
        problems.append("the password is too common: choose one nobody would guess")
    return problems


def new_one_time_password(username: str) -> str:
    """A random password for an admin's reset (128 bits, 22 URL-safe characters) that passes the policy."""
    while True:  # a random string containing the username is rare; draw again rather than weaken it
        password = secrets.token_urlsafe(16)
        if not password_problems(password, username):
            return password


# --- login throttling ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoginThrottlePolicy:
    """After `failures_before_lock` failures, each further failure locks for `first_lock`, doubling up to
    `max_lock`. The count is forgotten once `window` passes with no failure and no lock."""

    failures_before_lock: int
    window: timedelta
    first_lock: timedelta
    max_lock: timedelta

    def lock_for(self, failures: int) -> timedelta | None:
        """How long `failures` consecutive failures lock for, or None below the limit."""
        beyond = failures - self.failures_before_lock
        if beyond < 0:
            return None
        seconds = self.first_lock.total_seconds() * 2 ** min(beyond, 32)
        return min(timedelta(seconds=seconds), self.max_lock)


# Per account: guessing one person's password.
ACCOUNT_LOGIN_THROTTLE = LoginThrottlePolicy(
    failures_before_lock=5,
    window=timedelta(minutes=15),
    first_lock=timedelta(seconds=30),
    max_lock=timedelta(minutes=15),
)
# Per address: spraying many accounts from one place. Looser, since people behind one NAT share it.
ADDRESS_LOGIN_THROTTLE = LoginThrottlePolicy(
    failures_before_lock=20,
    window=timedelta(minutes=15),
    first_lock=timedelta(seconds=30),
    max_lock=timedelta(minutes=15),
)
