"""Bot tokens at the door of the MCP endpoints: no valid token, HTTP 401 before any MCP handling."""

from __future__ import annotations

import json
import logging

import anyio
from sqlalchemy.exc import InterfaceError, OperationalError
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from topic_dashboard.db import read_session
from topic_dashboard.errors import AppError
from topic_dashboard.services.bots import bot_id_for_token

logger = logging.getLogger(__name__)

BOT_TOKEN_HEADER = "x-topic-mcp-token"
SCOPE_BOT_ID = "topic_bot_id"


def bearer_token(headers: Headers) -> str | None:
    value = headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return None


def presented_bot_token(headers: Headers) -> str | None:
    """The bot token from `x-topic-mcp-token`, else from `Authorization: Bearer`."""
    return headers.get(BOT_TOKEN_HEADER) or bearer_token(headers)


def _lookup_bot_id(token: str | None) -> str | None:
    with read_session() as session:
        return bot_id_for_token(session=session, token=token)


class BotTokenGate:
    """ASGI wrapper: resolves the bot token, answers 401 itself, else passes the bot id on in scope state."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = presented_bot_token(Headers(scope=scope))
        try:
            bot_id = await anyio.to_thread.run_sync(_lookup_bot_id, token) if token else None
        except (OperationalError, InterfaceError) as exc:
            # The same answer as the REST surface's (rest/errors.py), never the driver's text.
            logger.error("database unavailable while checking a bot token: %s", exc.orig)
            await _answer(
                send, AppError("database_unavailable", "the database is not reachable right now; try again shortly")
            )
            return
        if bot_id is None:
            error = AppError("unauthorized", f"send the bot's token in {BOT_TOKEN_HEADER} (or Authorization: Bearer)")
            await _answer(send, error, [(b"www-authenticate", b'Bearer realm="topic_mcp"')])
            return
        scope.setdefault("state", {})[SCOPE_BOT_ID] = bot_id
        await self.app(scope, receive, send)


async def _answer(send: Send, error: AppError, extra_headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": error.to_dict()}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": error.status, "headers": headers + (extra_headers or [])})
    await send({"type": "http.response.body", "body": body})
