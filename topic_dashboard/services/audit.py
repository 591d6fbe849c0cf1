"""The audit trail: one row per MCP tool call, accepted or not (docs/DESIGN.md §3.6)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import sqlalchemy as sa
from pydantic import BaseModel, Field
from sqlmodel import Session, col, select

from topic_dashboard.models import AuditLog, iso_utc

# Every stored text is cut to this (the columns are VARCHAR(64)); a cut value ends with a marker.
FIELD_MAX_CHARS = 64
OUTCOME_MAX_CHARS = 32
# Refused (or failed) calls of one bot that get a row each per minute; the rest of that minute is
# counted into one `suppressed` row, so a flood stays visible but cannot grow the trail without bound.
REFUSED_ROWS_PER_MINUTE = 30
NOT_ACCEPTED = ("refused", "error")
SUPPRESSED = "suppressed"
SUPPRESSED_TOOL = "*"


class AuditPublic(BaseModel):
    id: int
    bot_id: str | None
    tool: str
    outcome: str
    error_code: str | None
    topic_key: str | None
    item_id: int | None
    latency_ms: float
    created_at: str | None
    calls: int = Field(default=1, description="How many calls the row stands for (more than 1 only when suppressed).")


@dataclass(frozen=True)
class CallAudit:
    """The audit row a service writes inside its own transaction: which tool, and when the call began."""

    tool: str
    started: float = field(default_factory=time.perf_counter)

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000


def storable_text(value: str, limit: int = FIELD_MAX_CHARS) -> str:
    """`value` as every backend stores it: NUL and lone surrogates escaped, at most `limit` characters.

    PostgreSQL text cannot hold NUL and no driver encodes a lone surrogate; a longer value keeps its
    start and ends with a marker naming its original length.
    """
    head = value[: limit + 1]  # the rest is cut anyway: never escape megabytes
    clean = head.replace("\x00", "\\x00").encode("utf-8", "backslashreplace").decode("utf-8")
    if len(value) <= limit and len(clean) <= limit:
        return clean
    marker = f"…[{len(value)} chars]"
    return clean[: max(0, limit - len(marker))] + marker


def _optional(value: str | None, limit: int = FIELD_MAX_CHARS) -> str | None:
    return None if value is None else storable_text(value, limit)


def add_call(
    *,
    session: Session,
    bot_id: str | None,
    tool: str,
    outcome: str,
    error_code: str | None = None,
    topic_key: str | None = None,
    item_id: int | None = None,
    latency_ms: float = 0.0,
) -> None:
    """Add one bounded audit row to the caller's transaction (the caller commits: both or neither)."""
    session.add(_bounded_row(bot_id, tool, outcome, error_code, topic_key, item_id, latency_ms))


def record_call(
    *,
    session: Session,
    bot_id: str | None,
    tool: str,
    outcome: str,
    error_code: str | None = None,
    topic_key: str | None = None,
    item_id: int | None = None,
    latency_ms: float = 0.0,
) -> None:
    """Write one audit row in its own transaction (so refused calls, rolled back, still leave one).

    A bot's refused calls beyond REFUSED_ROWS_PER_MINUTE in a minute are counted into that minute's
    one `suppressed` row instead.
    """
    row = _bounded_row(bot_id, tool, outcome, error_code, topic_key, item_id, latency_ms)
    if row.outcome in NOT_ACCEPTED:
        _add_not_accepted(session, row)
    else:
        session.add(row)
    session.commit()


def _bounded_row(
    bot_id: str | None,
    tool: str,
    outcome: str,
    error_code: str | None,
    topic_key: str | None,
    item_id: int | None,
    latency_ms: float,
) -> AuditLog:
    return AuditLog(
        bot_id=_optional(bot_id),
        tool=storable_text(tool),
        outcome=storable_text(outcome, OUTCOME_MAX_CHARS),
        error_code=_optional(error_code),
        topic_key=_optional(topic_key),
        item_id=item_id,
        latency_ms=round(latency_ms, 3),
    )


def _add_not_accepted(session: Session, row: AuditLog) -> None:
    """Add `row`, or count it into the minute's suppressed row once the bot used its allowance."""
    _lock_bot_trail(session, row.bot_id)
    minute = row.created_at.replace(second=0, microsecond=0)
    table = sa.inspect(AuditLog).local_table  # AuditLog.__table__, which SQLModel's types do not declare
    assert isinstance(table, sa.Table)  # narrows the mapper's FromClause
    column = table.c
    same_bot = column.bot_id == row.bot_id if row.bot_id is not None else column.bot_id.is_(None)
    rows_this_minute = session.exec(
        select(sa.func.count()).where(same_bot, column.outcome.in_(NOT_ACCEPTED), column.created_at >= minute)
    ).one()
    if rows_this_minute < REFUSED_ROWS_PER_MINUTE:
        session.add(row)
        return
    summary = session.exec(
        select(AuditLog.id).where(same_bot, AuditLog.outcome == SUPPRESSED, AuditLog.created_at >= minute)
    ).first()
    if summary is None:
        # Until the table has a count column, a suppressed row keeps its count in item_id (it names no item).
        session.add(
            AuditLog(bot_id=row.bot_id, tool=SUPPRESSED_TOOL, outcome=SUPPRESSED, item_id=1, created_at=row.created_at)
        )
    else:
        session.exec(sa.update(table).where(column.id == summary).values(item_id=column.item_id + 1))


def _lock_bot_trail(session: Session, bot_id: str | None) -> None:
    """Serialise the count-then-write of one bot's refused rows (SQLite: BEGIN IMMEDIATE does already)."""
    bind = session.get_bind()
    if bind.dialect.name == "postgresql":
        lock = sa.text("SELECT pg_advisory_xact_lock(hashtext(:key))").bindparams(key=f"audit:{bot_id}")
        session.connection().execute(lock)  # the session's transaction; SQLModel's exec() takes no text()


def _public(row: AuditLog) -> AuditPublic:
    suppressed = row.outcome == SUPPRESSED
    return AuditPublic(
        id=row.id or 0,
        bot_id=row.bot_id,
        tool=row.tool,
        outcome=row.outcome,
        error_code=row.error_code,
        topic_key=row.topic_key,
        item_id=None if suppressed else row.item_id,
        latency_ms=row.latency_ms,
        created_at=iso_utc(row.created_at),
        calls=(row.item_id or 1) if suppressed else 1,
    )


def list_calls(
    *,
    session: Session,
    bot_id: str | None = None,
    tool: str | None = None,
    outcome: str | None = None,
    before_id: int | None = None,
    limit: int = 100,
) -> list[AuditPublic]:
    """Audit rows newest first, optionally filtered (by the values as stored), paged by id."""
    query = select(AuditLog)
    if bot_id:
        query = query.where(AuditLog.bot_id == storable_text(bot_id))
    if tool:
        query = query.where(AuditLog.tool == storable_text(tool))
    if outcome:
        query = query.where(AuditLog.outcome == storable_text(outcome, OUTCOME_MAX_CHARS))
    if before_id:
        query = query.where(col(AuditLog.id) < before_id)
    rows = session.exec(query.order_by(col(AuditLog.id).desc()).limit(limit))
    return [_public(row) for row in rows]


def hourly_counts(*, session: Session, bot_id: str | None = None, hours: int = 24) -> list[dict[str, object]]:
    """Calls per hour over the last `hours`, split into accepted and refused, oldest first (for the chart)."""
    from datetime import timedelta

    from topic_dashboard.models import utcnow

    now = utcnow().replace(minute=0, second=0, microsecond=0)
    start = now - timedelta(hours=hours - 1)
    query = select(AuditLog.created_at, AuditLog.outcome, AuditLog.item_id).where(AuditLog.created_at >= start)
    if bot_id:
        query = query.where(AuditLog.bot_id == storable_text(bot_id))
    buckets = {start + timedelta(hours=i): {"ok": 0, "refused": 0} for i in range(hours)}
    for created_at, outcome, item_id in session.exec(query):
        hour = created_at.replace(minute=0, second=0, microsecond=0)
        if hour in buckets:
            if outcome == SUPPRESSED:
                buckets[hour]["refused"] += item_id or 1
            else:
                buckets[hour]["refused" if outcome == "refused" else "ok"] += 1
    return [{"hour": hour.strftime("%H:00"), **counts} for hour, counts in buckets.items()]
