"""Bots: creation (settings, fallback topic, nanobot config), tokens, status, the locked MCP config."""

from __future__ import annotations

import logging
from datetime import datetime, time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel
from sqlmodel import Session, SQLModel, select

from topic_dashboard.bot_config import (
    CCWEB_SERVER,
    LOCKED_SERVER,
    check_nanobot_config,
    confined_config_path,
    ensure_topic_mcp,
    managed_entry,
    mask_bot_token,
    mcp_servers_of,
    merge_mcp_servers,
    read_config,
    redact_secrets,
    write_config_atomic,
)
from topic_dashboard.bot_config.skill import workspace_of, write_skill
from topic_dashboard.errors import AppError
from topic_dashboard.models import AuditLog, Bot, Conversation, Topic, TopicBotSettings, TopicItem, iso_utc, utcnow
from topic_dashboard.security import BOT_TOKEN_PREFIX, hash_token, new_token, token_matches
from topic_dashboard.services.audit import Actor, record
from topic_dashboard.services.audit_detail import changes
from topic_dashboard.settings import DEFAULT_FALLBACK_TOPIC_KEY, get_settings
from topic_dashboard.text_policy import check_json, check_line, check_text

logger = logging.getLogger(__name__)

FALLBACK_TOPIC_ROUTING = {
    "purpose": "Results that matter but fit no other topic.",
    "include_when": [],
    "exclude_when": [],
    "examples": {"positive": [], "negative": []},
    "priority": 0,
    "system_filters": ["progress", "tool_hint"],
}


class BotPublic(SQLModel):
    bot_id: str
    name: str
    config_path: str | None
    token_created_at: str | None
    created_at: str | None


class BotStatus(BotPublic):
    token_age_days: float
    last_mcp_call_at: str | None
    items_today: int
    items_total: int
    topic_enabled: bool


class McpConfigPublic(BaseModel):
    bot_id: str
    config_path: str | None
    servers: dict[str, Any]
    locked: dict[str, bool]
    restored: bool = False


def to_public(bot: Bot) -> BotPublic:
    return BotPublic(
        bot_id=bot.id,
        name=bot.name,
        config_path=bot.config_path,
        token_created_at=iso_utc(bot.token_created_at),
        created_at=iso_utc(bot.created_at),
    )


def config_roots() -> list[Path]:
    """Where bots' config.json files may be: the data directory (the bots' workspaces are there too)."""
    return [get_settings().data_dir]


def managed_entries(token: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The locked `topic_mcp` entry and the other managed entries (`ccweb`), for this bot token."""
    settings = get_settings()
    topic = managed_entry(mcp_url=settings.mcp_topic_url, token=token)
    return topic, {CCWEB_SERVER: managed_entry(mcp_url=settings.mcp_ccweb_url, token=token)}


def with_managed_entries(config: dict[str, Any], token: str) -> dict[str, Any]:
    topic, extra = managed_entries(token)
    return ensure_topic_mcp(config, topic, mcp_url=get_settings().mcp_topic_url, extra=extra)


def _write_managed_config(bot: Bot, token: str) -> None:
    """(Re)write the bot's config.json with the managed entries (topic_mcp, ccweb), and the dashboard's
    skill into its workspace (a new bot's config names its workspace in the bot's folder).

    Raises config_path_not_allowed, config_io_error, invalid_mcp_config.
    """
    if not bot.config_path:
        return
    path = confined_config_path(bot.config_path, roots=config_roots())
    config = read_config(path) if path.exists() else {}
    if not config and bot.workspace_dir:  # a workspace the dashboard made: nanobot's files live in it
        config = {"agents": {"defaults": {"workspace": str(Path(bot.workspace_dir) / "workspace")}}}
    write_config_atomic(path, with_managed_entries(config, token))
    _write_skill(bot, config)


def _write_skill(bot: Bot, config: dict[str, Any]) -> None:
    """The skill that tells the bot's model about topics, ccweb and guide cards (bot_config/skill.py),
    written only into a workspace inside the data directory; a failure is logged, never fatal."""
    workspace = workspace_of(config)
    if workspace is None:
        return
    try:
        resolved = workspace.resolve()
        if not any(resolved.is_relative_to(root.resolve()) for root in config_roots()):
            return
        write_skill(resolved)
    except OSError as exc:
        logger.warning("bot %s: the dashboard skill was not written: %s", bot.id, exc)


def upgrade_managed_configs(*, session: Session) -> int:
    """Give every bot's config.json the managed entries it lacks (after an upgrade: `ccweb`), with the
    token its `topic_mcp` entry already holds when that is still the bot's token. Returns how many
    files changed. A file that cannot be read or does not hold the current token is left alone."""
    changed = 0
    for bot in session.exec(select(Bot).where(sa.and_(Bot.config_path.is_not(None)))).all():  # type: ignore[union-attr]
        path = _managed_path(bot)
        if path is None or not path.exists():
            continue
        try:
            config = read_config(path)
            entry = mcp_servers_of(config).get(LOCKED_SERVER) or {}
            headers = entry.get("headers") if isinstance(entry, dict) else None
            token = headers.get("x-topic-mcp-token") if isinstance(headers, dict) else None
            if not token or not token_matches(token, bot.token_hash):
                continue
            upgraded = with_managed_entries(config, token)
            if upgraded != config:
                write_config_atomic(path, upgraded)
                changed += 1
            _write_skill(bot, upgraded)
        except AppError as error:
            logger.warning("bot %s: config.json not upgraded: %s", bot.id, error.message)
    return changed


def _adoptable_config_path(session: Session, config_path: str, *, adopt_existing: bool) -> Path:
    """Where a new bot's config.json will be: inside the allowed roots, no other bot's, and an existing
    file only when `adopt_existing` confirms it (and it reads as a nanobot config).

    Raises validation_error, config_path_not_allowed, config_path_in_use, adoption_not_confirmed,
    invalid_mcp_config.
    """
    path = confined_config_path(config_path, roots=config_roots())
    for other_config, other_workspace in session.exec(select(Bot.config_path, Bot.workspace_dir)).all():
        taken = other_config is not None and _resolved(other_config) == path
        if taken or (other_workspace is not None and path.is_relative_to(_resolved(other_workspace))):
            raise AppError(
                "config_path_in_use",
                "another bot already uses this config file or workspace: choose another path",
                field="config_path",
            )
    if adopt_existing:
        check_nanobot_config(read_config(path), path)  # it must exist and read as a nanobot config
    elif path.exists() or path.is_symlink():
        raise AppError(
            "adoption_not_confirmed",
            f"{path} exists already: send adopt_existing: true to adopt it (the dashboard then manages its "
            "topic_mcp entry and keeps everything else), or choose a new path",
            field="config_path",
        )
    return path


def _resolved(stored: str) -> Path:
    try:
        return Path(stored).resolve()
    except (OSError, RuntimeError):
        return Path(stored)


def create_bot(
    *,
    session: Session,
    name: str,
    config_path: str | None = None,
    adopt_existing: bool = False,
    write_config: bool = True,
    actor: Actor | None = None,
) -> tuple[BotPublic, str]:
    """Create a bot with its topic settings, its `inbox` fallback topic and its nanobot config.

    Without `config_path`, a workspace is made under the data directory. With it, the config is
    written there: it must be inside the data directory and no other bot's; an existing file is
    adopted (everything in it survives) only with `adopt_existing=True`. Returns the bot and its
    token (shown once). With `actor`, the creation is audited in the same transaction.
    Raises validation_error, config_path_not_allowed, config_path_in_use, adoption_not_confirmed,
    invalid_mcp_config, config_io_error.
    """
    name = check_text(name, field="name").strip()
    if not name or len(name) > 100:
        raise AppError("validation_error", "name: 1-100 characters", field="name")
    check_line(name, field="name")
    adopted = (
        _adoptable_config_path(session, config_path, adopt_existing=adopt_existing) if config_path is not None else None
    )
    token = new_token(BOT_TOKEN_PREFIX)
    bot = Bot(name=name, token_hash=hash_token(token))
    if adopted is not None:
        bot.config_path = str(adopted)
    elif write_config:
        workspace = (get_settings().data_dir / "bots" / bot.id).resolve()
        bot.workspace_dir = str(workspace)
        bot.config_path = str(workspace / ".nanobot" / "config.json")
    session.add(bot)
    session.flush()
    session.add(TopicBotSettings(bot_id=bot.id))
    session.add(
        Topic(
            bot_id=bot.id,
            topic_key=DEFAULT_FALLBACK_TOPIC_KEY,
            name="Inbox",
            description="Where results go when no other topic fits.",
            is_default_fallback=True,
            routing_json=dict(FALLBACK_TOPIC_ROUTING),
        )
    )
    if write_config:
        _write_managed_config(bot, token)
    if actor is not None:
        detail = {"name": bot.name, "config_path": bot.config_path, "adopted": adopted is not None}
        record(session=session, by=actor, action="bot.create", target=f"bot:{bot.id}", bot_id=bot.id, detail=detail)
    session.commit()
    return to_public(bot), token


def bot_row(*, session: Session, bot_id: str) -> Bot:
    """The bot's row (for the services). Raises bot_not_found."""
    bot = session.get(Bot, bot_id)
    if bot is None:
        raise AppError("bot_not_found", f"no bot with id {bot_id!r}")
    return bot


def get_bot(*, session: Session, bot_id: str) -> BotPublic:
    """Raises bot_not_found."""
    return to_public(bot_row(session=session, bot_id=bot_id))


def list_bots(*, session: Session) -> list[BotPublic]:
    return [to_public(bot) for bot in session.exec(select(Bot).order_by(Bot.name, Bot.id))]


def bot_statuses(*, session: Session) -> list[BotStatus]:
    """Every bot with its token age, last MCP call, items today and in total."""
    now = utcnow()
    midnight = datetime.combine(now.date(), time.min, tzinfo=now.tzinfo)
    last_call = dict(  # the bots' own MCP calls, not people's actions on them
        session.exec(
            select(AuditLog.bot_id, sa.func.max(AuditLog.created_at))
            .where(AuditLog.actor_kind == "bot")
            .group_by(AuditLog.bot_id)
        ).all()
    )
    today = dict(
        session.exec(
            select(TopicItem.bot_id, sa.func.count()).where(TopicItem.created_at >= midnight).group_by(TopicItem.bot_id)
        ).all()
    )
    total = dict(session.exec(select(TopicItem.bot_id, sa.func.count()).group_by(TopicItem.bot_id)).all())
    enabled = dict(session.exec(select(TopicBotSettings.bot_id, TopicBotSettings.topic_enabled)).all())
    statuses = []
    for bot in session.exec(select(Bot).order_by(Bot.name, Bot.id)):
        public = to_public(bot)
        statuses.append(
            BotStatus(
                **public.model_dump(),
                token_age_days=round((now - bot.token_created_at).total_seconds() / 86400, 2),
                last_mcp_call_at=iso_utc(last_call.get(bot.id)),
                items_today=today.get(bot.id, 0),
                items_total=total.get(bot.id, 0),
                topic_enabled=enabled.get(bot.id, True),
            )
        )
    return statuses


def bot_id_for_token(*, session: Session, token: str | None) -> str | None:
    """The id of the bot a token belongs to, or None. The digest is looked up by index, then compared in
    constant time."""
    if not token:
        return None
    bot = session.exec(select(Bot).where(Bot.token_hash == hash_token(token))).first()
    if bot is None or not token_matches(token, bot.token_hash):
        return None
    return bot.id


def rotate_token(*, session: Session, bot_id: str, actor: Actor | None = None) -> str:
    """Give a bot a new token and rewrite its config.json; the old token stops working at once.

    Revoking a token must always be possible: a bot whose config.json is outside the allowed roots
    (adopted before they existed) gets its new token without the file being touched, and the
    dashboard stops managing that file (config_path becomes None).
    Raises bot_not_found, config_io_error.
    """
    bot = bot_row(session=session, bot_id=bot_id)
    token = new_token(BOT_TOKEN_PREFIX)
    bot.token_hash = hash_token(token)
    bot.token_created_at = utcnow()
    bot.updated_at = utcnow()
    if bot.config_path and _managed_path(bot) is None:
        logger.warning(
            "bot %s: %s is outside %s; rotated without writing it, and no longer managing it",
            bot.id,
            bot.config_path,
            ", ".join(map(str, config_roots())),
        )
        bot.config_path = None
    session.add(bot)
    _write_managed_config(bot, token)
    if actor is not None:  # the token itself is never in the trail
        record(session=session, by=actor, action="bot.rotate_token", target=f"bot:{bot.id}", bot_id=bot.id)
    session.commit()
    return token


def delete_bot(*, session: Session, bot_id: str, actor: Actor | None = None) -> dict[str, int]:
    """Delete a bot with its topics, items, settings and conversations (its config.json stays on disk,
    with a token that no longer works). Returns what was deleted. Raises bot_not_found."""
    bot = bot_row(session=session, bot_id=bot_id)
    counts = {
        "items": session.exec(select(sa.func.count()).select_from(TopicItem).where(TopicItem.bot_id == bot_id)).one(),
        "topics": session.exec(select(sa.func.count()).select_from(Topic).where(Topic.bot_id == bot_id)).one(),
        "conversations": session.exec(
            select(sa.func.count()).select_from(Conversation).where(Conversation.bot_id == bot_id)
        ).one(),
    }
    session.delete(bot)
    if actor is not None:
        detail = {"name": bot.name, "deleted": counts}
        record(session=session, by=actor, action="bot.delete", target=f"bot:{bot_id}", bot_id=bot_id, detail=detail)
    session.commit()
    return counts


def count_bots(*, session: Session) -> int:
    return session.exec(select(sa.func.count()).select_from(Bot)).one()


def _locked_flags(servers: dict[str, Any]) -> dict[str, bool]:
    return {name: name in (LOCKED_SERVER, CCWEB_SERVER) for name in servers}


def _managed_path(bot: Bot) -> Path | None:
    """The bot's config path when it is still inside the allowed roots."""
    try:
        return confined_config_path(bot.config_path or "", roots=config_roots())
    except AppError:
        return None


def _config_path(bot: Bot) -> Path:
    """Raises invalid_mcp_config (no config), config_path_not_allowed (outside the roots: not read, not written)."""
    if not bot.config_path:
        raise AppError("invalid_mcp_config", "this bot has no config.json the dashboard manages", field="config_path")
    return confined_config_path(bot.config_path, roots=config_roots())


def get_mcp_config(*, session: Session, bot_id: str) -> McpConfigPublic:
    """The bot's MCP servers as its config.json has them, `topic_mcp` marked locked and the bot's token
    masked (it is shown only by create and rotate). Other servers' secrets are left to the caller.

    Raises bot_not_found, invalid_mcp_config, config_path_not_allowed, config_io_error.
    """
    bot = bot_row(session=session, bot_id=bot_id)
    servers = mask_bot_token(mcp_servers_of(read_config(_config_path(bot))))
    return McpConfigPublic(bot_id=bot.id, config_path=bot.config_path, servers=servers, locked=_locked_flags(servers))


def put_mcp_config(*, session: Session, bot_id: str, servers: Any, actor: Actor | None = None) -> McpConfigPublic:
    """Replace the whole `mcpServers` map; `topic_mcp` is put back if missing and its managed fields
    cannot change (its token may be sent masked, as reads show it). Nothing is written when the
    request is refused. The answer masks the bot's token. With `actor`, the change is audited (its
    detail masks every header and env value) once the file is written.

    Raises bot_not_found, invalid_mcp_config, config_path_not_allowed, locked_field, config_io_error.
    """
    check_json(servers, field="mcpServers", code="invalid_mcp_config")  # nothing unwritable reaches the file
    bot = bot_row(session=session, bot_id=bot_id)
    path = _config_path(bot)
    config = read_config(path)
    before = mcp_servers_of(config)
    current = before.get(LOCKED_SERVER) or {}
    headers = current.get("headers") if isinstance(current, dict) else None
    token = headers.get("x-topic-mcp-token") if isinstance(headers, dict) else None
    if not token or not token_matches(token, bot.token_hash):
        raise AppError(
            "invalid_mcp_config",
            "config.json does not hold this bot's current token: rotate the token to rewrite it",
            field="config_path",
        )
    mcp_url = get_settings().mcp_topic_url
    managed, extra = managed_entries(token)
    merged, restored = merge_mcp_servers(servers, managed, extra)
    tools = dict(config.get("tools") or {})
    servers_key = "mcp_servers" if "mcp_servers" in tools and "mcpServers" not in tools else "mcpServers"
    tools[servers_key] = merged
    config = ensure_topic_mcp(
        {**config, "tools": tools},
        merged[LOCKED_SERVER],
        mcp_url=mcp_url,
        extra={name: merged[name] for name in extra},
    )
    write_config_atomic(path, config)
    final = mask_bot_token(mcp_servers_of(config))
    if actor is not None:
        changed = changes(redact_secrets(before), redact_secrets(final))
        detail = {"config_path": bot.config_path, "servers": changed, "restored": restored}
        record(
            session=session,
            by=actor,
            action="bot.update_mcp_config",
            target=f"bot:{bot.id}",
            bot_id=bot.id,
            detail=detail,
        )
        session.commit()
    return McpConfigPublic(
        bot_id=bot.id, config_path=bot.config_path, servers=final, locked=_locked_flags(final), restored=restored
    )
