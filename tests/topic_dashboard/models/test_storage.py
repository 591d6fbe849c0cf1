"""The schema the migrations build, on every backend: tables, hot-path indexes, constraints, cascades."""

from datetime import UTC

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from topic_dashboard.models import Conversation, Message, Topic, TopicBotSettings, TopicItem
from topic_dashboard.services.bots import create_bot

EXPECTED_COLUMNS = {
    "topic_bot_settings": {"id", "bot_id", "topic_enabled", "created_at", "updated_at"},
    "topic_topic": {
        "id",
        "bot_id",
        "topic_key",
        "name",
        "description",
        "is_active",
        "is_default_fallback",
        "routing_json",
        "view_schema_json",
        "created_at",
        "updated_at",
    },
    "topic_item": {
        "id",
        "bot_id",
        "topic_key",
        "title",
        "content",
        "level",
        "tags_json",
        "view_json",
        "source",
        "dedupe_key",
        "is_read",
        "is_pinned",
        "is_archived",
        "created_at",
    },
    "bot": {"id", "name", "token_hash", "config_path", "created_at", "updated_at"},
    "audit_log": {"id", "bot_id", "tool", "outcome", "error_code", "topic_key", "item_id", "latency_ms", "created_at"},
    "conversation": {"id", "bot_id", "title", "created_at", "updated_at", "unread", "run_status"},
    "message": {"id", "conversation_id", "seq", "role", "content", "kind", "guide_state", "created_at"},
    "user_account": {"id", "username", "password_hash", "role"},
    "api_token": {"id", "name", "token_hash", "role"},
    "login_session": {"id", "token_hash", "user_id", "expires_at"},
}

HOT_INDEXES = {
    "topic_item": [
        ("bot_id", "topic_key", "id"),
        ("bot_id", "topic_key", "is_archived", "is_read"),
        ("bot_id", "dedupe_key", "created_at"),
    ],
    "message": [("conversation_id", "role", "seq")],
}


def test_every_table_of_the_design_exists_with_its_columns(engine: Engine) -> None:
    inspector = sa.inspect(engine)
    for table, columns in EXPECTED_COLUMNS.items():
        present = {column["name"] for column in inspector.get_columns(table)}
        assert columns <= present, (table, columns - present)


def test_hot_queries_have_their_indexes(engine: Engine) -> None:
    inspector = sa.inspect(engine)
    for table, wanted in HOT_INDEXES.items():
        have = {tuple(index["column_names"]) for index in inspector.get_indexes(table)}
        for columns in wanted:
            assert columns in have, (table, columns, have)


def test_creating_a_bot_creates_its_settings_and_inbox_fallback(session: Session) -> None:
    bot, token = create_bot(session=session, name="Research bot")
    settings = session.exec(select(TopicBotSettings).where(TopicBotSettings.bot_id == bot.bot_id)).one()
    assert settings.topic_enabled is True
    assert settings.publish_rate_per_minute == 60 and settings.dedupe_window_seconds == 600
    inbox = session.exec(select(Topic).where(Topic.bot_id == bot.bot_id)).one()
    assert (inbox.topic_key, inbox.is_default_fallback, inbox.is_active) == ("inbox", True, True)
    assert token not in str(session.exec(sa.text("SELECT token_hash FROM bot")).all())  # type: ignore[call-overload]


def test_topic_key_is_unique_per_bot_but_not_across_bots(session: Session) -> None:
    first, _ = create_bot(session=session, name="a")
    second, _ = create_bot(session=session, name="b")
    session.add(Topic(bot_id=second.bot_id, topic_key="build", name="Build"))
    session.add(Topic(bot_id=first.bot_id, topic_key="build", name="Build"))
    session.commit()
    session.add(Topic(bot_id=first.bot_id, topic_key="build", name="Again"))
    with pytest.raises(sa.exc.IntegrityError):
        session.commit()
    session.rollback()


def test_json_columns_and_utc_timestamps_round_trip(session: Session) -> None:
    bot, _ = create_bot(session=session, name="j")
    item = TopicItem(
        bot_id=bot.bot_id,
        topic_key="inbox",
        title="标题 ✓",
        content="内容",
        tags_json=["ci", "发布"],
        view_json={"type": "metric", "label": "p99", "value": 1.5, "unit": "ms"},
    )
    session.add(item)
    session.commit()
    session.expunge_all()
    loaded = session.get(TopicItem, item.id)
    assert loaded is not None
    assert loaded.tags_json == ["ci", "发布"] and loaded.view_json == {
        "type": "metric",
        "label": "p99",
        "value": 1.5,
        "unit": "ms",
    }
    assert loaded.title == "标题 ✓"
    assert loaded.created_at.tzinfo is not None and loaded.created_at.utcoffset() == UTC.utcoffset(None)


def test_deleting_a_bot_cascades_to_its_rows(session: Session) -> None:
    bot, _ = create_bot(session=session, name="gone")
    conversation = Conversation(bot_id=bot.bot_id)
    session.add(conversation)
    session.flush()
    session.add(Message(conversation_id=conversation.id, seq=1, role="user", content="hi"))
    session.add(TopicItem(bot_id=bot.bot_id, topic_key="inbox", title="t", content="c"))
    session.commit()
    session.exec(sa.text("DELETE FROM bot WHERE id = :id").bindparams(id=bot.bot_id))  # type: ignore[call-overload]
    session.commit()
    for table in ("topic_topic", "topic_item", "topic_bot_settings", "conversation", "message"):
        assert session.exec(sa.text(f"SELECT count(*) FROM {table}")).one()[0] == 0, table  # type: ignore[call-overload]


def test_message_sequence_is_unique_per_conversation(session: Session) -> None:
    bot, _ = create_bot(session=session, name="seq")
    conversation = Conversation(bot_id=bot.bot_id)
    session.add(conversation)
    session.flush()
    session.add(Message(conversation_id=conversation.id, seq=1, role="user", content="a"))
    session.commit()
    session.add(Message(conversation_id=conversation.id, seq=1, role="user", content="b"))
    with pytest.raises(sa.exc.IntegrityError):
        session.commit()
    session.rollback()
