"""REST over real HTTP: bots (create, list, delete), token rotation and the locked MCP config."""

from __future__ import annotations

import copy
import json
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from sqlmodel import Session, select

from tests.support.mcp import mcp_client, run_async
from tests.support.rest import rest_error
from tests.support.server import LiveServer
from topic_dashboard.models import Bot, Topic, TopicItem
from topic_dashboard.services.accounts import create_api_token
from topic_dashboard.services.bots import bot_id_for_token
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.settings import get_settings

OTHER_SERVERS = {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
    "remote": {"type": "sse", "url": "https://mcp.example.com/sse", "headers": {"Authorization": "Bearer x"}},
}


@pytest.fixture
def admin(server: LiveServer, server_session: Session) -> Iterator[httpx.Client]:
    token = create_api_token(session=server_session, name="rest-admin", role="admin")
    with httpx.Client(base_url=server.base_url, headers={"authorization": f"Bearer {token}"}, timeout=30) as client:
        yield client


@pytest.fixture
def home(server: LiveServer) -> Path:
    """A fresh directory a config.json may be adopted from: inside the server's data directory."""
    return get_settings().data_dir / "home" / secrets.token_hex(4)


def _create(admin: httpx.Client, name: str = "rest-bot", **extra: Any) -> dict[str, Any]:
    response = admin.post("/api/bots", json={"name": name, **extra})
    assert response.status_code == 201, response.text
    return response.json()


def _bot_count(session: Session) -> int:
    count = session.exec(select(sa.func.count()).select_from(Bot)).one()
    session.rollback()  # release SQLite's write lock before the server needs it
    return count


def _resolves(session: Session, token: str) -> str | None:
    bot_id = bot_id_for_token(session=session, token=token)
    session.rollback()
    return bot_id


def _mcp_status(server: LiveServer, token: str) -> int:
    """What the topic MCP endpoint answers a bot with this token (401 before any MCP handling)."""
    return httpx.post(
        server.topic_mcp_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"accept": "application/json, text/event-stream", "x-topic-mcp-token": token},
        timeout=30,
    ).status_code


def _topic_tools(server: LiveServer, token: str) -> set[str]:
    async def body() -> set[str]:
        async with mcp_client(server.topic_mcp_url, token) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    return run_async(body)


# --- create, list, delete -----------------------------------------------------------------------------


def test_create_returns_the_token_once_and_writes_the_workspace_config(
    admin: httpx.Client, server: LiveServer, server_session: Session
) -> None:
    created = _create(admin, "Researcher")

    assert set(created) == {"bot_id", "name", "token", "config_path", "mcp_url"}
    assert created["name"] == "Researcher" and created["mcp_url"] == server.topic_mcp_url
    path = Path(created["config_path"])
    assert path == (get_settings().data_dir / "bots" / created["bot_id"] / ".nanobot" / "config.json").resolve()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    config = json.loads(path.read_text(encoding="utf-8"))
    assert config["tools"]["mcpServers"] == {
        "topic_mcp": {
            "type": "streamableHttp",
            "url": server.topic_mcp_url,
            "headers": {"x-topic-mcp-token": created["token"]},
            "toolTimeout": 30,
        },
        "ccweb": {
            "type": "streamableHttp",
            "url": server.topic_mcp_url.replace("/api/mcp/topic", "/api/mcp/ccweb"),
            "headers": {"x-topic-mcp-token": created["token"]},
            "toolTimeout": 30,
        },
    }
    assert config["tools"]["ssrfWhitelist"] == ["127.0.0.1/32"]
    assert _resolves(server_session, created["token"]) == created["bot_id"]
    assert "topic_publish" in _topic_tools(server, created["token"])
    # never shown again
    listed = admin.get("/api/bots")
    assert created["token"] not in listed.text
    mine = [bot for bot in listed.json() if bot["bot_id"] == created["bot_id"]]
    assert len(mine) == 1 and "token" not in mine[0]


def test_create_adopts_an_existing_config(admin: httpx.Client, server: LiveServer, home: Path) -> None:
    original = {
        "agents": {"defaults": {"model": "m"}},
        "zz": [1, 2],
        "tools": {"mcpServers": copy.deepcopy(OTHER_SERVERS), "ssrfWhitelist": ["127.0.0.0/8"]},
    }
    path = home / ".nanobot" / "config.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(original), encoding="utf-8")
    before = path.read_bytes()

    rest_error(
        admin.post("/api/bots", json={"name": "adopted", "config_path": str(path)}),
        409,
        "adoption_not_confirmed",
        "config_path",
    )
    assert path.read_bytes() == before

    created = _create(admin, "adopted", config_path=str(path), adopt_existing=True)

    assert created["config_path"] == str(path.resolve())
    written = json.loads(path.read_text(encoding="utf-8"))
    assert list(written) == ["agents", "zz", "tools"] and written["zz"] == [1, 2]
    assert list(written["tools"]["mcpServers"]) == ["filesystem", "remote", "topic_mcp", "ccweb"]
    assert written["tools"]["mcpServers"]["topic_mcp"]["headers"] == {"x-topic-mcp-token": created["token"]}
    assert written["tools"]["ssrfWhitelist"] == ["127.0.0.0/8"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({}, 422, "validation_error", "name"),
        ({"name": ""}, 422, "validation_error", "name"),
        ({"name": "x" * 101}, 422, "validation_error", "name"),
        ({"name": 5}, 422, "validation_error", "name"),
        ({"name": "x", "config_path": "relative.json"}, 422, "validation_error", "config_path"),
        ({"name": "x", "config_path": "/no/such/dir/config.json"}, 422, "config_path_not_allowed", "config_path"),
        ({"name": "x", "config_path": "/tmp"}, 422, "validation_error", "config_path"),
        ({"name": "x", "config_path": "/tmp/nul\u0000.json"}, 422, "validation_error", "config_path"),
        ({"name": "x", "config_path": "/etc/hostname/config.json"}, 422, "config_path_not_allowed", "config_path"),
        ({"name": "x", "config_path": "/" + "n" * 300 + ".json"}, 422, "config_path_not_allowed", "config_path"),
        (
            {"name": "x", "config_path": "/etc/passwd.json", "adopt_existing": True},
            422,
            "config_path_not_allowed",
            "config_path",
        ),
        ({"name": "x", "adopt_existing": "yes please"}, 422, "validation_error", "adopt_existing"),
        ({"name": "x", "config_path": "/a" * 600 + ".json"}, 422, "validation_error", "config_path"),
    ],
)
def test_create_refusals_store_nothing(
    admin: httpx.Client, server_session: Session, body: dict[str, Any], status: int, code: str, field: str
) -> None:
    before = _bot_count(server_session)
    rest_error(admin.post("/api/bots", json=body), status, code, field)
    assert _bot_count(server_session) == before


@pytest.mark.parametrize("contents", [b"[1, 2, 3]", b"{broken", b'{"a": "\xff"}', None])
def test_create_refuses_an_adopted_path_that_is_no_json_object(
    admin: httpx.Client, server_session: Session, home: Path, contents: bytes | None
) -> None:
    path = home / "config.json"
    home.mkdir(parents=True)
    if contents is None:
        path.mkdir()  # a directory named like a config file
    else:
        path.write_bytes(contents)
    before = _bot_count(server_session)
    response = admin.post("/api/bots", json={"name": "x", "config_path": str(path), "adopt_existing": True})
    rest_error(response, 422, "invalid_mcp_config", "config_path")
    assert _bot_count(server_session) == before
    if contents is not None:
        assert path.read_bytes() == contents


def test_list_shows_each_bot_with_its_status(admin: httpx.Client, server_session: Session) -> None:
    created = _create(admin, "lister")
    for n in range(2):
        publish_item(
            session=server_session,
            bot_id=created["bot_id"],
            request=PublishRequest(title=f"t{n}", content="c", topic_key="inbox"),
        )

    mine = next(bot for bot in admin.get("/api/bots").json() if bot["bot_id"] == created["bot_id"])

    assert mine["name"] == "lister" and mine["config_path"] == created["config_path"]
    assert (mine["items_today"], mine["items_total"], mine["topic_enabled"]) == (2, 2, True)
    assert mine["last_mcp_call_at"] is None and 0 <= mine["token_age_days"] < 0.01


def test_delete_cascades_and_the_token_stops_working(
    admin: httpx.Client, server: LiveServer, server_session: Session
) -> None:
    created = _create(admin, "doomed")
    bot_id = created["bot_id"]
    assert admin.post(f"/api/bots/{bot_id}/topics", json={"topic_key": "ci", "name": "CI"}).status_code == 201
    for n in range(3):
        publish_item(
            session=server_session, bot_id=bot_id, request=PublishRequest(title=f"t{n}", content="c", topic_key="ci")
        )

    response = admin.delete(f"/api/bots/{bot_id}")

    assert response.status_code == 200, response.text
    assert response.json() == {"bot_id": bot_id, "deleted": {"items": 3, "topics": 2, "conversations": 0}}
    assert _mcp_status(server, created["token"]) == 401
    rest_error(admin.get(f"/api/bots/{bot_id}/topics"), 404, "bot_not_found")
    assert bot_id not in {bot["bot_id"] for bot in admin.get("/api/bots").json()}
    counts = [
        server_session.exec(select(sa.func.count()).select_from(model).where(model.bot_id == bot_id)).one()
        for model in (TopicItem, Topic)
    ]
    server_session.rollback()
    assert counts == [0, 0]
    rest_error(admin.delete(f"/api/bots/{bot_id}"), 404, "bot_not_found")


# --- token rotation ------------------------------------------------------------------------------------------


def test_rotation_rewrites_the_config_and_the_old_token_stops_working_at_once(
    admin: httpx.Client, server: LiveServer, server_session: Session
) -> None:
    created = _create(admin, "rotor")
    old = created["token"]
    assert _mcp_status(server, old) == 200

    response = admin.post(f"/api/bots/{created['bot_id']}/token")

    assert response.status_code == 200, response.text
    new = response.json()["token"]
    assert response.json() == {"bot_id": created["bot_id"], "token": new} and new != old
    assert _mcp_status(server, old) == 401
    assert _resolves(server_session, old) is None
    assert "topic_publish" in _topic_tools(server, new)
    config = json.loads(Path(created["config_path"]).read_text(encoding="utf-8"))
    assert config["tools"]["mcpServers"]["topic_mcp"]["headers"] == {"x-topic-mcp-token": new}
    assert old not in Path(created["config_path"]).read_text(encoding="utf-8")


def test_rotating_an_unknown_bot_is_404(admin: httpx.Client) -> None:
    rest_error(admin.post("/api/bots/nope/token"), 404, "bot_not_found")


# --- the locked MCP config --------------------------------------------------------------------------------


@pytest.fixture
def adopted(admin: httpx.Client, home: Path) -> dict[str, Any]:
    """A bot adopting a config.json with two other servers and unknown keys."""
    path = home / "config.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps({"tools": {"mcpServers": copy.deepcopy(OTHER_SERVERS)}, "keep": {"me": True}}), encoding="utf-8"
    )
    return _create(admin, "configured", config_path=str(path), adopt_existing=True)


def _managed(server: LiveServer, token: str, timeout: int = 30) -> dict[str, Any]:
    return {
        "type": "streamableHttp",
        "url": server.topic_mcp_url,
        "headers": {"x-topic-mcp-token": token},
        "toolTimeout": timeout,
    }


def _masked(server: LiveServer, timeout: int = 30) -> dict[str, Any]:
    """topic_mcp as every read shows it, to admins too: the bot's token appears only when it is made."""
    return _managed(server, "***", timeout)


def _ccweb(server: LiveServer, token: str, timeout: int = 30) -> dict[str, Any]:
    """The second managed entry (ccweb_list_user_inputs): the same token, its own URL."""
    return {**_managed(server, token, timeout), "url": server.topic_mcp_url.replace("/api/mcp/topic", "/api/mcp/ccweb")}


def test_get_mcp_config_marks_topic_mcp_locked(
    admin: httpx.Client, server: LiveServer, adopted: dict[str, Any]
) -> None:
    response = admin.get(f"/api/bots/{adopted['bot_id']}/mcp-config")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["servers"] == {**OTHER_SERVERS, "topic_mcp": _masked(server), "ccweb": _ccweb(server, "***")}
    assert adopted["token"] not in response.text
    assert body["locked"] == {"filesystem": False, "remote": False, "topic_mcp": True, "ccweb": True}
    assert body["config_path"] == adopted["config_path"] and body["restored"] is False


def test_put_replaces_the_whole_map_and_restores_topic_mcp(
    admin: httpx.Client, server: LiveServer, adopted: dict[str, Any]
) -> None:
    servers = {
        "remote": OTHER_SERVERS["remote"],
        "local": {"type": "stdio", "command": "uvx", "args": ["x"], "toolTimeout": 60},
    }

    response = admin.put(f"/api/bots/{adopted['bot_id']}/mcp-config", json={"mcpServers": servers})

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["restored"] is True
    assert body["servers"] == {**servers, "topic_mcp": _masked(server), "ccweb": _ccweb(server, "***")}
    assert body["locked"] == {"remote": False, "local": False, "topic_mcp": True, "ccweb": True}
    written = json.loads(Path(adopted["config_path"]).read_text(encoding="utf-8"))
    assert written["tools"]["mcpServers"] == {
        **servers,
        "topic_mcp": _managed(server, adopted["token"]),
        "ccweb": _ccweb(server, adopted["token"]),
    }
    assert written["keep"] == {"me": True}
    assert admin.get(f"/api/bots/{adopted['bot_id']}/mcp-config").json()["servers"] == body["servers"]
    # topic_mcp still works for the bot
    assert "topic_publish" in _topic_tools(server, adopted["token"])


def test_putting_back_what_get_returned_changes_nothing(admin: httpx.Client, adopted: dict[str, Any]) -> None:
    path = Path(adopted["config_path"])
    before = json.loads(path.read_text(encoding="utf-8"))
    servers = admin.get(f"/api/bots/{adopted['bot_id']}/mcp-config").json()["servers"]

    response = admin.put(f"/api/bots/{adopted['bot_id']}/mcp-config", json={"mcpServers": servers})

    assert response.status_code == 200, response.text
    assert response.json()["restored"] is False and response.json()["servers"] == servers
    after = json.loads(path.read_text(encoding="utf-8"))
    assert after == before and list(after["tools"]["mcpServers"]) == list(before["tools"]["mcpServers"])


def test_put_may_change_the_tool_timeout_and_it_survives_rotation(
    admin: httpx.Client, server: LiveServer, adopted: dict[str, Any]
) -> None:
    bot_id = adopted["bot_id"]
    response = admin.put(
        f"/api/bots/{bot_id}/mcp-config",
        json={"mcpServers": {"topic_mcp": _managed(server, adopted["token"], 120), "ccweb": {"toolTimeout": 30}}},
    )
    assert response.status_code == 200, response.text
    assert response.json()["restored"] is False
    assert response.json()["servers"] == {"topic_mcp": _masked(server, 120), "ccweb": _ccweb(server, "***")}

    new = admin.post(f"/api/bots/{bot_id}/token").json()["token"]

    assert admin.get(f"/api/bots/{bot_id}/mcp-config").json()["servers"]["topic_mcp"] == _masked(server, 120)
    written = json.loads(Path(adopted["config_path"]).read_text(encoding="utf-8"))
    assert written["tools"]["mcpServers"]["topic_mcp"] == _managed(server, new, 120)


@pytest.mark.parametrize(
    ("topic_mcp", "code", "field"),
    [
        ({"type": "sse"}, "locked_field", "mcpServers.topic_mcp.type"),
        ({"url": "http://evil.example/api/mcp/topic"}, "locked_field", "mcpServers.topic_mcp.url"),
        ({"headers": {"x-topic-mcp-token": "tdb_mine"}}, "locked_field", "mcpServers.topic_mcp.headers"),
        ({"headers": {}}, "locked_field", "mcpServers.topic_mcp.headers"),
        ({"enabledTools": ["topic_publish"]}, "locked_field", "mcpServers.topic_mcp.enabledTools"),
        ({"command": "sh"}, "locked_field", "mcpServers.topic_mcp.command"),
        ({"toolTimeout": 0}, "invalid_mcp_config", "mcpServers.topic_mcp.toolTimeout"),
        ({"toolTimeout": 601}, "invalid_mcp_config", "mcpServers.topic_mcp.toolTimeout"),
        ({"toolTimeout": "30"}, "invalid_mcp_config", "mcpServers.topic_mcp.toolTimeout"),
    ],
)
def test_the_lock_refuses_changes_to_topic_mcp_and_writes_nothing(
    admin: httpx.Client, adopted: dict[str, Any], topic_mcp: dict[str, Any], code: str, field: str
) -> None:
    path = Path(adopted["config_path"])
    before = path.read_bytes()

    error = rest_error(
        admin.put(
            f"/api/bots/{adopted['bot_id']}/mcp-config", json={"mcpServers": {"topic_mcp": topic_mcp, **OTHER_SERVERS}}
        ),
        422,
        code,
        field,
    )

    assert field.rsplit(".", 1)[1] in error["message"] or code == "invalid_mcp_config"
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("server_entry", "field"),
    [
        ({"type": "stdio"}, "mcpServers.x.command"),
        ({"type": "websocket", "url": "ws://x/mcp"}, "mcpServers.x.type"),
        ({"type": "sse", "url": "ftp://x.example/sse"}, "mcpServers.x.url"),
        ({"command": "npx", "toolTimeout": 1.5}, "mcpServers.x.toolTimeout"),
        ({"url": "https://x.example/mcp", "headers": {"a": 1}}, "mcpServers.x.headers"),
        ({"command": "npx", "unknown": True}, "mcpServers.x.unknown"),
        ("npx", "mcpServers.x"),
    ],
)
def test_other_servers_are_validated_the_way_nanobot_reads_them(
    admin: httpx.Client, adopted: dict[str, Any], server_entry: Any, field: str
) -> None:
    path = Path(adopted["config_path"])
    before = path.read_bytes()
    rest_error(
        admin.put(f"/api/bots/{adopted['bot_id']}/mcp-config", json={"mcpServers": {"x": server_entry}}),
        422,
        "invalid_mcp_config",
        field,
    )
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "mcpServers"),
        ({"mcpServers": []}, "mcpServers"),
        ({"mcpServers": "topic_mcp"}, "mcpServers"),
        ({"servers": {}}, "mcpServers"),
    ],
)
def test_a_put_body_without_an_mcp_servers_object_is_422(
    admin: httpx.Client, adopted: dict[str, Any], body: dict[str, Any], field: str
) -> None:
    path = Path(adopted["config_path"])
    before = path.read_bytes()
    rest_error(admin.put(f"/api/bots/{adopted['bot_id']}/mcp-config", json=body), 422, "validation_error", field)
    assert path.read_bytes() == before


def test_a_config_edited_by_hand_with_a_stale_token_is_refused_until_rotation(
    admin: httpx.Client, adopted: dict[str, Any]
) -> None:
    path = Path(adopted["config_path"])
    config = json.loads(path.read_text(encoding="utf-8"))
    config["tools"]["mcpServers"]["topic_mcp"]["headers"]["x-topic-mcp-token"] = "tdb_typed-by-hand"
    path.write_text(json.dumps(config), encoding="utf-8")
    before = path.read_bytes()

    rest_error(
        admin.put(f"/api/bots/{adopted['bot_id']}/mcp-config", json={"mcpServers": {}}),
        422,
        "invalid_mcp_config",
        "config_path",
    )

    assert path.read_bytes() == before
    assert admin.post(f"/api/bots/{adopted['bot_id']}/token").status_code == 200
    assert admin.put(f"/api/bots/{adopted['bot_id']}/mcp-config", json={"mcpServers": {}}).json()["restored"] is True


def test_mcp_config_of_a_deleted_file_is_422(admin: httpx.Client) -> None:
    created = _create(admin, "lost")
    Path(created["config_path"]).unlink()
    rest_error(admin.get(f"/api/bots/{created['bot_id']}/mcp-config"), 422, "invalid_mcp_config", "config_path")


# --- where a config.json may be, and the token never read back ------------------------------------------------


def test_an_outside_path_gets_one_answer_whether_it_exists_or_not(
    admin: httpx.Client, server_session: Session, tmp_path: Path
) -> None:
    existing = tmp_path / "outside" / "config.json"
    existing.parent.mkdir(parents=True)
    existing.write_text(json.dumps({"tools": {}}), encoding="utf-8")
    before = existing.read_bytes()
    bots_before = _bot_count(server_session)
    answers = set()
    for path in (existing, tmp_path / "outside" / "missing.json", tmp_path / "nowhere" / "config.json"):
        for adopt in (False, True):
            response = admin.post("/api/bots", json={"name": "x", "config_path": str(path), "adopt_existing": adopt})
            answers.add((response.status_code, response.text))
    assert len(answers) == 1
    status, text = answers.pop()
    assert status == 422 and json.loads(text)["error"]["code"] == "config_path_not_allowed"
    assert existing.read_bytes() == before
    assert _bot_count(server_session) == bots_before


def test_another_bots_config_cannot_be_adopted(admin: httpx.Client, server: LiveServer) -> None:
    owner = _create(admin, "owner")
    before = Path(owner["config_path"]).read_bytes()
    rest_error(
        admin.post("/api/bots", json={"name": "thief", "config_path": owner["config_path"], "adopt_existing": True}),
        409,
        "config_path_in_use",
        "config_path",
    )
    assert Path(owner["config_path"]).read_bytes() == before
    assert _mcp_status(server, owner["token"]) == 200


def test_the_bot_token_is_shown_only_by_create_and_rotate(admin: httpx.Client, server: LiveServer) -> None:
    created = _create(admin, "secretive")
    rotated = admin.post(f"/api/bots/{created['bot_id']}/token").json()["token"]
    reads = [
        admin.get("/api/bots"),
        admin.get(f"/api/bots/{created['bot_id']}/mcp-config"),
        admin.put(f"/api/bots/{created['bot_id']}/mcp-config", json={"mcpServers": {}}),
    ]
    for response in reads:
        assert response.status_code == 200, response.text
        assert created["token"] not in response.text and rotated not in response.text
    assert "topic_publish" in _topic_tools(server, rotated)
