"""The audit trail: one row per MCP tool call, accepted or not (design §10)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel
from sqlmodel import Session, select

from topic_dashboard.models import AuditLog, iso_utc


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
    """Write one audit row in its own transaction (so refused calls, rolled back, still leave one)."""
    session.add(
        AuditLog(
            bot_id=bot_id, tool=tool, outcome=outcome, error_code=error_code,
            topic_key=topic_key, item_id=item_id, latency_ms=round(latency_ms, 3),
        )
    )
    session.commit()


def list_calls(
    *, session: Session, bot_id: str | None = None, tool: str | None = None, outcome: str | None = None,
    before_id: int | None = None, limit: int = 100,
) -> list[AuditPublic]:
    """Audit rows newest first, optionally filtered, paged by id."""
    query = select(AuditLog)
    if bot_id:
        query = query.where(AuditLog.bot_id == bot_id)
    if tool:
        query = query.where(AuditLog.tool == tool)
    if outcome:
        query = query.where(AuditLog.outcome == outcome)
    if before_id:
        query = query.where(AuditLog.id < before_id)  # type: ignore[operator]
    rows = session.exec(query.order_by(AuditLog.id.desc()).limit(limit))  # type: ignore[union-attr]
    return [
        AuditPublic(
            id=row.id or 0, bot_id=row.bot_id, tool=row.tool, outcome=row.outcome, error_code=row.error_code,
            topic_key=row.topic_key, item_id=row.item_id, latency_ms=row.latency_ms, created_at=iso_utc(row.created_at),
        )
        for row in rows
    ]


def since(*, session: Session, bot_id: str, after: datetime) -> list[AuditLog]:
    return list(session.exec(select(AuditLog).where(AuditLog.bot_id == bot_id, AuditLog.created_at >= after)))


def hourly_counts(*, session: Session, bot_id: str | None = None, hours: int = 24) -> list[dict[str, object]]:
    """Calls per hour over the last `hours`, split into accepted and refused, oldest first (for the chart)."""
    from datetime import timedelta

    from topic_dashboard.models import utcnow

    now = utcnow().replace(minute=0, second=0, microsecond=0)
    start = now - timedelta(hours=hours - 1)
    query = select(AuditLog.created_at, AuditLog.outcome).where(AuditLog.created_at >= start)
    if bot_id:
        query = query.where(AuditLog.bot_id == bot_id)
    buckets = {start + timedelta(hours=i): {"ok": 0, "refused": 0} for i in range(hours)}
    for created_at, outcome in session.exec(query):
        hour = created_at.replace(minute=0, second=0, microsecond=0)
        if hour in buckets:
            buckets[hour]["refused" if outcome == "refused" else "ok"] += 1
    return [{"hour": hour.strftime("%H:00"), **counts} for hour, counts in buckets.items()]
