"""Bots (one nanobot agent each) and their topic settings (docs/DESIGN.md §2.1)."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from topic_dashboard.models._common import new_bot_id, utcnow
from topic_dashboard.settings import (
    DEFAULT_DEDUPE_WINDOW_SECONDS,
    DEFAULT_FALLBACK_POLICY,
    DEFAULT_PUBLISH_RATE_PER_MINUTE,
)


class Bot(SQLModel, table=True):
    __tablename__ = "bot"

    id: str = Field(default_factory=new_bot_id, primary_key=True, max_length=64)
    name: str = Field(max_length=100)
    # sha256 of the bot token; the token itself is shown once and never stored.
    token_hash: str = Field(max_length=64, sa_column_kwargs={"unique": True})
    token_created_at: datetime = Field(default_factory=utcnow)
    config_path: str | None = Field(default=None, max_length=1000)
    workspace_dir: str | None = Field(default=None, max_length=1000)
    # Where the dashboard reaches the bot to chat (its `nanobot serve` base URL) and the key that
    # endpoint wants (nanobot's api key; sent as Bearer, never shown back).
    chat_url: str | None = Field(default=None, max_length=500)
    chat_key: str | None = Field(default=None, max_length=500)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class TopicBotSettings(SQLModel, table=True):
    __tablename__ = "topic_bot_settings"

    id: int | None = Field(default=None, primary_key=True)
    bot_id: str = Field(
        sa_column=sa.Column(
            sa.String(64), sa.ForeignKey("bot.id", ondelete="CASCADE"), unique=True, index=True, nullable=False
        )
    )
    topic_enabled: bool = Field(default=True)
    fallback_policy: str = Field(default=DEFAULT_FALLBACK_POLICY, max_length=16)  # inbox | skip
    publish_rate_per_minute: int = Field(default=DEFAULT_PUBLISH_RATE_PER_MINUTE)
    dedupe_window_seconds: int = Field(default=DEFAULT_DEDUPE_WINDOW_SECONDS)
    allow_remote_images: bool = Field(default=False)
    # Bumped on every change of the bot's topics, so compiled routing rules are rebuilt once per change.
    rules_version: int = Field(default=0)
    # Bumped with every change of the bot's items (new, read, pinned, archived, moved), so an open
    # panel polls one row to know whether anything changed.
    items_version: int = Field(default=0)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
