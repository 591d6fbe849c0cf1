"""ccweb_list_user_inputs over real HTTP with the mcp SDK client (docs/DESIGN.md §7).

Every acceptance check of docs/DESIGN.md §7.6 has a test here marked
`# docs/DESIGN.md §7.6, check N: <check>`. The pure selection rules have their own unit tests
(tests/topic_dashboard/user_inputs/); these check the whole path: bot token → source header →
service → database → JSON text of the tool result.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import jsonschema
import pytest
import sqlalchemy as sa
from mcp_types import CallToolResult
from sqlmodel import Session

from tests.support.mcp import mcp_client, result_json, run_async
from tests.support.server import LiveServer
from topic_dashboard.models import Conversation
from topic_dashboard.services.accounts import create_api_token
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.conversations import MessagePublic, add_message, create_conversation
from topic_dashboard.settings import reset_settings_cache

TOOL = "ccweb_list_user_inputs"
SOURCE_HEADER = "x-ccweb-conversation-id"
EXPECTED_SCHEMA = {
    "type": "object",
    "properties": {
        "conversationId": {"type": "string"},
        "limit": {"type": "integer", "default": 15, "minimum": 1, "maximum": 50},
        "maxChars": {"type": "integer", "default": 1000, "minimum": 1, "maximum": 1000},
    },
    "additionalProperties": False,
}
RESULT_KEYS = {"ok", "conversationId", "requestedLimit", "maxChars", "totalChars", "returnedCount", "hasMore", "items"}
ITEM_KEYS = {"messageId", "createdAt", "content", "contentChars", "originalChars", "truncated"}
GUIDE_CARD = {
    "title": "Deploy request",
    "fields": [
        {"name": "service", "label": "Service", "type": "text", "required": True},
        {"name": "region", "label": "Region", "type": "select", "options": ["eu", "us"]},
        {"name": "urgent", "label": "Urgent", "type": "checkbox"},
    ],
    "submit_label": "Send",
}


# --- helpers ---------------------------------------------------------------------------------------


def _bot(session: Session, name: str = "ccweb") -> tuple[str, str]:
    bot, token = create_bot(session=session, name=f"{name}-{secrets.token_hex(3)}")
    return bot.bot_id, token


def _conversation(session: Session, bot_id: str, *messages: tuple[str, str]) -> tuple[str, list[MessagePublic]]:
    """A conversation with `(role, content)` messages, oldest first."""
    conversation_id = create_conversation(session=session, bot_id=bot_id, title="t").conversation_id
    added = [
        add_message(session=session, conversation_id=conversation_id, role=role, content=content)
        for role, content in messages
    ]
    return conversation_id, added


def _user(*contents: str) -> list[tuple[str, str]]:
    return [("user", content) for content in contents]


def _call(
    server: LiveServer,
    token: str,
    arguments: dict[str, Any] | None = None,
    *,
    source: str | None = None,
    bearer: bool = False,
) -> CallToolResult:
    headers = {SOURCE_HEADER: source} if source is not None else {}
    if bearer:
        headers["authorization"] = f"Bearer {token}"

    async def body() -> CallToolResult:
        async with mcp_client(server.ccweb_mcp_url, None if bearer else token, headers=headers) as client:
            return await client.call_tool(TOOL, arguments or {})

    return run_async(body)


def _ok(result: CallToolResult) -> dict[str, Any]:
    body = result_json(result)
    assert not result.is_error, body
    assert set(body) == RESULT_KEYS and body["ok"] is True
    assert all(set(item) == ITEM_KEYS for item in body["items"])
    # The count fields agree with the items whatever the case.
    assert body["returnedCount"] == len(body["items"])
    assert body["totalChars"] == sum(item["contentChars"] for item in body["items"]) <= body["maxChars"]
    assert all(item["contentChars"] == len(item["content"]) <= item["originalChars"] for item in body["items"])
    return body


def _error(result: CallToolResult) -> dict[str, Any]:
    """The error object of a refused call, after checking the error shape of docs/DESIGN.md §7.5."""
    body = result_json(result)
    assert result.is_error, body
    assert body["ok"] is False and set(body) == {"ok", "error"}
    error = body["error"]
    assert isinstance(error["code"], str) and isinstance(error["message"], str) and error["message"]
    return error


def _contents(body: dict[str, Any]) -> list[str]:
    return [item["content"] for item in body["items"]]


def _rows(session: Session) -> dict[str, list[tuple[Any, ...]]]:
    """Every column of every conversation and message row, as the driver returns them."""
    with session.get_bind().connect() as conn:
        return {
            table: [tuple(row) for row in conn.execute(sa.text(f"SELECT * FROM {table} ORDER BY id"))]
            for table in ("conversation", "message")
        }


# --- the schema and the description ------------------------------------------------------------------


# docs/DESIGN.md §7.6, check 1: the schema and description state the defaults and the use.
def test_schema_and_description_state_the_defaults_and_the_acceptance_use(
    server: LiveServer,
    server_session: Session,
) -> None:
    _, token = _bot(server_session)

    async def body() -> Any:
        async with mcp_client(server.ccweb_mcp_url, token) as client:
            return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in run_async(body)}
    assert TOOL in tools
    tool = tools[TOOL]
    schema = tool.input_schema
    # Exactly these properties, types, defaults and bounds (descriptions aside), nothing required.
    stripped = {
        **{key: value for key, value in schema.items() if key != "properties"},
        "properties": {
            name: {key: value for key, value in prop.items() if key != "description"}
            for name, prop in schema["properties"].items()
        },
    }
    assert stripped == EXPECTED_SCHEMA
    jsonschema.Draft202012Validator.check_schema(schema)
    description = tool.description.lower()
    assert "current conversation" in description  # default: the conversation the bot works in
    assert "15" in description  # the most recent 15 user inputs
    assert "1000 characters" in description  # at most 1000 characters in total
    assert "before implementing" in description and "accepting" in description  # what it is for
    assert "user" in description
    assert tool.annotations is not None and tool.annotations.read_only_hint is True


def test_unknown_arguments_are_refused(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session)
    conversation_id, _ = _conversation(server_session, bot_id, *_user("hello"))
    error = _error(_call(server, token, {"conversation_id": conversation_id}))
    assert error["code"] == "invalid_argument"
    assert "conversation_id" in error["message"]


# --- which conversation -------------------------------------------------------------------------


# docs/DESIGN.md §7.6, check 2: the source conversation (by default) and a named one can be read.
def test_default_reads_the_source_conversation_of_the_header(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session)
    source_id, _ = _conversation(server_session, bot_id, *_user("build the login page"))
    _conversation(server_session, bot_id, *_user("something else entirely"))
    body = _ok(_call(server, token, source=source_id))
    assert body["conversationId"] == source_id
    assert _contents(body) == ["build the login page"]


# docs/DESIGN.md §7.6, check 2: the source conversation (by default) and a named one can be read.
def test_explicit_conversation_is_read_and_wins_over_the_header(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session)
    source_id, _ = _conversation(server_session, bot_id, *_user("the source conversation"))
    other_id, _ = _conversation(server_session, bot_id, *_user("the other conversation"))
    with_header = _ok(_call(server, token, {"conversationId": other_id}, source=source_id))
    without_header = _ok(_call(server, token, {"conversationId": f"  {other_id}\t"}))  # trimmed
    for body in (with_header, without_header):
        assert body["conversationId"] == other_id
        assert _contents(body) == ["the other conversation"]


def test_the_bot_token_may_come_as_a_bearer_token(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session)
    conversation_id, _ = _conversation(server_session, bot_id, *_user("bearer works"))
    assert _contents(_ok(_call(server, token, source=conversation_id, bearer=True))) == ["bearer works"]


# --- what is selected, in which order -----------------------------------------------------------------


# docs/DESIGN.md §7.6, check 3: by default only the 15 most recent user inputs, oldest first.
def test_default_returns_the_15_most_recent_inputs_oldest_first(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session)
    messages: list[tuple[str, str]] = []
    for number in range(1, 21):
        messages += [("user", f"request {number:02d}"), ("assistant", f"answer {number:02d}")]
    conversation_id, added = _conversation(server_session, bot_id, *messages)
    body = _ok(_call(server, token, source=conversation_id))
    assert body["requestedLimit"] == 15 and body["maxChars"] == 1000
    assert _contents(body) == [f"request {number:02d}" for number in range(6, 21)]
    assert body["returnedCount"] == 15 and body["hasMore"] is True
    users = [message for message in added if message.role == "user"][5:]
    for item, message in zip(body["items"], users, strict=True):
        assert item["messageId"] == message.message_id
        created = datetime.fromisoformat(item["createdAt"])  # ISO 8601, with its offset
        assert created.utcoffset() is not None
        assert created == datetime.fromisoformat(message.created_at or "")
        assert item["truncated"] is False and item["contentChars"] == item["originalChars"] == len(message.content)
    stamps = [datetime.fromisoformat(item["createdAt"]) for item in body["items"]]
    assert stamps == sorted(stamps)


# docs/DESIGN.md §7.6, check 4: assistant/tool/system, blank user messages and unsubmitted guide cards never appear.
def test_assistant_tool_system_blank_and_guide_cards_are_left_out(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session)
    conversation_id, _ = _conversation(
        server_session,
        bot_id,
        ("system", "you are a helpful bot"),
        ("user", "first request"),
        ("assistant", "assistant reply"),
        ("tool", "tool output"),
        ("user", ""),
        ("user", "   \n\t"),
        ("user", "\u3000\u00a0"),  # ideographic and no-break spaces are blank too
        ("user", "second request"),
    )
    add_message(
        session=server_session,
        conversation_id=conversation_id,
        role="assistant",
        content="Please fill in the deploy form",
        kind="guide_card",
        guide_card=GUIDE_CARD,
    )
    body = _ok(_call(server, token, {"conversationId": conversation_id}))
    assert _contents(body) == ["first request", "second request"]
    assert body["hasMore"] is False and body["totalChars"] == len("first request") + len("second request")


def test_blank_inputs_do_not_take_the_place_of_older_ones(server: LiveServer, server_session: Session) -> None:
    """More blank user rows than a page of limit+1 between the newest and the older inputs."""
    bot_id, token = _bot(server_session)
    conversation_id, _ = _conversation(
        server_session,
        bot_id,
        *_user("oldest", "older", "old"),
        *_user(*[" "] * 9),
        ("assistant", "ok"),
        *_user("new"),
    )
    body = _ok(_call(server, token, {"conversationId": conversation_id, "limit": 3}))
    assert _contents(body) == ["older", "old", "new"]
    assert body["hasMore"] is True


# docs/DESIGN.md §7.6, check 5: the user message a submitted guide card produces does appear.
def test_guide_card_submission_is_included(server: LiveServer, server_session: Session) -> None:
    """The user fills in a guide card through the REST API; the bot then reads the answers back."""
    bot_id, token = _bot(server_session)
    api = {"authorization": f"Bearer {create_api_token(session=server_session, name='ccweb-admin', role='admin')}"}
    with httpx.Client(base_url=server.base_url + "/api", headers=api) as http:
        conversation_id = http.post(f"/bots/{bot_id}/conversations", json={}).json()["conversation_id"]

        def post(role: str, content: str, **extra: Any) -> dict[str, Any]:
            response = http.post(
                f"/conversations/{conversation_id}/messages", json={"role": role, "content": content, **extra}
            )
            assert response.status_code == 201, response.text
            return response.json()

        post("user", "deploy my service")
        submitted = post("assistant", "Which service?", kind="guide_card", guide_card=GUIDE_CARD)
        post("assistant", "Still pending: which branch?", kind="guide_card", guide_card=GUIDE_CARD)
        response = http.post(
            f"/conversations/{conversation_id}/messages/{submitted['message_id']}/submit",
            json={"answers": {"service": "billing", "region": "eu", "urgent": True}},
        )
        assert response.status_code == 201, response.text
        answer = response.json()

    body = _ok(_call(server, token, source=conversation_id))
    assert _contents(body) == ["deploy my service", "Deploy request\nService: billing\nRegion: eu\nUrgent: yes"]
    assert body["items"][-1]["messageId"] == answer["message_id"]
    assert "Which service?" not in str(body) and "Still pending" not in str(body)


# --- limits, budget, truncation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("limit", "max_chars", "used_limit", "used_chars"),
    [
        (None, None, 15, 1000),
        (1, 1, 1, 1),
        (50, 1000, 50, 1000),
        (0, 0, 1, 1),
        (-7, -1, 1, 1),
        (51, 1001, 50, 1000),
        (10**9, 10**9, 50, 1000),
    ],
)
# docs/DESIGN.md §7.6, check 6: `limit` and `maxChars` are defaulted and clamped; contents never exceed `maxChars`.
def test_limit_and_max_chars_are_defaulted_and_clamped(
    server: LiveServer,
    server_session: Session,
    limit: int | None,
    max_chars: int | None,
    used_limit: int,
    used_chars: int,
) -> None:
    bot_id, token = _bot(server_session)
    conversation_id, _ = _conversation(server_session, bot_id, *_user(*[f"i{number:02d}" for number in range(1, 61)]))
    arguments = {key: value for key, value in (("limit", limit), ("maxChars", max_chars)) if value is not None}
    body = _ok(_call(server, token, arguments, source=conversation_id))
    assert (body["requestedLimit"], body["maxChars"]) == (used_limit, used_chars)
    expected = min(used_limit, -(-used_chars // 3))  # three characters an input
    assert body["returnedCount"] == expected
    assert body["totalChars"] == min(used_chars, used_limit * 3)
    assert body["items"][-1]["content"] == "i60"[:used_chars]


@pytest.mark.parametrize("name", ["limit", "maxChars"])
@pytest.mark.parametrize("value", ["5", 2.5, 3.0, True, [3], {"n": 3}])
def test_non_integer_limits_are_invalid_argument(
    server: LiveServer,
    server_session: Session,
    name: str,
    value: Any,
) -> None:
    bot_id, token = _bot(server_session)
    conversation_id, _ = _conversation(server_session, bot_id, *_user("hello"))
    error = _error(_call(server, token, {name: value}, source=conversation_id))
    assert error["code"] == "invalid_argument" and error["field"] == name


# docs/DESIGN.md §7.6, check 6: `limit` and `maxChars` are defaulted and clamped; contents never exceed `maxChars`.
def test_the_budget_is_split_from_the_newest_input_backwards(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session)
    conversation_id, _ = _conversation(server_session, bot_id, *_user(*(letter * 300 for letter in "ABCDE")))
    body = _ok(_call(server, token, source=conversation_id))  # default budget: 1000
    assert _contents(body) == ["B" * 100, "C" * 300, "D" * 300, "E" * 300]
    assert [item["truncated"] for item in body["items"]] == [True, False, False, False]
    assert [item["originalChars"] for item in body["items"]] == [300] * 4
    assert body["totalChars"] == 1000 and body["returnedCount"] == 4 and body["hasMore"] is True


# docs/DESIGN.md §7.6, check 8: truncated items, `hasMore`, the counters and error codes are stable.
def test_the_boundary_input_keeps_its_beginning_and_nothing_older_follows(
    server: LiveServer,
    server_session: Session,
) -> None:
    bot_id, token = _bot(server_session)
    conversation_id, added = _conversation(
        server_session,
        bot_id,
        *_user("first input", "  second input, untrimmed  ", "third\n"),
    )
    body = _ok(_call(server, token, {"maxChars": 12}, source=conversation_id))
    assert body["items"] == [
        {
            "messageId": added[1].message_id,
            "createdAt": body["items"][0]["createdAt"],
            "content": "  seco",
            "contentChars": 6,
            "originalChars": 27,
            "truncated": True,
        },
        {
            "messageId": added[2].message_id,
            "createdAt": body["items"][1]["createdAt"],
            "content": "third\n",
            "contentChars": 6,
            "originalChars": 6,
            "truncated": False,
        },
    ]
    assert (body["totalChars"], body["returnedCount"], body["hasMore"]) == (12, 2, True)
    everything = _ok(_call(server, token, source=conversation_id))
    assert _contents(everything) == ["first input", "  second input, untrimmed  ", "third\n"]  # stored as is


@pytest.mark.parametrize(
    ("contents", "max_chars", "kept", "chars"),
    [
        (["ab", "😀中文e\u0301"], 6, ["a", "😀中文e\u0301"], [1, 5]),  # UTF-16 would count the newest as 6
        (["👍🏽👍🏽"], 3, ["👍🏽👍"], [3]),  # skin-tone modifier: its own code point
        (["🇨🇳🇨🇳x"], 3, ["🇨🇳🇨"], [3]),  # regional indicators: one code point each
        (["𠀀𠀁𠀂"], 2, ["𠀀𠀁"], [2]),  # CJK extension B, outside the BMP
        (["e\u0301e\u0301"], 3, ["e\u0301e"], [3]),  # combining acute accent: a code point of its own
        (["😀" * 1000], 1000, ["😀" * 1000], [1000]),  # exactly the budget: not truncated
    ],
)
# docs/DESIGN.md §7.6, check 7: characters outside the BMP (emoji) count as one code point.
def test_characters_are_counted_by_code_point(
    server: LiveServer,
    server_session: Session,
    contents: list[str],
    max_chars: int,
    kept: list[str],
    chars: list[int],
) -> None:
    bot_id, token = _bot(server_session)
    conversation_id, _ = _conversation(server_session, bot_id, *_user(*contents))
    body = _ok(_call(server, token, {"maxChars": max_chars}, source=conversation_id))
    assert _contents(body) == kept
    assert [item["contentChars"] for item in body["items"]] == chars
    assert [item["originalChars"] for item in body["items"]] == [len(text) for text in contents[-len(kept) :]]
    assert body["totalChars"] == sum(chars)
    originals = contents[-len(kept) :]
    assert [item["truncated"] for item in body["items"]] == [k != o for k, o in zip(kept, originals, strict=True)]


@pytest.mark.parametrize(
    ("messages", "arguments", "kept", "has_more"),
    [
        pytest.param(_user("a", "b"), {"limit": 3}, ["a", "b"], False, id="fewer-than-limit"),
        pytest.param(_user("a", "b", "c"), {"limit": 3}, ["a", "b", "c"], False, id="exactly-limit"),
        pytest.param(_user("a", "b", "c", "d"), {"limit": 3}, ["b", "c", "d"], True, id="older-beyond-limit"),
        pytest.param(_user("abcdef"), {"maxChars": 4}, ["abcd"], True, id="only-input-truncated"),
        pytest.param(_user("old", "new"), {"maxChars": 3}, ["new"], True, id="budget-used-up-older-left-out"),
        pytest.param(_user("old", "new"), {"maxChars": 6}, ["old", "new"], False, id="budget-exactly-used"),
        pytest.param(_user("old", "new"), {"maxChars": 4}, ["o", "new"], True, id="older-truncated"),
        pytest.param(
            [*_user(" ", ""), ("assistant", "x"), ("tool", "y"), ("system", "z"), *_user("a", "b")],
            {"limit": 2},
            ["a", "b"],
            False,
            id="only-non-inputs-beyond-limit",
        ),
        pytest.param(_user("a", "bb", "cc"), {"limit": 2, "maxChars": 3}, ["b", "cc"], True, id="limit-and-budget"),
        pytest.param([("assistant", "hi")], {}, [], False, id="no-inputs-at-all"),
    ],
)
# docs/DESIGN.md §7.6, check 8: truncated items, `hasMore`, the counters and error codes are stable.
def test_has_more_in_all_its_cases(
    server: LiveServer,
    server_session: Session,
    messages: list[tuple[str, str]],
    arguments: dict[str, Any],
    kept: list[str],
    has_more: bool,
) -> None:
    bot_id, token = _bot(server_session)
    conversation_id, _ = _conversation(server_session, bot_id, *messages)
    body = _ok(_call(server, token, arguments, source=conversation_id))
    assert _contents(body) == kept
    assert body["hasMore"] is has_more


# --- errors -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", [None, "", "../x", "a/b", "a b", "x" * 129])
# docs/DESIGN.md §7.6, check 8: truncated items, `hasMore`, the counters and error codes are stable.
def test_missing_source_conversation(server: LiveServer, server_session: Session, source: str | None) -> None:
    """No conversationId, and no usable source header: absent, empty or not an id."""
    _, token = _bot(server_session)
    error = _error(_call(server, token, {"limit": 5}, source=source))
    assert error["code"] == "missing_source_conversation"


@pytest.mark.parametrize(
    "explicit",
    ["", "   ", "../x", "..", "a/b", "a\\b", "a b", "x" * 129, "-leading-dash", "中文", 42],
)
# docs/DESIGN.md §7.6, check 8: truncated items, `hasMore`, the counters and error codes are stable.
def test_an_invalid_explicit_id_never_falls_back_to_the_source(
    server: LiveServer,
    server_session: Session,
    explicit: Any,
) -> None:
    bot_id, token = _bot(server_session)
    source_id, _ = _conversation(server_session, bot_id, *_user("the source conversation's input"))
    result = _call(server, token, {"conversationId": explicit}, source=source_id)
    error = _error(result)
    assert error["code"] == "invalid_conversation_id"
    assert "source conversation's input" not in result.content[0].text


# docs/DESIGN.md §7.6, check 8: truncated items, `hasMore`, the counters and error codes are stable.
def test_conversation_not_found(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session)
    source_id, _ = _conversation(server_session, bot_id, *_user("mine"))
    unknown = secrets.token_hex(16)
    explicit = _error(_call(server, token, {"conversationId": unknown}, source=source_id))
    assert explicit["code"] == "conversation_not_found"
    assert _error(_call(server, token, source=unknown))["code"] == "conversation_not_found"


def test_a_bot_cannot_read_another_bots_conversation(server: LiveServer, server_session: Session) -> None:
    owner_id, owner_token = _bot(server_session, "owner")
    _, other_token = _bot(server_session, "other")
    conversation_id, _ = _conversation(server_session, owner_id, *_user("the owner's secret plan"))
    assert _contents(_ok(_call(server, owner_token, source=conversation_id))) == ["the owner's secret plan"]
    for result in (
        _call(server, other_token, {"conversationId": conversation_id}),
        _call(server, other_token, source=conversation_id),
    ):
        # The same answer as for an id that does not exist: nothing tells the other bot it does.
        assert _error(result)["code"] == "conversation_not_found"
        assert "secret" not in result.content[0].text


# --- read-only --------------------------------------------------------------------------------------


# docs/DESIGN.md §7.6, check 9: reading changes no row, updated_at, unread flag or run status.
def test_reading_changes_no_conversation_or_message_row(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session)
    conversation_id, added = _conversation(
        server_session,
        bot_id,
        *_user("first request", "second request"),
        ("assistant", "done"),
        *_user("a third, longer request that will be cut"),
    )
    add_message(
        session=server_session,
        conversation_id=conversation_id,
        role="assistant",
        content="form",
        kind="guide_card",
        guide_card=GUIDE_CARD,
    )
    conversation = server_session.get(Conversation, conversation_id)
    assert conversation is not None
    # A conversation a reader might "touch": unread, running, last updated long ago.
    conversation.unread, conversation.run_status = True, "running"
    conversation.updated_at = datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    server_session.add(conversation)
    server_session.commit()
    before = _rows(server_session)
    assert len(before["message"]) >= len(added) + 1

    answers = [
        _ok(_call(server, token, source=conversation_id)),
        _ok(_call(server, token, {"conversationId": conversation_id, "limit": 1, "maxChars": 5})),
        _error(_call(server, token, {"conversationId": conversation_id, "limit": "x"})),
        _error(_call(server, token, {"conversationId": "../x"}, source=conversation_id)),
    ]
    assert _contents(answers[0])[0] == "first request" and answers[1]["items"][0]["truncated"] is True
    assert _rows(server_session) == before


# --- the source conversation without a header: what the dashboard is relaying ------------------------


@pytest.fixture
def relay_off() -> Iterator[None]:
    """The app's own chat worker claims nothing while the test claims runs itself: under load it
    took the queued run first (and failed it on the bot's unreachable endpoint) in CI."""
    saved = os.environ.get("TOPIC_DASHBOARD_CHAT_RELAY")
    os.environ["TOPIC_DASHBOARD_CHAT_RELAY"] = "false"
    reset_settings_cache()
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("TOPIC_DASHBOARD_CHAT_RELAY", None)
        else:
            os.environ["TOPIC_DASHBOARD_CHAT_RELAY"] = saved
        reset_settings_cache()


def _relaying(session: Session, bot_id: str, *contents: str) -> str:
    """A conversation the dashboard is relaying to the bot right now (its run claimed, `running`)."""
    from topic_dashboard.services import chat

    chat.set_chat_endpoint(session=session, bot_id=bot_id, chat_url="http://127.0.0.1:9")
    conversation_id, _ = _conversation(session, bot_id, *_user(*contents[:-1]))
    chat.send_message(session=session, conversation_id=conversation_id, content=contents[-1])
    job = chat.claim_next_run(session=session, worker="test")
    assert job is not None and job.conversation_id == conversation_id
    session.commit()
    return conversation_id


def test_without_a_header_the_source_is_the_conversation_being_relayed(
    server: LiveServer, server_session: Session, relay_off: None
) -> None:
    """nanobot sends one set of headers for every conversation: the dashboard knows which one it relays."""
    from topic_dashboard.services import chat

    bot_id, token = _bot(server_session)
    other_bot, other_token = _bot(server_session, "other")
    relayed = _relaying(server_session, bot_id, "first ask", "run the build and tell me")
    waiting, _ = _conversation(server_session, bot_id)
    chat.send_message(session=server_session, conversation_id=waiting, content="and the other thing")
    server_session.commit()

    body = _ok(_call(server, token, {}))
    assert body["conversationId"] == relayed
    assert _contents(body) == ["first ask", "run the build and tell me"]
    # The header, when sent, still wins; another bot never sees this bot's conversation.
    assert _ok(_call(server, token, {}, source=waiting))["conversationId"] == waiting
    assert _error(_call(server, other_token, {}))["code"] == "missing_source_conversation"
    assert other_bot != bot_id

    # When that run ends, the queued conversation runs next and becomes the source.
    job = chat.claim_next_run(session=server_session, worker="test")
    assert job is None  # the bot is busy with `relayed`
    running = chat.source_conversation_id(session=server_session, bot_id=bot_id)
    assert running == relayed
    from topic_dashboard.models import ChatRun

    run_id = server_session.exec(sa.select(ChatRun.id).where(ChatRun.conversation_id == relayed)).scalar_one()
    chat.finish_done(session=server_session, run_id=run_id, text="done")
    assert chat.claim_next_run(session=server_session, worker="test") is not None
    server_session.commit()
    body = _ok(_call(server, token, {}))
    assert (body["conversationId"], _contents(body)) == (waiting, ["and the other thing"])


def test_with_no_run_in_progress_the_error_stays_missing_source(server: LiveServer, server_session: Session) -> None:
    bot_id, token = _bot(server_session)
    _conversation(server_session, bot_id, *_user("hello"))
    assert _error(_call(server, token, {}))["code"] == "missing_source_conversation"
