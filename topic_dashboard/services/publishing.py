"""Publishing one item: the pipeline every surface shares (MCP, REST and UI).

Order: switch off → noise filter → field and view validation → topic (or fallback) → under the
bot's write lock: dedupe window, rate limit, insert. A refused call stores nothing.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel, Field
from sqlmodel import Session, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import TopicItem, TopicTopic, utcnow
from topic_dashboard.routing import RouteRequest
from topic_dashboard.services.items import bump_items_version
from topic_dashboard.services.routing_service import route_for_bot
from topic_dashboard.services.topics import fallback_topic, load_settings
from topic_dashboard.views import check_payload_size, parse_allowed_view_types, validate_item_fields, validate_view
from topic_dashboard.views.safety import describe_char, forbidden_char

MESSAGE_TYPES = ("result", "progress", "tool_hint", "chat")
SOURCES = ("mcp", "manual", "system")
MAX_DEDUPE_KEY_CHARS = 200
RATE_WINDOW = timedelta(seconds=60)


class PublishRequest(BaseModel):
    topic_key: str | None = None
    title: str
    content: str
    level: str | None = None
    tags: list[str] | None = None
    view: Any = None
    dedupe_key: str | None = None
    message_type: str | None = None


class PublishResult(BaseModel):
    item_id: int
    topic_key: str
    deduplicated: bool = False
    fallback: bool = False
    fallback_reason: str | None = Field(default=None, description="Why the item went to the fallback topic.")


def check_message_type(message_type: str | None) -> None:
    """Raises invalid_argument for a message_type the system does not know (topic_route and topic_publish alike)."""
    if message_type is not None and message_type not in MESSAGE_TYPES:
        raise AppError(
            "invalid_argument",
            f"message_type must be one of {', '.join(MESSAGE_TYPES)} (or omitted); task results are 'result'",
            field="message_type",
        )


def _check_message_type(message_type: str | None) -> None:
    check_message_type(message_type)
    if message_type == "progress":
        raise AppError("filtered_progress", "progress updates never go to a topic; keep them in the chat")
    if message_type == "tool_hint":
        raise AppError("filtered_tool_hint", "tool hints never go to a topic; keep them in the chat")


def _resolve_topic(session: Session, bot_id: str, request: PublishRequest, policy: str) -> tuple[TopicTopic, bool, str | None]:
    """The topic to store into, whether it is the fallback, and why."""
    if request.topic_key is None or not request.topic_key.strip():
        decision = route_for_bot(
            session=session, bot_id=bot_id,
            request=RouteRequest(content=request.content, title=request.title, message_type=request.message_type,
                                 tags=tuple(request.tags or ()), level=request.level),
        )
        if not decision.should_publish or decision.topic_key is None:
            raise AppError("not_routed", f"no topic_key given and topic_route says not to publish: {decision.reason}")
        topic = session.exec(
            select(TopicTopic).where(TopicTopic.bot_id == bot_id, TopicTopic.topic_key == decision.topic_key)
        ).one()
        return topic, decision.fallback, decision.reason if decision.fallback else None
    key = request.topic_key.strip()
    # No topic key has control characters, and PostgreSQL cannot even compare text holding NUL.
    topic = None if forbidden_char(key) else session.exec(
        select(TopicTopic).where(TopicTopic.bot_id == bot_id, TopicTopic.topic_key == key)
    ).first()
    if topic is not None and topic.is_active:
        return topic, False, None
    why = f"topic {key!r} is inactive" if topic is not None else f"there is no topic {key!r}"
    if policy == "skip":
        raise AppError("topic_not_found", f"{why}; call topic_list_topics for the topics you can publish to")
    fallback = fallback_topic(session=session, bot_id=bot_id)
    return fallback, True, why


def publish_item(*, session: Session, bot_id: str, request: PublishRequest, source: str = "mcp") -> PublishResult:
    """Store one item, or refuse with a stable code and store nothing.

    Raises bot_not_found, topic_disabled, filtered_progress, filtered_tool_hint, invalid_argument,
    validation_error, invalid_view, payload_too_large, topic_not_found, not_routed, rate_limited.
    """
    check_payload_size(request.model_dump(mode="json"))
    settings = load_settings(session=session, bot_id=bot_id)
    if not settings.topic_enabled:
        raise AppError("topic_disabled", "Topic delivery is switched off for this bot; keep the result in the chat")
    _check_message_type(request.message_type)
    title, content, level, tags = validate_item_fields(
        title=request.title, content=request.content, level=request.level, tags=request.tags
    )
    dedupe_key = (request.dedupe_key or "").strip() or None
    if dedupe_key is not None and len(dedupe_key) > MAX_DEDUPE_KEY_CHARS:
        raise AppError("validation_error", f"dedupe_key is longer than {MAX_DEDUPE_KEY_CHARS} characters", field="dedupe_key")
    if dedupe_key is not None and (char := forbidden_char(dedupe_key)) is not None:
        raise AppError("validation_error", f"dedupe_key contains the control character {describe_char(char)}; remove it",
                       field="dedupe_key")
    topic, is_fallback, fallback_reason = _resolve_topic(session, bot_id, request, settings.fallback_policy)
    view = validate_view(request.view, allowed_types=parse_allowed_view_types(topic.view_schema_json))

    # The bot's write lock: its settings row (PostgreSQL); SQLite's write sessions hold the
    # database write lock from BEGIN IMMEDIATE. Dedupe and rate checks below cannot race.
    # Refreshed, not just re-selected: the session would keep the values it read before the lock.
    session.refresh(settings, with_for_update=True)
    now = utcnow()
    if dedupe_key is not None and settings.dedupe_window_seconds > 0:
        existing = session.exec(
            select(TopicItem)
            .where(
                TopicItem.bot_id == bot_id,
                TopicItem.dedupe_key == dedupe_key,
                TopicItem.created_at >= now - timedelta(seconds=settings.dedupe_window_seconds),
            )
            .order_by(TopicItem.id.desc())  # type: ignore[union-attr]
        ).first()
        if existing is not None:
            session.commit()
            return PublishResult(item_id=existing.id or 0, topic_key=existing.topic_key, deduplicated=True)
    recent = session.exec(
        select(sa.func.count(), sa.func.min(TopicItem.created_at)).where(
            TopicItem.bot_id == bot_id, TopicItem.created_at > now - RATE_WINDOW
        )
    ).one()
    if recent[0] >= settings.publish_rate_per_minute:
        oldest = recent[1]
        wait = max(1, math.ceil(((oldest + RATE_WINDOW) - now).total_seconds())) if oldest else 60
        raise AppError(
            "rate_limited",
            f"this bot may publish {settings.publish_rate_per_minute} items per minute; retry in {wait} s",
            retry_after_seconds=wait,
        )
    item = TopicItem(
        bot_id=bot_id, topic_key=topic.topic_key, title=title, content=content, level=level, tags_json=tags,
        view_json=view, source=source if source in SOURCES else "system", message_type=request.message_type,
        dedupe_key=dedupe_key, created_at=now,
    )
    session.add(item)
    bump_items_version(session, bot_id)  # open panels poll this to pick the item up
    session.commit()
    return PublishResult(item_id=item.id or 0, topic_key=topic.topic_key, fallback=is_fallback, fallback_reason=fallback_reason)
