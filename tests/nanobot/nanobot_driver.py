"""Drive the topic_mcp server with nanobot's own config loader and MCP client, without any LLM.

Runs under nanobot's venv (nanobot-ai needs mcp<2), started by test_nanobot_client.py:

    <nanobot venv>/bin/python nanobot_driver.py CONFIG_JSON CALLS_JSON

CALLS_JSON is a list of [tool_name, arguments]. The driver loads CONFIG_JSON with nanobot's
loader (which validates it with `Config.model_validate` and applies `tools.ssrfWhitelist`),
connects the configured MCP servers with `connect_mcp_servers`, executes each call through
`ToolRegistry.execute` exactly as the agent loop would, and prints one JSON object on the
last line of stdout: the topic_mcp server config as nanobot read it, the registered tool
names, and for each call the text the model would see and whether nanobot marked it an error.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from nanobot.agent.tools.mcp import connect_mcp_servers
from nanobot.agent.tools.registry import ToolRegistry, is_tool_error_result
from nanobot.config.loader import load_config


async def drive(config_path: Path, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    config = load_config(config_path)
    servers = config.tools.mcp_servers
    registry = ToolRegistry()
    connections = await connect_mcp_servers(servers, registry)
    try:
        results = []
        for name, arguments in calls:
            output = await registry.execute(name, arguments)
            results.append({"tool": name, "is_error": is_tool_error_result(output), "text": str(output)})
    finally:
        for connection in connections.values():
            await connection.aclose()
    return {
        "servers": {name: server.model_dump(mode="json") for name, server in servers.items()},
        "ssrf_whitelist": list(config.tools.ssrf_whitelist),
        "connected": sorted(connections),
        "tools": sorted(registry.tool_names),
        "results": results,
    }


def main() -> None:
    config_path = Path(sys.argv[1])
    calls = [(name, dict(arguments)) for name, arguments in json.loads(sys.argv[2])]
    report = asyncio.run(drive(config_path, calls))
    print(json.dumps(report, ensure_ascii=False))


if __name__ == "__main__":
    main()
