"""topic_publish's wiring over real HTTP: each refusal code reaches the bot as a tool error with
its field (and the database is left unchanged), argument checks of the MCP layer itself, the
answer's fields (deduplicated, fallback, retry_after_seconds, allowed_types), and the switch and
progress/tool-hint filtering in topic_route and topic_publish alike.

The publishing rules themselves (every limit, dedupe windows and races, the rate limit's arithmetic,
fallback policies) are tested once, at the service: tests/topic_dashboard/services/test_publishing.py.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import Session, select

from tests.support.mcp import mcp_client, result_json, run_async
from tests.support.server import LiveServer
from tests.support.topics import CI_CONTENT, CI_RULE, UNMATCHED_CONTENT, UNSAFE_LINK_CARD
from topic_dashboard.item_views import LIMITS
from topic_dashboard.models import AuditLog, Topic, TopicBotSettings, TopicItem
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.topics import (
    TopicCreate,
    TopicSettingsUpdate,
    TopicUpdate,
    create_topic,
    update_topic,
    update_topic_settings,
)

CI_ITEM = {"title": "CI build #42 failed", "content": CI_CONTENT, "topic_key": "ci"}


def _bot(session: Session, name: str, **settings: Any) -> tuple[str, str]:
    bot, token = create_bot(session=session, name=name)
    create_topic(
        session=session,
        bot_id=bot.bot_id,
        actor="test",
        data=TopicCreate(topic_key="ci", name="CI", routing_json=CI_RULE),
    )
    if settings:
        update_topic_settings(session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(**settings))
    return bot.bot_id, token


def _call(server: LiveServer, token: str, name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    async def body() -> tuple[bool, dict[str, Any]]:
        async with mcp_client(server.topic_mcp_url, token) as client:
            result = await client.call_tool(name, arguments)
            return bool(result.is_error), result_json(result)

    return run_async(body)


def _publish(server: LiveServer, token: str, **fields: Any) -> dict[str, Any]:
    is_error, body = _call(server, token, "topic_publish", {**CI_ITEM, **fields})
    assert not is_error and body["ok"] is True, body
    return body


def _refusal(server: LiveServer, token: str, tool: str = "topic_publish", **arguments: Any) -> dict[str, Any]:
    """The error of a refused call, after checking the shape every tool error has."""
    is_error, body = _call(server, token, tool, arguments)
    assert is_error and body["ok"] is False, body
    error = body["error"]
    assert isinstance(error["code"], str) and isinstance(error["message"], str) and error["message"]
    return error


def _snapshot(session: Session) -> dict[str, list[tuple[Any, ...]]]:
    """Every row a publish call could change (the audit log aside, which records every call)."""
    session.expire_all()
    rows = {
        model.__tablename__: [
            tuple(row) for row in session.exec(sa.select(model.__table__).order_by(model.__table__.c.id))
        ]  # type: ignore[attr-defined]
        for model in (TopicItem, Topic, TopicBotSettings)
    }
    session.commit()  # end the read: on SQLite this session's transactions hold the write lock
    return rows


def _items(session: Session, bot_id: str) -> list[TopicItem]:
    session.expire_all()
    items = list(session.exec(select(TopicItem).where(TopicItem.bot_id == bot_id).order_by(TopicItem.id)))  # type: ignore[arg-type]
    session.commit()  # end the read: on SQLite this session's transactions hold the write lock
    return items


# --- every refusal code, nothing stored -----------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "code", "field"),
    [
        ({"message_type": "progress"}, "filtered_progress", None),
        ({"message_type": "tool_hint"}, "filtered_tool_hint", None),
        ({"message_type": "chat"}, "filtered_chat", None),
        ({"message_type": "status"}, "invalid_argument", "message_type"),
        ({"bot_id": "someone-else"}, "invalid_argument", "bot_id"),
        ({"title": ["not", "text"]}, "invalid_argument", "title"),
        ({"tags": "ci"}, "invalid_argument", "tags"),
        ({"view": ["markdown"]}, "invalid_argument", "view"),
        ({"title": "   "}, "validation_error", "title"),
        ({"tags": ["ci", "not ok"]}, "validation_error", "tags[1]"),
        ({"view": UNSAFE_LINK_CARD}, "invalid_view", "view.link.url"),
        ({"content": "c" * (LIMITS.payload_max_bytes + 1)}, "payload_too_large", None),
        ({"topic_key": "no_such_topic"}, "topic_not_found", None),  # under policy skip, below
        ({"topic_key": "ci\x00"}, "topic_not_found", None),  # PostgreSQL text cannot hold NUL
        # The text policy: one-line values hold no tab or bidi override; numbers are finite and fit 64 bits.
        ({"title": "invoice\u202efdp.exe"}, "validation_error", "title"),
        ({"dedupe_key": "ci\t42"}, "validation_error", "dedupe_key"),
        ({"view": {"type": "metric", "label": "Stars", "value": 10**400}}, "invalid_view", "view.value"),
        ({"view": {"type": "table", "columns": ["n"], "rows": [[2**63]]}}, "invalid_view", "view.rows[0][0]"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_each_refusal_has_its_code_and_field_and_changes_nothing(
    server: LiveServer, server_session: Session, arguments: dict[str, Any], code: str, field: str | None
) -> None:
    bot_id, token = _bot(server_session, f"refused-{code}", fallback_policy="skip")
    _publish(server, token, title="already there")
    before = _snapshot(server_session)

    error = _refusal(server, token, **{**CI_ITEM, **arguments})

    assert (error["code"], error.get("field")) == (code, field)
    assert _snapshot(server_session) == before
    audit = server_session.exec(
        select(AuditLog).where(AuditLog.bot_id == bot_id).order_by(AuditLog.id.desc())  # type: ignore[union-attr]
    ).first()
    server_session.commit()
    assert audit is not None and (audit.tool, audit.outcome, audit.error_code) == ("topic_publish", "refused", code)


def test_a_missing_required_argument_is_invalid_argument(server: LiveServer, server_session: Session) -> None:
    _, token = _bot(server_session, "missing-title")
    before = _snapshot(server_session)
    error = _refusal(server, token, content=CI_CONTENT)
    assert (error["code"], error["field"]) == ("invalid_argument", "title")
    assert _snapshot(server_session) == before


def test_a_view_type_the_topic_does_not_allow_is_invalid_view(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session, "view-types")
    update_topic(
        session=server_session,
        bot_id=bot_id,
        topic_key="ci",
        actor="test",
        data=TopicUpdate(view_schema_json={"allowed_types": ["table"]}),
    )
    before = _snapshot(server_session)
    error = _refusal(server, token, **CI_ITEM, view={"type": "metric", "label": "failing", "value": 3})
    assert (error["code"], error["field"], error["allowed_types"]) == ("invalid_view", "view.type", ["table"])
    assert _snapshot(server_session) == before


def test_without_topic_key_unmatched_content_is_not_routed_under_policy_skip(
    server: LiveServer, server_session: Session
) -> None:
    _, token = _bot(server_session, "not-routed", fallback_policy="skip")
    before = _snapshot(server_session)
    error = _refusal(server, token, title="Bakery sales", content=UNMATCHED_CONTENT)
    assert error["code"] == "not_routed"
    assert _snapshot(server_session) == before


# --- dedupe ---------------------------------------------------------------------------------------


def test_the_same_dedupe_key_returns_the_first_item(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session, "dedupe")
    first = _publish(server, token, dedupe_key="ci-42")
    again = _publish(server, token, dedupe_key="ci-42", title="retry")
    other = _publish(server, token, dedupe_key="ci-43")
    assert (first["deduplicated"], again["deduplicated"], other["deduplicated"]) == (False, True, False)
    assert again["item_id"] == first["item_id"] != other["item_id"]
    assert [item.title for item in _items(server_session, bot_id)] == ["CI build #42 failed", "CI build #42 failed"]


# --- rate limit -----------------------------------------------------------------------------------


def test_the_rate_limit_refuses_with_retry_after_and_recovers(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session, "rate", publish_rate_per_minute=3)
    for n in range(3):
        _publish(server, token, title=f"build {n}")
    before = _snapshot(server_session)

    error = _refusal(server, token, **CI_ITEM)
    assert error["code"] == "rate_limited"
    assert isinstance(error["retry_after_seconds"], int) and 1 <= error["retry_after_seconds"] <= 60
    assert _snapshot(server_session) == before

    # A minute passes, as the database sees it.
    for item in _items(server_session, bot_id):
        item.created_at = item.created_at - timedelta(seconds=61)
        server_session.add(item)
    server_session.commit()

    assert not _publish(server, token, title="build 3")["deduplicated"]
    assert len(_items(server_session, bot_id)) == 4


# --- fallback -------------------------------------------------------------------------------------


def test_fallback_under_policy_inbox(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session, "fallback-inbox")
    create_topic(session=server_session, bot_id=bot_id, actor="test", data=TopicCreate(topic_key="old", name="Old"))
    update_topic(
        session=server_session, bot_id=bot_id, topic_key="old", actor="test", data=TopicUpdate(is_active=False)
    )

    unknown = _publish(server, token, topic_key="deploys", title="Bakery sales", content=UNMATCHED_CONTENT)
    inactive = _publish(server, token, topic_key="old", title="Bakery sales, again", content=UNMATCHED_CONTENT)
    # the very same result: the first item, said again
    again = _publish(server, token, topic_key="deploys", title="Bakery sales", content=UNMATCHED_CONTENT)
    assert (again["item_id"], again["deduplicated"], again["fallback"]) == (unknown["item_id"], True, True)
    assert "deploys" in again["fallback_reason"]
    unrouted = _publish(server, token, topic_key=None, title="Bakery sales report", content=UNMATCHED_CONTENT)
    _, route = _call(server, token, "topic_route", {"content": UNMATCHED_CONTENT})

    for answer, named in ((unknown, "deploys"), (inactive, "old"), (unrouted, None)):
        assert (answer["topic_key"], answer["fallback"]) == ("inbox", True)
        assert answer["fallback_reason"] and (named is None or named in answer["fallback_reason"])
    assert (route["should_publish"], route["topic_key"], route["fallback"]) == (True, "inbox", True)
    assert [item.topic_key for item in _items(server_session, bot_id)] == ["inbox"] * 3


def test_fallback_under_policy_skip(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session, "fallback-skip", fallback_policy="skip")
    before = _snapshot(server_session)

    assert _refusal(server, token, **{**CI_ITEM, "topic_key": "deploys"})["code"] == "topic_not_found"
    assert _refusal(server, token, title="Bakery sales", content=UNMATCHED_CONTENT)["code"] == "not_routed"
    _, route = _call(server, token, "topic_route", {"content": UNMATCHED_CONTENT})

    assert (route["should_publish"], route["topic_key"]) == (False, None)
    assert _snapshot(server_session) == before
    # A clear match is still published without a topic_key.
    assert _publish(server, token, topic_key=None)["topic_key"] == "ci"


# --- the switch and the noise filter ------------------------------------------------------------


def test_the_disabled_switch_refuses_publishing_and_routes_nothing(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session, "switched-off", topic_enabled=False)
    before = _snapshot(server_session)

    assert _refusal(server, token, **CI_ITEM)["code"] == "topic_disabled"
    _, route = _call(server, token, "topic_route", {"content": CI_CONTENT})
    _, listed = _call(server, token, "topic_list_topics", {})

    assert (route["should_publish"], route["topic_key"], route["filtered"]) == (False, None, "topic_disabled")
    assert listed["topic_enabled"] is False
    assert _snapshot(server_session) == before

    update_topic_settings(session=server_session, bot_id=bot_id, update=TopicSettingsUpdate(topic_enabled=True))
    assert _publish(server, token)["topic_key"] == "ci"


@pytest.mark.parametrize(
    ("message_type", "code"), [("progress", "filtered_progress"), ("tool_hint", "filtered_tool_hint")]
)
def test_progress_and_tool_hints_are_never_published(
    server: LiveServer, server_session: Session, message_type: str, code: str
) -> None:
    _, token = _bot(server_session, f"noise-{message_type}")
    before = _snapshot(server_session)

    _, route = _call(server, token, "topic_route", {"content": CI_CONTENT, "message_type": message_type})
    named = _refusal(server, token, **CI_ITEM, message_type=message_type)
    unnamed = _refusal(server, token, title="CI", content=CI_CONTENT, message_type=message_type)

    assert (route["should_publish"], route["topic_key"], route["filtered"]) == (False, None, message_type)
    assert named["code"] == unnamed["code"] == code
    assert _snapshot(server_session) == before


@pytest.mark.parametrize(
    "content",
    ["Thanks so much, you're the best!", "Thanks, that's perfect 😊", "No problem, anytime!"],
)
def test_a_named_topic_does_not_let_conversation_in(server: LiveServer, server_session: Session, content: str) -> None:
    # A walkthrough's bot published these into a topic it named, under the title "note"; topic_route, asked
    # about the same message, keeps each out as conversation.
    _, token = _bot(server_session, "named-thanks")
    before = _snapshot(server_session)

    _, route = _call(server, token, "topic_route", {"title": "note", "content": content})
    refused = _refusal(server, token, title="note", content=content, topic_key="ci")

    assert (route["should_publish"], route["filtered"]) == (False, "noise")
    assert (refused["code"], refused["noise_kind"]) == ("filtered_noise", "conversation")
    assert refused["message"].startswith("topic_route would not publish this: reads as conversation")
    assert _snapshot(server_session) == before


def test_route_refuses_a_level_publish_would_refuse(server: LiveServer, server_session: Session) -> None:
    # A walkthrough's bot was told "critical" was fine by topic_route, then refused by topic_publish.
    _, token = _bot(server_session, "route-level")
    routed = _refusal(server, token, tool="topic_route", content=CI_CONTENT, level="critical")
    published = _refusal(server, token, **CI_ITEM, level="critical")
    assert (routed["code"], routed["field"]) == (published["code"], published["field"]) == ("validation_error", "level")
    is_error, body = _call(server, token, "topic_route", {"content": CI_CONTENT, "level": " WARN "})
    assert not is_error and body["should_publish"] is True


def test_a_named_topic_still_takes_a_headline_over_a_terse_content(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session, "named-headline")
    body = _publish(server, token, title="CI build #43 passed", content="Done.")
    assert [item.id for item in _items(server_session, bot_id)] == [body["item_id"]]


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"content": "CI build\x00 failed"}, "content"),
        ({"content": "x", "title": "a\x1b[2Jb"}, "title"),
        ({"content": "x", "summary": "\x07"}, "summary"),
        ({"content": "x", "tags": ["ci", "a\u202eb"]}, "tags[1]"),
        ({"content": "x", "level": "info\x00"}, "level"),
    ],
    ids=["content", "title", "summary", "tag", "level"],
)
def test_route_refuses_what_the_text_policy_refuses(
    server: LiveServer, server_session: Session, arguments: dict[str, Any], field: str
) -> None:
    _, token = _bot(server_session, f"route-{field}")
    error = _refusal(server, token, "topic_route", **arguments)
    assert (error["code"], error["field"]) == ("validation_error", field)


def test_an_unknown_message_type_is_refused_by_route_and_publish_alike(
    server: LiveServer, server_session: Session
) -> None:
    _, token = _bot(server_session, "message-types")
    for tool, arguments in (("topic_route", {"content": "Build #9 passed"}), ("topic_publish", dict(CI_ITEM))):
        is_error, body = _call(server, token, tool, {**arguments, "message_type": "bogus"})
        assert is_error and body["error"]["code"] == "invalid_argument" and body["error"]["field"] == "message_type"
    is_error, body = _call(server, token, "topic_route", {"content": "Build #9 passed", "message_type": "result"})
    assert not is_error and body["ok"] is True
