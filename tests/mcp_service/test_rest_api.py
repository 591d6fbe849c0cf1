"""The REST API as a whole, over real HTTP: API tokens (401), viewers (403, nothing changes), unknown bots (404),
one error body, malformed JSON (400), and an OpenAPI document that lists and describes what the server does.

Each feature's endpoints are tested in detail in test_rest_bots.py and test_rest_topics.py.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from fastapi.routing import APIRoute, iter_route_contexts
from sqlmodel import Session

from mcp_service.rest import build_rest_router
from mcp_service.rest.errors import error_response
from tests.support.rest import rest_error
from tests.support.server import LiveServer, configured
from topic_dashboard.errors import AppError
from topic_dashboard.services.accounts import create_api_token, resolve_api_token
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicCreate, create_topic
from topic_dashboard.settings import get_settings

# docs/DESIGN.md §6.2 and the issue: every endpoint of this part of the API.
READS = [
    ("GET", "/api/bots"),
    ("GET", "/api/bots/{bot_id}/mcp-config"),
    ("GET", "/api/bots/{bot_id}/topics"),
    ("GET", "/api/bots/{bot_id}/topic-settings"),
    ("GET", "/api/bots/{bot_id}/topic-items"),
    ("GET", "/api/audit"),
]
# Marking an item read is reading state: viewers may do it (see test_a_viewer_may_mark_an_item_read).
MARK_READ = ("POST", "/api/bots/{bot_id}/topic-items/{item_id}/read")
WRITES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("POST", "/api/bots", {"name": "made by a viewer"}),
    ("DELETE", "/api/bots/{bot_id}", None),
    ("POST", "/api/bots/{bot_id}/token", None),
    ("PUT", "/api/bots/{bot_id}/mcp-config", {"mcpServers": {"extra": {"command": "npx"}}}),
    ("POST", "/api/bots/{bot_id}/topics", {"topic_key": "new_topic", "name": "New"}),
    ("PUT", "/api/bots/{bot_id}/topics/{topic_key}", {"name": "Renamed"}),
    ("DELETE", "/api/bots/{bot_id}/topics/{topic_key}?items=delete", None),
    ("PUT", "/api/bots/{bot_id}/topic-settings", {"topic_enabled": False}),
]
ENDPOINTS = [*READS, MARK_READ, *[(method, path) for method, path, _ in WRITES]]
JSON_BODY_WRITES = [(method, path) for method, path, body in WRITES if body is not None]


@dataclass
class World:
    bot_id: str
    token: str
    config_path: Path
    topic_key: str
    item_id: int

    def url(self, template: str) -> str:
        return template.format(bot_id=self.bot_id, topic_key=self.topic_key, item_id=self.item_id)


def _client(server: LiveServer, token: str | None) -> httpx.Client:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=server.base_url, headers=headers, timeout=30)


@pytest.fixture
def admin(server: LiveServer, server_session: Session) -> Iterator[httpx.Client]:
    with _client(server, create_api_token(session=server_session, name="rest-admin", role="admin")) as client:
        yield client


@pytest.fixture
def viewer(server: LiveServer, server_session: Session) -> Iterator[httpx.Client]:
    with _client(server, create_api_token(session=server_session, name="rest-viewer", role="viewer")) as client:
        yield client


@pytest.fixture
def world(server_session: Session) -> World:
    """A bot with its config.json, a `ci` topic and one item in it."""
    bot, token = create_bot(session=server_session, name="world")
    create_topic(session=server_session, bot_id=bot.bot_id, actor="test", data=TopicCreate(topic_key="ci", name="CI"))
    item = publish_item(
        session=server_session,
        bot_id=bot.bot_id,
        request=PublishRequest(title="build failed", content="CI build #1 failed", topic_key="ci"),
    )
    return World(
        bot_id=bot.bot_id, token=token, config_path=Path(bot.config_path or ""), topic_key="ci", item_id=item.item_id
    )


@pytest.fixture
def openapi(server: LiveServer) -> dict[str, Any]:
    response = httpx.get(server.base_url + "/api/openapi.json")
    assert response.status_code == 200
    return response.json()


def _send(client: httpx.Client, method: str, url: str, body: dict[str, Any] | None = None) -> httpx.Response:
    return client.request(method, url, json=body) if body is not None else client.request(method, url)


def _snapshot(admin: httpx.Client, world: World) -> dict[str, Any]:
    """Everything a write of this API could change, as an admin reads it."""
    return {
        "bots": sorted((b["bot_id"], b["name"], b["token_created_at"]) for b in admin.get("/api/bots").json()),
        "topics": admin.get(world.url("/api/bots/{bot_id}/topics")).json(),
        "settings": admin.get(world.url("/api/bots/{bot_id}/topic-settings")).json(),
        "items": admin.get(world.url("/api/bots/{bot_id}/topic-items")).json(),
        "config": world.config_path.read_bytes() if world.config_path.exists() else None,
    }


# --- 401 ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
@pytest.mark.parametrize(
    "authorization", [None, "Bearer tda_wrong", "Bearer", "Basic YWRtaW46YWRtaW4=", "tda_no_scheme"]
)
def test_every_endpoint_answers_401_without_a_valid_api_token(
    server: LiveServer, method: str, path: str, authorization: str | None
) -> None:
    headers = {"authorization": authorization} if authorization is not None else {}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=30) as client:
        body = next((b for m, p, b in WRITES if (m, p) == (method, path)), None)
        # the token is checked before anything else: unknown ids make no difference
        response = _send(client, method, path.format(bot_id="any_bot", topic_key="any_topic", item_id=1), body)
    rest_error(response, 401, "unauthorized")
    assert response.headers["www-authenticate"] == "Bearer"


def test_a_bot_token_is_not_an_api_token(server: LiveServer, world: World) -> None:
    with _client(server, world.token) as client:
        rest_error(client.get("/api/bots"), 401, "unauthorized")


# --- 403: viewers read, only admins write ---------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
def test_a_viewer_cannot_write_and_nothing_changes(
    admin: httpx.Client, viewer: httpx.Client, world: World, method: str, path: str, body: dict[str, Any] | None
) -> None:
    before = _snapshot(admin, world)

    error = rest_error(_send(viewer, method, world.url(path), body), 403, "forbidden")

    assert "admin" in error["message"]
    assert _snapshot(admin, world) == before
    # The same request from an admin does change something: the snapshot would have seen it.
    response = _send(admin, method, world.url(path), body)
    assert response.status_code in (200, 201), response.text
    assert _snapshot(admin, world) != before


@pytest.mark.parametrize(("method", "path"), READS)
def test_a_viewer_can_read(viewer: httpx.Client, world: World, method: str, path: str) -> None:
    response = viewer.request(method, world.url(path))
    assert response.status_code == 200, response.text


def test_a_viewer_cannot_mark_an_item_read_for_everyone(
    viewer: httpx.Client, admin: httpx.Client, world: World
) -> None:
    response = viewer.post(world.url(MARK_READ[1]))
    assert response.status_code == 403, response.text
    assert response.json()["error"]["code"] == "forbidden"
    assert admin.get(world.url("/api/bots/{bot_id}/topic-items")).json()["items"][0]["is_read"] is False
    response = admin.post(world.url(MARK_READ[1]))
    assert response.json() == {"id": world.item_id, "is_read": True}


def test_nobody_sees_the_bot_token_in_the_mcp_config_after_it_was_shown_once(
    viewer: httpx.Client, admin: httpx.Client, world: World
) -> None:
    seen = viewer.get(world.url("/api/bots/{bot_id}/mcp-config"))
    assert seen.status_code == 200
    assert world.token not in seen.text
    assert seen.json()["servers"]["topic_mcp"]["headers"] == {"x-topic-mcp-token": "***"}
    assert seen.json()["locked"] == {"topic_mcp": True, "ccweb": True}
    assert seen.json()["servers"]["ccweb"]["headers"] == {"x-topic-mcp-token": "***"}
    full = admin.get(world.url("/api/bots/{bot_id}/mcp-config")).json()
    assert world.token not in json.dumps(full)
    assert full["servers"]["topic_mcp"]["headers"] == {"x-topic-mcp-token": "***"}
    assert {**full["servers"]["topic_mcp"], "headers": None} == {**seen.json()["servers"]["topic_mcp"], "headers": None}


def test_a_viewer_sees_no_secret_of_any_server(viewer: httpx.Client, admin: httpx.Client, world: World) -> None:
    current = admin.get(world.url("/api/bots/{bot_id}/mcp-config")).json()["servers"]
    servers = {
        **current,
        "search": {
            "type": "streamableHttp",
            "url": "https://search.example/mcp",
            "headers": {"Authorization": "Bearer s3cret-1"},
        },
        "files": {"type": "stdio", "command": "files-mcp", "env": {"API_KEY": "s3cret-2"}},
    }
    assert admin.put(world.url("/api/bots/{bot_id}/mcp-config"), json={"mcpServers": servers}).status_code == 200
    seen = viewer.get(world.url("/api/bots/{bot_id}/mcp-config"))
    assert "s3cret" not in seen.text
    body = seen.json()["servers"]
    assert body["search"]["headers"] == {"Authorization": "***"} and body["files"]["env"] == {"API_KEY": "***"}
    assert body["search"]["url"] == "https://search.example/mcp"
    assert "s3cret-1" in admin.get(world.url("/api/bots/{bot_id}/mcp-config")).text


# --- the admin-token setting ---------------------------------------------------------------------------


def test_the_admin_token_setting_is_an_admin_api_token(server: LiveServer, world: World) -> None:
    secret = "admin-setting-" + secrets.token_hex(16)
    with configured(server.database_url, str(get_settings().data_dir), TOPIC_DASHBOARD_ADMIN_TOKEN=secret):
        with _client(server, secret) as client:
            response = client.put(world.url("/api/bots/{bot_id}/topic-settings"), json={"publish_rate_per_minute": 7})
            assert response.status_code == 200, response.text
            assert response.json()["publish_rate_per_minute"] == 7
        with _client(server, secret + "x") as client:
            rest_error(client.get("/api/bots"), 401, "unauthorized")
    with _client(server, secret) as client:  # unset again: no longer accepted
        rest_error(client.get("/api/bots"), 401, "unauthorized")


def test_the_admin_token_setting_resolves_to_an_admin(server_session: Session) -> None:
    setting = "s3cret-admin-" + "x" * 32
    principal = resolve_api_token(session=server_session, token=setting, admin_token=setting)
    assert principal.is_admin and principal.kind == "admin_token"
    with pytest.raises(AppError) as excinfo:
        resolve_api_token(session=server_session, token=setting[:-1], admin_token=setting)
    assert excinfo.value.code == "unauthorized"
    server_session.rollback()


# --- 404, 400 and the one error body -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "body", "code"),
    [
        ("GET", "/api/bots/{bot_id}/mcp-config", None, "bot_not_found"),
        ("PUT", "/api/bots/{bot_id}/mcp-config", {"mcpServers": {}}, "bot_not_found"),
        ("DELETE", "/api/bots/{bot_id}", None, "bot_not_found"),
        ("POST", "/api/bots/{bot_id}/token", None, "bot_not_found"),
        ("GET", "/api/bots/{bot_id}/topics", None, "bot_not_found"),
        ("POST", "/api/bots/{bot_id}/topics", {"topic_key": "x", "name": "X"}, "bot_not_found"),
        ("PUT", "/api/bots/{bot_id}/topics/inbox", {"name": "X"}, "bot_not_found"),
        ("DELETE", "/api/bots/{bot_id}/topics/inbox", None, "bot_not_found"),
        ("GET", "/api/bots/{bot_id}/topic-settings", None, "bot_not_found"),
        ("PUT", "/api/bots/{bot_id}/topic-settings", {"topic_enabled": False}, "bot_not_found"),
        ("GET", "/api/bots/{bot_id}/topic-items", None, "bot_not_found"),
        ("POST", "/api/bots/{bot_id}/topic-items/1/read", None, "item_not_found"),
    ],
)
def test_an_unknown_bot_is_404(
    admin: httpx.Client, method: str, path: str, body: dict[str, Any] | None, code: str
) -> None:
    rest_error(_send(admin, method, path.format(bot_id="no_such_bot"), body), 404, code)


@pytest.mark.parametrize(("method", "path"), JSON_BODY_WRITES)
@pytest.mark.parametrize("text", ["{not json", '{"name": "x",}', "", "\x00"])
def test_a_malformed_json_body_is_400_invalid_json(
    admin: httpx.Client, world: World, method: str, path: str, text: str
) -> None:
    if text == "":  # an empty body is not malformed JSON: the body is missing
        response = admin.request(method, world.url(path), content=b"", headers={"content-type": "application/json"})
        rest_error(response, 422, "validation_error")
        return
    response = admin.request(
        method, world.url(path), content=text.encode(), headers={"content-type": "application/json"}
    )
    rest_error(response, 400, "invalid_json")


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("POST", "/api/bots/{bot_id}/topics", {"topic_key": "typo", "name": "Typo", "nmae": "x"}, "nmae"),
        ("PUT", "/api/bots/{bot_id}/topics/{topic_key}", {"descripton": "x"}, "descripton"),
        ("PUT", "/api/bots/{bot_id}/topic-settings", {"topic_enable": False}, "topic_enable"),
        ("POST", "/api/bots", {"name": "x", "config": "/tmp/x.json"}, "config"),
    ],
)
def test_a_misspelt_body_field_is_refused_and_changes_nothing(
    admin: httpx.Client, world: World, method: str, path: str, body: dict[str, Any], field: str
) -> None:
    before = admin.get(world.url("/api/bots/{bot_id}/topics")).json(), admin.get("/api/bots").json()
    response = admin.request(method, world.url(path), json=body)
    assert rest_error(response, 422, "validation_error")["field"] == field
    assert (admin.get(world.url("/api/bots/{bot_id}/topics")).json(), admin.get("/api/bots").json()) == before


def test_rate_limited_maps_to_429_with_retry_after() -> None:
    response = error_response(AppError("rate_limited", "slow down", retry_after_seconds=12.5))
    assert response.status_code == 429
    assert response.headers["retry-after"] == "12"
    body = json.loads(response.body)
    assert body == {"error": {"code": "rate_limited", "message": "slow down", "retry_after_seconds": 12.5}}


def test_an_unknown_api_path_answers_the_json_error_body(admin: httpx.Client) -> None:
    rest_error(admin.get("/api/no-such-endpoint"), 404, "not_found")
    rest_error(admin.delete("/api/health"), 404, "not_found")


# --- the OpenAPI document ---------------------------------------------------------------------------------


def _operations(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {(method.upper(), path) for path, ops in document["paths"].items() for method in ops}


def test_openapi_lists_exactly_the_routes_the_router_serves(openapi: dict[str, Any]) -> None:
    contexts = list(iter_route_contexts(build_rest_router().routes))
    assert all(isinstance(context.original_route, APIRoute) for context in contexts)
    served = {(method, context.path) for context in contexts for method in context.methods or ()}
    assert _operations(openapi) == served
    assert {(m, p.split("?")[0]) for m, p in ENDPOINTS} | {("GET", "/api/health")} <= served


def test_every_documented_operation_is_served(openapi: dict[str, Any], server: LiveServer) -> None:
    """Unserved /api paths fall through to the UI: each documented one must answer JSON from the API itself."""
    with _client(server, None) as anonymous:
        for method, path in sorted(_operations(openapi)):
            response = anonymous.request(method, path.replace("{", "x").replace("}", "").replace("xitem_id", "1"))
            assert response.headers["content-type"].startswith("application/json"), (method, path, response.text[:200])
            assert response.status_code in (200, 401), (method, path, response.status_code)


@pytest.mark.parametrize(("method", "path"), [(m, p.split("?")[0]) for m, p in [*ENDPOINTS]])
def test_each_endpoint_declares_its_error_responses(openapi: dict[str, Any], method: str, path: str) -> None:
    operation = openapi["paths"][path][method.lower()]
    expected = {"400", "401", "403", "404", "409", "422"} if method != "GET" else {"400", "401", "404", "422"}
    assert expected <= set(operation["responses"]), operation["responses"].keys()
    for status in expected:
        schema = operation["responses"][status]["content"]["application/json"]["schema"]
        assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (status, schema)
    if method in ("POST", "PUT") and (method, path) in {(m, p.split("?")[0]) for m, p in JSON_BODY_WRITES}:
        assert operation["requestBody"]["required"] is True
        assert "$ref" in operation["requestBody"]["content"]["application/json"]["schema"]


def test_the_error_body_schema_is_the_one_error_body(openapi: dict[str, Any]) -> None:
    schemas = openapi["components"]["schemas"]
    assert schemas["ErrorBody"]["required"] == ["error"]
    assert schemas["ErrorBody"]["properties"]["error"] == {"$ref": "#/components/schemas/ErrorDetail"}
    assert set(schemas["ErrorDetail"]["required"]) == {"code", "message"}
    assert "field" in schemas["ErrorDetail"]["properties"]


def test_openapi_describes_the_parameters(openapi: dict[str, Any]) -> None:
    items = {p["name"]: p for p in openapi["paths"]["/api/bots/{bot_id}/topic-items"]["get"]["parameters"]}
    assert {"bot_id", "topic_key", "cursor", "limit"} <= set(items)
    assert items["limit"]["schema"]["minimum"] == 1 and items["limit"]["schema"]["maximum"] == 200
    delete = {p["name"]: p for p in openapi["paths"]["/api/bots/{bot_id}/topics/{topic_key}"]["delete"]["parameters"]}
    assert set(delete["items"]["schema"]["anyOf"][0]["enum"]) == {"move", "delete"}
    create = openapi["components"]["schemas"]["BotCreate"]
    assert create["required"] == ["name"] and set(create["properties"]) == {"name", "config_path", "adopt_existing"}
    topic = openapi["components"]["schemas"]["TopicCreate"]
    fields = {"topic_key", "name", "description", "is_active", "routing_json", "view_schema_json"}
    assert fields <= set(topic["properties"])
    assert openapi["components"]["schemas"]["McpConfigPut"]["required"] == ["mcpServers"]


def _conforms(document: dict[str, Any], method: str, path: str, response: httpx.Response) -> None:
    """The response's status is declared for the operation and its body validates against the declared schema."""
    responses = document["paths"][path][method.lower()]["responses"]
    assert str(response.status_code) in responses, (method, path, response.status_code, sorted(responses))
    schema = responses[str(response.status_code)]["content"]["application/json"]["schema"]
    jsonschema.Draft202012Validator({**schema, "components": document["components"]}).validate(response.json())


def test_what_the_server_answers_matches_the_document(
    openapi: dict[str, Any], admin: httpx.Client, viewer: httpx.Client, server: LiveServer, world: World, tmp_path: Path
) -> None:
    def call(client: httpx.Client, method: str, template: str, body: Any = None, **fill: Any) -> httpx.Response:
        url = template.format(**{"bot_id": world.bot_id, "topic_key": "ci", "item_id": world.item_id, **fill})
        response = _send(client, method, url, body)
        _conforms(openapi, method, template.split("?")[0], response)
        return response

    created = call(admin, "POST", "/api/bots", {"name": "documented"})
    assert created.status_code == 201
    new_bot = created.json()["bot_id"]
    call(admin, "GET", "/api/bots")
    call(admin, "GET", "/api/bots/{bot_id}/mcp-config")
    call(viewer, "GET", "/api/bots/{bot_id}/mcp-config")
    call(admin, "PUT", "/api/bots/{bot_id}/mcp-config", {"mcpServers": {"fs": {"command": "npx"}}})
    call(admin, "POST", "/api/bots/{bot_id}/token")
    call(admin, "GET", "/api/bots/{bot_id}/topics")
    assert call(admin, "POST", "/api/bots/{bot_id}/topics", {"topic_key": "docs", "name": "Docs"}).status_code == 201
    call(admin, "PUT", "/api/bots/{bot_id}/topics/{topic_key}", {"description": "CI results"})
    call(admin, "GET", "/api/bots/{bot_id}/topic-settings")
    call(admin, "PUT", "/api/bots/{bot_id}/topic-settings", {"dedupe_window_seconds": 60})
    call(admin, "GET", "/api/bots/{bot_id}/topic-items")
    call(admin, "POST", "/api/bots/{bot_id}/topic-items/{item_id}/read")
    call(admin, "GET", "/api/audit")
    call(admin, "DELETE", "/api/bots/{bot_id}/topics/{topic_key}?items=move")
    call(admin, "DELETE", "/api/bots/{bot_id}", bot_id=new_bot)
    # and the errors, each in the one error body
    with _client(server, None) as anonymous:
        assert call(anonymous, "GET", "/api/bots").status_code == 401
    assert call(viewer, "POST", "/api/bots", {"name": "x"}).status_code == 403
    assert call(admin, "GET", "/api/bots/{bot_id}/topics", bot_id="nope").status_code == 404
    assert call(admin, "DELETE", "/api/bots/{bot_id}/topics/{topic_key}", topic_key="inbox").status_code == 409
    assert call(admin, "POST", "/api/bots/{bot_id}/topics", {"topic_key": "Bad Key", "name": "x"}).status_code == 422
    assert call(admin, "GET", "/api/bots/{bot_id}/topic-items?cursor=bogus").status_code == 400
    locked = {"mcpServers": {"topic_mcp": {"type": "sse"}}}
    assert call(admin, "PUT", "/api/bots/{bot_id}/mcp-config", locked).status_code == 422
