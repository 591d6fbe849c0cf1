"""The Rules page's table counts a topic's items as the panel shows them, and its archived ones apart."""

from __future__ import annotations

from sqlmodel import Session, select

from topic_dashboard.models import TopicItem
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicCreate, create_topic, topics_overview


def test_archived_items_are_counted_apart(session: Session) -> None:
    bot, _ = create_bot(session=session, name="overview", write_config=False)
    create_topic(session=session, bot_id=bot.bot_id, actor="test", data=TopicCreate(topic_key="builds", name="Builds"))
    for i in range(5):
        request = PublishRequest(topic_key="builds", title=f"Build #{i} passed", content=f"all {i} green")
        publish_item(session=session, bot_id=bot.bot_id, request=request)
    items = session.exec(select(TopicItem).where(TopicItem.bot_id == bot.bot_id).order_by(TopicItem.id)).all()
    for item in items[:2]:  # archived for everyone
        item.is_archived = True
        session.add(item)
    session.commit()

    rows = {row.topic_key: row for row in topics_overview(session=session, bot_id=bot.bot_id)}

    # A walkthrough read 5 items here and 3 in the panel.
    assert (rows["builds"].item_count, rows["builds"].archived_count) == (3, 2)
    assert (rows["inbox"].item_count, rows["inbox"].archived_count, rows["inbox"].last_item_at) == (0, 0, None)
    assert rows["builds"].last_item_at is not None


def test_topic_names_name_each_key_once_over_several_bots(session: Session) -> None:
    """Insights' legend names a topic as the panel does; across bots one key is named by the first bot's topic."""
    from topic_dashboard.services.bots import create_bot
    from topic_dashboard.services.topics import TopicCreate, create_topic, topic_names

    first, _ = create_bot(session=session, name="first")
    second, _ = create_bot(session=session, name="second")
    for bot, name in ((first, "Builds"), (second, "CI runs")):
        create_topic(session=session, bot_id=bot.bot_id, actor="t", data=TopicCreate(topic_key="builds", name=name))
    create_topic(session=session, bot_id=second.bot_id, actor="t", data=TopicCreate(topic_key="alerts", name="Pager"))
    both = topic_names(session=session, bot_ids=sorted([first.bot_id, second.bot_id]))
    builds_of_first = "Builds" if first.bot_id < second.bot_id else "CI runs"
    assert both["builds"] == builds_of_first and both["alerts"] == "Pager" and "inbox" in both
    assert topic_names(session=session, bot_ids=[second.bot_id])["builds"] == "CI runs"
    assert topic_names(session=session, bot_ids=[]) == {}
