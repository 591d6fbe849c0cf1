"""Reading the caller's identity inside a tool."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from mcp_service.auth import SCOPE_BOT_ID
from topic_dashboard.errors import AppError


def _request(ctx: Context) -> Any:
    return getattr(ctx.request_context, "request", None)


def current_bot_id(ctx: Context) -> str:
    """The bot the gate authenticated for this request. Raises unauthorized if there is none."""
    request = _request(ctx)
    scope = getattr(request, "scope", None) or {}
    bot_id = (scope.get("state") or {}).get(SCOPE_BOT_ID)
    if not bot_id:
        raise AppError("unauthorized", "this endpoint needs the bot's token")
    return str(bot_id)


def request_header(ctx: Context, name: str) -> str | None:
    headers = ctx.headers or {}
    return headers.get(name)
