"""Publishing one item: the pipeline every surface shares (MCP, REST and UI).

Order: switch off → message type → field validation → noise (a bot's message that is only thanks,
progress...) → topic (or fallback) → view → under the bot's write lock: dedupe window (the dedupe_key's,
or, without one, the same result published again by a bot), rate limit, insert. A refused call stores nothing.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel, Field
from sqlmodel import Session, col, select

from topic_dashboard.db import is_sqlite
from topic_dashboard.errors import AppError
from topic_dashboard.item_views import (
    check_level,
    check_payload_size,
    check_view_allowed,
    parse_allowed_view_types,
    validate_item_fields,
    validate_view,
)
from topic_dashboard.item_views.search_text import view_search_text
from topic_dashboard.models import ItemState, Topic, TopicItem, utcnow
from topic_dashboard.routing import RouteRequest
from topic_dashboard.routing.engine import READS_AS_CONVERSATION
from topic_dashboard.routing.noise import NOISE_REASONS, OVERRULED_BY, classify_item
from topic_dashboard.routing.text import normalize
from topic_dashboard.services.audit import CallAudit, add_call
from topic_dashboard.services.chat import source_conversation_id
from topic_dashboard.services.routing_service import patterns_overruled, read_as_noise, route_for_bot
from topic_dashboard.services.topics import fallback_topic_row, load_settings
from topic_dashboard.services.versions import bump_items_version
from topic_dashboard.text_policy import check_line, check_text, forbidden_char

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
    # With a dedupe_key: rewrite the latest item with that key in place (title, content, level,
    # tags, view), marked updated and unread again for everyone; a new item when there is none.
    update: bool = False
    # With update: True marks the item resolved (dealt with), False reopens it.
    resolved: bool | None = None


class PublishResult(BaseModel):
    item_id: int
    topic_key: str
    deduplicated: bool = False
    updated: bool = False  # an existing item was rewritten in place (`update`)
    fallback: bool = False
    fallback_reason: str | None = Field(default=None, description="Why the item went to the fallback topic.")
    notes: list[str] = Field(
        default_factory=list,
        description="What was changed on the way in, so the bot knows what the reader sees (a title's line "
        "breaks joined into one line).",
    )


def title_notes(title: object) -> list[str]:
    """A note when a title held line breaks, which the stored title joins into one line (a title is one
    line; the rest belongs in content). A walkthrough found them joined without a word."""
    if isinstance(title, str) and len(title.strip().splitlines()) > 1:
        return ["title held line breaks; they were joined into one line: put the detail in content"]
    return []


def check_message_type(message_type: str | None) -> None:
    """Raises invalid_argument for a message_type the system does not know (topic_route and topic_publish alike)."""
    if message_type is not None and message_type not in MESSAGE_TYPES:
        raise AppError(
            "invalid_argument",
            f"message_type must be one of {', '.join(MESSAGE_TYPES)} (or omitted); task results are 'result'",
            field="message_type",
        )


def check_route_request(request: RouteRequest) -> None:
    """What topic_route refuses: an unknown message_type, text the text policy refuses (content,
    title and summary are free text; tags and level one line each).

    Raises invalid_argument (message_type), validation_error (with `field`).
    """
    check_message_type(request.message_type)
    check_text(request.content, field="content")
    if request.proposed_topic_key is not None:
        check_line(request.proposed_topic_key, field="proposed_topic_key", max_chars=64)
    for field in ("title", "summary"):
        if (value := getattr(request, field)) is not None:
            check_text(value, field=field)
    if request.level is not None:
        check_line(request.level, field="level")
        check_level(request.level)  # as topic_publish reads it (a walkthrough's "critical" was routed, then refused)
    for index, tag in enumerate(request.tags):
        check_line(tag, field=f"tags[{index}]")


def _check_message_type(message_type: str | None) -> None:
    check_message_type(message_type)
    if message_type == "progress":
        raise AppError("filtered_progress", "progress updates never go to a topic; keep them in the chat")
    if message_type == "chat":
        raise AppError("filtered_chat", "chat is conversation, not a result: it never goes to a topic")
    if message_type == "tool_hint":
        raise AppError("filtered_tool_hint", "tool hints never go to a topic; keep them in the chat")


def _patterns_overruled(request: PublishRequest) -> bool:
    """Whether a fitted model reads a finished result where the patterns read progress, a tool call or
    conversation, as routing decides (`_check_not_noise`). It embeds the message (only one the patterns
    flag), so it runs before the bot's write lock is taken."""
    kind = classify_item(normalize(request.title or ""), normalize(request.content or ""))
    return kind is not None and patterns_overruled(
        kind=kind, title=request.title, content=request.content or "", message_type=request.message_type
    )


def _read_as_noise(request: PublishRequest) -> str | None:
    """What topic_route's fitted noise model reads in this message when it keeps it out as conversation, else
    None: naming a topic does not let a bot skip what topic_route refuses (a walkthrough's
    bot published "Thanks so much, you're the best!" into Orders, which topic_route keeps out). The patterns'
    own verdicts are `_check_not_noise`'s, which lets a headline carry a terse content. It embeds the message
    (a route before it left it in the cache), so it runs before the bot's write lock is taken."""
    if not isinstance(request.content, str) or not isinstance(request.title, str | None):
        return None  # refused with its own code by the checks that follow
    read = read_as_noise(title=request.title, content=request.content, message_type=request.message_type)
    # Conversation only: the stream model also reads terse results ("item 1 content", "Done") as work going
    # more often than the noise model reads them as talk, and a bot that names its topic has judged the work
    # finished; the patterns still refuse progress and tool calls there (`_check_not_noise`).
    return read if read == READS_AS_CONVERSATION else None


def _check_not_noise(title: str, content: str, overruled: bool) -> None:
    """A bot that publishes without asking topic_route first still cannot fill a topic with what
    topic_route never publishes: a message that is only thanks, a greeting, an acknowledgement, a
    question back, progress or a tool call (the hard filters, routing/noise.py `classify_item`: a
    headline that says something lets a terse "Done." through). A `view` carries data: never noise.
    Nor is a result refused that topic_route publishes: `overruled` (`_patterns_overruled`) says a
    fitted model reads a finished result where the patterns read progress, a tool call or conversation.

    Raises filtered_noise."""
    kind = classify_item(normalize(title), normalize(content))
    if kind is not None and not (overruled and kind in OVERRULED_BY):
        raise AppError(
            "filtered_noise",
            f"{NOISE_REASONS[kind]}, not a task result: it never goes to a topic; keep it in the chat",
            noise_kind=kind,
        )


def _route_request(request: PublishRequest) -> RouteRequest:
    return RouteRequest(
        content=request.content,
        title=request.title,
        message_type=request.message_type,
        tags=tuple(request.tags or ()),
        level=request.level,
    )


def _resolve_topic(
    session: Session, bot_id: str, request: PublishRequest, policy: str, view: dict[str, Any] | None
) -> tuple[Topic, bool, str | None, list[str]]:
    """The topic to store into, whether it is the fallback, why, and what the bot should be told."""
    if request.topic_key is None or not request.topic_key.strip():
        decision = route_for_bot(session=session, bot_id=bot_id, request=_route_request(request))
        if decision.filtered == "noise":  # kept out as talk or work going: filtered, as with a topic named
            raise AppError(
                "filtered_noise",
                f"topic_route would not publish this: {decision.reason}; keep it in the chat",
                noise_kind=decision.noise_kind,
            )
        if not decision.should_publish or decision.topic_key is None:
            raise AppError("not_routed", f"no topic_key given and topic_route says not to publish: {decision.reason}")
        topic = session.exec(select(Topic).where(Topic.bot_id == bot_id, Topic.topic_key == decision.topic_key)).one()
        return topic, decision.fallback, decision.reason if decision.fallback else None, []
    key = request.topic_key.strip()
    # No topic key has control characters, and PostgreSQL cannot even compare text holding NUL.
    named = (
        None
        if forbidden_char(key, single_line=True)
        else session.exec(select(Topic).where(Topic.bot_id == bot_id, Topic.topic_key == key)).first()
    )
    if named is not None and named.is_active:
        return named, False, None, []
    why = f"topic {key!r} is inactive" if named is not None else f"there is no topic {key!r}"
    if policy == "skip":
        raise AppError("topic_not_found", f"{why}; call topic_list_topics for the topics you can publish to")
    # A key the bot guessed wrong (or a topic the owner switched off): the owner's rules place the result, as
    # topic_route would have; only what they place nowhere goes to the fallback (a walkthrough's "Garden shed
    # quote", sent to a key that did not exist, went straight to the inbox beside a Bills topic).
    decision = route_for_bot(session=session, bot_id=bot_id, request=_route_request(request))
    if decision.should_publish and decision.topic_key is not None and not decision.fallback:
        chosen = session.exec(select(Topic).where(Topic.bot_id == bot_id, Topic.topic_key == decision.topic_key)).one()
        try:  # the check the named topic gets below: a topic that refuses the view leaves it to the fallback
            check_view_allowed(view, parse_allowed_view_types(chosen.view_schema_json))
        except AppError:
            return fallback_topic_row(session=session, bot_id=bot_id), True, why, []
        note = f"{why}: the rules placed it in {chosen.topic_key!r} ({decision.reason}); call topic_list_topics"
        return chosen, False, None, [note]
    fallback = fallback_topic_row(session=session, bot_id=bot_id)
    return fallback, True, why, []


def publish_item(
    *, session: Session, bot_id: str, request: PublishRequest, source: str = "mcp", audit: CallAudit | None = None
) -> PublishResult:
    """Store one item, or refuse with a stable code and store nothing.

    With `audit`, the call's audit row is written in the same transaction as the item (both or
    neither, even across kill -9); a refusal leaves the audit to the caller.

    Raises bot_not_found, topic_disabled, filtered_progress, filtered_tool_hint, filtered_chat, filtered_noise,
    invalid_argument,
    validation_error, invalid_view, payload_too_large, topic_not_found, not_routed, rate_limited.
    """
    check_payload_size(request.model_dump(mode="json"))
    # The bot's write lock is its settings row (PostgreSQL); SQLite's write sessions hold the database
    # write lock from BEGIN IMMEDIATE, so there the first read is already under it. With a topic named
    # nothing slow runs before the insert, so the row is locked as it is read; when the rules choose,
    # it is locked after routing (below), not while the model embeds the message.
    routes = request.topic_key is None or not request.topic_key.strip()
    checks_noise = source == "mcp" and request.view is None
    overruled = checks_noise and _patterns_overruled(request)  # embeds: before the lock
    models_refuse = _read_as_noise(request) if checks_noise and not routes else None
    lock_now = not routes or is_sqlite(session.get_bind())
    settings = load_settings(session=session, bot_id=bot_id, for_update=lock_now)
    if not settings.topic_enabled:
        raise AppError("topic_disabled", "Topic delivery is switched off for this bot; keep the result in the chat")
    _check_message_type(request.message_type)
    title, content, level, tags = validate_item_fields(
        title=request.title, content=request.content, level=request.level, tags=request.tags
    )
    dedupe_key = (request.dedupe_key or "").strip() or None
    if dedupe_key is not None:
        check_line(dedupe_key, field="dedupe_key", max_chars=MAX_DEDUPE_KEY_CHARS)
    if (request.update or request.resolved is not None) and dedupe_key is None:
        raise AppError(
            "invalid_argument", "update (and resolved) need the dedupe_key of the item to update", field="dedupe_key"
        )
    if request.resolved is not None and not request.update:
        raise AppError("invalid_argument", "resolved is set with update: true", field="resolved")
    if checks_noise:
        _check_not_noise(title, content, overruled)
    if models_refuse is not None:
        raise AppError(
            "filtered_noise",
            f"topic_route would not publish this: {models_refuse}; keep it in the chat",
            noise_kind="conversation",
        )
    # A bad view is the input's own error, named before routing judges the content; which types the
    # topic allows is checked once the topic is known.
    view = validate_view(request.view)
    topic, is_fallback, fallback_reason, placed = _resolve_topic(
        session, bot_id, request, settings.fallback_policy, view
    )
    check_view_allowed(view, parse_allowed_view_types(topic.view_schema_json))

    # Under the bot's write lock from here: dedupe and rate checks below cannot race. Refreshed, not
    # just re-selected: the session would keep the values it read before the lock.
    if not lock_now:
        session.refresh(settings, with_for_update=True)
    now = utcnow()
    if request.update and dedupe_key is not None:
        current = session.exec(
            select(TopicItem)
            .where(TopicItem.bot_id == bot_id, TopicItem.dedupe_key == dedupe_key)
            .order_by(col(TopicItem.id).desc())
        ).first()
        if current is not None:
            return _update_in_place(
                session,
                current,
                bot_id=bot_id,
                fields=(title, content, level, tags),
                request=request,
                now=now,
                audit=audit,
            )
    if dedupe_key is not None and settings.dedupe_window_seconds > 0 and not request.update:
        existing = session.exec(
            select(TopicItem)
            .where(
                TopicItem.bot_id == bot_id,
                TopicItem.dedupe_key == dedupe_key,
                TopicItem.created_at >= now - timedelta(seconds=settings.dedupe_window_seconds),
            )
            .order_by(col(TopicItem.id).desc())
        ).first()
        if existing is not None:
            _audit(session, audit, bot_id, "deduplicated", existing)
            session.commit()
            return PublishResult(item_id=existing.id or 0, topic_key=existing.topic_key, deduplicated=True)
    if dedupe_key is None and source == "mcp" and settings.dedupe_window_seconds > 0 and not request.update:
        since = now - timedelta(seconds=settings.dedupe_window_seconds)
        twin = _identical_recent(session, bot_id, topic.topic_key, (title, content, level, tags, view), since)
        if twin is not None:
            _audit(session, audit, bot_id, "deduplicated", twin)
            session.commit()
            age = max(0, round((now - twin.created_at).total_seconds()))
            note = (
                f"identical to item {twin.id} (same topic, title, content, level, tags and view), published {age} s "
                "ago: not stored twice; pass a dedupe_key to say which results are the same one, or update: true "
                "to change it"
            )
            return PublishResult(
                item_id=twin.id or 0,
                topic_key=twin.topic_key,
                deduplicated=True,
                fallback=is_fallback,  # as this call named it: the bot learns its topic_key did not exist
                fallback_reason=fallback_reason,
                notes=[note, *placed, *title_notes(request.title)],
            )
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
        bot_id=bot_id,
        topic_key=topic.topic_key,
        title=title,
        content=content,
        level=level,
        tags_json=tags,
        view_json=view,
        view_text=view_search_text(view),
        source=source if source in SOURCES else "system",
        message_type=request.message_type,
        dedupe_key=dedupe_key,
        # What the bot was answering in the dashboard when it published this (services/chat.py).
        conversation_id=source_conversation_id(session=session, bot_id=bot_id) if source == "mcp" else None,
        created_at=now,
    )
    session.add(item)
    bump_items_version(session, bot_id)  # open panels poll this to pick the item up
    _audit(session, audit, bot_id, "ok", item)
    session.commit()
    return PublishResult(
        item_id=item.id or 0,
        topic_key=topic.topic_key,
        fallback=is_fallback,
        fallback_reason=fallback_reason,
        notes=[*placed, *title_notes(request.title)],
    )


def _identical_recent(
    session: Session, bot_id: str, topic_key: str, fields: tuple[str, str, str, list[str], Any], since: Any
) -> TopicItem | None:
    """The newest item of this topic stored since `since` that is the same in every field a reader sees, else
    None: a bot that retries a publish (a timeout, a restart mid-task) without a dedupe_key sends the same
    result twice, and a reader should not read it twice (a walkthrough's bot did). Within the bot's dedupe
    window only, so a result that recurs later (tomorrow's identical nightly report) is stored again."""
    title, content, level, tags, view = fields
    candidates = session.exec(
        select(TopicItem)
        .where(
            TopicItem.bot_id == bot_id,
            TopicItem.topic_key == topic_key,
            TopicItem.title == title,
            TopicItem.created_at >= since,
        )
        .order_by(col(TopicItem.id).desc())
        .limit(20)
    ).all()
    for item in candidates:
        if (item.content, item.level, list(item.tags_json or []), item.view_json) == (content, level, tags, view):
            return item
    return None


def _update_in_place(
    session: Session,
    item: TopicItem,
    *,
    bot_id: str,
    fields: tuple[str, str, str, list[str]],
    request: PublishRequest,
    now: Any,
    audit: CallAudit | None,
) -> PublishResult:
    """Rewrite `item` with the request's fields (its view checked against the item's own topic),
    unread again for everyone (the team's flag, and every person's own read flag)."""
    topic = session.exec(select(Topic).where(Topic.bot_id == bot_id, Topic.topic_key == item.topic_key)).first()
    allowed = parse_allowed_view_types(topic.view_schema_json) if topic is not None else None
    view = validate_view(request.view, allowed_types=allowed)
    item.title, item.content, item.level, item.tags_json = fields
    item.view_json = view
    item.view_text = view_search_text(view)
    item.updated_at = now
    item.update_count = (item.update_count or 0) + 1
    item.is_read = False
    if request.resolved is True:
        item.resolved_at, item.resolved_by = now, "the bot"
    elif request.resolved is False:
        item.resolved_at, item.resolved_by = None, None
    session.add(item)
    session.exec(sa.update(ItemState).where(col(ItemState.item_id) == item.id).values(is_read=None))
    bump_items_version(session, bot_id)
    _audit(session, audit, bot_id, "updated", item)
    session.commit()
    return PublishResult(item_id=item.id or 0, topic_key=item.topic_key, updated=True, notes=title_notes(request.title))


def _audit(session: Session, audit: CallAudit | None, bot_id: str, outcome: str, item: TopicItem) -> None:
    """Add the call's audit row to the publishing transaction (the item gets its id first)."""
    if audit is None:
        return
    if item.id is None:
        session.flush()
    add_call(
        session=session,
        bot_id=bot_id,
        tool=audit.tool,
        outcome=outcome,
        topic_key=item.topic_key,
        item_id=item.id,
        latency_ms=audit.elapsed_ms(),
    )
