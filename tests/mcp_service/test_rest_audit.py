"""REST over real HTTP: the audit trail of MCP tool calls (GET /api/audit)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlmodel import Session

from tests.support.server import LiveServer
from topic_dashboard.services.accounts import create_api_token
from topic_dashboard.services.audit import record_call
from topic_dashboard.services.bots import create_bot


@pytest.fixture
def viewer(server: LiveServer, server_session: Session) -> Iterator[httpx.Client]:
    token = create_api_token(session=server_session, name="audit-viewer", role="viewer")
    with httpx.Client(base_url=server.base_url, headers={"authorization": f"Bearer {token}"}, timeout=30) as client:
        yield client


@pytest.fixture
def bot_id(server_session: Session) -> str:
    bot, _ = create_bot(session=server_session, name="audited")
    record_call(session=server_session, bot_id=bot.bot_id, tool="topic_list_topics", outcome="ok", latency_ms=1.25)
    record_call(
        session=server_session, bot_id=bot.bot_id, tool="topic_publish", outcome="ok", topic_key="inbox", item_id=7
    )
    record_call(
        session=server_session,
        bot_id=bot.bot_id,
        tool="topic_publish",
        outcome="refused",
        error_code="filtered_progress",
    )
    return bot.bot_id


def _calls(client: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    response = client.get("/api/audit", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_viewers_read_the_audit_trail_newest_first(viewer: httpx.Client, bot_id: str) -> None:
    calls = _calls(viewer, bot_id=bot_id)
    assert [(c["tool"], c["outcome"], c["error_code"]) for c in calls] == [
        ("topic_publish", "refused", "filtered_progress"),
        ("topic_publish", "ok", None),
        ("topic_list_topics", "ok", None),
    ]
    assert calls[1]["topic_key"] == "inbox" and calls[1]["item_id"] == 7
    assert [c["id"] for c in calls] == sorted((c["id"] for c in calls), reverse=True)


def test_the_audit_trail_filters_and_pages(viewer: httpx.Client, bot_id: str) -> None:
    assert [c["outcome"] for c in _calls(viewer, bot_id=bot_id, tool="topic_publish")] == ["refused", "ok"]
    assert [c["tool"] for c in _calls(viewer, bot_id=bot_id, outcome="ok")] == ["topic_publish", "topic_list_topics"]
    newest, *rest = _calls(viewer, bot_id=bot_id)
    assert _calls(viewer, bot_id=bot_id, before_id=newest["id"]) == rest
    assert _calls(viewer, bot_id=bot_id, limit=1) == [newest]
    assert _calls(viewer, bot_id="no_such_bot") == []


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 501}, "limit"),
        ({"before_id": "x"}, "before_id"),
        ({"before_id": 2**63}, "before_id"),  # past the databases' integers: 422, not 500
    ],
)
def test_bad_audit_parameters_are_422(viewer: httpx.Client, params: dict[str, Any], field: str) -> None:
    response = viewer.get("/api/audit", params=params)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "validation_error" and response.json()["error"]["field"] == field


def test_a_viewers_token_reads_no_one_elses_log_ins_while_an_admins_does(
    viewer: httpx.Client, server: LiveServer, server_session: Session, bot_id: str
) -> None:
    from topic_dashboard.services.accounts import create_user, log_in
    from topic_dashboard.services.audit import Actor

    create_user(session=server_session, username="rest-ada", password="a long pass phrase 1", role="admin")
    create_user(
        session=server_session,
        username="rest-eve",
        password="a long pass phrase 1",
        role="viewer",
        actor=Actor("user", "rest-ada"),
    )
    log_in(
        session=server_session, username="rest-ada", password="a long pass phrase 1", ttl_hours=1, address="203.0.113.7"
    )
    admin_token = create_api_token(session=server_session, name="audit-admin", role="admin")
    with httpx.Client(
        base_url=server.base_url, headers={"authorization": f"Bearer {admin_token}"}, timeout=30
    ) as admin:
        everything = _calls(admin, limit=500)
    tools = {c["tool"] for c in everything}
    assert {"auth.login", "user.create"} <= tools
    seen = _calls(viewer, limit=500)
    assert not [c for c in seen if c["tool"] in ("auth.login", "user.create")]
    assert {c["id"] for c in seen if c["bot_id"] == bot_id} == {c["id"] for c in everything if c["bot_id"] == bot_id}
