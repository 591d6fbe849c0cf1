"""Bots: creation (with their settings and fallback topic), token look-up and rotation."""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Session, SQLModel, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import Bot, TopicBotSettings, TopicTopic, iso_utc, utcnow
from topic_dashboard.security import BOT_TOKEN_PREFIX, hash_token, new_token, token_matches
from topic_dashboard.settings import DEFAULT_FALLBACK_TOPIC_KEY

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


def to_public(bot: Bot) -> BotPublic:
    return BotPublic(
        bot_id=bot.id,
        name=bot.name,
        config_path=bot.config_path,
        token_created_at=iso_utc(bot.token_created_at),
        created_at=iso_utc(bot.created_at),
    )


def create_bot(*, session: Session, name: str, config_path: str | None = None) -> tuple[BotPublic, str]:
    """Create a bot with its topic settings and its `inbox` fallback topic.

    Returns the bot and its token (shown once; only the digest is stored). Raises validation_error.
    """
    name = name.strip()
    if not name or len(name) > 100:
        raise AppError("validation_error", "name: 1-100 characters", field="name")
    token = new_token(BOT_TOKEN_PREFIX)
    bot = Bot(name=name, token_hash=hash_token(token), config_path=config_path)
    session.add(bot)
    session.flush()
    session.add(TopicBotSettings(bot_id=bot.id))
    session.add(
        TopicTopic(
            bot_id=bot.id,
            topic_key=DEFAULT_FALLBACK_TOPIC_KEY,
            name="Inbox",
            description="Where results go when no other topic fits.",
            is_default_fallback=True,
            routing_json=dict(FALLBACK_TOPIC_ROUTING),
        )
    )
    session.commit()
    return to_public(bot), token


def get_bot(*, session: Session, bot_id: str) -> Bot:
    """Raises bot_not_found."""
    bot = session.get(Bot, bot_id)
    if bot is None:
        raise AppError("bot_not_found", f"no bot with id {bot_id!r}")
    return bot


def list_bots(*, session: Session) -> list[BotPublic]:
    return [to_public(bot) for bot in session.exec(select(Bot).order_by(Bot.name, Bot.id))]


def bot_for_token(*, session: Session, token: str | None) -> Bot | None:
    """The bot a token belongs to, or None. The digest is looked up by index, then compared in constant time."""
    if not token:
        return None
    bot = session.exec(select(Bot).where(Bot.token_hash == hash_token(token))).first()
    if bot is None or not token_matches(token, bot.token_hash):
        return None
    return bot


def rotate_token(*, session: Session, bot_id: str) -> str:
    """Give a bot a new token; the old one stops working at once. Raises bot_not_found."""
    bot = get_bot(session=session, bot_id=bot_id)
    token = new_token(BOT_TOKEN_PREFIX)
    bot.token_hash = hash_token(token)
    bot.token_created_at = utcnow()
    bot.updated_at = utcnow()
    session.add(bot)
    session.commit()
    return token


def count_bots(*, session: Session) -> int:
    return session.exec(select(sa.func.count()).select_from(Bot)).one()
