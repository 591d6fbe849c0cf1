"""Retention per topic: keep N days and/or the newest N; pinned items (for everyone or by anyone)
are kept regardless; purged in batches; a dry run counts exactly what a purge deletes; nothing
inside retention, and nothing of another topic or bot, is touched. On every backend."""

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import TopicItem, User, utcnow
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.items import set_item_flags
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.retention import count_purgeable, purge_all, purge_topic
from topic_dashboard.services.topics import (
    TopicCreate,
    TopicSettingsUpdate,
    TopicUpdate,
    create_topic,
    get_topic,
    update_topic,
    update_topic_settings,
)


def _world(session: Session, count: int = 10) -> tuple[str, list[int], list[int]]:
    """A bot with `count` items in "ci" (one per day back, the oldest first) and 3 in "alerts"."""
    bot, _ = create_bot(session=session, name="retention", write_config=False)
    update_topic_settings(session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=1000))
    for key in ("ci", "alerts"):
        create_topic(session=session, bot_id=bot.bot_id, data=TopicCreate(topic_key=key, name=key), actor="t")
    ids = []
    for index in range(count):
        result = publish_item(
            session=session,
            bot_id=bot.bot_id,
            request=PublishRequest(topic_key="ci", title=f"ci {index}", content="x", message_type="result"),
        )
        ids.append(result.item_id)
    others = [
        publish_item(
            session=session,
            bot_id=bot.bot_id,
            request=PublishRequest(topic_key="alerts", title=f"alert {n}", content="x", message_type="result"),
        ).item_id
        for n in range(3)
    ]
    now = utcnow()
    for age, item_id in zip(range(count, 0, -1), ids, strict=True):  # ci 0 is `count` days old, the last 1 day
        session.exec(
            sa.update(TopicItem)
            .where(col(TopicItem.id) == item_id)
            .values(created_at=now - timedelta(days=age, hours=1))
        )
    session.exec(sa.update(TopicItem).where(col(TopicItem.id).in_(others)).values(created_at=now - timedelta(days=400)))
    session.commit()
    return bot.bot_id, ids, others


def _sessions(engine: Engine):  # type: ignore[no-untyped-def]
    @contextmanager
    def opened() -> Iterator[Session]:
        with Session(engine) as session:
            yield session

    return opened


def _purge(session: Session, engine: Engine, **kwargs: object):  # type: ignore[no-untyped-def]
    session.rollback()  # the test's own transaction must not hold SQLite's write lock
    return purge_topic(sessions=_sessions(engine), **kwargs)  # type: ignore[arg-type]


def _purge_all(session: Session, engine: Engine) -> int:
    session.rollback()
    return purge_all(sessions=_sessions(engine))


def _left(session: Session, bot_id: str) -> set[int]:
    session.expire_all()
    return {int(i) for i in session.exec(select(TopicItem.id).where(TopicItem.bot_id == bot_id)) if i is not None}


def test_keep_days_purges_what_is_older_and_keeps_pinned_items(session: Session, engine: Engine) -> None:
    bot_id, ids, others = _world(session)
    reader = User(username="pinner", password_hash="x", role="viewer")
    session.add(reader)
    session.commit()
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[0], is_pinned=True)  # for everyone
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[1], is_pinned=True, reader=reader.id)  # by one person
    update_topic(session=session, bot_id=bot_id, topic_key="ci", data=TopicUpdate(retention_days=4), actor="t")
    # ci 0..9 are 10..1 days old: ci 0-6 are older than 4 days; 0 and 1 are pinned.
    assert count_purgeable(session=session, bot_id=bot_id, topic_key="ci").items == 5
    result = _purge(session, engine, bot_id=bot_id, topic_key="ci", batch=2)
    assert result.items == 5 and not result.dry_run and result.retention_days == 4
    assert _left(session, bot_id) == {ids[0], ids[1], *ids[7:], *others}  # the alerts topic sets nothing
    assert count_purgeable(session=session, bot_id=bot_id, topic_key="ci").items == 0


def test_keep_items_keeps_the_newest_n_and_both_limits_together(session: Session, engine: Engine) -> None:
    bot_id, ids, others = _world(session)
    update_topic(session=session, bot_id=bot_id, topic_key="ci", data=TopicUpdate(retention_items=6), actor="t")
    assert count_purgeable(session=session, bot_id=bot_id, topic_key="ci").items == 4
    assert _purge(session, engine, bot_id=bot_id, topic_key="ci").items == 4
    assert _left(session, bot_id) == {*ids[4:], *others}
    # Both: at most 6 items, none older than 3 days (ci 7, 8, 9 are 3, 2, 1 days old: 7 is 3 days and an hour).
    update_topic(session=session, bot_id=bot_id, topic_key="ci", data=TopicUpdate(retention_days=3), actor="t")
    assert _purge(session, engine, bot_id=bot_id, topic_key="ci").items == 4
    assert _left(session, bot_id) == {ids[8], ids[9], *others}


def test_a_topic_without_retention_keeps_everything_and_zero_removes_a_limit(session: Session, engine: Engine) -> None:
    bot_id, ids, others = _world(session, count=4)
    assert count_purgeable(session=session, bot_id=bot_id, topic_key="ci").items == 0
    assert _purge(session, engine, bot_id=bot_id, topic_key="ci").items == 0
    update_topic(session=session, bot_id=bot_id, topic_key="alerts", data=TopicUpdate(retention_days=30), actor="t")
    update_topic(session=session, bot_id=bot_id, topic_key="alerts", data=TopicUpdate(retention_days=0), actor="t")
    assert get_topic(session=session, bot_id=bot_id, topic_key="alerts").retention_days is None
    assert _purge_all(session, engine) == 0
    assert _left(session, bot_id) == {*ids, *others}


def test_purge_all_sweeps_every_topic_that_sets_retention(session: Session, engine: Engine) -> None:
    bot_id, ids, others = _world(session, count=5)
    update_topic(session=session, bot_id=bot_id, topic_key="alerts", data=TopicUpdate(retention_days=30), actor="t")
    update_topic(session=session, bot_id=bot_id, topic_key="ci", data=TopicUpdate(retention_items=2), actor="t")
    assert _purge_all(session, engine) == 3 + 3
    assert _left(session, bot_id) == set(ids[3:])


@pytest.mark.parametrize(
    ("field", "value"), [("retention_days", -1), ("retention_days", 3651), ("retention_items", 1_000_001)]
)
def test_a_bad_retention_is_refused_and_changes_nothing(session: Session, field: str, value: int) -> None:
    bot_id, _, _ = _world(session, count=1)
    update_topic(session=session, bot_id=bot_id, topic_key="ci", data=TopicUpdate(retention_days=7), actor="t")
    with pytest.raises(AppError) as error:
        update_topic(session=session, bot_id=bot_id, topic_key="ci", data=TopicUpdate(**{field: value}), actor="t")
    assert error.value.code == "validation_error" and error.value.field == field
    session.rollback()
    assert get_topic(session=session, bot_id=bot_id, topic_key="ci").retention_days == 7
