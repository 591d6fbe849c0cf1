"""Bot tokens at the door of the MCP endpoints: no valid token, HTTP 401 before any MCP handling."""

from __future__ import annotations

import json

import anyio
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from topic_dashboard.db import read_session
from topic_dashboard.services.bots import bot_for_token

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
        bot = bot_for_token(session=session, token=token)
        return bot.id if bot is not None else None


class BotTokenGate:
    """ASGI wrapper: resolves the bot token, answers 401 itself, else passes the bot id on in scope state."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = presented_bot_token(Headers(scope=scope))
        bot_id = await anyio.to_thread.run_sync(_lookup_bot_id, token) if token else None
        if bot_id is None:
            body = json.dumps(
                {
                    "error": {
                        "code": "unauthorized",
                        "message": f"send the bot's token in {BOT_TOKEN_HEADER} (or Authorization: Bearer)",
                    }
                }
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", b'Bearer realm="topic_mcp"'),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        scope.setdefault("state", {})[SCOPE_BOT_ID] = bot_id
        await self.app(scope, receive, send)
