"""The `tools.mcpServers` part of a nanobot config, as nanobot 0.3 reads it.

The dashboard manages one entry, `topic_mcp`, and nobody may remove or redirect it: missing, it
is put back; its type, url and headers must equal what the dashboard manages; only toolTimeout may
change. Other servers are checked the way nanobot would read them. nanobot refuses MCP URLs on
loopback/private/link-local/CGNAT addresses unless `tools.ssrfWhitelist` admits them, so the
narrowest entry for the dashboard's own address is added there.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any
from urllib.parse import urlsplit

from topic_dashboard.errors import AppError
from topic_dashboard.settings import DEFAULT_TOOL_TIMEOUT_SECONDS

LOCKED_SERVER = "topic_mcp"
# The second managed entry: `ccweb_list_user_inputs` (docs/DESIGN.md §7), the same token, locked the same way.
CCWEB_SERVER = "ccweb"
TOKEN_HEADER = "x-topic-mcp-token"
TOOL_TIMEOUT_RANGE = (1, 600)
SERVER_TYPES = ("stdio", "sse", "streamableHttp")
# What nanobot 0.3 blocks (nanobot/security/network.py).
_BLOCKED_NETWORKS = [
    ipaddress.ip_network(net)
    for net in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "::/128",
        "::1/128",
        "fc00::/7",
        "fe80::/10",
    )
]
# nanobot reads camelCase and snake_case; we write whichever the file already uses.
_KEY_ALIASES = {
    "toolTimeout": "tool_timeout",
    "enabledTools": "enabled_tools",
    "mcpServers": "mcp_servers",
    "ssrfWhitelist": "ssrf_whitelist",
}
_SERVER_KEYS = {
    "type",
    "auth",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "toolTimeout",
    "tool_timeout",
    "enabledTools",
    "enabled_tools",
}


def managed_entry(*, mcp_url: str, token: str, tool_timeout: int = DEFAULT_TOOL_TIMEOUT_SECONDS) -> dict[str, Any]:
    return {"type": "streamableHttp", "url": mcp_url, "headers": {TOKEN_HEADER: token}, "toolTimeout": tool_timeout}


def _key(container: dict[str, Any], camel: str) -> str:
    snake = _KEY_ALIASES[camel]
    return snake if snake in container and camel not in container else camel


def mcp_servers_of(config: dict[str, Any]) -> dict[str, Any]:
    tools = config.get("tools") if isinstance(config.get("tools"), dict) else {}
    servers = tools.get(_key(tools, "mcpServers")) if tools else None
    return servers if isinstance(servers, dict) else {}


def ssrf_entries_for(url: str) -> list[str]:
    """The narrowest whitelist entries (one address each) that let nanobot reach `url`, if it needs any."""
    host = urlsplit(url).hostname or ""
    try:
        addresses = {ipaddress.ip_address(host)}
    except ValueError:
        try:
            addresses = {ipaddress.ip_address(info[4][0]) for info in socket.getaddrinfo(host, None)}
        except (socket.gaierror, UnicodeError):
            return []
    entries = []
    for address in sorted(addresses, key=lambda a: (a.version, int(a))):
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if any(address in network for network in _BLOCKED_NETWORKS):
            entries.append(f"{address}/{address.max_prefixlen}")
    return entries


def ensure_topic_mcp(
    config: dict[str, Any], entry: dict[str, Any], *, mcp_url: str, extra: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """`config` with `tools.mcpServers.topic_mcp` set to `entry` (and each `extra` managed entry, such as
    `ccweb`, set the same way) and the SSRF allowance for `mcp_url` and theirs.

    Everything else survives: unknown keys, other servers, their order.
    """
    config = dict(config)
    tools = dict(config.get("tools") or {}) if isinstance(config.get("tools"), dict) else {}
    servers_key = _key(tools, "mcpServers")
    servers = dict(tools.get(servers_key) or {}) if isinstance(tools.get(servers_key), dict) else {}
    managed = {LOCKED_SERVER: entry, **(extra or {})}
    for name, wanted in managed.items():
        current = servers.get(name)
        if isinstance(current, dict):  # keep a toolTimeout the user chose (the one field they may change)
            timeout = current.get("toolTimeout", current.get("tool_timeout"))
            low, high = TOOL_TIMEOUT_RANGE
            if isinstance(timeout, int) and not isinstance(timeout, bool) and low <= timeout <= high:
                wanted = {**wanted, "toolTimeout": timeout}
        servers[name] = wanted
    tools[servers_key] = servers
    whitelist_key = _key(tools, "ssrfWhitelist")
    whitelist = list(tools.get(whitelist_key) or []) if isinstance(tools.get(whitelist_key), list) else []
    urls = dict.fromkeys([mcp_url, *(str(e.get("url", "")) for e in (extra or {}).values())])
    for cidr in (c for url in urls if url for c in ssrf_entries_for(url)):
        if not _admitted(cidr, whitelist):
            whitelist.append(cidr)
    if whitelist or whitelist_key in tools:
        tools[whitelist_key] = whitelist
    config["tools"] = tools
    return config


def _admitted(cidr: str, whitelist: list[Any]) -> bool:
    address = ipaddress.ip_network(cidr).network_address
    for item in whitelist:
        try:
            if address in ipaddress.ip_network(str(item), strict=False):
                return True
        except ValueError:
            continue
    return False


def _tool_timeout(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise AppError("invalid_mcp_config", f"{field} must be a whole number of seconds", field=field)
    low, high = TOOL_TIMEOUT_RANGE
    if not low <= value <= high:
        raise AppError("invalid_mcp_config", f"{field} must be from {low} to {high} seconds", field=field)
    return value


def _str_dict(value: Any, field: str) -> None:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise AppError("invalid_mcp_config", f"{field} must be an object of strings", field=field)


def _str_list(value: Any, field: str) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AppError("invalid_mcp_config", f"{field} must be a list of strings", field=field)


def validate_server_entry(name: str, entry: Any) -> dict[str, Any]:
    """Check a server entry the way nanobot would read it. Raises invalid_mcp_config naming the field."""
    path = f"mcpServers.{name}"
    if not isinstance(entry, dict):
        raise AppError("invalid_mcp_config", f"{path} must be an object", field=path)
    unknown = sorted(set(entry) - _SERVER_KEYS)
    if unknown:
        raise AppError(
            "invalid_mcp_config", f"{path}.{unknown[0]} is not a setting nanobot knows", field=f"{path}.{unknown[0]}"
        )
    kind = entry.get("type")
    if kind is None:
        kind = "stdio" if entry.get("command") else ("streamableHttp" if entry.get("url") else None)
    if kind not in SERVER_TYPES:
        raise AppError(
            "invalid_mcp_config", f"{path}.type must be one of {', '.join(SERVER_TYPES)}", field=f"{path}.type"
        )
    if kind == "stdio":
        if not isinstance(entry.get("command"), str) or not entry["command"].strip():
            raise AppError(
                "invalid_mcp_config", f"{path}.command is required for a stdio server", field=f"{path}.command"
            )
    else:
        url = entry.get("url")
        if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
            raise AppError("invalid_mcp_config", f"{path}.url must be an http(s) URL", field=f"{path}.url")
    for key in ("args", "enabledTools", "enabled_tools"):
        if key in entry:
            _str_list(entry[key], f"{path}.{key}")
    for key in ("env", "headers"):
        if key in entry:
            _str_dict(entry[key], f"{path}.{key}")
    for key in ("toolTimeout", "tool_timeout"):
        if key in entry:
            _tool_timeout(entry[key], f"{path}.{key}")
    for key in ("cwd",):
        if key in entry and not isinstance(entry[key], str):
            raise AppError("invalid_mcp_config", f"{path}.{key} must be a string", field=f"{path}.{key}")
    if "auth" in entry and entry["auth"] not in (None, "oauth"):
        raise AppError("invalid_mcp_config", f'{path}.auth must be "oauth" or absent', field=f"{path}.auth")
    return entry


def merge_mcp_servers(
    submitted: Any, managed: dict[str, Any], extra: dict[str, dict[str, Any]] | None = None
) -> tuple[dict[str, Any], bool]:
    """Apply a full replacement of `mcpServers`, enforcing the lock on topic_mcp (`managed`) and on
    every `extra` managed entry. Returns (servers, restored).

    Raises invalid_mcp_config (bad entries) and locked_field (a change to a managed entry's fields).
    """
    if not isinstance(submitted, dict):
        raise AppError("invalid_mcp_config", "mcpServers must be an object of server entries", field="mcpServers")
    locked = {LOCKED_SERVER: managed, **(extra or {})}
    servers: dict[str, Any] = {}
    restored = any(name not in submitted for name in locked)
    for name, entry in submitted.items():
        if not isinstance(name, str) or not name.strip():
            raise AppError("invalid_mcp_config", "server names must be non-empty strings", field="mcpServers")
        if name in locked:
            servers[name] = _checked_locked_entry(entry, locked[name], name)
        else:
            servers[name] = validate_server_entry(name, entry)
    for name, entry in locked.items():
        if name not in servers:
            servers[name] = dict(entry)
    return servers, restored


def _checked_locked_entry(entry: Any, managed: dict[str, Any], name: str = LOCKED_SERVER) -> dict[str, Any]:
    path = f"mcpServers.{name}"
    if not isinstance(entry, dict):
        raise AppError("invalid_mcp_config", f"{path} must be an object", field=path)
    allowed = {"type", "url", "headers", "toolTimeout", "tool_timeout"}
    extra = sorted(set(entry) - allowed)
    if extra:
        raise AppError(
            "locked_field",
            f"{path} is managed by the dashboard; {extra[0]!r} cannot be set on it",
            field=f"{path}.{extra[0]}",
        )
    for key in ("type", "url", "headers"):
        if key == "headers" and entry.get(key) == _masked_headers(managed[key]):
            continue  # what a read showed (the token masked) means "unchanged"
        if key in entry and entry[key] != managed[key]:
            raise AppError(
                "locked_field", f"{path}.{key} is managed by the dashboard and cannot change", field=f"{path}.{key}"
            )
    timeout = entry.get("toolTimeout", entry.get("tool_timeout", managed["toolTimeout"]))
    return {**managed, "toolTimeout": _tool_timeout(timeout, f"{path}.toolTimeout")}


SECRET_KEYS = ("headers", "env")
MASK = "***"


def _masked_headers(headers: Any) -> Any:
    if isinstance(headers, dict) and TOKEN_HEADER in headers:
        return {**headers, TOKEN_HEADER: MASK}
    return headers


def mask_bot_token(servers: dict[str, Any]) -> dict[str, Any]:
    """The servers with the bot's own token (in `topic_mcp`, `ccweb`) replaced by "***": the token is
    shown only when it is made (create, rotate), never read back, to admins neither."""
    masked = dict(servers)
    for name in (LOCKED_SERVER, CCWEB_SERVER):
        entry = servers.get(name)
        if isinstance(entry, dict) and "headers" in entry:
            masked[name] = {**entry, "headers": _masked_headers(entry["headers"])}
    return masked


def redact_secrets(servers: dict[str, Any]) -> dict[str, Any]:
    """The servers with every header and env value replaced by "***" (what viewers may see)."""
    redacted: dict[str, Any] = {}
    for name, entry in servers.items():
        if isinstance(entry, dict):
            entry = {
                key: ({k: MASK for k in value} if key in SECRET_KEYS and isinstance(value, dict) else value)
                for key, value in entry.items()
            }
        redacted[name] = entry
    return redacted
