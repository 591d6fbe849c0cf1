"""The `topic_mcp` server: how a bot learns its topics, asks where a result belongs and publishes it."""

from __future__ import annotations

from mcp_service.tooling import StrictMCPServer

INSTRUCTIONS = (
    "Publish task results (not chat, progress or tool hints) to the user's Topic panel. "
    "Call topic_list_topics once to learn the topics, topic_route with a candidate result to learn "
    "whether and where it belongs, then topic_publish when topic_route says should_publish=true."
)


def build_topic_server() -> StrictMCPServer:
    server = StrictMCPServer(name="topic_mcp", instructions=INSTRUCTIONS, version="1")
    return server
