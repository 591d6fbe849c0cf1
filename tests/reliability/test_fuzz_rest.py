"""Fuzzing every REST body and path/query parameter over real HTTP, on SQLite and PostgreSQL.

Every request here carries at least one bad value: a NUL, a lone surrogate, a control or bidi
character, a wrong JSON type, a missing or unknown field, a huge or deeply nested value, or a
number out of bounds. Each must come back as a structured error (a JSON body with a stable code
and the status the catalogue gives it), never a 500, and must leave every stored row as it was
(the audit trail and a token's last use aside; see conftest.py).

Bodies are written with `json.dumps(..., ensure_ascii=True)`, which escapes a lone surrogate as
"\\ud800" (a normal JSON encoder refuses to send one); `Raw` splices in JSON a Python value cannot
produce (1e400, deep nesting).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sqlmodel import Session

from tests.support.server import LiveServer
from topic_dashboard.errors import CATALOGUE
from topic_dashboard.services.accounts import create_api_token
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.conversations import add_message, create_conversation
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicCreate, create_topic

FUZZ = settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Refused anywhere: NUL, lone surrogates, C0 and C1 controls other than tab and line breaks.
TEXT_POISON = ("\x00", "\ud800", "\udfff", "\x01", "\x07", "\x1b", "\x7f", "\x85", "\x9f")
# Refused in one-line values (names, titles, keys) too: tab, line breaks, bidi overrides and isolates.
LINE_POISON = (*TEXT_POISON, "\t", "\n", "\r", "\u2028", "\u202a", "\u202e", "\u2066", "\u2069")
# What a URL can carry into a query parameter (a lone surrogate cannot be percent-encoded), and into a
# path segment (where LF is test_a_line_break_in_a_path_gets_the_json_not_found's business).
URL_POISON = tuple(char for char in LINE_POISON if not "\ud800" <= char <= "\udfff")
PATH_POISON = tuple(char for char in URL_POISON if char != "\n")

GUIDE_CARD = {
    "title": "Deploy request",
    "fields": [
        {"name": "service", "label": "Service", "type": "text", "required": True},
        {"name": "region", "label": "Region", "type": "select", "options": ["eu", "us"]},
        {"name": "replicas", "label": "Replicas", "type": "number"},
    ],
}


class Raw:
    """JSON text spliced into a body as is: what `json.dumps` cannot write."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Raw({self.text[:40]!r})"


def dumps(body: Any) -> str:
    raws: list[Raw] = []

    def mark(value: Any) -> Any:
        if isinstance(value, Raw):
            raws.append(value)
            return f"@@raw{len(raws) - 1}@@"
        if isinstance(value, dict):
            return {key: mark(item) for key, item in value.items()}
        if isinstance(value, list):
            return [mark(item) for item in value]
        return value

    text = json.dumps(mark(body), ensure_ascii=True)
    for index, raw in enumerate(raws):
        text = text.replace(f'"@@raw{index}@@"', raw.text)
    return text


# --- strategies -----------------------------------------------------------------------------------

CLEAN = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Cf", "Zl", "Zp")), max_size=12)


def poisoned(poisons: tuple[str, ...]) -> st.SearchStrategy[str]:
    """Text with a poison character between visible ones (trimming cannot remove it)."""
    return st.builds(lambda a, p, b: f"a{a}{p}{b}z", CLEAN, st.sampled_from(poisons), CLEAN)


HUGE_NUMBERS = st.sampled_from(
    [
        Raw("1e400"),
        Raw("-1e400"),
        Raw("NaN"),
        Raw("Infinity"),
        10**400,
        -(10**400),
        2**63,
        -(2**63) - 1,
        10**20,
    ]
)
WRONG_SCALARS = st.one_of(st.integers(), st.floats(allow_nan=False), st.booleans(), HUGE_NUMBERS)
WRONG_CONTAINERS = st.sampled_from([[], [1, "a"], {}, {"nested": {"x": 1}}])
DEEP = st.sampled_from([50, 1_000, 100_000]).map(lambda depth: Raw("[" * depth + "]" * depth))
HUGE_TEXT = st.sampled_from([2_001, 100_001, 300_000]).map(lambda size: "x" * size)


def bad_line(*, nullable: bool = False) -> st.SearchStrategy[Any]:
    """What a one-line text field (a name, a title, a key) must refuse."""
    wrong = st.one_of(WRONG_SCALARS, WRONG_CONTAINERS, DEEP)
    return st.one_of(poisoned(LINE_POISON), wrong, HUGE_TEXT, *([] if nullable else [st.none()]))


def bad_text(*, nullable: bool = False) -> st.SearchStrategy[Any]:
    """What a free-text field (a description, a message) must refuse."""
    wrong = st.one_of(WRONG_SCALARS, WRONG_CONTAINERS, DEEP)
    return st.one_of(poisoned(TEXT_POISON), wrong, st.just("x" * 100_001), *([] if nullable else [st.none()]))


def bad_json_object() -> st.SearchStrategy[Any]:
    """What a JSON object field (routing_json, view_schema_json, guide_card, answers) must refuse."""
    return st.one_of(
        poisoned(TEXT_POISON).map(lambda text: {"purpose": text, "allowed_types": [text]}),
        poisoned(LINE_POISON).map(lambda key: {key: "x"}),
        HUGE_NUMBERS.map(lambda number: {"priority": number}),
        DEEP.map(lambda deep: {"examples": {"positive": deep}}),
        st.one_of(WRONG_SCALARS, st.lists(st.integers(), max_size=3), poisoned(TEXT_POISON)),
    )


def bad_bool() -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from([2, -1, 3.5, "maybe", [], {}]), HUGE_NUMBERS, poisoned(TEXT_POISON))


def bad_int(lo: int, hi: int) -> st.SearchStrategy[Any]:
    out_of_range = st.one_of(st.integers(max_value=lo - 1), st.integers(min_value=hi + 1))
    return st.one_of(out_of_range, HUGE_NUMBERS, st.sampled_from([1.5, "ten", [], {}]), poisoned(TEXT_POISON))


@st.composite
def one_bad_field(draw: st.DrawFn, valid: dict[str, Any], bad: dict[str, st.SearchStrategy[Any]]) -> dict[str, Any]:
    """A valid body with one field made bad, sometimes a required field left out, sometimes an unknown field added."""
    body = dict(valid)
    name = draw(st.sampled_from(sorted(bad)))
    body[name] = draw(bad[name])
    if draw(st.booleans()):
        body[draw(st.one_of(poisoned(LINE_POISON), st.sampled_from(["extra", "Name", "topic key"])))] = draw(CLEAN)
    return body


# --- the world every request aims at ----------------------------------------------------------------


@dataclass
class World:
    bot_id: str
    topic_key: str
    item_id: int
    conversation_id: str
    card_id: str

    def url(self, template: str, **override: str) -> str:
        values = {
            "bot_id": self.bot_id,
            "topic_key": self.topic_key,
            "item_id": str(self.item_id),
            "conversation_id": self.conversation_id,
            "message_id": self.card_id,
            **override,
        }
        return template.format(
            **{key: quote(value.encode("utf-8", "surrogatepass"), safe="") for key, value in values.items()}
        )


@pytest.fixture
def world(server_session: Session) -> World:
    bot, _ = create_bot(session=server_session, name=f"fuzz-{secrets.token_hex(3)}")
    create_topic(session=server_session, bot_id=bot.bot_id, actor="test", data=TopicCreate(topic_key="ci", name="CI"))
    item = publish_item(
        session=server_session,
        bot_id=bot.bot_id,
        request=PublishRequest(title="build failed", content="CI build #1 failed", topic_key="ci"),
    )
    conversation = create_conversation(session=server_session, bot_id=bot.bot_id, title="deploys")
    add_message(session=server_session, conversation_id=conversation.conversation_id, role="user", content="deploy it")
    card = add_message(
        session=server_session,
        conversation_id=conversation.conversation_id,
        role="assistant",
        content="Fill in the form",
        kind="guide_card",
        guide_card=GUIDE_CARD,
    )
    return World(
        bot_id=bot.bot_id,
        topic_key="ci",
        item_id=item.item_id,
        conversation_id=conversation.conversation_id,
        card_id=card.message_id,
    )


@pytest.fixture
def admin(server: LiveServer, server_session: Session) -> Iterator[httpx.Client]:
    token = create_api_token(session=server_session, name="fuzz-admin", role="admin")
    with httpx.Client(base_url=server.base_url, headers={"authorization": f"Bearer {token}"}, timeout=60) as client:
        yield client


def assert_refused(response: httpx.Response, before: str, digest: Callable[[], str], *, must: bool = True) -> None:
    """A structured 4xx error, and every stored row as it was. Without `must`, a read may also answer 2xx."""
    if not must and 200 <= response.status_code < 300:
        response.json()
        assert digest() == before, "a read changed stored data"
        return
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith("application/json"), response.text[:300]
    body = response.json()
    assert set(body) == {"error"}, body
    code, message = body["error"]["code"], body["error"]["message"]
    assert code in CATALOGUE, body  # whose status agrees, but for test_an_unparsable_body_has_a_code_of_its_status
    assert isinstance(message, str) and message
    assert digest() == before, "a refused request changed stored data"


def send_json(client: httpx.Client, method: str, url: str, body: Any) -> httpx.Response:
    return client.request(
        method, url, content=dumps(body).encode("ascii"), headers={"content-type": "application/json"}
    )


# --- bodies -----------------------------------------------------------------------------------------

TOPIC_CREATE = {
    "topic_key": "fresh_topic",
    "name": "Fresh",
    "description": "d",
    "is_active": True,
    "routing_json": {"purpose": "p"},
    "view_schema_json": {"allowed_types": ["table"]},
}
BAD_TOPIC_FIELDS = {
    "topic_key": st.one_of(bad_line(), st.sampled_from(["Fresh", "1abc", "a" * 65, "a-b", "abc\n"])),
    "name": bad_line(),
    "description": bad_text(),
    "is_active": bad_bool(),
    "routing_json": bad_json_object(),
    "view_schema_json": bad_json_object(),
}
BAD_TOPIC_UPDATE_FIELDS = {
    **{key: strategy for key, strategy in BAD_TOPIC_FIELDS.items() if key != "topic_key"},
    "name": bad_line(nullable=True),
    "description": bad_text(nullable=True),
    "topic_key": st.one_of(poisoned(LINE_POISON), WRONG_SCALARS),
}
BAD_SETTINGS_FIELDS = {
    "topic_enabled": bad_bool(),
    "fallback_policy": st.one_of(poisoned(LINE_POISON), st.sampled_from(["Inbox", "drop", 1])),
    "publish_rate_per_minute": bad_int(1, 10_000),
    "dedupe_window_seconds": bad_int(0, 7 * 24 * 3600),
    "allow_remote_images": bad_bool(),
}
MESSAGE = {"role": "user", "content": "hello"}
BAD_MESSAGE_FIELDS = {
    "role": st.one_of(poisoned(LINE_POISON), st.sampled_from(["admin", "User", 1])),
    "content": bad_text(),
    "kind": st.one_of(poisoned(LINE_POISON), st.sampled_from(["html", 1])),
}
CARD_MESSAGE = {"role": "assistant", "content": "form", "kind": "guide_card", "guide_card": GUIDE_CARD}


@st.composite
def bad_guide_card(draw: st.DrawFn) -> Any:
    card = json.loads(json.dumps(GUIDE_CARD))
    where = draw(st.sampled_from(["title", "label", "name", "option", "type", "submit_label", "whole"]))
    if where == "whole":
        return draw(bad_json_object())
    if where in ("title", "submit_label"):
        card[where] = draw(bad_line())
    elif where == "option":
        card["fields"][1]["options"] = ["eu", draw(bad_line())]
    else:
        card["fields"][0][where] = draw(bad_line())
    return card


REPORTED: list[tuple[str, str, Any, dict[str, str] | None]] = [
    # What an outside tester found on main: 500s (lone surrogates on SQLite, NUL on PostgreSQL,
    # an integer overflow) and names REST stored while MCP refused them.
    ("POST", "/api/bots", {"name": "bot\ud800"}, None),
    ("POST", "/api/bots", {"name": "bot\x00"}, None),
    ("POST", "/api/bots", {"name": "bell\x07"}, None),
    ("POST", "/api/bots", {"name": "red\x1b[31m"}, None),
    ("POST", "/api/bots", {"name": "invoice\u202efdp.exe"}, None),
    ("POST", "/api/bots/{bot_id}/topics", {"topic_key": "fresh", "name": "n\ud800"}, None),
    ("POST", "/api/bots/{bot_id}/topics", {"topic_key": "fresh", "name": "n", "description": "d\x00"}, None),
    ("POST", "/api/bots/{bot_id}/topics", {"topic_key": "fresh\n", "name": "n"}, None),
    (
        "POST",
        "/api/bots/{bot_id}/topics",
        {"topic_key": "fresh", "name": "n", "routing_json": {"purpose": "\x00"}},
        None,
    ),
    ("PUT", "/api/bots/{bot_id}/topics/{topic_key}", {"name": "n\u202e"}, None),
    ("PUT", "/api/bots/{bot_id}/topics/{topic_key}", {"view_schema_json": {"allowed_types": ["\ud800"]}}, None),
    ("POST", "/api/bots/{bot_id}/conversations", {"title": "t\ud800"}, None),
    ("POST", "/api/bots/{bot_id}/conversations", {"title": "t\x00"}, None),
    ("POST", "/api/conversations/{conversation_id}/messages", {"role": "user", "content": "c\ud800"}, None),
    ("POST", "/api/conversations/{conversation_id}/messages", {"role": "user", "content": "c\x00"}, None),
    (
        "POST",
        "/api/conversations/{conversation_id}/messages/{message_id}/submit",
        {"answers": {"service": "\x00"}},
        None,
    ),
    ("GET", "/api/conversations/{conversation_id}/messages", None, {"after_seq": "99999999999999999999"}),
    ("GET", "/api/bots/{bot_id}/topic-items", None, {"topic_key": "ci\x00"}),
    ("GET", "/api/bots/{bot_id}/topic-items", None, {"tag": "ci\x00"}),
    ("GET", "/api/audit", None, {"bot_id": "\x00"}),
    ("GET", "/api/audit", None, {"before_id": "-9223372036854775809"}),  # found by the fuzzing below
    ("GET", "/api/bots/nul\x00/topics", None, None),
    ("DELETE", "/api/bots/nul\x00", None, None),
    ("GET", "/api/conversations/nul\x00", None, None),
    ("PUT", "/api/bots/{bot_id}/topics/ci\x00", {"name": "n"}, None),
]


@pytest.mark.parametrize(
    ("method", "template", "body", "params"),
    REPORTED,
    ids=[f"{case[0]} {case[1]} {ascii(case[2] or case[3])[:40]}" for case in REPORTED],
)
def test_the_reported_inputs_are_refused(
    admin: httpx.Client,
    world: World,
    db_digest: Callable[[], str],
    method: str,
    template: str,
    body: Any,
    params: dict[str, str] | None,
) -> None:
    before = db_digest()
    url = template.replace("\x00", "%00") if "\x00" in template else world.url(template)
    url = url.format(bot_id=world.bot_id)
    if body is None:
        response = admin.request(method, url, params=params)
    else:
        response = send_json(admin, method, url, body)
    assert_refused(response, before, db_digest)


@given(data=st.data())
@FUZZ
def test_creating_a_bot_refuses_bad_names(
    server: LiveServer, admin: httpx.Client, db_digest: Callable[[], str], data: st.DataObject
) -> None:
    body = data.draw(one_bad_field({"name": "fuzzed bot"}, {"name": bad_line()}))
    before = db_digest()
    assert_refused(send_json(admin, "POST", "/api/bots", body), before, db_digest)


@given(data=st.data())
@FUZZ
def test_creating_a_topic_refuses_bad_fields(
    server: LiveServer, admin: httpx.Client, world: World, db_digest: Callable[[], str], data: st.DataObject
) -> None:
    body = data.draw(one_bad_field(TOPIC_CREATE, BAD_TOPIC_FIELDS))
    before = db_digest()
    assert_refused(send_json(admin, "POST", world.url("/api/bots/{bot_id}/topics"), body), before, db_digest)


@given(data=st.data())
@FUZZ
def test_changing_a_topic_refuses_bad_fields(
    server: LiveServer, admin: httpx.Client, world: World, db_digest: Callable[[], str], data: st.DataObject
) -> None:
    body = data.draw(one_bad_field({"name": "Renamed"}, BAD_TOPIC_UPDATE_FIELDS))
    before = db_digest()
    url = world.url("/api/bots/{bot_id}/topics/{topic_key}")
    assert_refused(send_json(admin, "PUT", url, body), before, db_digest)


@given(data=st.data())
@FUZZ
def test_topic_settings_refuse_bad_fields(
    server: LiveServer, admin: httpx.Client, world: World, db_digest: Callable[[], str], data: st.DataObject
) -> None:
    body = data.draw(one_bad_field({"topic_enabled": True}, BAD_SETTINGS_FIELDS))
    before = db_digest()
    assert_refused(send_json(admin, "PUT", world.url("/api/bots/{bot_id}/topic-settings"), body), before, db_digest)


@given(data=st.data())
@FUZZ
def test_conversations_and_messages_refuse_bad_fields(
    server: LiveServer, admin: httpx.Client, world: World, db_digest: Callable[[], str], data: st.DataObject
) -> None:
    kind = data.draw(st.sampled_from(["conversation", "message", "guide_card"]))
    if kind == "conversation":
        url = world.url("/api/bots/{bot_id}/conversations")
        body = data.draw(one_bad_field({"title": "t"}, {"title": bad_line()}))
    elif kind == "message":
        url = world.url("/api/conversations/{conversation_id}/messages")
        body = data.draw(one_bad_field(MESSAGE, BAD_MESSAGE_FIELDS))
    else:
        url = world.url("/api/conversations/{conversation_id}/messages")
        body = {**CARD_MESSAGE, "guide_card": data.draw(bad_guide_card())}
    before = db_digest()
    assert_refused(send_json(admin, "POST", url, body), before, db_digest)


@given(data=st.data())
@FUZZ
def test_guide_card_answers_refuse_bad_values(
    server: LiveServer, admin: httpx.Client, world: World, db_digest: Callable[[], str], data: st.DataObject
) -> None:
    answers: Any = {"service": "api", "region": "eu", "replicas": 3}
    where = data.draw(st.sampled_from(["service", "replicas", "key", "whole"]))
    if where == "service":
        answers["service"] = data.draw(st.one_of(poisoned(TEXT_POISON), st.just("x" * 100_001), WRONG_CONTAINERS, DEEP))
    elif where == "replicas":
        answers["replicas"] = data.draw(st.one_of(HUGE_NUMBERS, poisoned(TEXT_POISON), WRONG_CONTAINERS))
    elif where == "key":
        answers[data.draw(poisoned(LINE_POISON))] = "x"
    else:
        answers = data.draw(st.one_of(WRONG_SCALARS, WRONG_CONTAINERS.filter(lambda v: not isinstance(v, dict)), DEEP))
    before = db_digest()
    url = world.url("/api/conversations/{conversation_id}/messages/{message_id}/submit")
    assert_refused(send_json(admin, "POST", url, {"answers": answers}), before, db_digest)


@given(data=st.data())
@FUZZ
def test_malformed_bodies_are_refused_everywhere(
    server: LiveServer, admin: httpx.Client, world: World, db_digest: Callable[[], str], data: st.DataObject
) -> None:
    method, template = data.draw(
        st.sampled_from(
            [
                ("POST", "/api/bots"),
                ("PUT", "/api/bots/{bot_id}/mcp-config"),
                ("POST", "/api/bots/{bot_id}/topics"),
                ("PUT", "/api/bots/{bot_id}/topics/{topic_key}"),
                ("PUT", "/api/bots/{bot_id}/topic-settings"),
                ("POST", "/api/bots/{bot_id}/conversations"),
                ("POST", "/api/conversations/{conversation_id}/messages"),
                ("POST", "/api/conversations/{conversation_id}/messages/{message_id}/submit"),
            ]
        )
    )
    text = data.draw(
        st.one_of(
            st.sampled_from(
                ["", "{", "null", "[]", '"x"', "1e400", '{"a": NaN', "\x00", '{"\\ud800": 1}', '{"a": "\\udc00"}']
            ),
            DEEP.map(lambda raw: raw.text),
            st.sampled_from([1_000, 100_000]).map(lambda depth: '{"a":' * depth + "1" + "}" * depth),
        )
    )
    if template == "/api/bots/{bot_id}/conversations" and text in ("", "null"):
        text = "[]"  # an absent body is a valid "no title"
    before = db_digest()
    response = admin.request(
        method,
        world.url(template),
        content=text.encode("utf-8", "surrogatepass"),
        headers={"content-type": "application/json"},
    )
    assert_refused(response, before, db_digest)


# --- path and query parameters ---------------------------------------------------------------------

ROUTES = [
    ("DELETE", "/api/bots/{bot_id}"),
    ("POST", "/api/bots/{bot_id}/token"),
    ("GET", "/api/bots/{bot_id}/mcp-config"),
    ("PUT", "/api/bots/{bot_id}/mcp-config"),
    ("GET", "/api/bots/{bot_id}/topics"),
    ("POST", "/api/bots/{bot_id}/topics"),
    ("PUT", "/api/bots/{bot_id}/topics/{topic_key}"),
    ("DELETE", "/api/bots/{bot_id}/topics/{topic_key}"),
    ("GET", "/api/bots/{bot_id}/topic-settings"),
    ("PUT", "/api/bots/{bot_id}/topic-settings"),
    ("GET", "/api/bots/{bot_id}/topic-items"),
    ("POST", "/api/bots/{bot_id}/topic-items/{item_id}/read"),
    ("POST", "/api/bots/{bot_id}/conversations"),
    ("GET", "/api/bots/{bot_id}/conversations"),
    ("GET", "/api/conversations/{conversation_id}"),
    ("GET", "/api/conversations/{conversation_id}/messages"),
    ("POST", "/api/conversations/{conversation_id}/messages"),
    ("POST", "/api/conversations/{conversation_id}/messages/{message_id}/submit"),
]
VALID_BODIES: dict[str, Any] = {
    "/api/bots/{bot_id}/mcp-config": {"mcpServers": {}},
    "/api/bots/{bot_id}/topics": {"topic_key": "fresh_topic", "name": "Fresh"},
    "/api/bots/{bot_id}/topics/{topic_key}": {"name": "Renamed"},
    "/api/bots/{bot_id}/topic-settings": {"topic_enabled": True},
    "/api/bots/{bot_id}/conversations": {"title": "t"},
    "/api/conversations/{conversation_id}/messages": {"role": "user", "content": "hi"},
    "/api/conversations/{conversation_id}/messages/{message_id}/submit": {"answers": {"service": "api"}},
}
BAD_ID = st.one_of(
    # A lone surrogate goes as its UTF-8 bytes (%ED%A0%80), which the server decodes as U+FFFD.
    poisoned(PATH_POISON),
    st.sampled_from(["a\ud800z", "x" * 5_000, " ", "99999999999999999999", "-1", "0"]),
)
BAD_INT_TEXT = st.sampled_from(
    [
        "99999999999999999999",
        "9223372036854775808",
        "-9223372036854775809",
        "-1",
        "1e400",
        "NaN",
        "1.5",
        "0x10",
        "",
        "\x00",
        "9" * 5_000,
    ]
)


@given(data=st.data())
@FUZZ
def test_bad_path_parameters_are_refused(
    server: LiveServer, admin: httpx.Client, world: World, db_digest: Callable[[], str], data: st.DataObject
) -> None:
    method, template = data.draw(st.sampled_from(ROUTES))
    names = [
        name
        for name in ("bot_id", "topic_key", "item_id", "conversation_id", "message_id")
        if "{" + name + "}" in template
    ]
    name = data.draw(st.sampled_from(names))
    value = data.draw(BAD_INT_TEXT if name == "item_id" else BAD_ID)
    url = world.url(template, **{name: value})
    body = VALID_BODIES.get(template)
    before = db_digest()
    response = send_json(admin, method, url, body) if body is not None else admin.request(method, url)
    # A clean id nothing has may list nothing (GET /bots/{unknown}/conversations is []); a poisoned one is refused.
    poisoned_value = any(char in value for char in PATH_POISON)
    assert_refused(response, before, db_digest, must=method != "GET" or poisoned_value)


@given(data=st.data())
@FUZZ
def test_bad_query_parameters_are_refused(
    server: LiveServer, admin: httpx.Client, world: World, db_digest: Callable[[], str], data: st.DataObject
) -> None:
    method, template, name, bad = data.draw(
        st.sampled_from(
            [
                ("GET", "/api/bots/{bot_id}/topic-items", "topic_key", "text"),
                ("GET", "/api/bots/{bot_id}/topic-items", "cursor", "text"),
                ("GET", "/api/bots/{bot_id}/topic-items", "level", "text"),
                ("GET", "/api/bots/{bot_id}/topic-items", "tag", "text"),
                ("GET", "/api/bots/{bot_id}/topic-items", "limit", "int"),
                ("GET", "/api/bots/{bot_id}/topic-items", "unread_only", "bool"),
                ("DELETE", "/api/bots/{bot_id}/topics/{topic_key}", "items", "text"),
                ("GET", "/api/conversations/{conversation_id}/messages", "after_seq", "int"),
                ("GET", "/api/conversations/{conversation_id}/messages", "limit", "int"),
                ("GET", "/api/audit", "bot_id", "text"),
                ("GET", "/api/audit", "tool", "text"),
                ("GET", "/api/audit", "outcome", "text"),
                ("GET", "/api/audit", "before_id", "int"),
                ("GET", "/api/audit", "limit", "int"),
            ]
        )
    )
    strategies = {"text": poisoned(URL_POISON), "int": BAD_INT_TEXT, "bool": st.sampled_from(["maybe", "2", "\x00"])}
    value = data.draw(strategies[bad])
    if name == "before_id":  # any 64-bit id is a valid place to page from: "before -1" is an empty page
        assume(value not in ("-1", "0"))
    before = db_digest()
    response = admin.request(method, world.url(template), params={name: value})
    assert_refused(response, before, db_digest)


# --- gaps outside the text policy, for the files that own them ------------------------------------------
# Each is reported as xfail while the gap is open, and passes (guarding the fix) once it is closed.


def test_an_unparsable_body_has_a_code_of_its_status(admin: httpx.Client, world: World) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    response = admin.post("/api/bots", content=deep, headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    if CATALOGUE[response.json()["error"]["code"]] != 400:
        pytest.xfail("mcp_service/rest/errors.py answers FastAPI's 400 with invalid_argument, a 422 code")


def test_a_line_break_in_a_path_gets_the_json_not_found(admin: httpx.Client, world: World) -> None:
    response = admin.get("/api/bots/a%0Az/topics")
    assert response.status_code == 404
    if not response.headers["content-type"].startswith("application/json"):
        # Reflex mounts our app at "" in its own outer Starlette app, whose path pattern never matches a
        # line break: its router answers a plain-text 404 before any of our code runs (no data, no 500).
        pytest.xfail("Reflex's outer router answers a path holding LF with a plain-text 404")
