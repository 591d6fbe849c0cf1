"""Audit every MCP tool call: who, which tool, outcome, error code, topic, item, latency.

Storage bounds every field and caps a bot's refused calls per minute (services/audit.py). An
accepted topic_publish writes its audit row in the publishing transaction itself, so that the
item and its row are stored both or neither; here only its refusals are recorded.
"""

from __future__ import annotations

import logging
from typing import Any

import sqlalchemy as sa
from mcp_types import CallToolResult

from mcp_service.context import current_bot_id
from topic_dashboard.db import write_session
from topic_dashboard.errors import AppError
from topic_dashboard.services.audit import record_call

logger = logging.getLogger(__name__)

PUBLISH_TOOL = "topic_publish"
# Tools whose accepted calls are audited inside their own transaction.
AUDITED_IN_TRANSACTION = frozenset({PUBLISH_TOOL})


def audit_tool_call(context: Any, tool: str, result: CallToolResult, latency_ms: float) -> None:
    try:
        bot_id: str | None = current_bot_id(context) if context is not None else None
    except AppError:
        bot_id = None
    body = result.structured_content or {}
    error: dict[str, Any] | None = None
    if result.is_error:
        error = body.get("error") if isinstance(body.get("error"), dict) else {}
        code = error.get("code") if isinstance(error.get("code"), str) else None
        outcome = "error" if code == "internal_error" else "refused"
        topic_key, item_id = None, None
    elif tool in AUDITED_IN_TRANSACTION:
        return
    else:
        outcome = "deduplicated" if body.get("deduplicated") else "ok"
        code = None
        topic_key = body.get("topic_key") if isinstance(body.get("topic_key"), str) else None
        item_id = body.get("item_id") if isinstance(body.get("item_id"), int) else None
    try:
        with write_session() as session:
            record_call(
                session=session,
                bot_id=bot_id,
                tool=tool,
                outcome=outcome,
                error_code=code,
                topic_key=topic_key,
                item_id=item_id,
                latency_ms=latency_ms,
                error=error or None,
            )
    except sa.exc.SQLAlchemyError:
        # The caller still gets its answer; the database being down is what /api/health reports.
        logger.exception("could not write the audit row of %s for bot %s", tool[:64], bot_id)
