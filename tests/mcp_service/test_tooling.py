"""mcp_service/tooling.py: what StrictMCPServer changes about the SDK beyond its tools."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from mcp_service.tooling import StrictMCPServer


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
