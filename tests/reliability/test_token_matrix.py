"""Who may call what, over real HTTP on every backend: every MCP tool and every REST operation (taken
from the app's own OpenAPI document, so a new endpoint joins the matrix by itself) against every kind
of credential: none, a wrong one, another bot's, a rotated-out one, a revoked or expired API token,
a browser session token, a viewer's and an admin's API token.

Exactly the intended access, and no bot ever reads or changes another bot's rows. Each test prints
how many cases it tried and how many held (run with -s to see them).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from sqlmodel import Session

from tests.support.server import LiveServer
from tests.support.topics import CI_CONTENT, CI_RULE
from topic_dashboard.models import ApiToken, Conversation, Message, Topic, TopicBotSettings, TopicItem, utcnow
from topic_dashboard.services import accounts
from topic_dashboard.services.bots import create_bot, rotate_token
from topic_dashboard.services.conversations import add_message, create_conversation
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicCreate, create_topic

PASSWORD = "matrix password 4711"
PUBLIC_OPERATIONS = {("GET", "/api/health")}
# Reads only admins may make (who holds which API token is not for viewers).
ADMIN_ONLY_READS = {("GET", "/api/tokens")}
# Writes viewers may make: marking an item read is reading state.
# Writes a viewer may make (none: read, pinned and archived are shared, so only admins change them).
VIEWER_WRITES: set[tuple[str, str]] = set()
MCP_TOOLS = {
    "/api/mcp/topic": ("topic_list_topics", "topic_get_schema", "topic_route", "topic_publish"),
    "/api/mcp/ccweb": ("ccweb_list_user_inputs",),
}


@dataclass
class BotWorld:
    bot_id: str
    token: str
    topic_key: str
    item_id: int
    conversation_id: str
    message_id: str
    marker: str  # a word only this bot's rows contain


@dataclass
class Tally:
    name: str
    tried: int = 0
    failures: list[str] = field(default_factory=list)

    def check(self, held: bool, case: str) -> None:
        self.tried += 1
        if not held:
            self.failures.append(case)

    def report(self) -> None:
        print(f"\ntoken matrix, {self.name}: {self.tried} cases tried, {self.tried - len(self.failures)} held")
        assert not self.failures, "\n".join(self.failures[:40])


def _bot_world(session: Session, name: str, topic_key: str, marker: str) -> tuple[BotWorld, str]:
    """A bot with a topic, an item, a conversation with a user input; returns it and a rotated-out token."""
    bot, old_token = create_bot(session=session, name=f"{name}-{secrets.token_hex(3)}")
    token = rotate_token(session=session, bot_id=bot.bot_id)
    create_topic(
        session=session,
        bot_id=bot.bot_id,
        actor="test",
        data=TopicCreate(topic_key=topic_key, name=topic_key, routing_json=CI_RULE),
    )
    item = publish_item(
        session=session,
        bot_id=bot.bot_id,
        request=PublishRequest(title=f"{marker} item", content=f"{marker}: {CI_CONTENT}", topic_key=topic_key),
    )
    conversation = create_conversation(session=session, bot_id=bot.bot_id, title=f"{marker} chat")
    message = add_message(
        session=session,
        conversation_id=conversation.conversation_id,
        role="user",
        content=f"{marker} asked for the build status",
    )
    return BotWorld(
        bot.bot_id, token, topic_key, item.item_id, conversation.conversation_id, message.message_id, marker
    ), old_token


@dataclass
class Matrix:
    alpha: BotWorld
    beta: BotWorld
    credentials: dict[str, str | None]  # principal -> token (None: no header)
    viewer_token_id: int


@pytest.fixture
def matrix(server: LiveServer, server_session: Session) -> Matrix:
    alpha, alpha_old = _bot_world(server_session, "alpha", "alpha_ci", f"ALPHA{secrets.token_hex(4)}")
    beta, _ = _bot_world(server_session, "beta", "beta_ci", f"BETA{secrets.token_hex(4)}")
    username = f"matrix-{secrets.token_hex(3)}"
    accounts.create_user(session=server_session, username=username, password=PASSWORD, role="admin")
    _, login_token = accounts.log_in(
        session=server_session, username=username, password=PASSWORD, ttl_hours=1, address=None
    )
    viewer, viewer_token = accounts.issue_api_token(session=server_session, name="matrix-viewer", role="viewer")
    _, admin_token = accounts.issue_api_token(session=server_session, name="matrix-admin", role="admin")
    revoked, revoked_token = accounts.issue_api_token(session=server_session, name="matrix-revoked", role="admin")
    accounts.revoke_api_token(session=server_session, token_id=revoked.id)
    expired, expired_token = accounts.issue_api_token(session=server_session, name="matrix-expired", role="admin")
    server_session.exec(
        sa.update(ApiToken)
        .where(ApiToken.id == expired.id)  # type: ignore[call-overload,arg-type]
        .values(expires_at=utcnow() - timedelta(seconds=1))
    )
    server_session.commit()
    credentials: dict[str, str | None] = {
        "anonymous": None,
        "wrong bot token": "tdb_" + secrets.token_urlsafe(32),
        "wrong api token": "tda_" + secrets.token_urlsafe(32),
        "rotated-out bot token": alpha_old,
        "revoked api token": revoked_token,
        "expired api token": expired_token,
        "browser session token": login_token,
        "bot alpha": alpha.token,
        "bot beta": beta.token,
        "viewer": viewer_token,
        "admin": admin_token,
    }
    return Matrix(alpha, beta, credentials, viewer.id)


def _headers(token: str | None, form: str) -> dict[str, str]:
    if token is None:
        return {}
    return {"x-topic-mcp-token": token} if form == "x-topic-mcp-token" else {"authorization": f"Bearer {token}"}


def _bot_rows(server_session: Session, bot_id: str) -> str:
    """Every stored row of one bot (items, topics, settings, conversations, messages), as text."""
    server_session.expire_all()
    parts = []
    for model in (TopicItem, Topic, TopicBotSettings, Conversation):
        table = model.__table__  # type: ignore[attr-defined,union-attr]
        parts.append(
            repr(server_session.exec(sa.select(table).where(table.c.bot_id == bot_id).order_by(table.c.id)).all())
        )  # type: ignore[call-overload]
    messages = Message.__table__  # type: ignore[attr-defined]
    conversations = sa.select(Conversation.__table__.c.id).where(Conversation.__table__.c.bot_id == bot_id)  # type: ignore[attr-defined]
    parts.append(
        repr(
            server_session.exec(  # type: ignore[call-overload]
                sa.select(messages).where(messages.c.conversation_id.in_(conversations)).order_by(messages.c.id)
            ).all()
        )
    )
    server_session.commit()  # end the read: on SQLite this session's transactions hold the write lock
    return "\n".join(parts)


# --- MCP ------------------------------------------------------------------------------------------------


def _mcp(server: LiveServer, path: str, headers: dict[str, str], method: str, params: dict[str, Any]) -> httpx.Response:
    return httpx.post(
        server.base_url + path,
        json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
        headers={"accept": "application/json, text/event-stream", **headers},
        timeout=30,
    )


def _tool_arguments(tool: str, own: BotWorld, other: BotWorld) -> list[dict[str, Any]]:
    """Arguments for a call by `own`'s token; those naming `other`'s things try to cross over."""
    if tool == "topic_route":
        return [{"content": CI_CONTENT}, {"content": f"{other.marker} {CI_CONTENT}", "title": other.topic_key}]
    if tool == "topic_publish":
        return [
            {"title": "matrix result", "content": CI_CONTENT, "topic_key": own.topic_key},
            {"title": "crossing over", "content": CI_CONTENT, "topic_key": other.topic_key},
        ]
    if tool == "ccweb_list_user_inputs":
        return [{"conversationId": own.conversation_id}, {"conversationId": other.conversation_id}]
    return [{}]


def _tool_result(response: httpx.Response) -> tuple[bool, str]:
    """(is_error, the JSON text a model would read) of a tools/call answer."""
    body = response.json()
    result = body["result"]
    texts = [block["text"] for block in result["content"] if block.get("type") == "text"]
    return bool(result.get("isError")), "".join(texts)


def test_mcp_tools_answer_only_their_own_bot(
    server: LiveServer, server_session: Session, matrix: Matrix, db_digest: Callable[[], str]
) -> None:
    tally = Tally("MCP")
    before = db_digest()
    for principal, token in matrix.credentials.items():
        if principal in ("bot alpha", "bot beta"):
            continue
        for path, tools in MCP_TOOLS.items():
            for form in ("x-topic-mcp-token", "authorization"):
                headers = _headers(token, form)
                listed = _mcp(server, path, headers, "tools/list", {})
                tally.check(
                    listed.status_code == 401, f"{principal} via {form}: tools/list on {path} -> {listed.status_code}"
                )
                for tool in tools:
                    for arguments in _tool_arguments(tool, matrix.alpha, matrix.beta):
                        response = _mcp(server, path, headers, "tools/call", {"name": tool, "arguments": arguments})
                        held = response.status_code == 401 and matrix.alpha.marker not in response.text
                        tally.check(
                            held, f"{principal} via {form}: {tool} -> {response.status_code} {response.text[:120]}"
                        )
    tally.check(db_digest() == before, "a refused credential changed stored rows")

    for own, other in ((matrix.alpha, matrix.beta), (matrix.beta, matrix.alpha)):
        other_rows = _bot_rows(server_session, other.bot_id)
        for path, tools in MCP_TOOLS.items():
            for form in ("x-topic-mcp-token", "authorization"):
                headers = _headers(own.token, form)
                listed = _mcp(server, path, headers, "tools/list", {})
                names = (
                    {tool["name"] for tool in listed.json()["result"]["tools"]} if listed.status_code == 200 else set()
                )
                tally.check(names == set(tools), f"{own.marker} via {form}: tools/list on {path} -> {sorted(names)}")
                for tool in tools:
                    for n, arguments in enumerate(_tool_arguments(tool, own, other)):
                        response = _mcp(server, path, headers, "tools/call", {"name": tool, "arguments": arguments})
                        if response.status_code != 200:
                            tally.check(False, f"{own.marker}: {tool} -> HTTP {response.status_code}")
                            continue
                        is_error, text = _tool_result(response)
                        crossing = n == 1
                        # a refusal may echo what the caller sent (the other bot's conversation id); nothing more
                        seen = text.replace(other.conversation_id, "") if is_error else text
                        leaked = any(secret in seen for secret in (other.marker, other.bot_id, other.conversation_id))
                        # a call naming the other bot's things is refused or stays in the caller's own rows
                        own_ok = not is_error or crossing
                        tally.check(
                            own_ok and not leaked,
                            f"{own.marker} via {form}: {tool}{' (crossing)' if crossing else ''} -> {text[:160]}",
                        )
                        if tool == "topic_publish" and not is_error:
                            landed = json.loads(text)
                            tally.check(
                                landed.get("bot_id", own.bot_id) == own.bot_id
                                and landed.get("topic_key") != other.topic_key,
                                f"{own.marker}: a publish landed elsewhere: {text[:160]}",
                            )
        tally.check(
            _bot_rows(server_session, other.bot_id) == other_rows,
            f"calls with {own.marker}'s token changed the other bot's rows",
        )
    tally.report()


# --- REST -----------------------------------------------------------------------------------------------


@pytest.fixture
def operations(server: LiveServer) -> list[tuple[str, str]]:
    document = httpx.get(server.base_url + "/api/openapi.json", timeout=30).json()
    return sorted((method.upper(), path) for path, ops in document["paths"].items() for method in ops)


def _sample_body(method: str, path: str) -> dict[str, Any] | None:
    """A body that would do something real, so that a missing guard would show as a change."""
    bodies: dict[tuple[str, str], dict[str, Any]] = {
        ("POST", "/api/bots"): {"name": "made in the matrix"},
        ("PUT", "/api/bots/{bot_id}/mcp-config"): {"mcpServers": {"extra": {"command": "npx"}}},
        ("POST", "/api/bots/{bot_id}/topics"): {"topic_key": "matrix_new", "name": "New"},
        ("PUT", "/api/bots/{bot_id}/topics/{topic_key}"): {"name": "Renamed in the matrix"},
        ("PUT", "/api/bots/{bot_id}/topic-settings"): {"publish_rate_per_minute": 7},
        ("POST", "/api/bots/{bot_id}/conversations"): {"title": "matrix"},
        ("POST", "/api/conversations/{conversation_id}/messages"): {"role": "user", "content": "matrix"},
        ("POST", "/api/conversations/{conversation_id}/messages/{message_id}/submit"): {"answers": {}},
        ("POST", "/api/tokens"): {"name": "made in the matrix", "role": "admin"},
    }
    if (method, path) in bodies:
        return bodies[(method, path)]
    return {} if method in ("POST", "PUT", "PATCH") else None


# Operations with a required query parameter: what the matrix sends with them.
SAMPLE_QUERIES = {"/api/bots/{bot_id}/topic-items/search": "?q=matrix"}


def _url(path: str, values: dict[str, Any]) -> str:
    query = SAMPLE_QUERIES.get(path, "")
    for name, value in values.items():
        path = path.replace("{" + name + "}", str(value))
    return path.replace("{", "").replace("}", "") + query  # a parameter the matrix does not know yet: a plain value


def _targets(world: BotWorld, token_id: int, topic_key: str | None = None) -> dict[str, Any]:
    return {
        "bot_id": world.bot_id,
        "topic_key": topic_key or world.topic_key,
        "item_id": world.item_id,
        "conversation_id": world.conversation_id,
        "message_id": world.message_id,
        "token_id": token_id,
    }


def test_rest_operations_answer_exactly_the_intended_principals(
    server: LiveServer,
    server_session: Session,
    matrix: Matrix,
    operations: list[tuple[str, str]],
    db_digest: Callable[[], str],
) -> None:
    tally = Tally("REST")
    assert ("GET", "/api/tokens") in operations and len(operations) >= 20
    targets = _targets(matrix.alpha, matrix.viewer_token_id)

    def send(token: str | None, method: str, path: str, values: dict[str, Any]) -> httpx.Response:
        with httpx.Client(base_url=server.base_url, headers=_headers(token, "authorization"), timeout=30) as client:
            body = _sample_body(method, path)
            return (
                client.request(method, _url(path, values), json=body)
                if body is not None
                else client.request(method, _url(path, values))
            )

    # Credentials that are no API token: 401 everywhere but the public operations, and nothing changes.
    before = db_digest()
    for principal in (
        "anonymous",
        "wrong bot token",
        "wrong api token",
        "rotated-out bot token",
        "revoked api token",
        "expired api token",
        "browser session token",
        "bot alpha",
        "bot beta",
    ):
        for method, path in operations:
            response = send(matrix.credentials[principal], method, path, targets)
            expected = 200 if (method, path) in PUBLIC_OPERATIONS else 401
            tally.check(response.status_code == expected, f"{principal}: {method} {path} -> {response.status_code}")
    tally.check(db_digest() == before, "a refused credential changed stored rows")

    # Viewers read (but not the token list) and may only mark items read.
    for method, path in operations:
        if (method, path) in VIEWER_WRITES:
            continue
        response = send(matrix.credentials["viewer"], method, path, targets)
        readable = method == "GET" and (method, path) not in ADMIN_ONLY_READS
        expected = 200 if readable or (method, path) in PUBLIC_OPERATIONS else 403
        tally.check(
            response.status_code == expected, f"viewer: {method} {path} -> {response.status_code} {response.text[:120]}"
        )
    tally.check(db_digest() == before, "a viewer changed stored rows")
    for method, path in sorted(VIEWER_WRITES):
        response = send(matrix.credentials["viewer"], method, path, targets)
        tally.check(response.status_code == 200, f"viewer: {method} {path} -> {response.status_code}")

    # Admins may do everything; destructive operations act on a bot, topic and token made for the case.
    for method, path in operations:
        values = targets
        if method in ("DELETE", "POST", "PUT"):
            victim, _ = _bot_world(server_session, "victim", "victim_ci", f"VICTIM{secrets.token_hex(3)}")
            spare, _ = accounts.issue_api_token(session=server_session, name="spare", role="viewer")
            create_topic(
                session=server_session,
                bot_id=victim.bot_id,
                actor="test",
                data=TopicCreate(topic_key="doomed", name="Doomed"),
            )
            values = _targets(victim, spare.id, topic_key="doomed" if method == "DELETE" else None)
        response = send(matrix.credentials["admin"], method, path, values)
        allowed = response.status_code not in (401, 403) and response.status_code < 500
        tally.check(allowed, f"admin: {method} {path} -> {response.status_code} {response.text[:120]}")
    tally.report()
