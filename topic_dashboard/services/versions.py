"""The two change counters of a bot, and their only writers.

`items_version` changes whenever what an open panel shows may have changed (an item published,
read, pinned or archived, a topic changed); panels poll it. `rules_version` changes whenever a
topic or its rule changed; routing recompiles the bot's rules when it sees a new value.
Both are bumped in the caller's transaction, so they change exactly when the change commits.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Session, col, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import TopicBotSettings, utcnow


def bump_items_version(session: Session, bot_id: str) -> None:
    """Tell open panels that the bot's items changed (in the caller's transaction)."""
    session.exec(
        sa.update(TopicBotSettings)
        .where(col(TopicBotSettings.bot_id) == bot_id)
        .values(items_version=TopicBotSettings.items_version + 1)
    )


def bump_rules_version(session: Session, bot_id: str) -> None:
    """Topics changed: routing recompiles (rules_version) and open panels refresh (items_version)."""
    session.exec(
        sa.update(TopicBotSettings)
        .where(col(TopicBotSettings.bot_id) == bot_id)
        .values(
            rules_version=TopicBotSettings.rules_version + 1,
            items_version=TopicBotSettings.items_version + 1,
            updated_at=utcnow(),
        )
    )


def panel_signature(*, session: Session, bot_id: str) -> tuple[int, bool]:
    """(items_version, topic_enabled): one indexed row that changes whenever the panel must refresh."""
    row = session.exec(
        select(TopicBotSettings.items_version, TopicBotSettings.topic_enabled).where(TopicBotSettings.bot_id == bot_id)
    ).first()
    if row is None:
        raise AppError("bot_not_found", f"no bot with id {bot_id!r}")
    return int(row[0]), bool(row[1])


def panel_signatures(*, session: Session, bot_ids: list[str]) -> dict[str, tuple[int, bool]]:
    """bot id -> (items_version, topic_enabled) for several bots in one indexed read (the "All bots"
    view); bots that no longer exist are left out."""
    if not bot_ids:
        return {}
    rows = session.exec(
        select(TopicBotSettings.bot_id, TopicBotSettings.items_version, TopicBotSettings.topic_enabled).where(
            col(TopicBotSettings.bot_id).in_(bot_ids)
        )
    ).all()
    return {bot_id: (int(version), bool(enabled)) for bot_id, version, enabled in rows}
