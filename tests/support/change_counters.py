"""What the change-counter tests share (test_version_board.py, test_live_hub.py): the reads of the bots'
settings the database really received, a bot with room to publish, and a result published."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicSettingsUpdate, update_topic_settings


@contextmanager
def settings_reads(engine: Engine) -> Iterator[list[str]]:
    """Every SELECT on the bots' settings the engine sends inside the block."""
    seen: list[str] = []

    def record(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if "topic_bot_settings" in statement.lower() and statement.lstrip().upper().startswith("SELECT"):
            seen.append(statement)

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)


def live_bot(session: Session, name: str) -> str:
    """A bot whose publishes the rate limit does not stop."""
    bot, _ = create_bot(session=session, name=name, write_config=False)
    update_topic_settings(session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=1000))
    return bot.bot_id


def publish_result(session: Session, bot_id: str) -> None:
    request = PublishRequest(topic_key="inbox", title="build done", content="all green", message_type="result")
    publish_item(session=session, bot_id=bot_id, request=request)
