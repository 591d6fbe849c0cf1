"""Audit rows: one per MCP tool call, accepted or not (docs/DESIGN.md §2.5)."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from topic_dashboard.models._common import utcnow


class AuditLog(SQLModel, table=True):
    __tablename__ = "audit_log"
    __table_args__ = (
        sa.Index("ix_audit_log_bot_created", "bot_id", "created_at"),
        sa.Index("ix_audit_log_created", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    # No foreign key: the audit trail outlives a deleted bot.
    bot_id: str | None = Field(default=None, max_length=64)
    tool: str = Field(max_length=64)
    outcome: str = Field(max_length=32)  # ok | deduplicated | updated | refused | error
    error_code: str | None = Field(default=None, max_length=64)
    topic_key: str | None = Field(default=None, max_length=64)
    item_id: int | None = Field(default=None)
    latency_ms: float = Field(default=0.0)
    created_at: datetime = Field(default_factory=utcnow)
