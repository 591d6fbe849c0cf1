"""How bots behave, for the Insights page: publishes per topic over time, route decisions by outcome,
failure rate per bot, the hottest topics, tool latency p50/p95 and the share landing in the fallback topic.

The numbers come from `audit_hour`: bots' tool calls counted per complete UTC hour (with a latency
histogram), rolled up from `audit_log` by `roll_up` (called before each read; one roller at a time
through the `audit_rollup` row's lock). An hour is rolled up once it ended ROLLUP_GRACE ago (a call that
began in it has written its row by then); the hours after that are counted from `audit_log` as they
are, so the charts include the last minutes too. Reading a week at 1,000,000 audit rows reads about
a week of hours, not the rows (docs/PERFORMANCE.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from topic_dashboard.models import AuditHour, AuditLog, AuditRollup, Bot, Topic, utcnow
from topic_dashboard.models.audit import LATENCY_BANDS, LATENCY_EDGES_MS
from topic_dashboard.services.audit import failing_row

ROLLUP_GRACE = timedelta(minutes=5)
HOUR_FORMAT = "%Y-%m-%d %H"
PUBLISH, ROUTE = "topic_publish", "topic_route"
PUBLISHED_OUTCOMES = ("ok", "updated")
# The Insights page's ranges: how far back, and the bucket of the time series.
RANGES: dict[str, tuple[timedelta, str]] = {
    "24h": (timedelta(hours=24), "hour"),
    "7d": (timedelta(days=7), "day"),
    "12w": (timedelta(weeks=12), "week"),
}
DECISIONS = ("published", "updated", "deduplicated", "skipped", "filtered", "rate_limited", "refused", "errors")
TOP_TOPICS_IN_SERIES = 6


def _hour_key(value: datetime) -> str:
    return value.astimezone(UTC).strftime(HOUR_FORMAT)


def _hour_of(session: Session) -> Any:
    created = col(AuditLog.created_at)
    if session.get_bind().dialect.name == "postgresql":
        return sa.func.to_char(sa.func.timezone("UTC", created), "YYYY-MM-DD HH24")
    return sa.func.strftime("%Y-%m-%d %H", created)  # SQLite keeps UTC date-times as text


def _aggregates(session: Session) -> list[Any]:
    """calls and the latency bands, as SQL sums over audit_log rows (a suppressed row counts its calls)."""
    outcome, latency = col(AuditLog.outcome), col(AuditLog.latency_ms)
    calls = sa.func.sum(sa.case((outcome == "suppressed", sa.func.coalesce(col(AuditLog.item_id), 1)), else_=1))
    bands = []
    lower: float = -1.0
    for band in range(LATENCY_BANDS):
        upper = LATENCY_EDGES_MS[band] if band < len(LATENCY_EDGES_MS) else None
        inside = latency > lower if upper is None else sa.and_(latency > lower, latency <= upper)
        bands.append(sa.func.sum(sa.case((sa.and_(outcome != "suppressed", inside), 1), else_=0)))
        lower = float(upper) if upper is not None else lower
    return [calls, *bands]


def _grouped_calls(session: Session, start: str, end: str | None) -> Any:
    """audit_log's bot calls in [start, end) hours, grouped as audit_hour rows."""
    hour = _hour_of(session)
    keys = [
        hour.label("hour"),
        col(AuditLog.bot_id),
        col(AuditLog.tool),
        col(AuditLog.outcome),
        col(AuditLog.error_code),
        col(AuditLog.topic_key),
    ]
    query = select(*keys, *_aggregates(session)).where(col(AuditLog.actor_kind) == "bot")
    query = query.where(col(AuditLog.created_at) >= _parse_hour(start))
    if end is not None:
        query = query.where(col(AuditLog.created_at) < _parse_hour(end))
    return query.group_by(hour, *keys[1:])


def _parse_hour(key: str) -> datetime:
    return datetime.strptime(key, HOUR_FORMAT).replace(tzinfo=UTC)


def needs_roll_up(*, session: Session, now: datetime | None = None) -> bool:
    """Whether a complete hour waits to be rolled up (a read: callers skip the write session if not)."""
    marker = session.get(AuditRollup, 1)
    if marker is None or not marker.rolled_until:
        return session.exec(select(AuditLog.id).limit(1)).first() is not None
    return marker.rolled_until < _hour_key((now or utcnow()) - ROLLUP_GRACE)


def roll_up(*, session: Session, now: datetime | None = None) -> int:
    """Count the complete hours not rolled up yet into audit_hour (one transaction; another roller waits
    on the marker row's lock and then finds nothing to do). Returns how many audit_hour rows it wrote."""
    upto = _hour_key((now or utcnow()) - ROLLUP_GRACE)  # hours before this one are complete
    # The migration made the marker row; made again if missing, without racing another roller.
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    session.exec(insert(AuditRollup).values(id=1, rolled_until="").on_conflict_do_nothing(index_elements=["id"]))
    marker = session.exec(select(AuditRollup).where(AuditRollup.id == 1).with_for_update()).one()
    start = marker.rolled_until
    if not start:
        first = session.exec(select(sa.func.min(AuditLog.created_at))).one()
        if first is None:
            session.rollback()
            return 0
        start = _hour_key(first)
    if start >= upto:
        session.rollback()
        return 0
    columns = ["hour", "bot_id", "tool", "outcome", "error_code", "topic_key", "calls"]
    columns += [f"l{band}" for band in range(LATENCY_BANDS)]
    table = sa.inspect(AuditHour).local_table
    assert isinstance(table, sa.Table)
    session.execute(sa.insert(table).from_select(columns, _grouped_calls(session, start, upto)))
    written = session.exec(
        select(sa.func.count()).select_from(AuditHour).where(col(AuditHour.hour) >= start, col(AuditHour.hour) < upto)
    ).one()
    marker.rolled_until = upto
    session.add(marker)
    session.commit()
    return int(written)


def _source(session: Session, bot_ids: Sequence[str] | None, since: datetime) -> Any:
    """Hour rows from `since` on, as one subquery: the rolled-up hours, then the rest counted from
    audit_log (a few hours at most)."""
    start = _hour_key(since)
    marker = session.get(AuditRollup, 1)
    rolled_until = marker.rolled_until if marker is not None else ""
    hour_table = sa.inspect(AuditHour).local_table
    assert isinstance(hour_table, sa.Table)
    c = hour_table.c
    columns = [c.hour, c.bot_id, c.tool, c.outcome, c.error_code, c.topic_key, c.calls]
    columns += [c[f"l{band}"] for band in range(LATENCY_BANDS)]
    rolled = sa.select(*columns).where(c.hour >= start, c.hour < (rolled_until or start))
    tail = _grouped_calls(session, max(start, rolled_until), None)
    if bot_ids is not None:
        rolled = rolled.where(c.bot_id.in_(bot_ids))
        tail = tail.where(col(AuditLog.bot_id).in_(bot_ids))
    return sa.union_all(rolled, tail).subquery("calls_by_hour")


def _bucket(hour: str, period: str) -> str:
    if period == "hour":
        return hour
    day = hour[:10]
    if period == "day":
        return day
    monday = datetime.strptime(day, "%Y-%m-%d") - timedelta(days=datetime.strptime(day, "%Y-%m-%d").weekday())
    return monday.strftime("%Y-%m-%d")


def _buckets(since: datetime, now: datetime, period: str) -> list[str]:
    keys: list[str] = []
    at = since.replace(minute=0, second=0, microsecond=0)
    while at <= now:
        key = _bucket(_hour_key(at), period)
        if not keys or keys[-1] != key:
            keys.append(key)
        at += timedelta(hours=1)
    return keys


def _decision(tool: str, outcome: str, error_code: str | None, no_topic: bool) -> str | None:
    """What bot calls say about results: the decision they stand for, or None (listing tools)."""
    if outcome == "error":
        return "errors" if tool in (PUBLISH, ROUTE) else None
    if outcome == "suppressed":  # refusals past the per-minute cap, of any tool, counted in one row
        return "refused"
    if tool == PUBLISH:
        if outcome == "refused":
            code = error_code or ""
            if code.startswith("filtered_"):
                return "filtered"
            return "rate_limited" if code == "rate_limited" else "refused"
        return {"ok": "published", "updated": "updated", "deduplicated": "deduplicated"}.get(outcome)
    if tool == ROUTE and outcome == "ok" and no_topic:
        return "skipped"  # the route said: not to be published
    return None


def quantile_ms(bands: Sequence[int], q: float) -> float | None:
    """The q-quantile of a latency histogram (linear within a band; the open last band reads as its
    lower edge), or None when it is empty."""
    total = sum(bands)
    if total == 0:
        return None
    wanted = q * total
    seen = 0
    lower = 0.0
    for band, count in enumerate(bands):
        upper = float(LATENCY_EDGES_MS[band]) if band < len(LATENCY_EDGES_MS) else None
        if count and seen + count >= wanted:
            if upper is None:
                return lower
            return round(lower + (upper - lower) * (wanted - seen) / count, 1)
        seen += count
        lower = upper if upper is not None else lower
    return lower


@dataclass
class Insights:
    """What the Insights page shows for one scope (one bot or all) and range."""

    period: str
    series_keys: list[str] = field(default_factory=list)  # the topics in `series` (top ones, then "other")
    series: list[dict[str, Any]] = field(default_factory=list)  # {"bucket": ..., topic: count, ...}
    decisions: dict[str, int] = field(default_factory=dict)
    published: int = 0
    fallback: int = 0  # published into a fallback topic
    bots: list[dict[str, Any]] = field(default_factory=list)  # bot_id, calls, failed, failure_rate
    hottest: list[dict[str, Any]] = field(default_factory=list)  # bot_id, topic_key, published
    latency: list[dict[str, Any]] = field(default_factory=list)  # tool, calls, p50_ms, p95_ms

    @property
    def fallback_share(self) -> float:
        return self.fallback / self.published if self.published else 0.0


def insights(
    *, session: Session, bot_ids: Sequence[str] | None, range_key: str = "24h", now: datetime | None = None
) -> Insights:
    """The Insights numbers for `bot_ids` (None: every bot) over RANGES[range_key]; call `roll_up`
    first for a fast read (without it the hours not rolled up are counted from audit_log).
    Raises KeyError for an unknown range (a programming error)."""
    span, period = RANGES[range_key]
    now = now or utcnow()
    since = _range_start(now, span, period)
    src = _source(session, bot_ids, since)
    calls = sa.func.sum(src.c.calls)
    fallbacks = _fallback_topics(session, bot_ids)
    result = Insights(period=period)

    decisions = dict.fromkeys(DECISIONS, 0)
    grouped = sa.select(src.c.tool, src.c.outcome, src.c.error_code, src.c.topic_key.is_(None), calls).group_by(
        src.c.tool, src.c.outcome, src.c.error_code, src.c.topic_key.is_(None)
    )
    for tool, outcome, error_code, no_topic, n in session.execute(grouped):
        decision = _decision(tool, outcome, error_code, bool(no_topic))
        if decision is not None:
            decisions[decision] += int(n or 0)
    result.decisions = decisions

    published = src.c.tool == PUBLISH
    published = sa.and_(published, src.c.outcome.in_(PUBLISHED_OUTCOMES), src.c.topic_key.is_not(None))
    day_or_hour = src.c.hour if period == "hour" else sa.func.substr(src.c.hour, 1, 10)
    per_topic: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    topic_totals: dict[str, int] = defaultdict(int)
    by_time = sa.select(day_or_hour, src.c.topic_key, calls).where(published).group_by(day_or_hour, src.c.topic_key)
    for key, topic_key, n in session.execute(by_time):
        per_topic[_bucket(str(key), period)][topic_key] += int(n or 0)
        topic_totals[topic_key] += int(n or 0)
    hottest: dict[tuple[str, str], int] = {}
    by_topic = sa.select(src.c.bot_id, src.c.topic_key, calls).where(published).group_by(src.c.bot_id, src.c.topic_key)
    for bot_id, topic_key, n in session.execute(by_topic):
        hottest[(bot_id or "", topic_key)] = int(n or 0)
        result.published += int(n or 0)
        if (bot_id, topic_key) in fallbacks:
            result.fallback += int(n or 0)

    failing = failing_row(src.c.outcome, src.c.error_code)
    failed = sa.func.sum(sa.case((failing, src.c.calls), else_=0))
    per_bot = sa.select(src.c.bot_id, calls, failed).where(src.c.bot_id.is_not(None)).group_by(src.c.bot_id)
    result.bots = sorted(
        (
            {"bot_id": bot_id, "calls": int(n or 0), "failed": int(bad or 0), "failure_rate": int(bad or 0) / int(n)}
            for bot_id, n, bad in session.execute(per_bot)
            if n
        ),
        key=lambda b: (-b["failure_rate"], -b["calls"], b["bot_id"]),
    )

    bands = [sa.func.sum(src.c[f"l{band}"]) for band in range(LATENCY_BANDS)]
    per_tool = sa.select(src.c.tool, calls, *bands).group_by(src.c.tool).order_by(src.c.tool)
    for tool, n, *counts in session.execute(per_tool):
        histogram = [int(count or 0) for count in counts]
        result.latency.append(
            {
                "tool": tool,
                "calls": int(n or 0),
                "p50_ms": quantile_ms(histogram, 0.5),
                "p95_ms": quantile_ms(histogram, 0.95),
            }
        )

    top = [key for key, _ in sorted(topic_totals.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_TOPICS_IN_SERIES]]
    has_other = len(topic_totals) > len(top)
    result.series_keys = top + (["other"] if has_other else [])
    for bucket in _buckets(since, now, period):
        in_bucket: dict[str, int] = per_topic.get(bucket, {})
        point: dict[str, Any] = {"bucket": _label(bucket, period), **{key: in_bucket.get(key, 0) for key in top}}
        if has_other:
            point["other"] = sum(n for key, n in in_bucket.items() if key not in top)
        result.series.append(point)
    result.hottest = [
        {"bot_id": bot_id, "topic_key": topic_key, "published": n}
        for (bot_id, topic_key), n in sorted(hottest.items(), key=lambda kv: (-kv[1], kv[0]))[:8]
    ]
    return result


def _range_start(now: datetime, span: timedelta, period: str) -> datetime:
    """The first hour of the range: whole buckets, the current one last (24 hours, 7 days, 12 weeks)."""
    hour = now.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    if period == "hour":
        return hour - span + timedelta(hours=1)
    day = hour.replace(hour=0)
    if period == "day":
        return day - span + timedelta(days=1)
    return day - timedelta(days=day.weekday()) - span + timedelta(weeks=1)


def _label(bucket: str, period: str) -> str:
    if period == "hour":
        return bucket[11:13] + ":00"
    return bucket[5:]  # MM-DD (a week by its Monday)


def _fallback_topics(session: Session, bot_ids: Iterable[str] | None) -> set[tuple[str | None, str]]:
    query = select(Topic.bot_id, Topic.topic_key).where(col(Topic.is_default_fallback).is_(True))
    if bot_ids is not None:
        query = query.where(col(Topic.bot_id).in_(list(bot_ids)))
    return {(bot_id, key) for bot_id, key in session.exec(query)}


def bot_names(*, session: Session) -> dict[str, str]:
    return {bot_id: name for bot_id, name in session.exec(select(Bot.id, Bot.name))}
