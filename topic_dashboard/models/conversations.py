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
    run_status: str = Field(default="idle", max_length=16)  # idle | running | done | failed
    # Highest message sequence handed out; messages take last_seq + 1 under the write lock.
    last_seq: int = Field(default=0)
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
    created_at: datetime = Field(default_factory=utcnow)
