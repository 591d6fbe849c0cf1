"""Reading items: the tag filter (done in the database, exact on the tag), on every backend."""

from sqlmodel import Session

from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.items import ItemFilters, list_items
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicSettingsUpdate, update_topic_settings


def _bot_with_items(session: Session, tagged: list[list[str]]) -> str:
    bot, _ = create_bot(session=session, name="tags", write_config=False)
    update_topic_settings(session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=1000))
    for index, tags in enumerate(tagged):
        publish_item(
            session=session,
            bot_id=bot.bot_id,
            request=PublishRequest(
                topic_key="inbox", title=f"item {index} ci", content="tags test", tags=tags, message_type="result"
            ),
        )
    return bot.bot_id


def _titles(session: Session, bot_id: str, tag: str, limit: int = 50) -> list[str]:
    page = list_items(session=session, bot_id=bot_id, filters=ItemFilters(tag=tag), limit=limit)
    return [item.title for item in page.items]


def test_the_tag_filter_matches_whole_tags_only(session: Session) -> None:
    bot_id = _bot_with_items(session, [["ci"], ["circle"], ["a_b"], ["axb"], ["发布", "ci"]])
    assert _titles(session, bot_id, "ci") == ["item 4 ci", "item 0 ci"]  # not "circle", not the title's "ci"
    assert _titles(session, bot_id, "a_b") == ["item 2 ci"]  # "_" is not a wildcard
    assert _titles(session, bot_id, "%") == []  # nor is "%" in the filter
    assert _titles(session, bot_id, "发布") == ["item 4 ci"]
    assert _titles(session, bot_id, "none") == []


def test_the_tag_filter_pages_with_a_cursor(session: Session) -> None:
    bot_id = _bot_with_items(session, [["ci"] if n % 2 else ["other"] for n in range(9)])
    first = list_items(session=session, bot_id=bot_id, filters=ItemFilters(tag="ci"), limit=3)
    assert [i.title for i in first.items] == ["item 7 ci", "item 5 ci", "item 3 ci"] and first.next_cursor
    second = list_items(
        session=session, bot_id=bot_id, filters=ItemFilters(tag="ci"), cursor=first.next_cursor, limit=3
    )
    assert [i.title for i in second.items] == ["item 1 ci"] and second.next_cursor is None


def test_the_unread_of_a_view_are_its_filters_up_to_the_newest_seen_over_many_pages(session: Session) -> None:
    from topic_dashboard.services.items import set_item_flags, unread_in_view

    bot_id = _bot_with_items(session, [["night"] if n % 3 == 0 else [] for n in range(450)])
    ids = [item.id for item in list_items(session=session, bot_id=bot_id, limit=200).items]
    newest = ids[0]
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[5], is_read=True)
    set_item_flags(session=session, bot_id=bot_id, item_id=ids[1], is_pinned=True)
    everything = unread_in_view(session=session, bot_id=bot_id)
    assert len(everything) == 449 and ids[5] not in everything  # more than two pages of 200
    assert everything == sorted(everything, reverse=True)
    assert unread_in_view(session=session, bot_id=bot_id, filters=ItemFilters(pinned_only=True)) == [ids[1]]
    assert len(unread_in_view(session=session, bot_id=bot_id, filters=ItemFilters(tag="night"))) == 149  # 150, one read
    seen_up_to = ids[10]
    assert max(unread_in_view(session=session, bot_id=bot_id, up_to_id=seen_up_to)) == seen_up_to
    assert newest not in unread_in_view(session=session, bot_id=bot_id, up_to_id=seen_up_to)


def test_set_read_changes_only_this_bots_items_and_says_which(session: Session) -> None:
    from topic_dashboard.services.items import set_read

    mine = _bot_with_items(session, [[], [], []])
    other = _bot_with_items(session, [[]])
    my_ids = [item.id for item in list_items(session=session, bot_id=mine).items]
    their_id = list_items(session=session, bot_id=other).items[0].id
    assert sorted(set_read(session=session, bot_id=mine, item_ids=[*my_ids[:2], their_id], is_read=True)) == sorted(
        my_ids[:2]
    )
    assert set_read(session=session, bot_id=mine, item_ids=my_ids[:2], is_read=True) == []  # already read
    assert list_items(session=session, bot_id=other).items[0].is_read is False
    assert sorted(set_read(session=session, bot_id=mine, item_ids=my_ids, is_read=False)) == sorted(my_ids[:2])


def test_unread_by_bot_counts_unread_unarchived_items_per_bot(session: Session) -> None:
    from topic_dashboard.services.items import set_item_flags, unread_by_bot

    first = _bot_with_items(session, [[], [], []])
    second = _bot_with_items(session, [[]])
    ids = [item.id for item in list_items(session=session, bot_id=first).items]
    set_item_flags(session=session, bot_id=first, item_id=ids[0], is_read=True)
    set_item_flags(session=session, bot_id=first, item_id=ids[1], is_archived=True)
    counts = unread_by_bot(session=session)
    assert (counts[first], counts[second]) == (1, 1)
