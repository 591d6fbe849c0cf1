"""nanobot's own config loader and MCP client (nanobot-ai 0.3.5, mcp 1.x, own venv) against topic_mcp.

The driver (nanobot_driver.py) runs under nanobot's venv; these tests write the config.json a bot
would have, run the driver against the live server and check what landed in the database.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from tests.support.server import LiveServer
from topic_dashboard.models import AuditLog, TopicItem
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.topics import TopicCreate, create_topic

ROOT = Path(__file__).resolve().parents[2]
NANOBOT_PYTHON = ROOT / ".tools/nanobot-venv/bin/python"
DRIVER = Path(__file__).with_name("nanobot_driver.py")
TOPIC_TOOLS = {
    "mcp_topic_mcp_topic_list_topics",
    "mcp_topic_mcp_topic_get_schema",
    "mcp_topic_mcp_topic_route",
    "mcp_topic_mcp_topic_publish",
}

pytestmark = [
    pytest.mark.nanobot,
    pytest.mark.skipif(
        not NANOBOT_PYTHON.exists(), reason=f"nanobot's venv is missing ({NANOBOT_PYTHON}); `make test` installs it"
    ),
]


def _write_config(path: Path, server: LiveServer, token: str) -> Path:
    config = {
        "tools": {
            "ssrfWhitelist": ["127.0.0.1/32"],
            "mcpServers": {
                "topic_mcp": {
                    "type": "streamableHttp",
                    "url": server.topic_mcp_url,
                    "headers": {"x-topic-mcp-token": token},
                    "toolTimeout": 30,
                }
            },
        }
    }
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path


def _drive(config: Path, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    done = subprocess.run(
        [str(NANOBOT_PYTHON), str(DRIVER), str(config), json.dumps(calls)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=config.parent,
        env={"HOME": str(config.parent), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_nanobot_loads_the_config_lists_the_tools_and_publishes(
    server: LiveServer, server_session: Session, tmp_path: Path
) -> None:
    bot, token = create_bot(session=server_session, name="nanobot-client")
    create_topic(
        session=server_session,
        bot_id=bot.bot_id,
        actor="test",
        data=TopicCreate(
            topic_key="ci",
            name="CI",
            routing_json={
                "purpose": "CI results",
                "include_when": ["CI build or test results", "build failed / build passed / tests failing"],
            },
        ),
    )
    config = _write_config(tmp_path / "config.json", server, token)
    content = "CI build #42 failed: 3 tests failing in test_api.py"

    report = _drive(
        config,
        [
            ("mcp_topic_mcp_topic_list_topics", {}),
            ("mcp_topic_mcp_topic_route", {"content": content, "message_type": "result"}),
            (
                "mcp_topic_mcp_topic_publish",
                {
                    "title": "CI build #42 failed",
                    "content": content,
                    "topic_key": "ci",
                    "level": "error",
                    "tags": ["ci"],
                    "dedupe_key": "ci-42",
                    "message_type": "result",
                },
            ),
            (
                "mcp_topic_mcp_topic_publish",
                {"title": "Working on it", "content": "step 2 of 5", "message_type": "progress"},
            ),
        ],
    )

    # What nanobot read from config.json: nothing dropped silently.
    entry = report["servers"]["topic_mcp"]
    assert entry["type"] == "streamableHttp" and entry["url"] == server.topic_mcp_url
    assert entry["headers"] == {"x-topic-mcp-token": token} and entry["tool_timeout"] == 30
    assert report["ssrf_whitelist"] == ["127.0.0.1/32"]
    assert report["connected"] == ["topic_mcp"]
    assert TOPIC_TOOLS <= set(report["tools"])

    listed, routed, published, progress = report["results"]
    assert not listed["is_error"]
    assert {t["topic_key"] for t in json.loads(listed["text"])["topics"]} == {"inbox", "ci"}
    route = json.loads(routed["text"])
    assert route["should_publish"] is True and route["topic_key"] == "ci"
    assert not published["is_error"], published["text"]
    body = json.loads(published["text"])  # nanobot hands only the text to its model
    assert body["ok"] is True and body["topic_key"] == "ci" and body["deduplicated"] is False
    # A refusal reaches nanobot as a tool error carrying the JSON error.
    assert progress["is_error"] is True
    assert '"code": "filtered_progress"' in progress["text"]

    server_session.expire_all()
    items = server_session.exec(select(TopicItem).where(TopicItem.bot_id == bot.bot_id)).all()
    assert [(i.id, i.topic_key, i.title, i.level, i.tags_json, i.dedupe_key, i.source) for i in items] == [
        (body["item_id"], "ci", "CI build #42 failed", "error", ["ci"], "ci-42", "mcp")
    ]
    tools = server_session.exec(
        select(AuditLog.tool)
        .where(AuditLog.bot_id == bot.bot_id, AuditLog.actor_kind == "bot")  # its calls, not the topic's creation
        .order_by(AuditLog.id)  # type: ignore[arg-type]
    ).all()
    assert tools == ["topic_list_topics", "topic_route", "topic_publish", "topic_publish"]


def test_nanobot_with_a_wrong_token_registers_no_tools(
    server: LiveServer, server_session: Session, tmp_path: Path
) -> None:
    bot, _ = create_bot(session=server_session, name="nanobot-wrong-token")
    config = _write_config(tmp_path / "config.json", server, "tdb_not_a_token")

    report = _drive(config, [("mcp_topic_mcp_topic_publish", {"title": "t", "content": "CI build failed"})])

    assert report["connected"] == [] and not TOPIC_TOOLS & set(report["tools"])
    assert report["results"][0]["is_error"] is True  # nanobot: no such tool
    server_session.expire_all()
    assert server_session.exec(select(TopicItem).where(TopicItem.bot_id == bot.bot_id)).all() == []
