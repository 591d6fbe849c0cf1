"""Shared column helpers: UTC timestamps, ids and JSON columns."""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field


def utcnow() -> datetime:
    """Now, aware, in UTC (SQLModel's UTCDateTime columns store and return UTC)."""
    return datetime.now(UTC)


def iso_utc(value: datetime | None) -> str | None:
    """ISO 8601 with an explicit UTC offset, or None."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat()


def new_bot_id() -> str:
    return secrets.token_hex(6)


def new_uuid_hex() -> str:
    return uuid.uuid4().hex


def json_field(*, nullable: bool = False, default_factory: Any = None) -> Any:
    if default_factory is None:
        return Field(default=None, sa_column=sa.Column(sa.JSON, nullable=nullable))
    return Field(default_factory=default_factory, sa_column=sa.Column(sa.JSON, nullable=nullable))


def created_at_field() -> Any:
    return Field(default_factory=utcnow, nullable=False)
