"""Alerts fire once per episode and clear once, on every backend: each kind measured on known data, the
alert and recovery items in the bot's fallback topic, the schedule kept in the database (a restart goes
on from it), two workers checking at once publish one item."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session, col, select

from topic_dashboard.db import write_session
from topic_dashboard.errors import AppError
from topic_dashboard.models import AlertEpisode, AlertRule, AuditLog, TopicItem
from topic_dashboard.services import alerts
from topic_dashboard.services.audit import Actor
from topic_dashboard.services.bots import create_bot

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
ADA = Actor("user", "ada")


def _calls(session: Session, bot_id: str, at: datetime, ok: int = 0, refused: int = 0, topic: str = "builds") -> None:
    session.add_all(
        [
            AuditLog(bot_id=bot_id, actor=bot_id, tool="topic_publish", outcome="ok", topic_key=topic, created_at=at)
            for _ in range(ok)
        ]
        + [
            AuditLog(
                bot_id=bot_id,
                actor=bot_id,
                tool="topic_publish",
                outcome="refused",
                error_code="rate_limited",
                created_at=at,
            )
            for _ in range(refused)
        ]
    )
    session.commit()


def _items(session: Session, bot_id: str) -> list[TopicItem]:
    session.expire_all()
    query = select(TopicItem).where(TopicItem.bot_id == bot_id).order_by(col(TopicItem.id))
    found = [item for item in session.exec(query) if "alert" in (item.tags_json or [])]
    session.commit()  # a read here holds SQLite's write lock (write sessions begin immediate) until it ends
    return found


@pytest.fixture
def bot(session: Session) -> str:
    created, _ = create_bot(session=session, name="watched", write_config=False)
    return created.bot_id


def test_a_failure_rate_alert_fires_once_while_it_lasts_and_clears_once(session: Session, bot: str) -> None:
    alerts.create_rule(session=session, kind="failure_rate", threshold=20, window_minutes=30, bot_id=bot, actor=ADA)
    _calls(session, bot, NOW - timedelta(minutes=10), ok=6, refused=4)  # 40%
    first = alerts.check_alerts(session=session, now=NOW)
    assert (first.ran, first.opened, first.cleared) == (True, 1, 0)
    again = alerts.check_alerts(session=session, now=NOW + timedelta(minutes=2))  # still 40%
    assert (again.opened, again.cleared) == (0, 0)
    (alert,) = _items(session, bot)
    assert alert.topic_key == "inbox" and alert.level == "error" and "failure rate over 20%" in alert.title
    assert "40.0%" in alert.content
    (going_on,) = alerts.open_alerts(session=session)
    assert going_on.bot_id == bot and going_on.item_id == alert.id

    _calls(session, bot, NOW + timedelta(minutes=40), ok=10)  # the window has moved on: 0%
    cleared = alerts.check_alerts(session=session, now=NOW + timedelta(minutes=45))
    assert (cleared.opened, cleared.cleared) == (0, 1)
    alert_item, recovery = _items(session, bot)
    assert recovery.level == "success" and recovery.title.startswith("Recovered:")
    assert alerts.open_alerts(session=session) == []
    # It can fire again later: a new episode, a new item.
    _calls(session, bot, NOW + timedelta(minutes=60), refused=8)
    assert alerts.check_alerts(session=session, now=NOW + timedelta(minutes=62)).opened == 1
    assert len(_items(session, bot)) == 3
    trail = session.exec(select(AuditLog.tool).where(col(AuditLog.actor) == "alerts")).all()
    assert list(trail) == ["alert.open", "alert.clear", "alert.open"]


def test_chat_and_progress_kept_out_of_the_topics_are_not_failures(session: Session, bot: str) -> None:
    """A bot told that "Thanks!" is chat, or that its progress update stays in the chat, works as designed:
    those refusals (filtered_*) do not count toward a failure-rate alert; a real refusal still does."""
    alerts.create_rule(session=session, kind="failure_rate", threshold=20, window_minutes=30, bot_id=bot, actor=ADA)
    at = NOW - timedelta(minutes=10)
    session.add_all(
        AuditLog(bot_id=bot, actor=bot, tool="topic_publish", outcome="refused", error_code=code, created_at=at)
        for code in ("filtered_chat", "filtered_progress", "filtered_tool_hint", "filtered_noise") * 2
    )
    session.commit()
    _calls(session, bot, at, ok=6)
    rule = session.exec(select(AlertRule)).one()
    assert alerts.measure(session=session, rule=rule, bot_id=bot, now=NOW) == 0.0
    assert alerts.check_alerts(session=session, now=NOW).opened == 0
    _calls(session, bot, at, refused=4)  # rate_limited: 4 of 18 calls
    assert alerts.measure(session=session, rule=rule, bot_id=bot, now=NOW) == pytest.approx(100 * 4 / 18)
    assert alerts.check_alerts(session=session, now=NOW + timedelta(minutes=1)).opened == 1


def test_too_few_calls_say_nothing_and_each_kind_measures_its_own_thing(session: Session, bot: str) -> None:
    rule = alerts.create_rule(session=session, kind="failure_rate", threshold=10, bot_id=bot, actor=ADA)
    _calls(session, bot, NOW - timedelta(minutes=5), refused=alerts.MIN_SAMPLE - 1)
    assert alerts.check_alerts(session=session, now=NOW).opened == 0  # 100%, but of 4 calls
    alerts.delete_rule(session=session, rule_id=rule.id, actor=ADA)

    volume = alerts.create_rule(session=session, kind="topic_volume", threshold=5, bot_id=bot, actor=ADA)
    share = alerts.create_rule(session=session, kind="fallback_share", threshold=50, bot_id=bot, actor=ADA)
    silence = alerts.create_rule(session=session, kind="silence", threshold=2, bot_id=bot, actor=ADA)
    _calls(session, bot, NOW - timedelta(minutes=20), ok=7, topic="builds")
    _calls(session, bot, NOW - timedelta(minutes=20), ok=3, topic="inbox")
    rules = {r.id: r for r in session.exec(select(alerts.AlertRule))}
    assert alerts.measure(session=session, rule=rules[volume.id], bot_id=bot, now=NOW) == 7.0
    assert alerts.measure(session=session, rule=rules[share.id], bot_id=bot, now=NOW) == 30.0
    # the last call: the 4 refusals 5 minutes ago
    assert alerts.measure(session=session, rule=rules[silence.id], bot_id=bot, now=NOW) == pytest.approx(5 / 60)
    result = alerts.check_alerts(session=session, now=NOW, interval_seconds=0)  # the schedule ran at NOW already
    assert result.opened == 1  # the volume only
    later = NOW + timedelta(hours=3)  # silent for 3 h 5 min now; the hour's volume is 0
    result = alerts.check_alerts(session=session, now=later)
    assert (result.opened, result.cleared) == (1, 1)
    titles = [item.title for item in _items(session, bot)]
    assert titles == [
        "Alert: a topic over 5 items per hour",
        "Alert: silent for 2 hours",
        "Recovered: a topic over 5 items per hour",
    ] or sorted(titles) == sorted(
        [
            "Alert: a topic over 5 items per hour",
            "Alert: silent for 2 hours",
            "Recovered: a topic over 5 items per hour",
        ]
    )


def test_a_rule_for_every_bot_watches_each_bot_on_its_own(session: Session, bot: str) -> None:
    other, _ = create_bot(session=session, name="other", write_config=False)
    alerts.create_rule(session=session, kind="failure_rate", threshold=20, actor=ADA)
    _calls(session, bot, NOW - timedelta(minutes=5), refused=6)
    _calls(session, other.bot_id, NOW - timedelta(minutes=5), ok=6)
    assert alerts.check_alerts(session=session, now=NOW).opened == 1
    assert len(_items(session, bot)) == 1 and _items(session, other.bot_id) == []


def test_the_schedule_survives_a_restart_and_two_workers_check_once(session: Session, bot: str) -> None:
    alerts.create_rule(session=session, kind="failure_rate", threshold=20, bot_id=bot, actor=ADA)
    _calls(session, bot, NOW - timedelta(minutes=5), refused=6)
    session.commit()
    results: list[alerts.CheckResult] = []
    start = threading.Barrier(2)

    def worker() -> None:
        start.wait()
        with write_session() as own:
            results.append(alerts.check_alerts(session=own, now=NOW, interval_seconds=60))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(r.ran for r in results) == [False, True]
    assert len(_items(session, bot)) == 1
    # A "restarted" worker (a new session, the schedule read from the database) waits for the interval.
    with write_session() as fresh:
        assert not alerts.check_alerts(session=fresh, now=NOW + timedelta(seconds=30), interval_seconds=60).ran
    with write_session() as fresh:
        assert alerts.check_alerts(session=fresh, now=NOW + timedelta(seconds=61), interval_seconds=60).ran
    assert len(session.exec(select(AlertEpisode)).all()) == 1


def test_bad_thresholds_are_refused_and_store_nothing(session: Session, bot: str) -> None:
    for kwargs in (
        {"kind": "cpu", "threshold": 1},
        {"kind": "failure_rate", "threshold": 150},
        {"kind": "failure_rate", "threshold": 10, "window_minutes": 1},
        {"kind": "silence", "threshold": 0},
        {"kind": "failure_rate", "threshold": 10, "bot_id": "nope"},
        {"kind": "failure_rate", "threshold": 10, "topic_key": "builds"},
    ):
        with pytest.raises(AppError) as refused:
            alerts.create_rule(session=session, actor=ADA, **kwargs)  # type: ignore[arg-type]
        assert refused.value.code in ("validation_error", "bot_not_found")
        session.rollback()
    assert alerts.list_rules(session=session) == []
