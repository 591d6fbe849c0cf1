"""Each bot's nanobot config.json: where it may be, the locked `topic_mcp` entry, the SSRF allowance, atomic writes."""

from topic_dashboard.bot_config.files import read_config, write_config_atomic
from topic_dashboard.bot_config.nanobot import (
    CCWEB_SERVER,
    LOCKED_SERVER,
    ensure_topic_mcp,
    managed_entry,
    mask_bot_token,
    mcp_servers_of,
    merge_mcp_servers,
    redact_secrets,
    ssrf_entries_for,
    validate_server_entry,
)
from topic_dashboard.bot_config.paths import check_nanobot_config, confined_config_path

__all__ = [
    "CCWEB_SERVER",
    "LOCKED_SERVER",
    "check_nanobot_config",
    "confined_config_path",
    "ensure_topic_mcp",
    "managed_entry",
    "mask_bot_token",
    "mcp_servers_of",
    "merge_mcp_servers",
    "read_config",
    "redact_secrets",
    "ssrf_entries_for",
    "validate_server_entry",
    "write_config_atomic",
]
