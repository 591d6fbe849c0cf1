"""Export of a view: exactly the items the view shows (filters or search, a person's reading state),
as JSON or CSV; formulas from a bot's text defused; Chinese kept. On every backend."""

import csv
import io
import json

import pytest
from sqlmodel import Session

from topic_dashboard.errors import AppError
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.export import as_csv, as_json, export
from topic_dashboard.services.items import ItemFilters
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.search import items_in_view as view_items
from topic_dashboard.services.topics import TopicSettingsUpdate, update_topic_settings


def _bot(session: Session) -> str:
    bot, _ = create_bot(session=session, name="export", write_config=False)
    update_topic_settings(session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=1000))
    for title, content, level, tags in (
        ('=HYPERLINK("http://x")', "+1 formula", "error", ["night"]),
        ("部署完成", "订单服务已部署", "info", ["发布"]),
        ("deploy", "plain", "info", []),
    ):
        publish_item(
            session=session,
            bot_id=bot.bot_id,
            request=PublishRequest(topic_key="inbox", title=title, content=content, level=level, tags=tags),
        )
    return bot.bot_id


def test_the_export_holds_what_the_view_shows(session: Session) -> None:
    bot_id = _bot(session)
    assert [i.title for i in view_items(session=session, bot_id=bot_id, filters=ItemFilters(level="error"))] == [
        '=HYPERLINK("http://x")'
    ]
    assert len(view_items(session=session, bot_id=bot_id, filters=ItemFilters())) == 3
    assert [i.title for i in view_items(session=session, bot_id=bot_id, filters=ItemFilters(), query="部署")] == [
        "部署完成"
    ]
    assert len(view_items(session=session, bot_id=bot_id, filters=ItemFilters(), cap=2)) == 2


def test_csv_defuses_formulas_and_keeps_chinese_and_json_is_the_same_rows(session: Session) -> None:
    bot_id = _bot(session)
    shown = view_items(session=session, bot_id=bot_id, filters=ItemFilters())
    text = as_csv(shown)
    assert text.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    by_title = {row["title"]: row for row in rows}
    assert '\'=HYPERLINK("http://x")' in by_title and by_title['\'=HYPERLINK("http://x")']["content"] == "'+1 formula"
    assert by_title["部署完成"]["tags"] == "发布" and by_title["部署完成"]["is_read"] == "False"
    data = json.loads(as_json(shown))
    assert [row["title"] for row in data] == [i.title for i in shown] and data[0]["tags"] == []
    with pytest.raises(AppError) as error:
        export("xml", shown)
    assert error.value.field == "format"
