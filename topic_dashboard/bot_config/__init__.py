"""Each bot's nanobot config.json: the locked `topic_mcp` entry, the SSRF allowance, atomic writes."""

from topic_dashboard.bot_config.files import read_config, write_config_atomic
from topic_dashboard.bot_config.nanobot import (
    LOCKED_SERVER,
    ensure_topic_mcp,
    managed_entry,
    mcp_servers_of,
    merge_mcp_servers,
    redact_secrets,
    ssrf_entries_for,
    validate_server_entry,
)

__all__ = [
    "LOCKED_SERVER",
    "ensure_topic_mcp",
    "managed_entry",
    "mcp_servers_of",
    "merge_mcp_servers",
    "read_config",
    "redact_secrets",
    "ssrf_entries_for",
    "validate_server_entry",
    "write_config_atomic",
]
