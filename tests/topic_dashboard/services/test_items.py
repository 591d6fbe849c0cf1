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
