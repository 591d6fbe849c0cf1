"""topic_mcp over real HTTP with the mcp SDK client: tools/list and schemas, each tool's success path,
the error shape, bot tokens (401 for missing, wrong and rotated ones) and one audit row per call.

Refusal codes, dedupe, rate limit and fallback: test_topic_publish_rules.py; two bots: test_topic_isolation.py.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import httpx
import httpx2
import jsonschema
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from sqlmodel import Session, col, delete, select

from mcp_service.audit import audit_tool_call
from mcp_service.tooling import StrictMCPServer
from tests.support.mcp import mcp_client, result_json, run_async
from tests.support.server import LiveServer
from tests.support.topics import CI_CONTENT
from topic_dashboard.item_views import LEVELS, LIMITS, VIEW_TYPES, view_json_schema
from topic_dashboard.models import AuditLog, TopicItem
from topic_dashboard.services.bots import create_bot, rotate_token
from topic_dashboard.services.topics import TopicCreate, TopicUpdate, create_topic, update_topic

CI_RULE = {
    "purpose": "CI build and test results",
    "include_when": ["CI build or test results", "build failed / build passed / tests failing"],
    "exclude_when": ["release notes"],
    "priority": 70,
}
READ_TOOLS = ("topic_list_topics", "topic_get_schema", "topic_route")
ARGUMENTS = {
    "topic_list_topics": set(),
    "topic_get_schema": set(),
    "topic_route": {"content", "title", "message_type", "tags", "level", "summary", "proposed_topic_key"},
    "topic_publish": {
        "title",
        "content",
        "topic_key",
        "level",
        "tags",
        "view",
        "dedupe_key",
        "message_type",
        "update",
        "resolved",
    },
}
REQUIRED = {
    "topic_list_topics": [],
    "topic_get_schema": [],
    "topic_route": ["content"],
    "topic_publish": ["title", "content"],
}


def _bot_with_ci_topic(session: Session, name: str) -> tuple[str, str]:
    bot, token = create_bot(session=session, name=name)
    create_topic(
        session=session,
        bot_id=bot.bot_id,
        actor="test",
        data=TopicCreate(topic_key="ci", name="CI", description="Builds and tests", routing_json=CI_RULE),
    )
    return bot.bot_id, token


def _call(server: LiveServer, token: str, *calls: tuple[str, dict[str, Any]]) -> list[tuple[bool, dict[str, Any]]]:
    """Call tools in order on one connection; each answer is (isError, the JSON its text carries)."""

    async def body() -> list[tuple[bool, dict[str, Any]]]:
        async with mcp_client(server.topic_mcp_url, token) as client:
            answers = []
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                answers.append((bool(result.is_error), result_json(result)))
            return answers

    return run_async(body)


def _audit(session: Session, bot_id: str) -> list[AuditLog]:
    """The bot's own tool calls (people's actions on it, such as creating its topics, are rows too)."""
    session.expire_all()
    query = select(AuditLog).where(AuditLog.bot_id == bot_id, AuditLog.actor_kind == "bot")
    rows = list(session.exec(query.order_by(AuditLog.id)))  # type: ignore[arg-type]
    session.commit()  # end the read: on SQLite this session's transactions hold the write lock
    return rows


# --- tools/list -----------------------------------------------------------------------------------


def test_tools_list_shows_four_strict_tools_with_their_annotations(server: LiveServer, server_session: Session) -> None:
    _, token = create_bot(session=server_session, name="schemas")

    async def body() -> Any:
        async with mcp_client(server.topic_mcp_url, token) as client:
            return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in run_async(body)}
    assert set(tools) == set(ARGUMENTS)  # no topic_create / topic_delete: topics belong to people
    for name, tool in tools.items():
        schema = tool.input_schema
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False, name
        assert set(schema.get("properties", {})) == ARGUMENTS[name], name  # no ctx, no bot_id
        assert sorted(schema.get("required", [])) == sorted(REQUIRED[name]), name
        assert tool.description and tool.title
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (name in READ_TOOLS), name
        assert tool.annotations.destructive_hint is False and tool.annotations.open_world_hint is False
    assert tools["topic_publish"].annotations.idempotent_hint is False


def test_the_publish_schema_accepts_a_real_call_and_rejects_unknown_arguments(
    server: LiveServer, server_session: Session
) -> None:
    _, token = create_bot(session=server_session, name="publish-schema")

    async def body() -> Any:
        async with mcp_client(server.topic_mcp_url, token) as client:
            return {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}

    schemas = run_async(body)
    publish = schemas["topic_publish"]
    # `view` shows the real view schema, the same document topic_get_schema serves.
    assert publish["properties"]["view"]["anyOf"] == [view_json_schema(), {"type": "null"}]
    good = {
        "title": "CI build #42 failed",
        "content": CI_CONTENT,
        "topic_key": "ci",
        "level": "error",
        "tags": ["ci"],
        "dedupe_key": "ci-42",
        "message_type": "result",
        "view": {"type": "table", "columns": ["test", "result"], "rows": [["test_login", "failed"]]},
    }
    jsonschema.validate(good, publish)
    for bad in (
        {**good, "bot_id": "someone-else"},
        {**good, "view": {"type": "html", "html": "<b>x</b>"}},
        {"content": CI_CONTENT},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, publish)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"content": "x", "unknown": 1}, schemas["topic_route"])


# --- each tool's success path -----------------------------------------------------------------


def test_list_topics_shows_the_bots_active_topics_and_settings(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot_with_ci_topic(server_session, "lister")
    create_topic(
        session=server_session,
        bot_id=bot_id,
        actor="test",
        data=TopicCreate(topic_key="old", name="Old", is_active=False),
    )
    create_topic(
        session=server_session,
        bot_id=bot_id,
        actor="test",
        data=TopicCreate(topic_key="reports", name="Reports", view_schema_json={"allowed_types": ["table"]}),
    )

    [(is_error, body)] = _call(server, token, ("topic_list_topics", {}))

    assert not is_error and body["ok"] is True
    assert (body["topic_enabled"], body["fallback_policy"], body["fallback_topic_key"]) == (True, "inbox", "inbox")
    assert [t["topic_key"] for t in body["topics"]] == ["inbox", "ci", "reports"]  # fallback first, no inactive
    inbox, ci, reports = body["topics"]
    assert inbox["is_fallback"] is True and ci["is_fallback"] is False
    assert ci == {
        "topic_key": "ci",
        "name": "CI",
        "description": "Builds and tests",
        "purpose": CI_RULE["purpose"],
        "include_when": CI_RULE["include_when"],
        "exclude_when": ["release notes"],
        "priority": 70,
        "is_fallback": False,
        "allowed_view_types": list(VIEW_TYPES),
    }
    assert reports["allowed_view_types"] == ["table"]
    assert "topic_publish" in body["how_to_route"]


def test_get_schema_describes_views_limits_and_each_topics_view_types(
    server: LiveServer, server_session: Session
) -> None:
    bot_id, token = _bot_with_ci_topic(server_session, "schema-reader")
    update_topic(
        session=server_session,
        bot_id=bot_id,
        topic_key="ci",
        actor="test",
        data=TopicUpdate(view_schema_json={"allowed_types": ["table", "metric"]}),
    )

    [(is_error, body)] = _call(server, token, ("topic_get_schema", {}))

    assert not is_error and body["ok"] is True
    assert body["view_schema"] == view_json_schema()
    assert body["view_types"] == list(VIEW_TYPES) and body["levels"] == list(LEVELS)
    assert body["limits"]["title_max_chars"] == LIMITS.title_max_chars
    assert body["limits"]["payload_max_bytes"] == LIMITS.payload_max_bytes
    assert body["topics"] == [
        {"topic_key": "inbox", "allowed_view_types": list(VIEW_TYPES)},
        {"topic_key": "ci", "allowed_view_types": ["table", "metric"]},
    ]
    assert body["notes"]


def test_route_sends_a_clear_match_to_its_topic(server: LiveServer, server_session: Session) -> None:
    _, token = _bot_with_ci_topic(server_session, "router")

    [(is_error, body)] = _call(
        server,
        token,
        (
            "topic_route",
            {
                "content": CI_CONTENT,
                "title": "CI build #42",
                "message_type": "result",
                "tags": ["ci"],
                "level": "error",
                "summary": "build failed",
            },
        ),
    )

    assert not is_error and body["ok"] is True
    assert (body["should_publish"], body["topic_key"], body["fallback"], body["filtered"]) == (True, "ci", False, None)
    assert 0 <= body["confidence"] <= 1 and "ci" in body["reason"]
    assert {c["topic_key"] for c in body["candidates"]} == {"ci", "inbox"}


def test_publish_says_a_title_with_line_breaks_was_joined(server: LiveServer, server_session: Session) -> None:
    # A walkthrough published a two-line title and found it stored as one line without a word to the bot.
    bot_id, token = _bot_with_ci_topic(server_session, "joiner")
    [(is_error, body), (_, plain)] = _call(
        server,
        token,
        ("topic_publish", {"title": "CI build #43 failed\nlint: 3 errors", "content": CI_CONTENT, "topic_key": "ci"}),
        ("topic_publish", {"title": "CI build #44 failed", "content": CI_CONTENT, "topic_key": "ci"}),
    )

    assert not is_error
    assert body["notes"] == ["title held line breaks; they were joined into one line: put the detail in content"]
    assert plain["notes"] == []
    server_session.expire_all()
    titles = {item.title for item in server_session.exec(select(TopicItem).where(TopicItem.bot_id == bot_id)).all()}
    assert titles == {"CI build #43 failed lint: 3 errors", "CI build #44 failed"}


def test_publish_stores_the_item_and_returns_its_id(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot_with_ci_topic(server_session, "publisher")
    view = {"type": "checklist", "items": [{"text": "test_login"}, {"text": "test_logout", "done": True}]}

    [(is_error, body)] = _call(
        server,
        token,
        (
            "topic_publish",
            {
                "title": "CI build #42 failed",
                "content": CI_CONTENT,
                "topic_key": "ci",
                "level": "error",
                "tags": ["ci", "nightly"],
                "view": view,
                "dedupe_key": "ci-42",
                "message_type": "result",
            },
        ),
    )

    assert not is_error
    server_session.expire_all()
    [item] = server_session.exec(select(TopicItem).where(TopicItem.bot_id == bot_id)).all()
    assert body == {
        "ok": True,
        "item_id": item.id,
        "topic_key": "ci",
        "deduplicated": False,
        "updated": False,
        "fallback": False,
        "fallback_reason": None,
        "notes": [],
    }
    assert (item.topic_key, item.title, item.content, item.level, item.tags_json, item.dedupe_key) == (
        "ci",
        "CI build #42 failed",
        CI_CONTENT,
        "error",
        ["ci", "nightly"],
        "ci-42",
    )
    assert item.view_json == {
        "type": "checklist",
        "items": [{"text": "test_login", "done": False}, {"text": "test_logout", "done": True}],
    }
    assert (item.source, item.message_type) == ("mcp", "result")


def test_an_unknown_tool_is_a_json_tool_error(server: LiveServer, server_session: Session) -> None:
    _, token = create_bot(session=server_session, name="unknown-tool")
    [(is_error, body)] = _call(server, token, ("topic_create", {"topic_key": "mine"}))
    assert is_error and body["ok"] is False and body["error"]["code"] == "not_found"


@pytest.mark.parametrize("name", ["topic_\x00publish", "topic_publish\u202e", "t" * 1000], ids=["nul", "bidi", "long"])
def test_an_unknown_tool_name_is_never_echoed_nor_any_internal_error_text(
    server: LiveServer, server_session: Session, name: str
) -> None:
    """Even when the audit row of the call cannot be stored (PostgreSQL text cannot hold NUL), the bot
    gets the JSON refusal and nothing of the failure (the audit's SQL statement once leaked here)."""
    _, token = create_bot(session=server_session, name="unknown-tool-name")
    [(is_error, body)] = _call(server, token, (name, {}))
    assert is_error and body["ok"] is False and body["error"]["code"] == "not_found"
    assert name not in body["error"]["message"] and "INSERT" not in body["error"]["message"]


# --- bot tokens -----------------------------------------------------------------------------------


def _sdk_statuses(server: LiveServer, headers: dict[str, str]) -> tuple[list[int], BaseException | None]:
    """Try tools/list with the SDK client; return the HTTP statuses it saw and what it raised."""
    statuses: list[int] = []

    async def record(response: httpx2.Response) -> None:
        statuses.append(response.status_code)

    async def body() -> None:
        async with httpx2.AsyncClient(headers=headers, timeout=30, event_hooks={"response": [record]}) as http:
            async with Client(streamable_http_client(server.topic_mcp_url, http_client=http)) as client:
                await client.list_tools()

    try:
        run_async(body)
    except BaseException as exc:  # the SDK wraps the failure in exception groups
        return statuses, exc
    return statuses, None


@pytest.mark.parametrize(
    "headers",
    [{}, {"x-topic-mcp-token": "tdb_wrong"}, {"authorization": "Bearer tdb_wrong"}, {"x-topic-mcp-token": ""}],
    ids=["missing", "wrong", "wrong-bearer", "empty"],
)
def test_the_sdk_client_is_refused_with_401_without_a_valid_token(server: LiveServer, headers: dict[str, str]) -> None:
    statuses, raised = _sdk_statuses(server, headers)
    assert raised is not None and statuses and set(statuses) == {401}


def test_a_rotated_token_stops_working_at_once(server: LiveServer, server_session: Session) -> None:
    bot_id, old = _bot_with_ci_topic(server_session, "rotator")
    item = {"content": CI_CONTENT, "topic_key": "ci"}
    [(_, published)] = _call(server, old, ("topic_publish", {"title": "before", **item}))
    new = rotate_token(session=server_session, bot_id=bot_id)

    statuses, raised = _sdk_statuses(server, {"x-topic-mcp-token": old})
    assert raised is not None and set(statuses) == {401}
    response = httpx.post(
        server.topic_mcp_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"accept": "application/json, text/event-stream", "authorization": f"Bearer {old}"},
    )
    assert response.status_code == 401 and response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["error"]["code"] == "unauthorized"

    # The new token is the same bot: same topics, its earlier item still there.
    [(is_error, body)] = _call(server, new, ("topic_publish", {"title": "after", **item}))
    assert not is_error and body["item_id"] != published["item_id"]
    server_session.expire_all()
    titles = server_session.exec(
        select(TopicItem.title).where(TopicItem.bot_id == bot_id).order_by(TopicItem.id)  # type: ignore[arg-type]
    ).all()
    assert titles == ["before", "after"]


# --- audit ----------------------------------------------------------------------------------------


def test_every_call_leaves_exactly_one_audit_row(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot_with_ci_topic(server_session, "audited")
    publish = {"title": "CI build #42 failed", "content": CI_CONTENT, "topic_key": "ci", "dedupe_key": "ci-42"}

    answers = _call(
        server,
        token,
        ("topic_list_topics", {}),
        ("topic_get_schema", {}),
        ("topic_route", {"content": CI_CONTENT}),
        ("topic_route", {"content": "step 2 of 5", "message_type": "progress"}),
        ("topic_publish", publish),
        ("topic_publish", publish),
        ("topic_publish", {**publish, "dedupe_key": None, "level": "fatal"}),
        ("topic_publish", {**publish, "priority": "high"}),
        ("topic_publish", {"title": 42, "content": CI_CONTENT}),
        ("topic_list_topics", {"verbose": True}),
        ("topic_delete", {}),
    )

    item_id = answers[4][1]["item_id"]
    assert answers[5][1]["item_id"] == item_id
    rows = _audit(server_session, bot_id)
    assert [(r.tool, r.outcome, r.error_code, r.topic_key, r.item_id) for r in rows] == [
        ("topic_list_topics", "ok", None, None, None),
        ("topic_get_schema", "ok", None, None, None),
        ("topic_route", "ok", None, "ci", None),
        ("topic_route", "ok", None, None, None),
        ("topic_publish", "ok", None, "ci", item_id),
        ("topic_publish", "deduplicated", None, "ci", item_id),
        ("topic_publish", "refused", "validation_error", None, None),
        ("topic_publish", "refused", "invalid_argument", None, None),
        ("topic_publish", "refused", "invalid_argument", None, None),
        ("topic_list_topics", "refused", "invalid_argument", None, None),
        ("topic_delete", "refused", "not_found", None, None),
    ]
    assert all(r.latency_ms >= 0 and r.created_at is not None for r in rows)


def test_a_crashing_tool_answers_a_json_internal_error_and_is_audited(
    server: LiveServer, server_session: Session
) -> None:
    """The shared tooling with the real auditor: a crash is neither a bare text error nor missing from the audit."""
    name = f"crash_{secrets.token_hex(4)}"
    crashing = StrictMCPServer(name="crashing", auditor=audit_tool_call)

    def crash() -> None:
        raise RuntimeError("the secret detail stays in the log")

    crashing.strict_tool(crash, name=name, description="Always crashes.")
    # Arrange: a call with no bot shares the anonymous allowance of refused rows per minute with every
    # earlier test's bad-token calls on this worker's server; past it, this row would be counted into
    # the minute's `suppressed` row (test_audit_bounds covers that), so the minute starts empty here.
    server_session.exec(
        delete(AuditLog).where(
            col(AuditLog.bot_id).is_(None), col(AuditLog.outcome).in_(("refused", "error", "suppressed"))
        )
    )
    server_session.commit()
    result = run_async(lambda: crashing.call_tool(name, {}))

    assert result.is_error
    body = result_json(result)
    assert body["ok"] is False and body["error"]["code"] == "internal_error"
    assert "secret detail" not in json.dumps(body)
    server_session.expire_all()
    rows = server_session.exec(select(AuditLog).where(AuditLog.tool == name)).all()
    server_session.commit()
    assert [(r.bot_id, r.outcome, r.error_code) for r in rows] == [(None, "error", "internal_error")]


def test_publish_with_update_rewrites_the_alert_in_place_over_mcp(server: LiveServer, server_session: Session) -> None:
    """#15 alert lifecycle, as a bot does it: the same dedupe_key with update=true, then resolved=true."""
    bot_id, token = _bot_with_ci_topic(server_session, "alerting")
    first = {"title": "Build queue 40 jobs", "content": "waiting", "topic_key": "ci", "dedupe_key": "queue"}
    calls = _call(
        server,
        token,
        ("topic_publish", {**first, "level": "warn"}),
        ("topic_publish", {**first, "title": "Build queue 120 jobs", "level": "error", "update": True}),
        (
            "topic_publish",
            {**first, "title": "Build queue drained", "level": "success", "update": True, "resolved": True},
        ),
        ("topic_publish", {**first, "update": False, "resolved": True}),
    )
    assert [is_error for is_error, _ in calls] == [False, False, False, True]
    assert calls[1][1]["updated"] is True and calls[1][1]["item_id"] == calls[0][1]["item_id"]
    assert calls[3][1]["error"]["code"] == "invalid_argument" and calls[3][1]["error"]["field"] == "resolved"
    server_session.expire_all()
    [item] = server_session.exec(select(TopicItem).where(TopicItem.bot_id == bot_id)).all()
    assert (item.title, item.level, item.update_count, item.resolved_by) == (
        "Build queue drained",
        "success",
        2,
        "the bot",
    )
