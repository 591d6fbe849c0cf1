"""REST: the audit trail of MCP tool calls and of people's, API tokens' and the system's actions."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query

from mcp_service.rest.deps import Reader, ReadSession
from mcp_service.rest.errors import ERROR_RESPONSES
from topic_dashboard.services import audit
from topic_dashboard.text_policy import INT64_MAX, INT64_MIN

router = APIRouter(tags=["audit"], responses=ERROR_RESPONSES)


@router.get("/audit", response_model=list[audit.AuditPublic])
def list_audit(
    reader: Reader,
    session: ReadSession,
    bot_id: str | None = None,
    tool: str | None = Query(default=None, description="An MCP tool or an action (bot.create, topic.update, …)."),
    outcome: str | None = Query(
        default=None,
        description="ok, deduplicated, updated, refused, error or suppressed; or failed: the rows Insights' failure "
        "rate counts (refused or error, but not a filtered_* refusal, and suppressed).",
    ),
    actor: str | None = Query(default=None, description="A username, API token name, bot id or system task."),
    actor_kind: str | None = Query(default=None, description="bot, user, api_token or system"),
    error_code: str | None = None,
    since: Annotated[datetime | None, Query(description="From this time on (ISO 8601; without offset: UTC).")] = None,
    until: Annotated[datetime | None, Query(description="Before this time (ISO 8601; without offset: UTC).")] = None,
    before_id: int | None = Query(default=None, ge=INT64_MIN, le=INT64_MAX),
    limit: int = Query(default=100, ge=1, le=audit.MAX_PAGE),
) -> list[audit.AuditPublic]:
    """Rows newest first; page on with the last row's id as `before_id`. A viewer's token reads every row but
    others' account rows (log-ins, accounts, API tokens)."""
    return audit.list_calls(
        session=session,
        bot_id=bot_id,
        tool=tool,
        outcome=outcome,
        actor=actor,
        actor_kind=actor_kind,
        error_code=error_code,
        since=since,
        until=until,
        before_id=before_id,
        limit=limit,
        reader=audit.AuditReader(kind=reader.kind, name=reader.name, is_admin=reader.is_admin),
    )
