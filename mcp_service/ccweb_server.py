"""The `ccweb` server: lets a bot re-read what the user asked in a conversation (docs/DESIGN.md §7)."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import WithJsonSchema

from mcp_service.audit import audit_tool_call
from mcp_service.context import current_bot_id, request_header
from mcp_service.tooling import StrictMCPServer, ok_result
from topic_dashboard import __version__
from topic_dashboard.db import read_session
from topic_dashboard.services.chat import source_conversation_id
from topic_dashboard.services.conversations import list_user_inputs
from topic_dashboard.user_inputs import (
    DEFAULT_LIMIT,
    DEFAULT_MAX_CHARS,
    MAX_LIMIT,
    MAX_MAX_CHARS,
    MIN_LIMIT,
    MIN_MAX_CHARS,
    clamp_int,
    resolve_conversation_id,
)

SOURCE_HEADER = "x-ccweb-conversation-id"
INSTRUCTIONS = (
    "Read the user's recent inputs in a conversation before implementing or accepting work, "
    "so that the work matches what the user actually asked."
)
DESCRIPTION = (
    "Read back what the user actually asked: returns the most recent user inputs (default 15) of a conversation, "
    "oldest first, at most 1000 characters in total (newest inputs keep their text first; an older input that does "
    "not fit is cut and marked truncated). Defaults to the current conversation (the one you are answering in the "
    "dashboard); pass conversationId for another. Read-only. Use it before implementing a request and before accepting or reporting "
    "work as done, to check the work against the user's request. Returns only what the user typed (and forms they "
    "submitted), never assistant, tool or system messages."
)

# The exact input schema of docs/DESIGN.md §7.2. Values are checked (and clamped) by the tool itself, so that
# an out-of-range integer is clamped rather than refused.
INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "conversationId": {
            "type": "string",
            "description": "The conversation to read. Omit it to read the current conversation.",
        },
        "limit": {
            "type": "integer",
            "default": DEFAULT_LIMIT,
            "minimum": MIN_LIMIT,
            "maximum": MAX_LIMIT,
            "description": "How many of the most recent user inputs to return (default 15, 1-50).",
        },
        "maxChars": {
            "type": "integer",
            "default": DEFAULT_MAX_CHARS,
            "minimum": MIN_MAX_CHARS,
            "maximum": MAX_MAX_CHARS,
            "description": "Total characters (Unicode code points) of all returned contents (default 1000, 1-1000).",
        },
    },
    "additionalProperties": False,
}


def list_user_inputs_tool(
    ctx: Context,
    conversationId: Annotated[Any, WithJsonSchema(INPUT_SCHEMA["properties"]["conversationId"])] = None,
    limit: Annotated[Any, WithJsonSchema(INPUT_SCHEMA["properties"]["limit"])] = None,
    maxChars: Annotated[Any, WithJsonSchema(INPUT_SCHEMA["properties"]["maxChars"])] = None,
) -> CallToolResult:
    bot_id = current_bot_id(ctx)
    header = request_header(ctx, SOURCE_HEADER)
    with read_session() as session:
        # nanobot sends the same headers for every conversation: with no header, the source is the
        # conversation the dashboard is relaying to this bot right now (one at a time per bot).
        running = (
            source_conversation_id(session=session, bot_id=bot_id) if conversationId is None and not header else None
        )
    conversation_id = resolve_conversation_id(conversationId, header or running)
    used_limit = clamp_int(limit, name="limit", default=DEFAULT_LIMIT, lo=MIN_LIMIT, hi=MAX_LIMIT)
    used_chars = clamp_int(maxChars, name="maxChars", default=DEFAULT_MAX_CHARS, lo=MIN_MAX_CHARS, hi=MAX_MAX_CHARS)
    with read_session() as session:
        result = list_user_inputs(
            session=session, bot_id=bot_id, conversation_id=conversation_id, limit=used_limit, max_chars=used_chars
        )
    result.pop("ok", None)
    return ok_result(result)


def build_ccweb_server() -> StrictMCPServer:
    server = StrictMCPServer(name="ccweb", instructions=INSTRUCTIONS, version=__version__, auditor=audit_tool_call)
    server.strict_tool(
        list_user_inputs_tool,
        name="ccweb_list_user_inputs",
        title="List the user's recent inputs",
        description=DESCRIPTION,
        read_only=True,
    )
    tool = server._tool_manager.get_tool("ccweb_list_user_inputs")
    assert tool is not None
    tool.parameters = dict(INPUT_SCHEMA)
    return server
