"""topic_count, the per-topic counts the database keeps (migration 0014), always equals a count over
the items, whatever changed them: publishes, bulk reads, moves, archiving, deletes, a deleted bot."""

from __future__ import annotations

import random

import pytest
import sqlalchemy as sa
from sqlmodel import Session, col, select

from topic_dashboard.db import write_session
from topic_dashboard.models import TopicCount, TopicItem
from topic_dashboard.services.bots import create_bot, delete_bot
from topic_dashboard.services.items import topic_counts
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicCreate, TopicSettingsUpdate, create_topic, update_topic_settings


def _kept(session: Session) -> dict[tuple[str, str, bool], int]:
    session.expire_all()
    rows = session.exec(select(TopicCount.bot_id, TopicCount.topic_key, TopicCount.is_read, TopicCount.n)).all()
    return {(b, t, bool(r)): int(n) for b, t, r, n in rows if n}


def _counted(session: Session) -> dict[tuple[str, str, bool], int]:
    rows = session.exec(
        select(TopicItem.bot_id, TopicItem.topic_key, TopicItem.is_read, sa.func.count())
        .where(col(TopicItem.is_archived).is_(False))
        .group_by(col(TopicItem.bot_id), col(TopicItem.topic_key), col(TopicItem.is_read))
    ).all()
    return {(b, t, bool(r)): int(n) for b, t, r, n in rows}


def _bot(session: Session, name: str) -> str:
    bot, _ = create_bot(session=session, name=name, write_config=False)
    update_topic_settings(
        session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=10_000)
    )
    for key in ("builds", "alerts"):
        create_topic(session=session, bot_id=bot.bot_id, actor="test", data=TopicCreate(topic_key=key, name=key))
    return bot.bot_id


def test_the_kept_counts_follow_every_change_to_the_items(session: Session) -> None:
    rng = random.Random(7)
    a, b = _bot(session, "a"), _bot(session, "b")
    keys = ("builds", "alerts", "inbox")
    for i in range(60):
        bot = a if i % 3 else b
        request = PublishRequest(
            topic_key=rng.choice(keys), title=f"#{i}", content=f"result {i}", message_type="result"
        )
        publish_item(session=session, bot_id=bot, request=request)
    assert _kept(session) == _counted(session) and sum(_kept(session).values()) == 60
    assert topic_counts(session=session, bot_id=a)["builds"][1] == sum(
        n for (bot, key, _), n in _counted(session).items() if bot == a and key == "builds"
    )

    changes = [
        sa.update(TopicItem).where(TopicItem.bot_id == a, TopicItem.topic_key == "builds").values(is_read=True),
        sa.update(TopicItem).where(col(TopicItem.id) % 4 == 0).values(topic_key="alerts"),  # moves, both bots
        sa.update(TopicItem).where(col(TopicItem.id) % 5 == 0).values(is_archived=True),
        sa.update(TopicItem).where(col(TopicItem.id) % 10 == 0).values(is_archived=False, is_read=True),
        sa.update(TopicItem).where(col(TopicItem.id) % 7 == 0).values(title="retitled"),  # counts unchanged
        sa.delete(TopicItem).where(col(TopicItem.id) % 6 == 0),
        sa.update(TopicItem).where(TopicItem.bot_id == b).values(is_read=False),
    ]
    for change in changes:
        session.execute(change)
        session.commit()
        assert _kept(session) == _counted(session), str(change)

    session.rollback()  # a change that does not commit leaves the counts as they were
    before = _kept(session)
    session.execute(sa.update(TopicItem).values(is_read=True))
    session.rollback()
    assert _kept(session) == before

    delete_bot(session=session, bot_id=b)
    assert _kept(session) == _counted(session)
    assert not any(bot == b for bot, _, _ in _kept(session))


def test_a_person_reading_while_the_bot_publishes_never_deadlocks(engine: sa.Engine, session: Session) -> None:
    """PostgreSQL (SQLite has one write lock for the whole database: nothing to order).
    Publish locks the bot's settings row, then its count row; marking read updates items (their count
    rows) and then bumps the version (the settings row). The triggers take the settings row first, so
    the two wait in one order (PostgreSQL reports a crosswise wait as a deadlock)."""
    import threading

    from topic_dashboard.services.items import set_flags_many

    if engine.dialect.name != "postgresql":
        pytest.skip("row locks: PostgreSQL only")

    bot = _bot(session, "busy")
    for i in range(20):
        request = PublishRequest(topic_key="builds", title=f"#{i}", content="seed", message_type="result")
        publish_item(session=session, bot_id=bot, request=request)
    ids = [int(i) for i in session.exec(select(TopicItem.id).where(TopicItem.bot_id == bot)) if i is not None]
    errors: list[BaseException] = []

    def publish() -> None:
        try:
            for i in range(40):
                with write_session(engine) as own:
                    request = PublishRequest(topic_key="builds", title=f"p{i}", content="new", message_type="result")
                    publish_item(session=own, bot_id=bot, request=request)
        except BaseException as exc:
            errors.append(exc)

    def read() -> None:
        try:
            for i in range(40):
                with write_session(engine) as own:
                    set_flags_many(session=own, bot_id=bot, item_ids=ids, flags={"is_read": i % 2 == 0})
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=publish), threading.Thread(target=read)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    assert _kept(session) == _counted(session)
