"""Reading state is per person: one reader's read, pinned and archived change nothing for another;
the team's state (the item's own flags: today's state after the upgrade, and what an admin sets for
everyone) shows through wherever a person has not changed their own. On every backend."""

from sqlmodel import Session, select

from topic_dashboard.models import ItemState, User
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.items import (
    ItemFilters,
    get_item,
    item_flags,
    list_items,
    pinned_count,
    set_item_flags,
    set_read,
    topic_counts,
    unread_by_bot,
    unread_in_view,
)
from topic_dashboard.services.panel import panel_snapshot
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicSettingsUpdate, update_topic_settings


def _user(session: Session, name: str) -> int:
    user = User(username=name, password_hash="x", role="viewer")
    session.add(user)
    session.commit()
    assert user.id is not None
    return user.id


def _bot(session: Session, count: int) -> tuple[str, list[int]]:
    bot, _ = create_bot(session=session, name="reading", write_config=False)
    update_topic_settings(session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=1000))
    for index in range(count):
        publish_item(
            session=session,
            bot_id=bot.bot_id,
            request=PublishRequest(
                topic_key="inbox", title=f"item {index}", content="body", tags=["t"], message_type="result"
            ),
        )
    ids = [item.id for item in list_items(session=session, bot_id=bot.bot_id, limit=200).items]
    return bot.bot_id, ids


def test_one_readers_read_pin_and_archive_change_nothing_for_another_or_the_team(session: Session) -> None:
    bot_id, ids = _bot(session, 6)
    ann, bob = _user(session, "ann"), _user(session, "bob")
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[0], is_read=True, reader=ann)
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[1], is_pinned=True, reader=ann)
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[2], is_archived=True, reader=ann)

    assert get_item(session=session, bot_id=bot_id, item_id=ids[0], reader=ann).is_read is True
    for other in (bob, None):
        seen = {item.id: item for item in list_items(session=session, bot_id=bot_id, reader=other).items}
        assert len(seen) == 6 and not any(item.is_read or item.is_pinned or item.is_archived for item in seen.values())
        assert topic_counts(session=session, bot_id=bot_id, reader=other) == {"inbox": (6, 6)}
        assert pinned_count(session=session, bot_id=bot_id, reader=other) == 0

    mine = {item.id: item for item in list_items(session=session, bot_id=bot_id, reader=ann).items}
    assert ids[2] not in mine and len(mine) == 5  # archived for ann only
    assert mine[ids[0]].is_read and mine[ids[1]].is_pinned
    assert topic_counts(session=session, bot_id=bot_id, reader=ann) == {"inbox": (4, 5)}
    assert pinned_count(session=session, bot_id=bot_id, reader=ann) == 1
    assert unread_by_bot(session=session, reader=ann)[bot_id] == 4
    assert unread_by_bot(session=session, reader=bob)[bot_id] == 6
    pinned = list_items(session=session, bot_id=bot_id, filters=ItemFilters(pinned_only=True), reader=ann).items
    assert [item.id for item in pinned] == [ids[1]]
    assert list_items(session=session, bot_id=bot_id, filters=ItemFilters(pinned_only=True), reader=bob).items == []
    unread = list_items(session=session, bot_id=bot_id, filters=ItemFilters(unread_only=True), reader=ann).items
    assert ids[0] not in [item.id for item in unread] and len(unread) == 4
    with_archived = list_items(session=session, bot_id=bot_id, filters=ItemFilters(include_archived=True), reader=ann)
    assert next(item for item in with_archived.items if item.id == ids[2]).is_archived is True


def test_the_team_state_shows_through_until_a_person_changes_their_own(session: Session) -> None:
    bot_id, ids = _bot(session, 4)
    ann = _user(session, "ann")
    # The team's state: today's flags after the upgrade, or an admin's "for everyone".
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[0], is_read=True)
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[1], is_pinned=True)
    assert get_item(session=session, bot_id=bot_id, item_id=ids[0], reader=ann).is_read is True
    assert get_item(session=session, bot_id=bot_id, item_id=ids[1], reader=ann).is_pinned is True
    assert topic_counts(session=session, bot_id=bot_id, reader=ann) == {"inbox": (3, 4)}
    # Ann marks the team-read item unread and unpins the team pin, for herself.
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[0], is_read=False, reader=ann)
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[1], is_pinned=False, reader=ann)
    assert topic_counts(session=session, bot_id=bot_id, reader=ann) == {"inbox": (4, 4)}
    assert pinned_count(session=session, bot_id=bot_id, reader=ann) == 0
    assert topic_counts(session=session, bot_id=bot_id) == {"inbox": (3, 4)}
    assert pinned_count(session=session, bot_id=bot_id) == 1
    # Pinning keeps her read flag; one row per person and item.
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[0], is_pinned=True, reader=ann)
    public = get_item(session=session, bot_id=bot_id, item_id=ids[0], reader=ann)
    assert public.is_read is False and public.is_pinned is True and public.team_pinned is False
    assert len(session.exec(select(ItemState)).all()) == 2


def test_archived_for_everyone_stays_archived_for_every_reader(session: Session) -> None:
    bot_id, ids = _bot(session, 3)
    ann = _user(session, "ann")
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[0], is_archived=True)  # an admin, for everyone
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[0], is_archived=False, reader=ann)
    public = get_item(session=session, bot_id=bot_id, item_id=ids[0], reader=ann)
    assert public.is_archived is True and public.team_archived is True
    assert [item.id for item in list_items(session=session, bot_id=bot_id, reader=ann).items] == ids[1:]
    assert topic_counts(session=session, bot_id=bot_id, reader=ann) == {"inbox": (2, 2)}


def test_mark_read_in_a_view_and_its_undo_are_one_persons(session: Session) -> None:
    bot_id, ids = _bot(session, 450)  # more than the 200 of a page and the 500 of a write chunk's rows
    ann, bob = _user(session, "ann"), _user(session, "bob")
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[3], is_read=True, reader=ann)
    view = unread_in_view(session=session, bot_id=bot_id, filters=ItemFilters(tag="t"), reader=ann)
    assert len(view) == 449
    changed = set_read(session=session, bot_id=bot_id, item_ids=view, is_read=True, reader=ann)
    assert sorted(changed) == sorted(view)
    assert topic_counts(session=session, bot_id=bot_id, reader=ann) == {"inbox": (0, 450)}
    assert topic_counts(session=session, bot_id=bot_id, reader=bob) == {"inbox": (450, 450)}
    assert set_read(session=session, bot_id=bot_id, item_ids=view, is_read=True, reader=ann) == []
    back = set_read(session=session, bot_id=bot_id, item_ids=changed, is_read=False, reader=ann)
    assert sorted(back) == sorted(view)
    assert topic_counts(session=session, bot_id=bot_id, reader=ann) == {"inbox": (449, 450)}  # ids[3] stays read
    flags = item_flags(session=session, bot_id=bot_id, item_ids=[ids[3], ids[4]], reader=ann)
    assert flags[ids[3]].is_read and not flags[ids[4]].is_read
    assert not item_flags(session=session, bot_id=bot_id, item_ids=[ids[3]], reader=bob)[ids[3]].is_read
    snapshot = panel_snapshot(session=session, bot_id=bot_id, reader=ann)
    assert [(t.topic_key, t.unread, t.total) for t in snapshot.topics if t.total] == [("inbox", 449, 450)]


def test_a_deleted_person_or_item_takes_its_reading_state_along(session: Session) -> None:
    from topic_dashboard.models import TopicItem

    bot_id, ids = _bot(session, 2)
    ann = _user(session, "ann")
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[0], is_read=True, reader=ann)
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[1], is_read=True, reader=ann)
    session.delete(session.get(User, ann))
    session.commit()
    assert session.exec(select(ItemState)).all() == []
    bob = _user(session, "bob")
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[0], is_pinned=True, reader=bob)
    session.delete(session.get(TopicItem, ids[0]))
    session.commit()
    assert session.exec(select(ItemState)).all() == []


def test_the_upgrade_keeps_todays_reading_state_as_every_existing_users(tmp_path: object) -> None:
    """Before migration 0006 reading state lived on the items; after it, every user who existed then
    sees exactly that state, and can change their own from there."""
    from pathlib import Path

    from topic_dashboard.db import create_db_engine
    from topic_dashboard.migrate import upgrade_database

    url = f"sqlite:///{Path(str(tmp_path)) / 'old.db'}"
    upgrade_database(url, revision="0005")
    engine = create_db_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO user_account (username, password_hash, role, is_active, created_at) "
            "VALUES ('old-admin', 'x', 'admin', 1, '2026-11-01 00:00:00')"
        )
        conn.exec_driver_sql(
            "INSERT INTO bot (id, name, token_hash, token_created_at, created_at, updated_at) "
            "VALUES ('b1', 'old', 'h', '2026-11-01 00:00:00', '2026-11-01 00:00:00', '2026-11-01 00:00:00')"
        )
        for item_id, read, pinned, archived in ((1, 1, 0, 0), (2, 0, 1, 0), (3, 0, 0, 1), (4, 0, 0, 0)):
            conn.exec_driver_sql(
                "INSERT INTO topic_item (id, bot_id, topic_key, title, content, level, tags_json, source, "
                "is_read, is_pinned, is_archived, created_at) VALUES "
                f"({item_id}, 'b1', 'inbox', 't{item_id}', 'c', 'info', '[]', 'mcp', {read}, {pinned}, {archived}, "
                "'2026-11-01 00:00:00')"
            )
    engine.dispose()
    upgrade_database(url)
    engine = create_db_engine(url)
    try:
        with Session(engine) as session:
            user_id = session.exec(select(User.id).where(User.username == "old-admin")).one()
            seen = {item.id: item for item in list_items(session=session, bot_id="b1", reader=user_id).items}
            assert sorted(seen) == [1, 2, 4]  # 3 was archived
            assert seen[1].is_read and not seen[2].is_read and seen[2].is_pinned and not seen[4].is_read
            assert topic_counts(session=session, bot_id="b1", reader=user_id) == {"inbox": (2, 3)}
    finally:
        engine.dispose()


def test_bulk_flags_change_only_this_bots_items_for_the_reader(session: Session) -> None:
    from topic_dashboard.errors import AppError
    from topic_dashboard.services.items import set_flags_many

    bot_id, ids = _bot(session, 5)
    other_id, other_ids = _bot(session, 1)
    ann = _user(session, "ann")
    done = set_flags_many(
        session=session, bot_id=bot_id, item_ids=[*ids[:3], other_ids[0], -4], flags={"is_pinned": True}, reader=ann
    )
    assert sorted(done) == sorted(ids[:3])
    assert pinned_count(session=session, bot_id=bot_id, reader=ann) == 3
    assert pinned_count(session=session, bot_id=bot_id) == 0  # the team's: untouched
    assert pinned_count(session=session, bot_id=other_id, reader=ann) == 0
    set_flags_many(
        session=session, bot_id=bot_id, item_ids=ids, flags={"is_read": True, "is_archived": True}, reader=ann
    )
    assert topic_counts(session=session, bot_id=bot_id, reader=ann) == {}
    assert topic_counts(session=session, bot_id=bot_id) == {"inbox": (5, 5)}
    import pytest

    with pytest.raises(AppError) as error:
        set_flags_many(session=session, bot_id=bot_id, item_ids=ids, flags={"title": True}, reader=ann)  # type: ignore[dict-item]
    assert error.value.field == "flags"
