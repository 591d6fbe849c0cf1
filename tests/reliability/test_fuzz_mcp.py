"""Fuzzing every MCP tool's arguments over real HTTP, on SQLite and PostgreSQL.

topic_list_topics, topic_get_schema, topic_route and topic_publish on /api/mcp/topic, and
ccweb_list_user_inputs on /api/mcp/ccweb, are called with wrong types, missing and unknown
arguments, huge and deeply nested values, NUL, control and bidi characters and numbers out of
bounds, through the real MCP client. What a JSON encoder cannot send (lone surrogates, 1e400) goes
as a raw JSON-RPC request written with `json.dumps(..., ensure_ascii=True)`.

Every answer must be a tool result whose text is `{"ok": false, "error": {"code", "message"}}` with
a code of the catalogue other than internal_error (or, for the read tools, a success), never an
HTTP 500, never internal error text (SQL, tracebacks), and the stored rows must stay as they were
(the audit trail aside).
"""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import anyio.from_thread
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_types import LATEST_PROTOCOL_VERSION, CallToolResult
from sqlmodel import Session

from tests.support.mcp import mcp_client, result_json
from tests.support.server import LiveServer
from tests.support.topics import CI_CONTENT, CI_RULE
from topic_dashboard.errors import CATALOGUE
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.conversations import add_message, create_conversation
from topic_dashboard.services.topics import TopicCreate, TopicSettingsUpdate, create_topic, update_topic_settings

FUZZ = settings(
    max_examples=50,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

TEXT_POISON = ("\x00", "\x01", "\x07", "\x1b", "\x7f", "\x85", "\x9f")
LINE_POISON = (*TEXT_POISON, "\t", "\n", "\r", "\u2028", "\u202a", "\u202e", "\u2066", "\u2069")
SURROGATES = ("\ud800", "\udbff", "\udc00", "\udfff")
# Internal error text that must never reach a bot.
LEAKS = ("INSERT", "SELECT", "UPDATE ", "Traceback", "sqlalchemy", "psycopg", "sqlite3", "Error executing tool")

CLEAN = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Cf", "Zl", "Zp")), max_size=12)


def poisoned(poisons: tuple[str, ...]) -> st.SearchStrategy[str]:
    """Text with a poison character between visible ones (trimming cannot remove it)."""
    return st.builds(lambda a, p, b: f"a{a}{p}{b}z", CLEAN, st.sampled_from(poisons), CLEAN)


def deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


HUGE_NUMBERS = st.sampled_from([10**400, -(10**400), 2**63, -(2**63) - 1, 10**20])
WRONG_TYPES = st.one_of(
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.sampled_from([[], [1, "a"], {}, {"nested": {"x": 1}}]),
    HUGE_NUMBERS,
)
DEEP = st.sampled_from([20, 200]).map(deep)  # the client's own encoder stops near 1000 levels
HUGE_TEXT = st.sampled_from([20_001, 200_000]).map(lambda size: "x" * size)


def bad_text() -> st.SearchStrategy[Any]:
    return st.one_of(poisoned(TEXT_POISON), WRONG_TYPES, DEEP)


def bad_line() -> st.SearchStrategy[Any]:
    return st.one_of(poisoned(LINE_POISON), WRONG_TYPES, DEEP)


@st.composite
def bad_view(draw: st.DrawFn) -> Any:
    """A view that is right but for one value."""
    text = draw(st.one_of(poisoned(TEXT_POISON), WRONG_TYPES.filter(lambda v: not isinstance(v, (int, float)))))
    number = draw(st.one_of(HUGE_NUMBERS, st.sampled_from([[], {}])))
    key = draw(poisoned(LINE_POISON))
    return draw(
        st.sampled_from(
            [
                {"type": "metric", "label": "Error rate", "value": number},
                {"type": "metric", "label": "Error rate", "value": 2.4, "delta": number},
                {"type": "metric", "label": text, "value": 1},
                {"type": "table", "columns": ["a"], "rows": [[number]]},
                {"type": "table", "columns": [text], "rows": [["x"]]},
                {"type": "card", "title": text},
                {"type": "card", "title": "t", "fields": [{"label": "n", "value": number}]},
                {"type": "markdown", "text": text},
                {"type": "timeline", "events": [{"time": "now", "title": text}]},
                {"type": "checklist", "items": [{"text": text, "done": number}]},
                {"type": text},
                {"type": "markdown", "text": "ok", key: "extra"},
                deep(200),
            ]
        )
    )


@st.composite
def with_one_bad(
    draw: st.DrawFn, valid: dict[str, Any], bad: dict[str, st.SearchStrategy[Any]], required: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Valid arguments with one made bad (or a required one left out), sometimes an unknown one added."""
    arguments = dict(valid)
    name = draw(st.sampled_from(sorted(bad) + [f"-{key}" for key in required]))
    if name.startswith("-"):
        del arguments[name[1:]]
    else:
        arguments[name] = draw(bad[name])
    if draw(st.booleans()):
        arguments[draw(st.one_of(poisoned(LINE_POISON), st.sampled_from(["extra", "Title", "topicKey"])))] = "x"
    return arguments


# --- the world ----------------------------------------------------------------------------------------


@dataclass
class World:
    bot_id: str
    token: str
    conversation_id: str


@pytest.fixture
def world(server_session: Session) -> World:
    """A bot whose unknown topics are refused (policy skip), with a CI topic and a conversation."""
    bot, token = create_bot(session=server_session, name=f"fuzz-{secrets.token_hex(3)}")
    update_topic_settings(session=server_session, bot_id=bot.bot_id, update=TopicSettingsUpdate(fallback_policy="skip"))
    create_topic(
        session=server_session,
        bot_id=bot.bot_id,
        actor="test",
        data=TopicCreate(topic_key="ci", name="CI", routing_json=CI_RULE),
    )
    conversation = create_conversation(session=server_session, bot_id=bot.bot_id)
    add_message(session=server_session, conversation_id=conversation.conversation_id, role="user", content="deploy it")
    return World(bot_id=bot.bot_id, token=token, conversation_id=conversation.conversation_id)


Caller = Callable[[str, dict[str, Any]], CallToolResult]


@pytest.fixture
def call(server: LiveServer, world: World) -> Iterator[Callable[[str], Caller]]:
    """`call(url)(tool, arguments)`: one real MCP client per endpoint, kept open for the whole test."""
    with anyio.from_thread.start_blocking_portal() as portal, contextlib.ExitStack() as stack:
        clients: dict[str, Caller] = {}

        def for_url(url: str) -> Caller:
            if url not in clients:
                client = stack.enter_context(portal.wrap_async_context_manager(mcp_client(url, world.token)))
                clients[url] = lambda name, arguments: portal.call(client.call_tool, name, arguments)
            return clients[url]

        yield for_url


def refusal(result: CallToolResult) -> dict[str, Any]:
    """The error of a refused call, after checking its shape; internal errors are failures."""
    body = result_json(result)
    assert result.is_error, body
    assert body["ok"] is False and set(body) == {"ok", "error"}, body
    code, message = body["error"]["code"], body["error"]["message"]
    assert code in CATALOGUE and code != "internal_error", body
    assert isinstance(message, str) and message
    assert not any(leak in message for leak in LEAKS), message
    return body["error"]


def no_crash(result: CallToolResult) -> None:
    """A read tool may answer or refuse, but never crash."""
    if result.is_error:
        refusal(result)
    else:
        assert result_json(result)["ok"] is True


ROUTE = {
    "content": CI_CONTENT,
    "title": "CI",
    "message_type": "result",
    "tags": ["ci"],
    "level": "info",
    "summary": "s",
}
BAD_ROUTE = {
    "content": st.one_of(bad_text(), st.none()),
    "title": bad_text(),
    "summary": bad_text(),
    "level": bad_line(),
    "message_type": st.one_of(bad_line(), st.sampled_from(["thought", "Result"])),
    "tags": st.one_of(poisoned(LINE_POISON).map(lambda tag: ["ok", tag]), WRONG_TYPES.filter(lambda v: v != [])),
}
PUBLISH = {
    "title": "Build failed",
    "content": CI_CONTENT,
    "topic_key": "ci",
    "level": "error",
    "tags": ["ci"],
    "view": {"type": "metric", "label": "Failures", "value": 3},
    "dedupe_key": "ci-1",
    "message_type": "result",
}
BAD_PUBLISH = {
    "title": st.one_of(bad_text(), poisoned(("\u202e", "\u2066")), st.just("x" * 201), st.none()),
    "content": st.one_of(bad_text(), HUGE_TEXT, st.none()),
    "topic_key": st.one_of(bad_line(), st.sampled_from(["CI", "nope", "ci ci"])),
    "level": st.one_of(bad_line(), st.sampled_from(["critical", 3])),
    "tags": BAD_ROUTE["tags"],
    "view": bad_view(),
    "dedupe_key": bad_line(),
    "message_type": BAD_ROUTE["message_type"],
}


@given(data=st.data())
@FUZZ
def test_the_listing_tools_refuse_any_argument(
    server: LiveServer, call: Callable[[str], Caller], db_digest: Callable[[], str], data: st.DataObject
) -> None:
    tool = data.draw(st.sampled_from(["topic_list_topics", "topic_get_schema"]))
    arguments = data.draw(
        st.dictionaries(st.one_of(CLEAN, poisoned(LINE_POISON)), st.one_of(bad_text(), CLEAN), min_size=1, max_size=3)
    )
    before = db_digest()
    assert refusal(call(server.topic_mcp_url)(tool, arguments))["code"] == "invalid_argument"
    assert db_digest() == before


@given(data=st.data())
@FUZZ
def test_topic_route_refuses_bad_arguments(
    server: LiveServer, call: Callable[[str], Caller], db_digest: Callable[[], str], data: st.DataObject
) -> None:
    arguments = data.draw(with_one_bad(ROUTE, BAD_ROUTE, required=("content",)))
    before = db_digest()
    refusal(call(server.topic_mcp_url)("topic_route", arguments))
    assert db_digest() == before


@given(data=st.data())
@FUZZ
def test_topic_publish_refuses_bad_arguments_and_stores_nothing(
    server: LiveServer,
    call: Callable[[str], Caller],
    db_digest: Callable[[], str],
    data: st.DataObject,
) -> None:
    arguments = data.draw(with_one_bad(PUBLISH, BAD_PUBLISH, required=("title", "content")))
    before = db_digest()
    refusal(call(server.topic_mcp_url)("topic_publish", arguments))
    assert db_digest() == before


@given(data=st.data())
@FUZZ
def test_ccweb_list_user_inputs_answers_or_refuses_but_never_crashes(
    server: LiveServer,
    world: World,
    call: Callable[[str], Caller],
    db_digest: Callable[[], str],
    data: st.DataObject,
) -> None:
    valid = {"conversationId": world.conversation_id, "limit": 5, "maxChars": 100}
    bad = {
        "conversationId": st.one_of(bad_line(), HUGE_TEXT, st.just("x" * 129)),
        "limit": st.one_of(WRONG_TYPES, bad_text()),
        "maxChars": st.one_of(WRONG_TYPES, bad_text()),
    }
    arguments = data.draw(with_one_bad(valid, bad))
    before = db_digest()
    result = call(server.ccweb_mcp_url)("ccweb_list_user_inputs", arguments)
    no_crash(result)
    if set(arguments) - set(valid) or not isinstance(arguments["conversationId"], str):
        refusal(result)
    assert db_digest() == before


@given(name=st.one_of(poisoned(LINE_POISON), CLEAN.filter(lambda n: not n.startswith(("topic_", "ccweb_")))))
@FUZZ
def test_an_unknown_tool_is_refused_without_leaking_anything(
    server: LiveServer, call: Callable[[str], Caller], db_digest: Callable[[], str], name: str
) -> None:
    before = db_digest()
    for url in (server.topic_mcp_url, server.ccweb_mcp_url):
        assert refusal(call(url)(name, {}))["code"] == "not_found"
    assert db_digest() == before


# --- what a JSON encoder cannot send: raw JSON-RPC -------------------------------------------------------


def raw_call(server: LiveServer, url: str, token: str, name_json: str, arguments_json: str) -> httpx.Response:
    body = (
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": '
        + name_json
        + ', "arguments": '
        + arguments_json
        + "}}"
    )
    headers = {
        "x-topic-mcp-token": token,
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
    }
    return httpx.post(url, content=body.encode("ascii"), headers=headers, timeout=60)


def assert_no_crash(response: httpx.Response) -> None:
    """A protocol error or a tool error with a stable code; never a 500, never internal text."""
    assert response.status_code < 500, response.text[:300]
    assert not any(leak in response.text for leak in LEAKS), response.text[:300]
    body = response.json()
    if "error" in body:  # a JSON-RPC error: the request was not understood
        assert isinstance(body["error"]["code"], int) and body["error"]["message"]
        return
    result = body["result"]
    if result.get("isError"):
        error = json.loads(result["content"][0]["text"])["error"]
        assert error["code"] in CATALOGUE and error["code"] != "internal_error", error
    else:
        assert json.loads(result["content"][0]["text"])["ok"] is True


TOOLS = {
    "topic_list_topics": "topic",
    "topic_get_schema": "topic",
    "topic_route": "topic",
    "topic_publish": "topic",
    "ccweb_list_user_inputs": "ccweb",
}


@given(data=st.data())
@FUZZ
def test_lone_surrogates_and_non_finite_numbers_never_crash(
    server: LiveServer, world: World, db_digest: Callable[[], str], data: st.DataObject
) -> None:
    tool = data.draw(st.sampled_from(sorted(TOOLS)))
    url = server.topic_mcp_url if TOOLS[tool] == "topic" else server.ccweb_mcp_url
    surrogate = data.draw(st.sampled_from(SURROGATES))
    where = data.draw(st.sampled_from(["name", "value", "key", "number"]))
    name = json.dumps(tool)
    arguments: dict[str, Any] = {"topic_publish": {**PUBLISH}, "topic_route": {"content": "x"}}.get(tool, {})
    number = ""
    if where == "name":
        name = json.dumps(f"topic_publish{surrogate}", ensure_ascii=True)
    elif where == "value":
        field = data.draw(st.sampled_from(sorted(arguments) or ["conversationId"]))
        arguments[field] = f"a{surrogate}z" if field != "tags" else [f"a{surrogate}z"]
    elif where == "key":
        arguments[f"k{surrogate}"] = "x"
    else:
        number = data.draw(st.sampled_from(["1e400", "-1e400", "1" + "0" * 400]))
        arguments["view"] = {"type": "metric", "label": "n", "value": "@@number@@"}
    text = json.dumps(arguments, ensure_ascii=True).replace('"@@number@@"', number)
    before = db_digest()
    assert_no_crash(raw_call(server, url, world.token, name, text))
    assert db_digest() == before
