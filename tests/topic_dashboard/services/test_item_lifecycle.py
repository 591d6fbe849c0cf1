"""An alert that changes: a publish with the item's dedupe_key and update=true rewrites it in place,
marked updated and unread again for everyone; resolved by the bot or a person; refusals store
nothing. On every backend."""

import pytest
from sqlmodel import Session, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import TopicItem, User
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.items import get_item, set_item_flags, set_resolved
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.search import search_items
from topic_dashboard.services.topics import TopicSettingsUpdate, update_topic_settings


def _bot(session: Session) -> str:
    bot, _ = create_bot(session=session, name="alerts", write_config=False)
    update_topic_settings(session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=1000))
    return bot.bot_id


def _publish(session: Session, bot_id: str, **fields: object):  # type: ignore[no-untyped-def]
    base: dict[str, object] = {"topic_key": "inbox", "content": "details", "message_type": "result"}
    return publish_item(session=session, bot_id=bot_id, request=PublishRequest(**{**base, **fields}))  # type: ignore[arg-type]


def test_an_update_rewrites_the_item_in_place_and_makes_it_unread_again_for_everyone(session: Session) -> None:
    bot_id = _bot(session)
    reader = User(username="oncall", password_hash="x", role="viewer")
    session.add(reader)
    session.commit()
    first = _publish(session, bot_id, title="p99 latency 850 ms", level="warn", dedupe_key="latency-db")
    set_item_flags(session=session, bot_id=bot_id, item_id=first.item_id, is_read=True)
    set_item_flags(session=session, bot_id=bot_id, item_id=first.item_id, is_read=True, reader=reader.id)

    second = _publish(
        session,
        bot_id,
        title="p99 latency 2.4 s",
        content="getting worse: mango",
        level="error",
        dedupe_key="latency-db",
        update=True,
    )
    assert second.item_id == first.item_id and second.updated and not second.deduplicated
    item = get_item(session=session, bot_id=bot_id, item_id=first.item_id)
    assert (item.title, item.level, item.update_count, item.is_read) == ("p99 latency 2.4 s", "error", 1, False)
    assert item.updated_at is not None and item.resolved_at is None
    assert get_item(session=session, bot_id=bot_id, item_id=first.item_id, reader=reader.id).is_read is False
    assert len(session.exec(select(TopicItem).where(TopicItem.bot_id == bot_id)).all()) == 1
    assert [hit.item.id for hit in search_items(session=session, bot_id=bot_id, query="mango").hits] == [first.item_id]

    third = _publish(
        session,
        bot_id,
        title="latency back to normal",
        level="success",
        dedupe_key="latency-db",
        update=True,
        resolved=True,
    )
    resolved = get_item(session=session, bot_id=bot_id, item_id=third.item_id)
    assert resolved.update_count == 2 and resolved.resolved_at is not None and resolved.resolved_by == "the bot"
    _publish(session, bot_id, title="latency again", dedupe_key="latency-db", update=True, resolved=False)
    assert get_item(session=session, bot_id=bot_id, item_id=first.item_id).resolved_at is None


def test_an_update_with_a_new_key_publishes_and_without_update_the_window_still_deduplicates(session: Session) -> None:
    bot_id = _bot(session)
    made = _publish(session, bot_id, title="disk 91%", dedupe_key="disk", update=True)
    assert not made.updated and not made.deduplicated
    again = _publish(session, bot_id, title="disk 92%", dedupe_key="disk")
    assert again.deduplicated and again.item_id == made.item_id
    assert get_item(session=session, bot_id=bot_id, item_id=made.item_id).title == "disk 91%"  # not rewritten


@pytest.mark.parametrize(
    ("fields", "field"),
    [({"update": True}, "dedupe_key"), ({"resolved": True, "dedupe_key": "k"}, "resolved")],
)
def test_update_and_resolved_need_what_they_act_on(session: Session, fields: dict[str, object], field: str) -> None:
    bot_id = _bot(session)
    with pytest.raises(AppError) as error:
        _publish(session, bot_id, title="x", **fields)
    assert error.value.code == "invalid_argument" and error.value.field == field
    session.rollback()
    assert session.exec(select(TopicItem).where(TopicItem.bot_id == bot_id)).all() == []


def test_a_person_resolves_and_reopens_an_item(session: Session) -> None:
    bot_id = _bot(session)
    item_id = _publish(session, bot_id, title="queue backlog").item_id
    done = set_resolved(session=session, bot_id=bot_id, item_id=item_id, resolved=True, actor="alice")
    assert done.resolved_by == "alice" and done.resolved_at
    assert (
        set_resolved(session=session, bot_id=bot_id, item_id=item_id, resolved=False, actor="alice").resolved_at is None
    )
    with pytest.raises(AppError) as error:
        set_resolved(session=session, bot_id=bot_id, item_id=999_999, resolved=True, actor="alice")
    assert error.value.code == "item_not_found"
