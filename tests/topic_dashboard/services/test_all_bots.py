"""The "All bots" view reads several bots at once (a scope: a tuple of bot ids): one stream newest
first, search, counts, flags and mark-all-read across them, and nothing of a bot outside the scope.
Actions on one item act on that item's own bot. On every backend."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from topic_dashboard.errors import AppError
from topic_dashboard.models import User
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.items import (
    ItemFilters,
    get_item,
    item_flags,
    list_items,
    set_flags_many,
    set_item_flags,
    set_read,
    unread_in_view,
)
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.search import items_in_view, search_items
from topic_dashboard.services.topics import TopicSettingsUpdate, update_topic_settings
from topic_dashboard.services.versions import panel_signature, panel_signatures


def _bot(session: Session, name: str) -> str:
    bot, _ = create_bot(session=session, name=name, write_config=False)
    update_topic_settings(session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=1000))
    return bot.bot_id


def _publish(session: Session, bot_id: str, title: str) -> int:
    request = PublishRequest(topic_key="inbox", title=title, content="body of " + title, message_type="result")
    return publish_item(session=session, bot_id=bot_id, request=request).item_id


def _reader(session: Session) -> int:
    user = User(username="reader", password_hash="x", role="viewer")
    session.add(user)
    session.commit()
    assert user.id is not None
    return user.id


@pytest.fixture
def three(session: Session) -> tuple[str, str, str, dict[str, int]]:
    """Bots a and b (in the scope) and c (outside it), items interleaved in time."""
    a, b, c = _bot(session, "alpha"), _bot(session, "beta"), _bot(session, "gamma")
    ids = {}
    for index, bot_id in enumerate([a, b, c, a, b, c]):
        ids[f"{bot_id}-{index}"] = _publish(session, bot_id, f"deploy report {index}")
    return a, b, c, ids


def test_one_stream_of_the_scopes_bots_newest_first_paged(session: Session, three: tuple) -> None:
    a, b, c, _ = three
    page = list_items(session=session, bot_id=(a, b), limit=3)
    assert [item.bot_id for item in page.items] == [b, a, b]
    rest = list_items(session=session, bot_id=(a, b), cursor=page.next_cursor, limit=3)
    assert [item.bot_id for item in rest.items] == [a] and rest.next_cursor is None
    every = page.items + rest.items
    assert [item.id for item in every] == sorted((item.id for item in every), reverse=True)
    assert c not in {item.bot_id for item in every}
    # An empty or malformed scope reads nothing (never "every bot").
    assert list_items(session=session, bot_id=(), limit=10).items == []
    assert list_items(session=session, bot_id=("*",), limit=10).items == []


def test_search_and_the_view_cover_the_scope_only(session: Session, three: tuple) -> None:
    a, b, c, _ = three
    hits = search_items(session=session, bot_id=(a, b), query="deploy report")
    assert len(hits.hits) == 4 and {hit.item.bot_id for hit in hits.hits} == {a, b}
    shown = items_in_view(session=session, bot_id=(a, b), filters=ItemFilters())
    assert len(shown) == 4


def test_an_item_outside_the_scope_cannot_be_read_or_changed_through_it(session: Session, three: tuple) -> None:
    a, b, c, ids = three
    outside = ids[f"{c}-2"]
    with pytest.raises(AppError) as raised:
        get_item(session=session, bot_id=(a, b), item_id=outside)
    assert raised.value.code == "item_not_found"
    with pytest.raises(AppError):
        set_item_flags(session=session, bot_id=(a, b), item_id=outside, is_read=True)
    assert set_flags_many(session=session, bot_id=(a, b), item_ids=[outside], flags={"is_read": True}) == []
    assert get_item(session=session, bot_id=c, item_id=outside).is_read is False
    assert item_flags(session=session, bot_id=(a, b), item_ids=[outside]) == {}


def test_changes_across_bots_land_on_each_items_own_bot(session: Session, three: tuple) -> None:
    a, b, c, ids = three
    reader = _reader(session)
    before = {bot_id: panel_signature(session=session, bot_id=bot_id)[0] for bot_id in (a, b, c)}
    unread = unread_in_view(session=session, bot_id=(a, b), reader=reader)
    assert len(unread) == 4
    changed = set_read(session=session, bot_id=(a, b), item_ids=unread, is_read=True, reader=reader)
    assert sorted(changed) == sorted(unread)
    after = panel_signatures(session=session, bot_ids=[a, b, c])
    # Each bot whose items changed tells its panels; the bot outside the scope is untouched.
    assert after[a][0] > before[a] and after[b][0] > before[b] and after[c][0] == before[c]
    assert unread_in_view(session=session, bot_id=(a, b), reader=reader) == []
    assert len(unread_in_view(session=session, bot_id=c, reader=reader)) == 2
    # Per person: the team's state (reader None) is unchanged.
    assert len(unread_in_view(session=session, bot_id=(a, b))) == 4
    pinned = set_flags_many(
        session=session, bot_id=(a, b), item_ids=[ids[f"{a}-0"], ids[f"{b}-1"]], flags={"is_pinned": True}
    )
    assert len(pinned) == 2
    assert list_items(session=session, bot_id=(a, b), filters=ItemFilters(pinned_only=True)).items[0].is_pinned


def test_panel_signatures_read_several_bots_and_leave_out_unknown_ones(session: Session, three: tuple) -> None:
    a, b, _, _ = three
    signatures = panel_signatures(session=session, bot_ids=[a, b, "no-such-bot"])
    assert set(signatures) == {a, b}
    assert signatures[a] == panel_signature(session=session, bot_id=a)
    assert panel_signatures(session=session, bot_ids=[]) == {}
