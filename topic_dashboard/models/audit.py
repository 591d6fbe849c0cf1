"""Audit rows: one per MCP tool call, accepted or not, and one per action a person or an API token
takes that changes what others see (docs/DESIGN.md §2.5, §3.6)."""

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
        # The Audit page filters by one of these and pages newest first by id.
        sa.Index("ix_audit_log_actor_id", "actor", "id"),
        sa.Index("ix_audit_log_tool_id", "tool", "id"),
        sa.Index("ix_audit_log_outcome_id", "outcome", "id"),
        sa.Index("ix_audit_log_error_code_id", "error_code", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    # No foreign key: the audit trail outlives a deleted bot.
    bot_id: str | None = Field(default=None, max_length=64)
    # The MCP tool, or the action's name ("bot.create", "topic.update", "item.bulk_read", ...).
    tool: str = Field(max_length=64)
    outcome: str = Field(max_length=32)  # ok | deduplicated | updated | refused | error | suppressed
    error_code: str | None = Field(default=None, max_length=64)
    topic_key: str | None = Field(default=None, max_length=64)
    item_id: int | None = Field(default=None)
    latency_ms: float = Field(default=0.0)
    created_at: datetime = Field(default_factory=utcnow)
    actor_kind: str = Field(default="bot", max_length=16, sa_column_kwargs={"server_default": "bot"})
    # Who: a username, an API token's name, a bot's id, or the system task's name.
    actor: str | None = Field(default=None, max_length=100)
    # What the action changed: "bot:<id>", "topic:<bot>/<key>", "item:<id>", "conversation:<id>", ...
    target: str | None = Field(default=None, max_length=200)
    # JSON text, redacted and cut (services/audit.py): what changed, before and after where it matters.
    detail: str | None = Field(default=None, sa_column=sa.Column(sa.Text, nullable=True))
