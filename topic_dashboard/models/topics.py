"""Topics, their items and the history of rule changes (docs/DESIGN.md §2.2-§2.4)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from topic_dashboard.models._common import json_field, utcnow


class Topic(SQLModel, table=True):
    __tablename__ = "topic_topic"
    __table_args__ = (sa.UniqueConstraint("bot_id", "topic_key", name="uq_topic_topic_bot_key"),)

    id: int | None = Field(default=None, primary_key=True)
    bot_id: str = Field(
        sa_column=sa.Column(sa.String(64), sa.ForeignKey("bot.id", ondelete="CASCADE"), index=True, nullable=False)
    )
    topic_key: str = Field(max_length=64)
    name: str = Field(max_length=100)
    description: str = Field(default="", max_length=2000)
    is_active: bool = Field(default=True)
    is_default_fallback: bool = Field(default=False)
    routing_json: dict[str, Any] = json_field(default_factory=dict)
    view_schema_json: dict[str, Any] = json_field(default_factory=dict)
    # Retention (services/retention.py): keep items this many days and/or only the newest this many;
    # None keeps everything. Pinned items are kept regardless.
    retention_days: int | None = Field(default=None)
    retention_items: int | None = Field(default=None)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class TopicItem(SQLModel, table=True):
    __tablename__ = "topic_item"
    __table_args__ = (
        # The panel's stream: a bot's (or a topic's) items newest first, paged by id.
        sa.Index("ix_topic_item_bot_id_id", "bot_id", "id"),
        sa.Index("ix_topic_item_bot_topic_id", "bot_id", "topic_key", "id"),
        # Unread and total counts per topic, answered from the index alone.
        sa.Index("ix_topic_item_bot_topic_archived_read", "bot_id", "topic_key", "is_archived", "is_read"),
        # Dedupe look-ups and the per-minute rate window.
        sa.Index("ix_topic_item_bot_dedupe_created", "bot_id", "dedupe_key", "created_at"),
        sa.Index("ix_topic_item_bot_created", "bot_id", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    bot_id: str = Field(sa_column=sa.Column(sa.String(64), sa.ForeignKey("bot.id", ondelete="CASCADE"), nullable=False))
    topic_key: str = Field(max_length=64)
    title: str = Field(max_length=500)
    content: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    level: str = Field(default="info", max_length=16)  # info | warn | error | success
    tags_json: list[str] = json_field(default_factory=list)
    view_json: dict[str, Any] | None = json_field(nullable=True)
    # The view's visible words, for search (item_views/search_text.py; migration 0016): "" without a view.
    view_text: str = Field(default="", sa_column=sa.Column(sa.Text, nullable=False, server_default=""))
    source: str = Field(default="mcp", max_length=16)  # mcp | manual | system
    message_type: str | None = Field(default=None, max_length=32)
    dedupe_key: str | None = Field(default=None, max_length=200)
    is_read: bool = Field(default=False)
    is_pinned: bool = Field(default=False)
    is_archived: bool = Field(default=False)
    # The dashboard conversation the bot was answering when it published this (see ChatRun).
    conversation_id: str | None = Field(
        default=None,
        sa_column=sa.Column(
            sa.String(64), sa.ForeignKey("conversation.id", ondelete="SET NULL"), nullable=True, index=True
        ),
    )
    created_at: datetime = Field(default_factory=utcnow)
    # Lifecycle (an alert that changes): a publish with this item's dedupe_key and `update: true`
    # rewrites it in place; `resolved_at` marks it dealt with (by the bot, or a person).
    updated_at: datetime | None = Field(default=None)
    update_count: int = Field(default=0)
    resolved_at: datetime | None = Field(default=None)
    resolved_by: str | None = Field(default=None, max_length=100)


class TopicCount(SQLModel, table=True):
    """How many items a bot has per topic and team read state, archived ones left out. Kept by the
    database itself (triggers on topic_item, migration 0014), never written by the application: the
    panel's counts are a look-up of a few rows, however many items there are."""

    __tablename__ = "topic_count"

    bot_id: str = Field(sa_column=sa.Column(sa.String(64), primary_key=True))
    topic_key: str = Field(sa_column=sa.Column(sa.String(64), primary_key=True))
    is_read: bool = Field(sa_column=sa.Column(sa.Boolean(), primary_key=True))
    n: int = Field(default=0)


class ItemState(SQLModel, table=True):
    """One person's reading state of one item where it differs from the team's (the item's own flags).

    Read, pinned and archived are per person: what a viewer reads, pins or archives changes nothing
    for anyone else. A NULL flag means "as the team has it": the item's own `is_read`/`is_pinned`
    (today's state kept by the migration, and what admins set "for everyone"). An item archived for
    everyone (`TopicItem.is_archived`) stays archived whatever a person's own flag says.
    """

    __tablename__ = "item_state"
    __table_args__ = (
        sa.Index("ix_item_state_user_bot", "user_id", "bot_id"),
        sa.Index("ix_item_state_item", "item_id"),
    )

    user_id: int = Field(
        sa_column=sa.Column(
            sa.Integer, sa.ForeignKey("user_account.id", ondelete="CASCADE"), primary_key=True, nullable=False
        )
    )
    item_id: int = Field(
        sa_column=sa.Column(
            sa.Integer, sa.ForeignKey("topic_item.id", ondelete="CASCADE"), primary_key=True, nullable=False
        )
    )
    bot_id: str = Field(max_length=64)
    is_read: bool | None = Field(default=None)
    is_pinned: bool | None = Field(default=None)
    is_archived: bool | None = Field(default=None)
    updated_at: datetime = Field(default_factory=utcnow)


class TopicRuleChange(SQLModel, table=True):
    """Who changed which topic's rule, when, and what it was before and after."""

    __tablename__ = "topic_rule_change"
    __table_args__ = (sa.Index("ix_topic_rule_change_bot_topic", "bot_id", "topic_key", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    bot_id: str = Field(max_length=64)
    topic_key: str = Field(max_length=64)
    actor: str = Field(max_length=100)
    action: str = Field(max_length=16)  # create | update | delete
    before_json: dict[str, Any] | None = json_field(nullable=True)
    after_json: dict[str, Any] | None = json_field(nullable=True)
    created_at: datetime = Field(default_factory=utcnow)
