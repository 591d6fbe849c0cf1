"""The Insights numbers on known data, on every backend: each chart's function, the hourly rollup (rolled
hours and the live tail agree with counting the rows), one roller at a time, the latency quantiles."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session, col, select

from topic_dashboard.models import AuditHour, AuditLog
from topic_dashboard.services import insights
from topic_dashboard.services.bots import create_bot

NOW = datetime(2026, 12, 2, 12, 30, tzinfo=UTC)


def _call(
    bot: str, tool: str, outcome: str = "ok", *, at: datetime, topic: str | None = None, **more: object
) -> AuditLog:
    return AuditLog(bot_id=bot, actor=bot, tool=tool, outcome=outcome, topic_key=topic, created_at=at, **more)  # type: ignore[arg-type]


@pytest.fixture
def trail(session: Session) -> tuple[str, str]:
    """Two bots; three hours of calls, the last one still going on (12:00-12:30)."""
    a, _ = create_bot(session=session, name="alpha", write_config=False)
    b, _ = create_bot(session=session, name="beta", write_config=False)
    rows = []
    for hours_ago, latency in ((2, 4.0), (1, 40.0), (0, 400.0)):
        at = NOW - timedelta(hours=hours_ago, minutes=10)
        rows += [_call(a.bot_id, "topic_publish", at=at, topic="builds", latency_ms=latency) for _ in range(3)]
        rows += [_call(a.bot_id, "topic_publish", at=at, topic="inbox", latency_ms=latency)]
        rows += [_call(a.bot_id, "topic_route", at=at, topic=None, latency_ms=latency)]  # skipped
        rows += [_call(a.bot_id, "topic_route", at=at, topic="builds", latency_ms=latency)]  # a decision to publish
    rows += [
        _call(a.bot_id, "topic_publish", "deduplicated", at=NOW - timedelta(minutes=5), topic="builds"),
        _call(a.bot_id, "topic_publish", "updated", at=NOW - timedelta(minutes=5), topic="alerts"),
        _call(b.bot_id, "topic_publish", "refused", at=NOW - timedelta(hours=1), error_code="filtered_progress"),
        _call(b.bot_id, "topic_publish", "refused", at=NOW - timedelta(hours=1), error_code="rate_limited"),
        _call(b.bot_id, "*", "suppressed", at=NOW - timedelta(hours=1), item_id=5),
        _call(b.bot_id, "topic_publish", "error", at=NOW - timedelta(hours=1), error_code="internal_error"),
        _call(b.bot_id, "topic_publish", at=NOW - timedelta(hours=1), topic="news"),
        _call(b.bot_id, "topic_publish", at=NOW - timedelta(days=3), topic="news"),  # outside 24 h, inside 7 d
        AuditLog(tool="bot.create", outcome="ok", actor_kind="user", actor="ada", created_at=NOW),  # a person's
    ]
    session.add_all(rows)
    session.commit()
    return a.bot_id, b.bot_id


def test_the_numbers_of_each_chart_for_all_bots_and_for_one(session: Session, trail: tuple[str, str]) -> None:
    a, b = trail
    insights.roll_up(session=session, now=NOW)
    seen = insights.insights(session=session, bot_ids=None, range_key="24h", now=NOW)
    assert seen.published == 3 * 4 + 1 + 1  # builds and inbox over 3 hours, alerts (updated), news
    assert seen.decisions == {
        "published": 13,
        "updated": 1,
        "deduplicated": 1,
        "skipped": 3,
        "filtered": 1,
        "rate_limited": 1,
        "refused": 5,  # the suppressed row stands for 5 refusals
        "errors": 1,
    }
    assert seen.fallback == 3 and round(seen.fallback_share, 3) == round(3 / 14, 3)  # inbox is the fallback
    assert seen.series_keys == ["builds", "inbox", "alerts", "news"]
    assert len(seen.series) == 24 and seen.series[-1]["bucket"] == "12:00"
    assert seen.series[-1] == {"bucket": "12:00", "builds": 3, "inbox": 1, "alerts": 1, "news": 0}
    assert seen.series[-3] == {"bucket": "10:00", "builds": 3, "inbox": 1, "alerts": 0, "news": 0}
    assert seen.hottest[0] == {"bot_id": a, "topic_key": "builds", "published": 9}
    by_bot = {row["bot_id"]: row for row in seen.bots}
    # failed: rate_limited, the 5 suppressed, the error; not the progress update kept out (filtered_progress)
    assert by_bot[b]["calls"] == 1 + 1 + 5 + 1 + 1 and by_bot[b]["failed"] == 7
    assert seen.bots[0]["bot_id"] == b  # the highest failure rate first
    assert by_bot[a]["failed"] == 0
    route = next(row for row in seen.latency if row["tool"] == "topic_route")
    assert route["calls"] == 6 and route["p50_ms"] is not None and 20 < route["p50_ms"] <= 50
    assert route["p95_ms"] is not None and 200 < route["p95_ms"] <= 500

    only_b = insights.insights(session=session, bot_ids=[b], range_key="24h", now=NOW)
    assert only_b.published == 1 and only_b.series_keys == ["news"] and only_b.hottest[0]["bot_id"] == b
    week = insights.insights(session=session, bot_ids=[b], range_key="7d", now=NOW)
    assert week.published == 2 and len(week.series) == 7 and week.series[-1]["bucket"] == "12-02"
    weeks = insights.insights(session=session, bot_ids=None, range_key="12w", now=NOW)
    assert weeks.series[-1]["bucket"] == "11-30"  # the week by its Monday
    assert weeks.published == seen.published + 1


def test_rolled_hours_and_the_live_tail_give_what_counting_the_rows_gives(
    session: Session, trail: tuple[str, str]
) -> None:
    unrolled = insights.insights(session=session, bot_ids=None, range_key="7d", now=NOW)
    assert insights.needs_roll_up(session=session, now=NOW)
    written = insights.roll_up(session=session, now=NOW)
    assert written > 0 and not insights.needs_roll_up(session=session, now=NOW)
    rolled = session.exec(select(AuditHour.hour).distinct()).all()
    assert "2026-12-02 12" not in rolled and "2026-12-02 11" in rolled  # the hour going on is not rolled
    assert insights.roll_up(session=session, now=NOW) == 0  # nothing twice
    after = insights.insights(session=session, bot_ids=None, range_key="7d", now=NOW)
    assert after == unrolled
    # A later roll-up takes the next hour; the numbers stay the same.
    later = NOW + timedelta(hours=1)
    insights.roll_up(session=session, now=later)
    assert "2026-12-02 12" in session.exec(select(AuditHour.hour).distinct()).all()
    assert insights.insights(session=session, bot_ids=None, range_key="7d", now=NOW).published == after.published
    # People's actions are never counted.
    assert not session.exec(select(AuditHour).where(col(AuditHour.tool) == "bot.create")).all()


def test_an_empty_trail_gives_empty_charts(session: Session) -> None:
    assert insights.roll_up(session=session, now=NOW) == 0
    empty = insights.insights(session=session, bot_ids=None, range_key="24h", now=NOW)
    assert empty.published == 0 and empty.fallback_share == 0.0 and empty.series_keys == []
    assert len(empty.series) == 24 and all(point == {"bucket": point["bucket"]} for point in empty.series)


def test_latency_quantiles_read_from_the_bands() -> None:
    assert insights.quantile_ms([0] * 13, 0.5) is None
    bands = [0] * 13
    bands[4] = 10  # 10-20 ms
    assert insights.quantile_ms(bands, 0.5) == 15.0
    bands[12] = 90  # over 5 s
    assert insights.quantile_ms(bands, 0.95) == 5000.0


def test_two_rollers_at_once_count_each_hour_once(session: Session, trail: tuple[str, str]) -> None:
    """Two workers opening the Insights page together: one rolls up, the other waits and finds it done."""
    import threading

    from topic_dashboard.db import write_session

    session.commit()
    results: list[int] = []
    start = threading.Barrier(2)

    def roll() -> None:
        start.wait()
        with write_session() as own:
            results.append(insights.roll_up(session=own, now=NOW))

    threads = [threading.Thread(target=roll) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(results) == 2 and min(results) == 0 and max(results) > 0
    session.expire_all()
    rows = session.exec(select(AuditHour)).all()
    assert len(rows) == max(results)
    # builds and inbox at 10:20 and 11:20, news at 11:30 and 3 days ago; 12:00-12:30 is not complete yet
    assert sum(row.calls for row in rows if row.tool == "topic_publish" and row.outcome == "ok") == 2 * 4 + 2
