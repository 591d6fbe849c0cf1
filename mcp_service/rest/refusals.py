"""Refused REST writes in the audit trail: a write the API refused (a viewer writing, a conflict, a
bad body) leaves one `refused` row naming the token, its action and the error code. Requests
without a valid token (401) are not audited, as on the MCP endpoints; a flood from one token is
capped per minute (services/audit.py)."""

from __future__ import annotations

import logging

from fastapi import Request
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from topic_dashboard.db import write_session
from topic_dashboard.errors import AppError
from topic_dashboard.services.accounts import Principal
from topic_dashboard.services.audit import actor_of, record_refusal

logger = logging.getLogger(__name__)

# Each write operation's action name: the one its service writes on success (docs/DESIGN.md §3.6).
REST_ACTIONS: dict[tuple[str, str], str] = {
    ("POST", "/api/bots"): "bot.create",
    ("DELETE", "/api/bots/{bot_id}"): "bot.delete",
    ("POST", "/api/bots/{bot_id}/token"): "bot.rotate_token",
    ("PUT", "/api/bots/{bot_id}/mcp-config"): "bot.update_mcp_config",
    ("POST", "/api/bots/{bot_id}/topics"): "topic.create",
    ("PUT", "/api/bots/{bot_id}/topics/{topic_key}"): "topic.update",
    ("DELETE", "/api/bots/{bot_id}/topics/{topic_key}"): "topic.delete",
    ("POST", "/api/bots/{bot_id}/topics/{topic_key}/purge"): "retention.purge",
    ("PUT", "/api/bots/{bot_id}/topic-settings"): "bot.update_settings",
    ("POST", "/api/bots/{bot_id}/topic-items/{item_id}/read"): "item.read",
    ("POST", "/api/bots/{bot_id}/conversations"): "conversation.create",
    ("POST", "/api/conversations/{conversation_id}/messages"): "conversation.add_message",
    ("POST", "/api/conversations/{conversation_id}/messages/{message_id}/submit"): "conversation.submit_guide_card",
    ("POST", "/api/tokens"): "api_token.create",
    ("DELETE", "/api/tokens/{token_id}"): "api_token.revoke",
}
API_PREFIX = "/api"
NOT_AUDITED = frozenset({"database_unavailable", "data_dir_unavailable", "unauthorized"})


def _target(params: dict[str, str]) -> str | None:
    if "item_id" in params:
        return f"item:{params['item_id']}"
    if "topic_key" in params:
        return f"topic:{params.get('bot_id', '')}/{params['topic_key']}"
    if "conversation_id" in params:
        return f"conversation:{params['conversation_id']}"
    if "bot_id" in params:
        return f"bot:{params['bot_id']}"
    if "token_id" in params:
        return f"api_token:{params['token_id']}"
    return None


def _write(who: Principal, action: str, error: AppError, params: dict[str, str]) -> None:
    actor = actor_of(who)
    try:
        with write_session() as session:
            record_refusal(
                session=session,
                actor_kind=actor.kind,
                actor=actor.name,
                action=action,
                error_code=error.code,
                target=_target(params),
                bot_id=params.get("bot_id"),
                detail={"status": error.status, "field": error.field} if error.field else {"status": error.status},
            )
    except SQLAlchemyError:
        # The caller still gets its answer; the database being down is what /api/health reports.
        logger.exception("could not write the audit row of a refused %s", action[:64])


async def audit_refusal(request: Request, error: AppError) -> None:
    """Record a refused write of a known token (its principal was resolved) in its own transaction."""
    who = getattr(request.state, "principal", None)
    if request.method in ("GET", "HEAD", "OPTIONS") or not isinstance(who, Principal) or error.code in NOT_AUDITED:
        return
    route = request.scope.get("route")
    path = str(getattr(route, "path", request.url.path))
    if not path.startswith(API_PREFIX):  # the route as its router declares it, without the /api prefix
        path = API_PREFIX + path
    action = REST_ACTIONS.get((request.method, path), f"{request.method} {path}")
    await run_in_threadpool(_write, who, action, error, dict(request.path_params))
