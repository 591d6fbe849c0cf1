"""Conversations of the dashboard channel and their messages (source of ccweb_list_user_inputs)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from topic_dashboard.models._common import json_field, new_uuid_hex, utcnow


class Conversation(SQLModel, table=True):
    __tablename__ = "conversation"
    __table_args__ = (sa.Index("ix_conversation_bot_updated", "bot_id", "updated_at"),)

    id: str = Field(default_factory=new_uuid_hex, primary_key=True, max_length=64)
    bot_id: str = Field(sa_column=sa.Column(sa.String(64), sa.ForeignKey("bot.id", ondelete="CASCADE"), nullable=False))
    title: str = Field(default="", max_length=200)
    unread: bool = Field(default=False)
    run_status: str = Field(default="idle", max_length=16)  # idle | queued | running | failed | stopped
    run_error: str | None = Field(default=None, max_length=500)  # why the last run failed, in words
    # Highest message sequence handed out; messages take last_seq + 1 under the write lock.
    last_seq: int = Field(default=0)
    # Bumped on every change an open page must show (a message, a streamed part, the run's status).
    revision: int = Field(default=0)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Message(SQLModel, table=True):
    __tablename__ = "message"
    __table_args__ = (
        sa.UniqueConstraint("conversation_id", "seq", name="uq_message_conversation_seq"),
        # User inputs of a conversation, newest first (ccweb_list_user_inputs).
        sa.Index("ix_message_conversation_role_seq", "conversation_id", "role", "seq"),
    )

    id: str = Field(default_factory=new_uuid_hex, primary_key=True, max_length=64)
    conversation_id: str = Field(
        sa_column=sa.Column(sa.String(64), sa.ForeignKey("conversation.id", ondelete="CASCADE"), nullable=False)
    )
    seq: int
    role: str = Field(max_length=16)  # user | assistant | tool | system
    content: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    kind: str = Field(default="text", max_length=32)  # text | guide_card
    guide_card_json: dict[str, Any] | None = json_field(nullable=True)  # the card's form definition
    guide_state: str | None = Field(default=None, max_length=16)  # pending | submitted (guide cards only)
    streaming: bool = Field(default=False)  # an assistant answer still arriving
    # the person who wrote an assistant, tool or system message into the record (None: the bot's own, or a user's)
    added_by: str | None = Field(default=None, max_length=128)
    created_at: datetime = Field(default_factory=utcnow)


class ChatRun(SQLModel, table=True):
    """One relay of a user's message to the bot and its answer (docs/ARCHITECTURE.md, "The chat path").

    A bot answers one run at a time (at most one `running` row per bot, enforced by the index), so
    while a run is running its conversation is the bot's *source conversation*: the one
    `ccweb_list_user_inputs` reads and published items link to when the bot sends no header.
    """

    __tablename__ = "chat_run"
    __table_args__ = (
        sa.Index("ix_chat_run_status_created", "status", "created_at"),
        sa.Index("ix_chat_run_conversation", "conversation_id", "created_at"),
        sa.Index(
            "uq_chat_run_one_running_per_bot",
            "bot_id",
            unique=True,
            sqlite_where=sa.text("status = 'running'"),
            postgresql_where=sa.text("status = 'running'"),
        ),
    )

    id: str = Field(default_factory=new_uuid_hex, primary_key=True, max_length=64)
    bot_id: str = Field(sa_column=sa.Column(sa.String(64), sa.ForeignKey("bot.id", ondelete="CASCADE"), nullable=False))
    conversation_id: str = Field(
        sa_column=sa.Column(sa.String(64), sa.ForeignKey("conversation.id", ondelete="CASCADE"), nullable=False)
    )
    user_message_id: str = Field(max_length=64)
    assistant_message_id: str | None = Field(default=None, max_length=64)
    status: str = Field(default="queued", max_length=16)  # queued | running | done | failed | stopped
    stop_requested: bool = Field(default=False)
    error: str | None = Field(default=None, max_length=500)
    error_code: str | None = Field(default=None, max_length=64)
    worker: str | None = Field(default=None, max_length=100)
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = Field(default=None)
    finished_at: datetime | None = Field(default=None)
