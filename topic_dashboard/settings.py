"""The one settings object. Every value can be set through `TOPIC_DASHBOARD_<NAME>` or `.env`."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

ENV_PREFIX = "TOPIC_DASHBOARD_"

# Named defaults (docs/DESIGN.md §2.1 and §8.5). Per-bot settings start from these.
DEFAULT_PUBLISH_RATE_PER_MINUTE = 60
DEFAULT_DEDUPE_WINDOW_SECONDS = 600
DEFAULT_FALLBACK_POLICY = "inbox"
DEFAULT_FALLBACK_TOPIC_KEY = "inbox"
DEFAULT_TOOL_TIMEOUT_SECONDS = 30
DEFAULT_SESSION_TTL_HOURS = 12
DEFAULT_PORT = 3000
# Loopback only: listening on every interface is a deliberate choice (see `exposure_warning`).
DEFAULT_LISTEN_HOST = "127.0.0.1"
# Request bodies are refused above these sizes before auth and before any parsing.
DEFAULT_REST_MAX_BODY_BYTES = 1024 * 1024
DEFAULT_MCP_MAX_BODY_BYTES = 4 * 1024 * 1024  # the MCP SDK's own default
WILDCARD_LISTEN_HOSTS = frozenset({"0.0.0.0", "::", "[::]", ""})


def _split_csv(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_file=".env", extra="ignore")

    data_dir: Path = Field(default=Path("data"), description="Where the SQLite file and bot workspaces live.")
    database_url: str | None = Field(default=None, description="SQLAlchemy URL; default: SQLite file in data_dir.")
    redis_url: str | None = Field(default=None, description="Redis for Reflex state when several workers run.")
    port: int = Field(default=DEFAULT_PORT, description="The port the dashboard (UI, REST and MCP) listens on.")
    listen_host: str = Field(
        default=DEFAULT_LISTEN_HOST,
        description="The address the dashboard listens on; 0.0.0.0 or :: exposes it on every network interface.",
    )
    public_base_url: str = Field(
        default=f"http://127.0.0.1:{DEFAULT_PORT}",
        description="The base URL bots use to reach /api/mcp/*; written into each bot's nanobot config.",
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["127.0.0.1:*", "localhost:*", "[::1]:*"],
        description="Host headers accepted on every request (DNS-rebinding protection). Comma-separated; "
        "`name:*` allows any port.",
    )
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        description="Origin headers accepted by the UI's event socket and the MCP endpoints. Comma-separated.",
    )
    cluster_workers: int = Field(
        default=3, ge=1, le=16, description="`make run-cluster`: how many backend workers run behind nginx."
    )
    cluster_first_port: int = Field(
        default=8101,
        ge=1024,
        le=65000,
        description="`make run-cluster`: the first worker's port (the next ones follow).",
    )
    rebuild_frontend: bool = Field(
        default=False,
        description="Build the frontend at start even when the build on disk is current (topic_dashboard/launcher.py).",
    )
    rest_max_body_bytes: int = Field(
        default=DEFAULT_REST_MAX_BODY_BYTES, gt=0, description="Largest request body outside /api/mcp/*."
    )
    mcp_max_body_bytes: int = Field(
        default=DEFAULT_MCP_MAX_BODY_BYTES, gt=0, description="Largest request body on /api/mcp/*."
    )
    admin_token: SecretStr | None = Field(default=None, description="Accepted as an admin API token when set.")
    session_ttl_hours: int = Field(default=DEFAULT_SESSION_TTL_HOURS, ge=1)
    sqlite_busy_timeout_seconds: float = Field(default=15.0, gt=0)
    chat_timeout_seconds: int = Field(
        default=300,
        ge=5,
        le=3600,
        description="How long the dashboard waits for a bot's next streamed part before the run fails "
        "(nanobot serve's own per-request timeout is 120 s by default).",
    )
    retention_interval_seconds: float = Field(
        default=600,
        ge=1,
        le=86_400,
        description="How often topics' retention (keep N days / N items) is applied in the background.",
    )
    alert_interval_seconds: float = Field(
        default=60,
        ge=1,
        le=3600,
        description="How often the alert thresholds are checked (one worker checks per interval).",
    )
    alert_checks: bool = Field(
        default=True, description="Whether this process takes part in checking the alert thresholds."
    )
    chat_relay: bool = Field(
        default=True,
        description="Whether this process relays queued chat messages to bots (off: another process does; "
        "the queue is shared through the database).",
    )

    @model_validator(mode="after")
    def _public_url_follows_the_port(self) -> Settings:
        """Unset, the public base URL is this machine on the configured port (the frontend's event socket
        and every bot config use it): TOPIC_DASHBOARD_PORT=3311 alone must not leave them at :3000."""
        if "public_base_url" not in self.model_fields_set:
            self.public_base_url = f"http://127.0.0.1:{self.port}"
        return self

    @field_validator("allowed_hosts", "allowed_origins", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        return _split_csv(value)

    @property
    def effective_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'topic_dashboard.db').resolve()}"

    @property
    def mcp_topic_url(self) -> str:
        return self.public_base_url.rstrip("/") + "/api/mcp/topic"

    @property
    def mcp_ccweb_url(self) -> str:
        return self.public_base_url.rstrip("/") + "/api/mcp/ccweb"


def exposure_warning(listen_host: str) -> str | None:
    """What to tell the operator at start when the dashboard listens on every interface; None on one address."""
    if listen_host.strip() not in WILDCARD_LISTEN_HOSTS:
        return None
    return (
        f"WARNING: {ENV_PREFIX}LISTEN_HOST={listen_host!r} exposes the dashboard (UI, REST API and the bots' MCP "
        "endpoints) on every network interface of this machine, to anyone who can reach it. Requests are "
        f"refused unless their Host header matches {ENV_PREFIX}ALLOWED_HOSTS: list there every name people "
        f"and bots use to reach it (e.g. dashboard.lan:*), and set {ENV_PREFIX}LISTEN_HOST=127.0.0.1 "
        "unless you mean it."
    )


_settings_lock = threading.Lock()
_cached_settings: Settings | None = None
_settings_generation = 0


def get_settings() -> Settings:
    """The settings, read from the environment once and kept until `reset_settings_cache`.

    A read that began before a reset is returned to its caller but never kept: another thread
    (a live server in tests, a worker's background task) must not put settings read from the old
    environment back into the cache after the reset.
    """
    global _cached_settings
    cached = _cached_settings
    if cached is not None:
        return cached
    with _settings_lock:
        generation = _settings_generation
    settings = Settings()
    with _settings_lock:
        if generation == _settings_generation:
            if _cached_settings is None:
                _cached_settings = settings
            return _cached_settings
    return settings


def reset_settings_cache() -> None:
    """Forget the cached settings (tests change the environment between cases)."""
    global _cached_settings, _settings_generation
    with _settings_lock:
        _settings_generation += 1
        _cached_settings = None
