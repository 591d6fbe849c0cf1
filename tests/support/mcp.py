"""The real MCP client (mcp SDK 2.x over streamable HTTP), as a bot would use it."""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

T = TypeVar("T")


@asynccontextmanager
async def mcp_client(
    url: str, token: str | None = None, headers: dict[str, str] | None = None
) -> AsyncIterator[Client]:
    all_headers = dict(headers or {})
    if token is not None:
        all_headers["x-topic-mcp-token"] = token
    async with httpx2.AsyncClient(headers=all_headers, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


def run_async(fn: Callable[[], Awaitable[T]]) -> T:
    """Run an async test body on its own event loop in a worker thread.

    The browser suite keeps Playwright's sync loop on the main thread for the whole session,
    so async tests cannot run their loop there.
    """
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = anyio.run(fn)
        except BaseException as exc:  # re-raised in the test's thread
            box["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def result_json(result: CallToolResult) -> dict[str, Any]:
    """The JSON a tool result carries as text (what nanobot's model reads); checks it equals structuredContent."""
    texts = [block.text for block in result.content if getattr(block, "type", None) == "text"]
    assert len(texts) == 1, result
    body = json.loads(texts[0])
    assert result.structured_content == body
    return body
