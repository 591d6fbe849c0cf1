"""The `topic_mcp` server: how a bot learns its topics, asks where a result belongs and publishes it.

Tools are thin adapters: read the bot from the request (never from arguments), call one service,
shape the answer. Topics belong to people: there is no topic_create or topic_delete here.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from mcp_service.audit import AUDITED_IN_TRANSACTION, PUBLISH_TOOL, audit_tool_call
from mcp_service.context import current_bot_id
from mcp_service.tooling import StrictMCPServer, ok_result
from topic_dashboard import __version__
from topic_dashboard.db import read_session, write_session
from topic_dashboard.item_views import LEVELS, schema_document, view_json_schema
from topic_dashboard.routing import RouteRequest
from topic_dashboard.services.audit import CallAudit
from topic_dashboard.services.publishing import MESSAGE_TYPES, PublishRequest, check_route_request, publish_item
from topic_dashboard.services.routing_service import route_for_bot
from topic_dashboard.services.topics import topics_for_bot

INSTRUCTIONS = (
    "Publish task results (not chat, progress or tool hints) to the user's Topic panel. "
    "Call topic_list_topics once to learn the topics, topic_route with a candidate result to learn "
    "whether and where it belongs, then topic_publish when topic_route says should_publish=true."
)

HOW_TO_ROUTE = (
    "For each finished task result: call topic_route with its content (and title/message_type), and with "
    "proposed_topic_key set to the topic you think fits best. The rules keep your choice unless that topic "
    "is inactive or one of its exclusions applies, and the reason says which. If should_publish is true, "
    "call topic_publish with the returned topic_key. If false, keep the message in the chat only. Never "
    "publish chat (message_type 'chat'), progress updates ('working on it...') or tool hints."
)

MessageType = Annotated[
    str | None,
    Field(
        description=f"What the message is: one of {', '.join(MESSAGE_TYPES)}. Task results are 'result'; "
        "'progress' and 'tool_hint' are never published."
    ),
]
Level = Annotated[str | None, Field(description=f"Severity: one of {', '.join(LEVELS)} (default info).")]
Tags = Annotated[list[str] | None, Field(description="Short labels, e.g. ['ci', 'release'] (at most 10).")]


def list_topics_tool(ctx: Context) -> CallToolResult:
    bot_id = current_bot_id(ctx)
    with read_session() as session:
        topics = topics_for_bot(session=session, bot_id=bot_id)
    return ok_result({**topics.model_dump(), "how_to_route": HOW_TO_ROUTE})


def get_schema_tool(ctx: Context) -> CallToolResult:
    bot_id = current_bot_id(ctx)
    with read_session() as session:
        topics = topics_for_bot(session=session, bot_id=bot_id)
    return ok_result(schema_document([(topic.topic_key, topic.allowed_view_types) for topic in topics.topics]))


def route_tool(
    content: Annotated[str, Field(description="The candidate result, as you would publish it.")],
    ctx: Context,
    title: Annotated[str | None, Field(description="Its title, if it has one.")] = None,
    message_type: MessageType = None,
    tags: Tags = None,
    level: Level = None,
    summary: Annotated[str | None, Field(description="A one-line summary, if you have one.")] = None,
    proposed_topic_key: Annotated[
        str | None,
        Field(
            description="Your own choice of topic (a topic_key from topic_list_topics). Kept when the topic is "
            "active and none of its exclusions applies; otherwise the reason says why and the rules choose."
        ),
    ] = None,
) -> CallToolResult:
    bot_id = current_bot_id(ctx)
    request = RouteRequest(
        content=content,
        title=title,
        message_type=message_type,
        tags=tuple(tags or ()),
        level=level,
        summary=summary,
        proposed_topic_key=proposed_topic_key,
    )
    check_route_request(request)
    with read_session() as session:
        decision = route_for_bot(session=session, bot_id=bot_id, request=request)
    return ok_result(decision.to_dict())


def publish_tool(
    title: Annotated[str, Field(description="A short headline for the result (at most 200 characters).")],
    content: Annotated[str, Field(description="The result itself, in markdown (no raw HTML; links http(s)/mailto).")],
    ctx: Context,
    topic_key: Annotated[
        str | None, Field(description="The topic from topic_route. Omit it to let the rules decide.")
    ] = None,
    level: Level = None,
    tags: Tags = None,
    view: Annotated[
        dict[str, Any] | None,
        Field(
            description="Optional structured view (see topic_get_schema): "
            "markdown, card, table, checklist, metric or timeline."
        ),
    ] = None,
    dedupe_key: Annotated[
        str | None,
        Field(
            description="A stable key for this result; the same key within the "
            "bot's dedupe window returns the first item instead of a copy."
        ),
    ] = None,
    message_type: MessageType = None,
    update: Annotated[
        bool,
        Field(
            description="With dedupe_key: rewrite the latest item with that key in place (an alert that "
            "changed: new title, content, level, view) instead of adding one; it shows as updated and unread "
            "again. With no such item a new one is published."
        ),
    ] = False,
    resolved: Annotated[
        bool | None,
        Field(
            description="With update: true marks the item resolved (dealt with, e.g. the incident is over), "
            "false reopens it."
        ),
    ] = None,
) -> CallToolResult:
    audit = CallAudit(tool=PUBLISH_TOOL)
    bot_id = current_bot_id(ctx)
    request = PublishRequest(
        topic_key=topic_key,
        title=title,
        content=content,
        level=level,
        tags=tags,
        view=view,
        dedupe_key=dedupe_key,
        message_type=message_type,
        update=update,
        resolved=resolved,
    )
    with write_session() as session:
        # The audit row of an accepted publish commits with the item (the auditor writes only refusals).
        result = publish_item(session=session, bot_id=bot_id, request=request, source="mcp", audit=audit)
    return ok_result(result.model_dump())


def build_topic_server() -> StrictMCPServer:
    server = StrictMCPServer(
        name="topic_mcp",
        instructions=INSTRUCTIONS,
        version=__version__,
        auditor=audit_tool_call,
        self_audited=AUDITED_IN_TRANSACTION,
    )
    server.strict_tool(
        list_topics_tool,
        name="topic_list_topics",
        title="List topics",
        read_only=True,
        description=(
            "List the topics this bot may publish to: key, name, purpose, include/exclude conditions, priority, "
            "which one is the fallback, and allowed view types; plus whether Topic delivery is on (topic_enabled) "
            "and the fallback policy. Call it once before routing. " + HOW_TO_ROUTE
        ),
    )
    server.strict_tool(
        get_schema_tool,
        name="topic_get_schema",
        title="Get the item schema",
        read_only=True,
        description=(
            "Get the JSON Schema of the optional `view` of an item (declarative only: markdown, card, table, "
            "checklist, metric, timeline; no HTML, no scripts), the limits on title, content, tags and sizes, the "
            "levels, and which view types each topic allows. Call it before sending a `view`."
        ),
    )
    server.strict_tool(
        route_tool,
        name="topic_route",
        title="Route a result",
        read_only=True,
        description=(
            "Ask whether a candidate message belongs in a topic and which one. Pass proposed_topic_key with the "
            "topic you would choose: it is kept unless the topic is inactive or excluded (the answer's `proposal` "
            "says 'kept' or why not). Returns should_publish, topic_key, confidence (0..1: the share of decisions "
            "given that confidence that were right on labelled sets), a reason naming the rule text or meaning "
            "that decided, and the candidate topics with their evidence. Call it for every finished task result "
            "before topic_publish. Chat (message_type 'chat'), greetings, thanks, acknowledgements, questions back "
            "to the user, progress updates and tool hints come back with should_publish=false: keep those in the chat."
        ),
    )
    server.strict_tool(
        publish_tool,
        name=PUBLISH_TOOL,
        title="Publish a result",
        description=(
            "Publish one task result to a topic (use the topic_key topic_route gave you). Returns item_id, topic_key, "
            "deduplicated (true when the same dedupe_key, or without one the very same result in the same topic, "
            "was published within the bot's dedupe window: nothing new stored, item_id is the first one's), "
            "updated (true when update: true rewrote the existing item with that dedupe_key, e.g. an alert whose "
            "state changed; pass resolved: true when it is over) and "
            "fallback (true when the topic was unknown or inactive and the rules placed the item nowhere else, so "
            "it went to the fallback topic; when they placed it, topic_key says where and notes say why). "
            "Refused with a JSON error when Topic delivery is off (topic_disabled), for chat/progress/tool hints, for "
            "content that is only thanks, a greeting, an acknowledgement or a question back (filtered_noise), for "
            "invalid fields or views (the error names the field), or when publishing too fast (rate_limited, with "
            "retry_after_seconds)."
        ),
    )
    _describe_view_parameter(server)
    return server


def _describe_view_parameter(server: StrictMCPServer) -> None:
    """Show models the real shape of `view` in topic_publish's input schema (validated by validate_view)."""
    tool = server._tool_manager.get_tool("topic_publish")
    assert tool is not None
    view = tool.parameters["properties"]["view"]
    tool.parameters["properties"]["view"] = {
        "anyOf": [view_json_schema(), {"type": "null"}],
        "default": None,
        "description": view.get("description", ""),
    }
