"""Two bots over real HTTP, each way round: neither sees nor touches the other's topics, items or settings.

A bot is whoever its token says; no argument names a bot. Each test runs twice, with the roles of
the two bots swapped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import Session, select

from tests.support.mcp import mcp_client, result_json, run_async
from tests.support.server import LiveServer
from tests.support.topics import CI_CONTENT, UNMATCHED_CONTENT
from topic_dashboard.models import Topic, TopicBotSettings, TopicItem
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.topics import TopicCreate, TopicSettingsUpdate, create_topic, update_topic_settings

# Each bot has one topic of its own; the other bot's topic key means nothing to it.
RULES = {
    "ci_builds": {
        "purpose": "CI build and test results",
        "include_when": ["CI build or test results", "build failed / build passed / tests failing"],
    },
    "customer_invoices": {
        "purpose": "Customer invoices",
        "include_when": ["invoice issued or paid", "payment received"],
    },
}
INVOICE_CONTENT = "Invoice #1042 issued to ACME; payment received in full."


@dataclass
class Bot:
    bot_id: str
    token: str
    topic_key: str


@pytest.fixture(params=["a-acts-on-b", "b-acts-on-a"])
def pair(request: pytest.FixtureRequest, server: LiveServer, server_session: Session) -> tuple[Bot, Bot]:
    """(actor, other): two bots, each with its own topic and one item in it."""
    bots = []
    for name, key in (("bot-a", "ci_builds"), ("bot-b", "customer_invoices")):
        bot, token = create_bot(session=server_session, name=name)
        create_topic(
            session=server_session,
            bot_id=bot.bot_id,
            actor="test",
            data=TopicCreate(topic_key=key, name=key.title(), routing_json=RULES[key]),
        )
        bots.append(Bot(bot.bot_id, token, key))
    for bot in bots:
        is_error, body = _call(
            server,
            bot.token,
            "topic_publish",
            {
                "title": f"{bot.topic_key} item",
                "content": CI_CONTENT,
                "topic_key": bot.topic_key,
                "dedupe_key": "shared-key",
            },
        )
        assert not is_error and body["topic_key"] == bot.topic_key, body
    a, b = bots
    return (a, b) if request.param == "a-acts-on-b" else (b, a)


def _call(server: LiveServer, token: str, name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    async def body() -> tuple[bool, dict[str, Any]]:
        async with mcp_client(server.topic_mcp_url, token) as client:
            result = await client.call_tool(name, arguments)
            return bool(result.is_error), result_json(result)

    return run_async(body)


def _rows_of(session: Session, bot_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """Everything stored for one bot: its items, topics and settings."""
    session.expire_all()
    rows = {
        model.__tablename__: [
            tuple(row)
            for row in session.exec(
                sa.select(model.__table__).where(model.__table__.c.bot_id == bot_id).order_by(model.__table__.c.id)  # type: ignore[attr-defined]
            )
        ]
        for model in (TopicItem, Topic, TopicBotSettings)
    }
    session.commit()  # end the read: on SQLite this session's transactions hold the write lock
    return rows


def _item_topics(session: Session, bot_id: str) -> list[str]:
    session.expire_all()
    keys = list(session.exec(select(TopicItem.topic_key).where(TopicItem.bot_id == bot_id).order_by(TopicItem.id)))  # type: ignore[arg-type]
    session.commit()
    return keys


def test_a_bot_sees_only_its_own_topics(server: LiveServer, server_session: Session, pair: tuple[Bot, Bot]) -> None:
    me, other = pair
    _, listed = _call(server, me.token, "topic_list_topics", {})
    _, schema = _call(server, me.token, "topic_get_schema", {})
    assert [t["topic_key"] for t in listed["topics"]] == ["inbox", me.topic_key]
    assert [t["topic_key"] for t in schema["topics"]] == ["inbox", me.topic_key]
    seen = json.dumps([listed, schema])
    assert other.topic_key not in seen and other.bot_id not in seen


def test_routing_never_names_the_other_bots_topic(
    server: LiveServer, server_session: Session, pair: tuple[Bot, Bot]
) -> None:
    me, other = pair
    content = {"ci_builds": CI_CONTENT, "customer_invoices": INVOICE_CONTENT}
    own_content, other_content = content[me.topic_key], content[other.topic_key]

    _, own = _call(server, me.token, "topic_route", {"content": own_content})
    _, foreign = _call(server, me.token, "topic_route", {"content": other_content})

    assert own["topic_key"] == me.topic_key
    assert foreign["topic_key"] != other.topic_key
    assert other.topic_key not in {c["topic_key"] for c in own["candidates"] + foreign["candidates"]}


def test_publishing_to_the_other_bots_topic_key_stays_with_the_publisher(
    server: LiveServer, server_session: Session, pair: tuple[Bot, Bot]
) -> None:
    me, other = pair
    others_rows = _rows_of(server_session, other.bot_id)

    # content the publisher's rules place nowhere (what they place goes to the publisher's own topic: tested
    # in test_publishing.py): the fallback that takes it is the publisher's
    _, fell_back = _call(
        server, me.token, "topic_publish", {"title": "t", "content": UNMATCHED_CONTENT, "topic_key": other.topic_key}
    )
    update_topic_settings(session=server_session, bot_id=me.bot_id, update=TopicSettingsUpdate(fallback_policy="skip"))
    is_error, refused = _call(
        server, me.token, "topic_publish", {"title": "t", "content": CI_CONTENT, "topic_key": other.topic_key}
    )

    assert (fell_back["topic_key"], fell_back["fallback"]) == ("inbox", True)
    assert is_error and refused["error"]["code"] == "topic_not_found"
    assert _item_topics(server_session, me.bot_id) == [me.topic_key, "inbox"]
    assert _rows_of(server_session, other.bot_id) == others_rows


def test_a_bot_cannot_name_another_bot(server: LiveServer, server_session: Session, pair: tuple[Bot, Bot]) -> None:
    me, other = pair
    others_rows = _rows_of(server_session, other.bot_id)
    is_error, body = _call(
        server,
        me.token,
        "topic_publish",
        {"title": "t", "content": CI_CONTENT, "topic_key": other.topic_key, "bot_id": other.bot_id},
    )
    assert is_error and (body["error"]["code"], body["error"]["field"]) == ("invalid_argument", "bot_id")
    assert _rows_of(server_session, other.bot_id) == others_rows


def test_dedupe_keys_do_not_cross_bots(server: LiveServer, server_session: Session, pair: tuple[Bot, Bot]) -> None:
    me, other = pair
    # Both bots published "shared-key" while arranging; each got an item of its own.
    _, again = _call(
        server,
        me.token,
        "topic_publish",
        {"title": "retry", "content": CI_CONTENT, "topic_key": me.topic_key, "dedupe_key": "shared-key"},
    )
    server_session.expire_all()
    own_ids = server_session.exec(select(TopicItem.id).where(TopicItem.bot_id == me.bot_id)).all()
    server_session.commit()
    assert again["deduplicated"] is True and list(own_ids) == [again["item_id"]]
    assert _item_topics(server_session, other.bot_id) == [other.topic_key]


def test_the_other_bots_settings_do_not_apply(
    server: LiveServer, server_session: Session, pair: tuple[Bot, Bot]
) -> None:
    me, other = pair
    switched_off = TopicSettingsUpdate(topic_enabled=False, fallback_policy="skip", publish_rate_per_minute=1)
    update_topic_settings(session=server_session, bot_id=other.bot_id, update=switched_off)
    others_rows = _rows_of(server_session, other.bot_id)

    _, listed = _call(server, me.token, "topic_list_topics", {})
    answers = [
        _call(server, me.token, "topic_publish", {"title": f"t{n}", "content": UNMATCHED_CONTENT, "topic_key": "nope"})
        for n in range(2)
    ]
    other_error, other_body = _call(
        server, other.token, "topic_publish", {"title": "t", "content": CI_CONTENT, "topic_key": other.topic_key}
    )

    assert (listed["topic_enabled"], listed["fallback_policy"]) == (True, "inbox")
    assert [(error, body["topic_key"]) for error, body in answers] == [(False, "inbox"), (False, "inbox")]
    assert other_error and other_body["error"]["code"] == "topic_disabled"
    assert _rows_of(server_session, other.bot_id) == others_rows
