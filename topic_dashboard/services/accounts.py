"""People, login sessions, API tokens and the first-admin setup token."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

import sqlalchemy as sa
from sqlmodel import Session, SQLModel, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import ApiToken, LoginSession, SetupToken, User, utcnow
from topic_dashboard.security import (
    API_TOKEN_PREFIX,
    DUMMY_PASSWORD_HASH,
    MIN_PASSWORD_LENGTH,
    SESSION_TOKEN_PREFIX,
    SETUP_TOKEN_PREFIX,
    hash_password,
    hash_token,
    new_token,
    token_matches,
    verify_password,
)

ROLES = ("admin", "viewer")
USERNAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")


@dataclass(frozen=True)
class Principal:
    """Who is making a request, and what they may do."""

    name: str
    role: str  # admin | viewer
    kind: str  # user | api_token | admin_token

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


class UserPublic(SQLModel):
    id: int
    username: str
    role: str


def require_admin(principal: Principal) -> None:
    """Raises AppError(forbidden) unless the principal is an admin."""
    if not principal.is_admin:
        raise AppError("forbidden", "Only admins can change this; your account can read only.")


def _check_role(role: str) -> None:
    if role not in ROLES:
        raise AppError("validation_error", f"role must be one of {', '.join(ROLES)}", field="role")


def create_user(*, session: Session, username: str, password: str, role: str) -> UserPublic:
    """Create an account. Raises validation_error, weak_password, user_exists."""
    username = username.strip()
    if not USERNAME_RE.match(username):
        raise AppError(
            "validation_error",
            "username: 1-64 letters, digits or . _ @ -, starting with a letter or digit",
            field="username",
        )
    _check_role(role)
    if len(password) < MIN_PASSWORD_LENGTH:
        raise AppError(
            "weak_password", f"password must be at least {MIN_PASSWORD_LENGTH} characters", field="password"
        )
    if session.exec(select(User).where(User.username == username)).first() is not None:
        raise AppError("user_exists", f"a user named {username!r} already exists", field="username")
    user = User(username=username, password_hash=hash_password(password), role=role)
    session.add(user)
    session.commit()
    return UserPublic(id=user.id or 0, username=user.username, role=user.role)


def count_users(*, session: Session) -> int:
    return session.exec(select(sa.func.count()).select_from(User)).one()


def log_in(*, session: Session, username: str, password: str, ttl_hours: int) -> tuple[UserPublic, str]:
    """Check a password and open a login session. Returns the user and the session token.

    Raises invalid_credentials (same message whether the user exists or not).
    """
    user = session.exec(select(User).where(User.username == username.strip())).first()
    if user is None or not user.is_active:
        verify_password(password, DUMMY_PASSWORD_HASH)
        raise AppError("invalid_credentials", "wrong username or password")
    if not verify_password(password, user.password_hash):
        raise AppError("invalid_credentials", "wrong username or password")
    token = new_token(SESSION_TOKEN_PREFIX)
    now = utcnow()
    session.add(
        LoginSession(token_hash=hash_token(token), user_id=user.id or 0, created_at=now, expires_at=now + timedelta(hours=ttl_hours))
    )
    session.commit()
    return UserPublic(id=user.id or 0, username=user.username, role=user.role), token


def resolve_login(*, session: Session, token: str) -> Principal:
    """The principal behind a login session token. Raises unauthorized or session_expired."""
    if not token:
        raise AppError("unauthorized", "log in first")
    row = session.exec(
        select(LoginSession, User)
        .join(User, User.id == LoginSession.user_id)  # type: ignore[arg-type]
        .where(LoginSession.token_hash == hash_token(token))
    ).first()
    if row is None or not token_matches(token, row[0].token_hash) or row[0].revoked_at is not None:
        raise AppError("unauthorized", "log in first")
    login, user = row
    if login.expires_at <= utcnow() or not user.is_active:
        raise AppError("session_expired", "your session has expired; log in again")
    return Principal(name=user.username, role=user.role, kind="user")


def log_out(*, session: Session, token: str) -> None:
    login = session.exec(select(LoginSession).where(LoginSession.token_hash == hash_token(token))).first()
    if login is not None and login.revoked_at is None:
        login.revoked_at = utcnow()
        session.add(login)
        session.commit()


def create_api_token(*, session: Session, name: str, role: str = "admin") -> str:
    """Create an API token; returns the token (shown once, stored hashed)."""
    name = name.strip()
    if not name or len(name) > 100:
        raise AppError("validation_error", "name: 1-100 characters", field="name")
    _check_role(role)
    token = new_token(API_TOKEN_PREFIX)
    session.add(ApiToken(name=name, token_hash=hash_token(token), role=role))
    session.commit()
    return token


def resolve_api_token(*, session: Session, token: str, admin_token: str | None) -> Principal:
    """The principal behind `Authorization: Bearer <token>`. Raises unauthorized."""
    if admin_token and token_matches(token, hash_token(admin_token)):
        return Principal(name="admin-token", role="admin", kind="admin_token")
    if not token:
        raise AppError("unauthorized", "send Authorization: Bearer <api token>")
    row = session.exec(select(ApiToken).where(ApiToken.token_hash == hash_token(token))).first()
    if row is None or row.revoked_at is not None or not token_matches(token, row.token_hash):
        raise AppError("unauthorized", "unknown or revoked API token")
    return Principal(name=row.name, role=row.role, kind="api_token")


def issue_setup_token(*, session: Session) -> str | None:
    """When nobody can log in yet, replace any earlier setup token by a new one and return it.

    The token lets the first admin create their account in the browser, once.
    """
    if count_users(session=session) > 0:
        return None
    session.exec(sa.delete(SetupToken).where(SetupToken.used_at.is_(None)))  # type: ignore[call-overload,union-attr]
    token = new_token(SETUP_TOKEN_PREFIX)
    session.add(SetupToken(token_hash=hash_token(token)))
    session.commit()
    return token


def redeem_setup_token(*, session: Session, token: str, username: str, password: str) -> UserPublic:
    """Create the first admin with a setup token. Raises unauthorized, setup_done, and create_user's errors."""
    if count_users(session=session) > 0:
        raise AppError("setup_done", "an admin already exists; log in instead")
    row = session.exec(select(SetupToken).where(SetupToken.token_hash == hash_token(token.strip()))).first()
    if row is None or row.used_at is not None:
        raise AppError("unauthorized", "unknown or used setup token; restart the dashboard to print a new one")
    row.used_at = utcnow()
    session.add(row)
    return create_user(session=session, username=username, password=password, role="admin")
