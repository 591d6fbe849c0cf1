"""Read config.json files the way nanobot does, and optionally connect their MCP servers, without any LLM.

Runs under nanobot's venv (nanobot-ai needs mcp<2), started by test_nanobot_config_compat.py:

    <nanobot venv>/bin/python nanobot_config_check.py load CONFIG_JSON [CONFIG_JSON ...]
    <nanobot venv>/bin/python nanobot_config_check.py connect CONFIG_JSON

`load` reads each file with nanobot's own loader (`nanobot.config.loader.load_config`, which
validates it with `Config.model_validate` and applies `tools.ssrfWhitelist`) and reports, per
file, whether it loaded, every MCP server as nanobot read it, the whitelist, and whether
nanobot's SSRF guard admits the topic_mcp URL with that whitelist and without it.

`connect` loads one file and connects its MCP servers with `connect_mcp_servers`, as the agent
does at start-up, and reports which servers connected and the tool names registered.

Each prints one JSON object on the last line of stdout.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from nanobot.agent.tools.mcp import connect_mcp_servers
from nanobot.agent.tools.registry import ToolRegistry
from nanobot.config.errors import ConfigLoadError
from nanobot.config.loader import load_config
from nanobot.security.network import configure_ssrf_whitelist, validate_url_target

LOCKED_SERVER = "topic_mcp"


def load(path: Path) -> dict[str, Any]:
    try:
        config = load_config(path)
    except ConfigLoadError as exc:
        return {"loaded": False, "error": str(exc)}
    servers = config.tools.mcp_servers
    report: dict[str, Any] = {
        "loaded": True,
        "servers": {name: server.model_dump(mode="json") for name, server in servers.items()},
        "ssrf_whitelist": list(config.tools.ssrf_whitelist),
    }
    topic = servers.get(LOCKED_SERVER)
    if topic is not None:
        report["topic_url_allowed"] = validate_url_target(topic.url)[0]  # with the whitelist load_config applied
        configure_ssrf_whitelist([])
        report["topic_url_allowed_without_whitelist"] = validate_url_target(topic.url)[0]
    return report


async def connect(path: Path) -> dict[str, Any]:
    config = load_config(path)
    registry = ToolRegistry()
    connections = await connect_mcp_servers(config.tools.mcp_servers, registry)
    try:
        return {"connected": sorted(connections), "tools": sorted(registry.tool_names)}
    finally:
        for connection in connections.values():
            await connection.aclose()


def main() -> None:
    mode, paths = sys.argv[1], [Path(arg) for arg in sys.argv[2:]]
    if mode == "load":
        report: Any = {str(path): load(path) for path in paths}
    elif mode == "connect":
        report = asyncio.run(connect(paths[0]))
    else:
        raise SystemExit(f"unknown mode {mode!r}: load or connect")
    print(json.dumps(report, ensure_ascii=False))


if __name__ == "__main__":
    main()
