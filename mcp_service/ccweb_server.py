"""The `ccweb` server: lets a bot re-read what the user asked in a conversation."""

from __future__ import annotations

from mcp_service.tooling import StrictMCPServer

INSTRUCTIONS = (
    "Read the user's recent inputs in a conversation before implementing or accepting work, "
    "so that the work matches what the user actually asked."
)


def build_ccweb_server() -> StrictMCPServer:
    server = StrictMCPServer(name="ccweb", instructions=INSTRUCTIONS, version="1")
    return server
