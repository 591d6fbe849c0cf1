"""REST: bots, their tokens and their locked MCP config."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from mcp_service.rest.deps import Admin, Reader, ReadSession, WriteSession
from mcp_service.rest.errors import ERROR_RESPONSES
from topic_dashboard.bot_config import redact_secrets
from topic_dashboard.services import bots
from topic_dashboard.services.audit import actor_of
from topic_dashboard.settings import get_settings

router = APIRouter(tags=["bots"], responses=ERROR_RESPONSES)


class BotCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a silent no-op

    name: str = Field(description="A name people recognise, 1-100 characters.")
    config_path: str | None = Field(
        default=None,
        description="Absolute path of the bot's nanobot config.json, inside the data directory and no other bot's; "
        "omitted: a new workspace there.",
    )
    adopt_existing: bool = Field(
        default=False,
        description="Confirms adopting a config.json that exists already at config_path (its topic_mcp entry is "
        "rewritten, everything else kept); without it an existing file is refused (adoption_not_confirmed).",
    )


class BotCreated(BaseModel):
    bot_id: str
    name: str
    token: str = Field(description="The bot's token: shown only now.")
    config_path: str | None
    mcp_url: str


class TokenRotated(BaseModel):
    bot_id: str
    token: str = Field(description="The new token: shown only now. The old one no longer works.")


class BotDeleted(BaseModel):
    bot_id: str
    deleted: dict[str, int]


class McpConfigPut(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a silent no-op

    mcpServers: dict[str, Any] = Field(description="The whole map of MCP servers; topic_mcp is put back if missing.")


@router.get("/bots", response_model=list[bots.BotStatus])
def list_bots(_: Reader, session: ReadSession) -> list[bots.BotStatus]:
    return bots.bot_statuses(session=session)


@router.post("/bots", response_model=BotCreated, status_code=201)
def create_bot(body: BotCreate, who: Admin, session: WriteSession) -> BotCreated:
    created, token = bots.create_bot(
        session=session,
        name=body.name,
        config_path=body.config_path,
        adopt_existing=body.adopt_existing,
        actor=actor_of(who),
    )
    return BotCreated(
        bot_id=created.bot_id,
        name=created.name,
        token=token,
        config_path=created.config_path,
        mcp_url=get_settings().mcp_topic_url,
    )


@router.delete("/bots/{bot_id}", response_model=BotDeleted)
def delete_bot(bot_id: str, who: Admin, session: WriteSession) -> BotDeleted:
    return BotDeleted(bot_id=bot_id, deleted=bots.delete_bot(session=session, bot_id=bot_id, actor=actor_of(who)))


@router.post("/bots/{bot_id}/token", response_model=TokenRotated)
def rotate_token(bot_id: str, who: Admin, session: WriteSession) -> TokenRotated:
    return TokenRotated(bot_id=bot_id, token=bots.rotate_token(session=session, bot_id=bot_id, actor=actor_of(who)))


def _redacted(config: bots.McpConfigPublic) -> bots.McpConfigPublic:
    """Viewers read the config without any secret: every server's header and env values.

    (Nobody reads the bot's own token back: the service masks it for admins too.)"""
    return config.model_copy(update={"servers": redact_secrets(config.servers)})


@router.get("/bots/{bot_id}/mcp-config", response_model=bots.McpConfigPublic)
def get_mcp_config(bot_id: str, who: Reader, session: ReadSession) -> bots.McpConfigPublic:
    config = bots.get_mcp_config(session=session, bot_id=bot_id)
    return config if who.is_admin else _redacted(config)


@router.put("/bots/{bot_id}/mcp-config", response_model=bots.McpConfigPublic)
def put_mcp_config(bot_id: str, body: McpConfigPut, who: Admin, session: WriteSession) -> bots.McpConfigPublic:
    return bots.put_mcp_config(session=session, bot_id=bot_id, servers=body.mcpServers, actor=actor_of(who))
