"""The audit trail cannot be flooded: every stored field is bounded and storable (NUL, lone surrogates),
and a bot's refused calls beyond a per-minute allowance are counted into one summary row per minute.

Service-level cases run on every backend; the over-the-wire cases go through the real app and MCP client.
"""

from __future__ import annotations

import json
import threading
from collections import Counter, defaultdict
from typing import Any

import anyio
import httpx
import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from tests.support.mcp import mcp_client, result_json, run_async
from tests.support.server import LiveServer
from topic_dashboard.db import write_session
from topic_dashboard.models import AuditLog
from topic_dashboard.services.audit import (
    FIELD_MAX_CHARS,
    REFUSED_ROWS_PER_MINUTE,
    SUPPRESSED,
    AuditPublic,
    list_calls,
    record_call,
)
from topic_dashboard.services.bots import create_bot


def _calls(session: Session, bot_id: str | None = None, tool: str | None = None) -> list[AuditPublic]:
    session.expire_all()
    rows = list_calls(session=session, bot_id=bot_id, tool=tool, limit=500)
    session.commit()  # end the read: on SQLite this session's transactions hold the write lock
    return rows


def _assert_flood_bounded(rows: list[AuditPublic], refused_calls: int) -> None:
    """Per minute: at most the allowance of refused rows plus one summary; every refused call counted once."""
    per_minute: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        assert row.created_at is not None
        per_minute[row.created_at[:16]][row.outcome] += 1
    for counts in per_minute.values():
        assert counts["refused"] <= REFUSED_ROWS_PER_MINUTE and counts[SUPPRESSED] <= 1, counts
    assert sum(row.calls for row in rows if row.outcome in ("refused", SUPPRESSED)) == refused_calls
    assert sum(1 for row in rows if row.outcome in ("refused", SUPPRESSED)) <= 2 * (REFUSED_ROWS_PER_MINUTE + 1)


# --- storage: bounded, storable fields ------------------------------------------------------------


def test_a_4_mb_tool_name_is_stored_cut_to_its_column_with_a_marker(session: Session) -> None:
    record_call(session=session, bot_id="b1", tool="x" * 4_000_000, outcome="refused", error_code="not_found")
    [row] = _calls(session, "b1")
    assert len(row.tool) <= FIELD_MAX_CHARS and row.tool.startswith("xxxx") and "4000000" in row.tool


@pytest.mark.parametrize("bad", ["nul\x00name", "lone\ud800surrogate", "\udfff", "\x00" * 100])
def test_nul_and_lone_surrogates_never_break_an_audit_insert(session: Session, bad: str) -> None:
    record_call(session=session, bot_id="b\x00" + bad, tool=bad, outcome="refused", error_code=bad, topic_key=bad)
    [row] = _calls(session)
    for value in (row.bot_id, row.tool, row.error_code, row.topic_key):
        assert value and "\x00" not in value and len(value) <= FIELD_MAX_CHARS
        value.encode("utf-8")  # no lone surrogate left


def test_a_filter_holding_nul_finds_nothing_instead_of_failing(session: Session) -> None:
    record_call(session=session, bot_id="b1", tool="topic_publish", outcome="ok")
    assert _calls(session, bot_id="b1\x00", tool="topic\x00publish") == []


def test_refused_calls_beyond_the_allowance_are_counted_into_one_row_per_minute(session: Session) -> None:
    for n in range(100):
        record_call(
            session=session, bot_id="flooder", tool=f"no_such_tool_{n}", outcome="refused", error_code="not_found"
        )
    record_call(session=session, bot_id="flooder", tool="topic_publish", outcome="ok", item_id=7)
    record_call(session=session, bot_id="quiet", tool="topic_publish", outcome="refused", error_code="rate_limited")

    flooder = _calls(session, "flooder")
    _assert_flood_bounded(flooder, 100)
    assert len(flooder) <= 2 * (REFUSED_ROWS_PER_MINUTE + 1) + 1
    assert (flooder[0].tool, flooder[0].outcome) == ("topic_publish", "ok")  # accepted calls always get their row
    summary = next(r for r in flooder if r.outcome == SUPPRESSED)
    assert summary.calls > 1 and summary.item_id is None
    assert [(r.outcome, r.calls) for r in _calls(session, "quiet")] == [("refused", 1)]


def test_the_refused_allowance_holds_under_50_concurrent_writers(engine: Engine) -> None:
    barrier = threading.Barrier(50)
    errors: list[BaseException] = []

    def refuse(n: int) -> None:
        try:
            barrier.wait(timeout=30)
            with write_session(engine) as session:
                record_call(
                    session=session, bot_id="crowd", tool=f"nope_{n}", outcome="refused", error_code="not_found"
                )
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=refuse, args=(n,)) for n in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    with Session(engine) as session:
        _assert_flood_bounded(_calls(session, "crowd"), 50)


# --- over the wire --------------------------------------------------------------------------------


def _unknown_tool_calls(server: LiveServer, token: str, names: list[str]) -> list[dict[str, Any]]:
    """Call tools that do not exist through the real MCP client; each answer is the JSON its text carries."""

    async def body() -> list[dict[str, Any]]:
        async with mcp_client(server.topic_mcp_url, token) as client:
            answers = []
            for name in names:
                result = await client.call_tool(name, {})
                assert result.is_error
                answers.append(result_json(result))
            return answers

    return run_async(body)


async def _raw_call(http: httpx.AsyncClient, url: str, name: str, request_id: int) -> dict[str, Any]:
    """A JSON-RPC tools/call as an attacker sends it: no client library, so no Mcp-Name header to cap the name."""
    response = await http.post(
        url,
        json={"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": {}}},
    )
    assert response.status_code == 200, response.text[:300]
    result = response.json()["result"]
    assert result["isError"] is True
    return json.loads(result["content"][0]["text"])


def _raw_http(token: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        headers={"x-topic-mcp-token": token, "accept": "application/json, text/event-stream"},
        timeout=60,
        limits=httpx.Limits(max_connections=10),
    )


def test_an_unknown_4_mb_tool_name_over_mcp_leaves_a_bounded_audit_row(
    server: LiveServer, server_session: Session
) -> None:
    bot, token = create_bot(session=server_session, name="huge-name")

    async def body() -> dict[str, Any]:
        async with _raw_http(token) as http:
            # Just under the transport's 4 MiB cap on a request body.
            return await _raw_call(http, server.topic_mcp_url, "t" * (4 * 1024 * 1024 - 1024), 1)

    answer = run_async(body)
    assert answer["error"]["code"] == "not_found"
    [row] = _calls(server_session, bot.bot_id)
    assert (row.outcome, row.error_code) == ("refused", "not_found")
    assert len(row.tool) <= FIELD_MAX_CHARS and row.tool.startswith("tttt")


def test_a_nul_in_an_unknown_tool_name_is_audited_on_every_backend(server: LiveServer, server_session: Session) -> None:
    bot, token = create_bot(session=server_session, name="nul-name")
    [answer] = _unknown_tool_calls(server, token, ["evil\x00tool"])
    assert answer["error"]["code"] == "not_found"
    [row] = _calls(server_session, bot.bot_id)
    assert row.outcome == "refused" and "\x00" not in row.tool and row.tool.startswith("evil")


def test_a_flood_of_large_refused_calls_over_mcp_stays_bounded(server: LiveServer, server_session: Session) -> None:
    bot, token = create_bot(session=server_session, name="flood")

    async def flood() -> None:
        async with _raw_http(token) as http, anyio.create_task_group() as group:
            for n in range(100):
                group.start_soon(_raw_call, http, server.topic_mcp_url, f"{n:04d}" + "f" * 256 * 1024, n)

    run_async(flood)
    rows = _calls(server_session, bot.bot_id)
    _assert_flood_bounded(rows, 100)
    assert sum(len(row.tool) for row in rows) <= len(rows) * FIELD_MAX_CHARS
    server_session.expire_all()
    stored = server_session.exec(select(AuditLog).where(AuditLog.bot_id == bot.bot_id)).all()
    server_session.commit()
    assert len(stored) == len(rows)


def test_a_refused_publish_over_mcp_keeps_what_the_bot_was_told_as_the_rows_detail(
    server: LiveServer, server_session: Session
) -> None:
    """The Audit page opens a refused call to say why: the row keeps the tool error's code, message and field."""
    bot, token = create_bot(session=server_session, name="told-why")

    async def body() -> dict[str, Any]:
        async with mcp_client(server.topic_mcp_url, token) as client:
            result = await client.call_tool(
                "topic_publish", {"title": "Done", "content": "done", "message_type": "gossip"}
            )
            assert result.is_error
            return result_json(result)

    answer = run_async(body)
    [row] = _calls(server_session, bot.bot_id)
    assert (row.outcome, row.error_code) == ("refused", answer["error"]["code"])
    assert row.detail is not None
    stored = json.loads(row.detail)["error"]
    assert stored["message"] == answer["error"]["message"] and stored.get("field") == "message_type"
