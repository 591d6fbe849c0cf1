"""People (admin or viewer), their login sessions and login throttles, and API tokens."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from topic_dashboard.models._common import utcnow


class User(SQLModel, table=True):
    __tablename__ = "user_account"

    id: int | None = Field(default=None, primary_key=True)
    username: str = Field(max_length=64, sa_column_kwargs={"unique": True})
    password_hash: str = Field(max_length=255)  # argon2id
    role: str = Field(max_length=16)  # admin | viewer
    is_active: bool = Field(default=True)
    created_at: datetime = Field(default_factory=utcnow)
    # Set by an admin's password reset: the one-time password opens only the change-password form.
    must_change_password: bool = Field(default=False)


class LoginSession(SQLModel, table=True):
    __tablename__ = "login_session"

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(max_length=64, sa_column_kwargs={"unique": True})
    user_id: int = Field(
        sa_column=sa.Column(
            sa.Integer, sa.ForeignKey("user_account.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    revoked_at: datetime | None = None


class ApiToken(SQLModel, table=True):
    __tablename__ = "api_token"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100)
    token_hash: str = Field(max_length=64, sa_column_kwargs={"unique": True})
    role: str = Field(max_length=16)  # admin | viewer
    created_at: datetime = Field(default_factory=utcnow)
    last_used_at: datetime | None = None  # written at most once a minute
    expires_at: datetime
    revoked_at: datetime | None = None


class SetupToken(SQLModel, table=True):
    """The one-time token printed at first start, to create the first admin in the browser."""

    __tablename__ = "setup_token"

    id: int | None = Field(default=None, primary_key=True)
    token_hash: str = Field(max_length=64, sa_column_kwargs={"unique": True})
    created_at: datetime = Field(default_factory=utcnow)
    used_at: datetime | None = None


class LoginThrottle(SQLModel, table=True):
    """Failed log-ins counted per account and per client address, shared by every worker.

    `key` is the SHA-256 of "account:<username>" or "address:<address>": what people typed as a
    username (sometimes their password) is not stored as typed.
    """

    __tablename__ = "login_throttle"

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(max_length=64, sa_column_kwargs={"unique": True})
    failures: int = Field(default=0)
    last_failure_at: datetime = Field(default_factory=utcnow, index=True)
    locked_until: datetime | None = None
