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


# Latency bands of the rollup, upper edges in ms (the last band is open): p50/p95 are read from them.
LATENCY_EDGES_MS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
LATENCY_BANDS = len(LATENCY_EDGES_MS) + 1


class AuditHour(SQLModel, table=True):
    """Bots' tool calls counted per complete UTC hour (services/insights.py rolls them up from
    audit_log), so the Insights charts read hours, not rows. One row per hour and kind of call."""

    __tablename__ = "audit_hour"
    __table_args__ = (sa.Index("ix_audit_hour_hour_bot", "hour", "bot_id"),)

    id: int | None = Field(default=None, primary_key=True)
    hour: str = Field(max_length=13)  # "YYYY-MM-DD HH", UTC
    bot_id: str | None = Field(default=None, max_length=64)
    tool: str = Field(max_length=64)
    outcome: str = Field(max_length=32)
    error_code: str | None = Field(default=None, max_length=64)
    topic_key: str | None = Field(default=None, max_length=64)
    calls: int = Field(default=0)  # a suppressed row counts the refusals it stands for
    l0: int = 0
    l1: int = 0
    l2: int = 0
    l3: int = 0
    l4: int = 0
    l5: int = 0
    l6: int = 0
    l7: int = 0
    l8: int = 0
    l9: int = 0
    l10: int = 0
    l11: int = 0
    l12: int = 0


class AuditRollup(SQLModel, table=True):
    """How far the hourly rollup has come: one row (id 1); its lock makes one roller at a time."""

    __tablename__ = "audit_rollup"

    id: int = Field(default=1, primary_key=True)
    rolled_until: str = Field(default="", max_length=13)  # the first hour not rolled up yet ("" none)


class AlertRule(SQLModel, table=True):
    """A threshold an admin set (services/alerts.py): for one bot, or every bot when `bot_id` is None."""

    __tablename__ = "alert_rule"

    id: int | None = Field(default=None, primary_key=True)
    bot_id: str | None = Field(
        default=None, sa_column=sa.Column(sa.String(64), sa.ForeignKey("bot.id", ondelete="CASCADE"), nullable=True)
    )
    kind: str = Field(max_length=32)  # failure_rate | topic_volume | silence | fallback_share
    threshold: float  # a percentage (failure_rate, fallback_share), items per hour, or hours of silence
    window_minutes: int = Field(default=60)
    topic_key: str | None = Field(default=None, max_length=64)  # topic_volume: one topic, or any topic
    is_active: bool = Field(default=True)
    created_by: str = Field(default="", max_length=100)
    created_at: datetime = Field(default_factory=utcnow)


class AlertEpisode(SQLModel, table=True):
    """One crossing of a rule by one bot, from the check that saw it to the check that saw it clear.
    At most one open episode per rule and bot (a partial unique index): two evaluators cannot both
    open one, so the alert item is published once."""

    __tablename__ = "alert_episode"
    __table_args__ = (
        sa.Index(
            "uq_alert_episode_open",
            "rule_id",
            "bot_id",
            unique=True,
            sqlite_where=sa.text("ended_at IS NULL"),
            postgresql_where=sa.text("ended_at IS NULL"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    rule_id: int = Field(
        sa_column=sa.Column(sa.Integer, sa.ForeignKey("alert_rule.id", ondelete="CASCADE"), nullable=False)
    )
    bot_id: str = Field(sa_column=sa.Column(sa.String(64), sa.ForeignKey("bot.id", ondelete="CASCADE"), nullable=False))
    value: float = 0.0  # the measured value when it opened
    started_at: datetime = Field(default_factory=utcnow)
    ended_at: datetime | None = None
    item_id: int | None = None  # the alert item in the bot's fallback topic (None: it could not be stored)
    recovery_item_id: int | None = None


class AlertSchedule(SQLModel, table=True):
    """When the alert checks last ran (one row, id 1): kept in the database, so the schedule survives
    restarts, and its lock makes one evaluator at a time across workers."""

    __tablename__ = "alert_schedule"

    id: int = Field(default=1, primary_key=True)
    last_run_at: datetime | None = None
