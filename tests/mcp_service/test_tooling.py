"""mcp_service/tooling.py: what StrictMCPServer changes about the SDK beyond its tools."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import anyio
import pytest
from mcp_types import CallToolResult

from mcp_service.tooling import StrictMCPServer, ok_result
from topic_dashboard.errors import AppError


@pytest.fixture
def sdk_logger() -> Iterator[logging.Logger]:
    """The SDK's logger with no level of its own, under a root that lets INFO through (as the app's
    root is once MCPServer configured it); both restored afterwards."""
    sdk, root = logging.getLogger("mcp"), logging.getLogger()
    saved = sdk.level, root.level
    sdk.setLevel(logging.NOTSET)
    root.setLevel(logging.INFO)
    try:
        yield sdk
    finally:
        sdk.setLevel(saved[0])
        root.setLevel(saved[1])


def test_the_sdk_logs_nothing_per_request_at_info(sdk_logger: logging.Logger) -> None:
    """Every stateless request logged "Terminating session: None" at INFO through rich (a quarter of a
    publish's server time in bench/mcp_bench.py's profile)."""
    assert logging.getLogger("mcp.server.streamable_http").isEnabledFor(logging.INFO)
    StrictMCPServer(name="quiet")
    assert not logging.getLogger("mcp.server.streamable_http").isEnabledFor(logging.INFO)
    assert logging.getLogger("mcp.server.streamable_http").isEnabledFor(logging.WARNING)


def test_a_level_set_on_purpose_stays(sdk_logger: logging.Logger) -> None:
    sdk_logger.setLevel(logging.DEBUG)
    StrictMCPServer(name="debugging")
    assert sdk_logger.level == logging.DEBUG


def test_accepted_calls_of_self_audited_tools_skip_the_auditor_and_their_refusals_do_not() -> None:
    """topic_publish writes its audit row in its own transaction: its accepted calls are not handed to
    the auditor (a thread hop and a write per call for nothing); its refusals and every call of other
    tools are, once each."""
    reports: list[tuple[str, bool]] = []
    server = StrictMCPServer(
        name="audited",
        auditor=lambda _context, tool, result, _ms: reports.append((tool, bool(result.is_error))),
        self_audited=frozenset({"publish"}),
    )

    def publish(accept: bool) -> CallToolResult:
        if not accept:
            raise AppError("rate_limited", "slow down")
        return ok_result({"item_id": 1})

    def read() -> CallToolResult:
        return ok_result({})

    server.strict_tool(publish, name="publish", description="publishes")
    server.strict_tool(read, name="read", description="reads", read_only=True)
    for name, arguments in (("publish", {"accept": True}), ("publish", {"accept": False}), ("read", {})):
        anyio.run(server.call_tool, name, arguments)
    assert reports == [("publish", True), ("read", False)]
