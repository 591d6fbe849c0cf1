"""REST: the audit trail of MCP tool calls."""

from __future__ import annotations

from fastapi import APIRouter, Query

from mcp_service.rest.deps import Reader, ReadSession
from mcp_service.rest.errors import ERROR_RESPONSES
from topic_dashboard.services import audit
from topic_dashboard.text_policy import INT64_MAX, INT64_MIN

router = APIRouter(tags=["audit"], responses=ERROR_RESPONSES)


@router.get("/audit", response_model=list[audit.AuditPublic])
def list_audit(
    _: Reader,
    session: ReadSession,
    bot_id: str | None = None,
    tool: str | None = None,
    outcome: str | None = None,
    before_id: int | None = Query(default=None, ge=INT64_MIN, le=INT64_MAX),
    limit: int = Query(default=100, ge=1, le=500),
) -> list[audit.AuditPublic]:
    return audit.list_calls(
        session=session, bot_id=bot_id, tool=tool, outcome=outcome, before_id=before_id, limit=limit
    )
