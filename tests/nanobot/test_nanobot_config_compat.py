"""Every config.json the dashboard writes, read by nanobot itself (nanobot-ai 0.3.5 in its own venv).

nanobot drops unknown keys silently and refuses MCP URLs on loopback/private addresses unless
`tools.ssrfWhitelist` admits them, so a config that merely looks right can leave a bot without
its tools. nanobot's own loader reads each file here (nanobot_config_check.py), and nanobot's own
MCP client, started from a file the live dashboard wrote, connects and lists the topic tools.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session

from tests.support.server import LiveServer, configured
from topic_dashboard.services import bots
from topic_dashboard.services.accounts import create_api_token
from topic_dashboard.settings import get_settings

ROOT = Path(__file__).resolve().parents[2]
NANOBOT_PYTHON = ROOT / ".tools/nanobot-venv/bin/python"
CHECK = Path(__file__).with_name("nanobot_config_check.py")
TOPIC_TOOLS = {
    "mcp_topic_mcp_topic_list_topics",
    "mcp_topic_mcp_topic_get_schema",
    "mcp_topic_mcp_topic_route",
    "mcp_topic_mcp_topic_publish",
}
OTHER_SERVERS = {
    "filesystem": {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
        "env": {"DEBUG": "1"},
        "toolTimeout": 120,
    },
    "remote": {"type": "sse", "url": "https://mcp.example.com/sse", "headers": {"Authorization": "Bearer x"}},
    "http": {"type": "streamableHttp", "url": "https://api.example.com/mcp", "enabledTools": ["search"]},
}

pytestmark = [
    pytest.mark.nanobot,
    pytest.mark.skipif(
        not NANOBOT_PYTHON.exists(), reason=f"nanobot's venv is missing ({NANOBOT_PYTHON}); `make test` installs it"
    ),
]


def _run(mode: str, *paths: Path) -> Any:
    home = paths[0].parent
    done = subprocess.run(
        [str(NANOBOT_PYTHON), str(CHECK), mode, *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=home,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _nanobot_reads(path: Path) -> dict[str, Any]:
    """What nanobot's loader made of `path`; fails unless it loaded and admits the topic_mcp URL."""
    report = _run("load", path)[str(path)]
    assert report["loaded"], report.get("error")
    assert report["topic_url_allowed"] is True, "nanobot's SSRF guard would refuse the dashboard"
    return report


def _expected_ccweb(token: str, timeout: int = 30) -> dict[str, Any]:
    """The ccweb entry (ccweb_list_user_inputs) as nanobot reads it: like topic_mcp, its own URL."""
    return {**_expected_topic_mcp(token, timeout), "url": get_settings().mcp_ccweb_url}


def _expected_topic_mcp(token: str, timeout: int = 30) -> dict[str, Any]:
    """topic_mcp as nanobot's MCPServerConfig dumps it: every field we wrote, none dropped."""
    return {
        "type": "streamableHttp",
        "auth": None,
        "command": "",
        "args": [],
        "env": {},
        "cwd": "",
        "url": get_settings().mcp_topic_url,
        "headers": {"x-topic-mcp-token": token},
        "tool_timeout": timeout,
        "enabled_tools": ["*"],
    }


def _adopted(tmp_path: Path, data: dict[str, Any] | None = None) -> Path:
    """An existing nanobot config inside the data directory (the only place a bot may adopt one from)."""
    path = get_settings().data_dir / "home" / ".nanobot" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            data
            if data is not None
            else {
                # nanobot's root forbids unknown keys; below it, unknown keys are allowed (and must survive).
                "agents": {
                    "defaults": {"model": "anthropic/claude-opus-4-5", "maxTokens": 4096, "futureAgentKey": "x"}
                },
                "channels": {"sendProgress": False, "sendToolHints": False, "myPluginChannel": {"enabled": True}},
                "tools": {
                    "mcpServers": copy.deepcopy(OTHER_SERVERS),
                    "futureToolsKey": [1, 2],
                    "ssrfWhitelist": ["100.64.0.0/10"],
                },
            }
        ),
        encoding="utf-8",
    )
    return path


def test_nanobot_reads_a_new_workspace_config(session: Session) -> None:
    bot, token = bots.create_bot(session=session, name="fresh")

    report = _nanobot_reads(Path(bot.config_path or ""))

    assert report["servers"] == {"topic_mcp": _expected_topic_mcp(token), "ccweb": _expected_ccweb(token)}
    assert report["ssrf_whitelist"] == ["127.0.0.1/32"]
    assert report["topic_url_allowed_without_whitelist"] is False  # the entry is what lets the bot connect


def test_nanobot_reads_an_adopted_config_with_other_servers_and_unknown_keys(session: Session, tmp_path: Path) -> None:
    path = _adopted(tmp_path)
    bot, token = bots.create_bot(session=session, name="adopted", config_path=str(path), adopt_existing=True)

    report = _nanobot_reads(path)

    assert report["servers"]["topic_mcp"] == _expected_topic_mcp(token)
    assert report["servers"]["filesystem"]["command"] == "npx"
    assert report["servers"]["filesystem"]["args"] == OTHER_SERVERS["filesystem"]["args"]
    assert report["servers"]["filesystem"]["env"] == {"DEBUG": "1"}
    assert report["servers"]["filesystem"]["tool_timeout"] == 120
    remote = report["servers"]["remote"]
    assert (remote["type"], remote["url"]) == ("sse", "https://mcp.example.com/sse")
    assert report["servers"]["remote"]["headers"] == {"Authorization": "Bearer x"}
    assert report["servers"]["http"]["enabled_tools"] == ["search"]
    assert report["ssrf_whitelist"] == ["100.64.0.0/10", "127.0.0.1/32"]
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["agents"]["defaults"]["futureAgentKey"] == "x" and written["tools"]["futureToolsKey"] == [1, 2]
    assert written["channels"]["myPluginChannel"] == {"enabled": True}


def test_nanobot_reads_a_snake_case_config_the_dashboard_kept_snake_case(session: Session, tmp_path: Path) -> None:
    path = _adopted(
        tmp_path,
        {"tools": {"mcp_servers": {"fs": {"command": "uvx", "tool_timeout": 9}}, "ssrf_whitelist": ["10.0.0.0/8"]}},
    )
    bot, token = bots.create_bot(session=session, name="snake", config_path=str(path), adopt_existing=True)

    report = _nanobot_reads(path)

    assert report["servers"]["topic_mcp"] == _expected_topic_mcp(token)
    assert report["servers"]["fs"]["tool_timeout"] == 9
    assert report["ssrf_whitelist"] == ["10.0.0.0/8", "127.0.0.1/32"]


def test_nanobot_reads_the_config_after_a_put_and_after_rotation(session: Session, tmp_path: Path) -> None:
    path = _adopted(tmp_path)
    bot, token = bots.create_bot(session=session, name="edited", config_path=str(path), adopt_existing=True)
    submitted = {
        "topic_mcp": {"toolTimeout": 90},
        "remote": OTHER_SERVERS["remote"],
        "local": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"], "cwd": "/srv", "tool_timeout": 5},
        "oauth": {"url": "https://oauth.example.com/mcp", "auth": "oauth"},
    }
    bots.put_mcp_config(session=session, bot_id=bot.bot_id, servers=submitted)

    after_put = _nanobot_reads(path)

    assert after_put["servers"]["topic_mcp"] == _expected_topic_mcp(token, 90)
    assert set(after_put["servers"]) == {"topic_mcp", "ccweb", "remote", "local", "oauth"}
    assert after_put["servers"]["local"]["tool_timeout"] == 5 and after_put["servers"]["local"]["cwd"] == "/srv"
    assert after_put["servers"]["oauth"]["auth"] == "oauth"

    bots.put_mcp_config(session=session, bot_id=bot.bot_id, servers={"remote": OTHER_SERVERS["remote"]})
    restored = _nanobot_reads(path)  # topic_mcp left out: put back as the dashboard manages it
    assert restored["servers"]["topic_mcp"] == _expected_topic_mcp(token)
    assert set(restored["servers"]) == {"remote", "topic_mcp", "ccweb"}
    assert restored["servers"]["ccweb"] == _expected_ccweb(token)

    new = bots.rotate_token(session=session, bot_id=bot.bot_id)
    rotated = _nanobot_reads(path)
    assert rotated["servers"]["topic_mcp"] == _expected_topic_mcp(new)
    assert rotated["servers"]["remote"]["url"] == "https://mcp.example.com/sse"
    assert rotated["ssrf_whitelist"] == ["100.64.0.0/10", "127.0.0.1/32"]


@pytest.mark.parametrize(
    ("base_url", "whitelist"),
    [
        ("http://localhost:3000", ["127.0.0.1/32"]),
        ("http://10.20.30.40:3000", ["10.20.30.40/32"]),
        ("http://[::1]:3000", ["::1/128"]),
        ("http://100.100.100.100:3000", ["100.100.100.100/32"]),
    ],
)
def test_nanobot_admits_the_dashboard_on_each_kind_of_private_address(
    session: Session, tmp_path: Path, base_url: str, whitelist: list[str]
) -> None:
    settings = get_settings()
    database_url = settings.effective_database_url
    with configured(database_url, str(settings.data_dir), TOPIC_DASHBOARD_PUBLIC_BASE_URL=base_url):
        bot, token = bots.create_bot(session=session, name="private")
        report = _nanobot_reads(Path(bot.config_path or ""))
        assert report["servers"]["topic_mcp"]["url"] == base_url + "/api/mcp/topic"
    assert report["ssrf_whitelist"] == whitelist
    assert report["topic_url_allowed_without_whitelist"] is False


def test_nanobot_reads_a_config_on_a_public_address_without_a_whitelist(session: Session) -> None:
    settings = get_settings()
    with configured(
        settings.effective_database_url, str(settings.data_dir), TOPIC_DASHBOARD_PUBLIC_BASE_URL="https://93.184.216.34"
    ):
        bot, _ = bots.create_bot(session=session, name="public")
    report = _run("load", Path(bot.config_path or ""))[bot.config_path or ""]
    assert report["loaded"] and report["ssrf_whitelist"] == []
    assert report["topic_url_allowed_without_whitelist"] is True


# --- nanobot's own MCP client against the live dashboard ------------------------------------------------


@pytest.fixture
def admin(server: LiveServer, server_session: Session) -> Iterator[httpx.Client]:
    token = create_api_token(session=server_session, name="nanobot-compat", role="admin")
    with httpx.Client(base_url=server.base_url, headers={"authorization": f"Bearer {token}"}, timeout=30) as client:
        yield client


def test_nanobot_connects_from_the_file_a_rest_created_bot_got(
    admin: httpx.Client, server: LiveServer, tmp_path: Path
) -> None:
    created = admin.post("/api/bots", json={"name": "nanobot over REST"})
    assert created.status_code == 201, created.text
    path = Path(created.json()["config_path"])

    report = _run("connect", path)

    assert report["connected"] == ["ccweb", "topic_mcp"]
    assert TOPIC_TOOLS | {"mcp_ccweb_ccweb_list_user_inputs"} <= set(report["tools"])
    loaded = _nanobot_reads(path)
    assert loaded["servers"]["topic_mcp"]["url"] == server.topic_mcp_url
    assert loaded["servers"]["topic_mcp"]["headers"] == {"x-topic-mcp-token": created.json()["token"]}

    # A PUT that changes the timeout and adds nothing else still connects.
    put = admin.put(
        f"/api/bots/{created.json()['bot_id']}/mcp-config", json={"mcpServers": {"topic_mcp": {"toolTimeout": 45}}}
    )
    assert put.status_code == 200, put.text
    assert _nanobot_reads(path)["servers"]["topic_mcp"]["tool_timeout"] == 45
    assert TOPIC_TOOLS <= set(_run("connect", path)["tools"])

    # After rotation the rewritten file connects; a copy of the old one no longer does.
    stale = tmp_path / "stale" / "config.json"
    stale.parent.mkdir()
    shutil.copy(path, stale)
    assert admin.post(f"/api/bots/{created.json()['bot_id']}/token").status_code == 200
    assert TOPIC_TOOLS <= set(_run("connect", path)["tools"])
    refused = _run("connect", stale)
    assert refused["connected"] == [] and not TOPIC_TOOLS & set(refused["tools"])
