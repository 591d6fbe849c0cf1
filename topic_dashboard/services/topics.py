"""Topics and per-bot topic settings: what people maintain and bots consume (docs/DESIGN.md §2, §6)."""

from __future__ import annotations

import re
from typing import Any, Literal

import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session, col, select

from topic_dashboard.errors import AppError
from topic_dashboard.item_views import parse_allowed_view_types, validate_view_schema_json
from topic_dashboard.models import Bot, Topic, TopicBotSettings, TopicItem, TopicRuleChange, iso_utc, utcnow
from topic_dashboard.services.audit import Actor, as_actor, record
from topic_dashboard.services.audit_detail import changes
from topic_dashboard.services.versions import bump_rules_version
from topic_dashboard.text_policy import check_json, check_line, check_text, is_lookup_key, printable

TOPIC_KEY_RE = re.compile(r"[a-z][a-z0-9_]{0,63}")  # matched whole (fullmatch): "abc\n" is no key
MAX_NAME_CHARS = 100
MAX_DESCRIPTION_CHARS = 2000
FALLBACK_POLICIES = ("inbox", "skip")
MAX_PUBLISH_RATE = 10_000
MAX_DEDUPE_WINDOW_SECONDS = 7 * 24 * 3600


class TopicSettingsPublic(BaseModel):
    bot_id: str
    topic_enabled: bool
    fallback_policy: str
    publish_rate_per_minute: int
    dedupe_window_seconds: int
    allow_remote_images: bool
    updated_at: str | None


class TopicSettingsUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a silent no-op

    topic_enabled: bool | None = None
    fallback_policy: Literal["inbox", "skip"] | None = None
    publish_rate_per_minute: int | None = Field(default=None, ge=1, le=MAX_PUBLISH_RATE)
    dedupe_window_seconds: int | None = Field(default=None, ge=0, le=MAX_DEDUPE_WINDOW_SECONDS)
    allow_remote_images: bool | None = None


class TopicPublic(BaseModel):
    topic_key: str
    name: str
    description: str
    is_active: bool
    is_default_fallback: bool
    routing_json: dict[str, Any]
    view_schema_json: dict[str, Any]
    retention_days: int | None = None  # keep items this many days (None: no limit)
    retention_items: int | None = None  # keep only the newest this many (None: no limit)
    created_at: str | None
    updated_at: str | None


class TopicCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a silent no-op

    topic_key: str
    name: str
    description: str = ""
    is_active: bool = True
    routing_json: dict[str, Any] = Field(default_factory=dict)
    view_schema_json: dict[str, Any] = Field(default_factory=dict)
    retention_days: int | None = None
    retention_items: int | None = None


class TopicUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a silent no-op

    topic_key: str | None = None  # may be sent, must not change
    name: str | None = None
    description: str | None = None
    is_active: bool | None = None
    is_default_fallback: bool | None = None  # may be sent, must not change
    routing_json: dict[str, Any] | None = None
    view_schema_json: dict[str, Any] | None = None
    retention_days: int | None = None  # 0 removes the limit
    retention_items: int | None = None  # 0 removes the limit


MAX_RETENTION_DAYS = 3650
MAX_RETENTION_ITEMS = 1_000_000


def _validated_retention(value: int | None, field: str, maximum: int) -> int | None:
    """None or 0: no limit. Raises validation_error with the field."""
    if value is None or value == 0:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        raise AppError(
            "validation_error", f"{field} must be a whole number from 1 to {maximum:,}, or 0 for no limit", field=field
        )
    return value


def topic_public(topic: Topic) -> TopicPublic:
    return TopicPublic(
        topic_key=topic.topic_key,
        name=topic.name,
        description=topic.description,
        is_active=topic.is_active,
        is_default_fallback=topic.is_default_fallback,
        routing_json=dict(topic.routing_json or {}),
        view_schema_json=dict(topic.view_schema_json or {}),
        retention_days=topic.retention_days,
        retention_items=topic.retention_items,
        created_at=iso_utc(topic.created_at),
        updated_at=iso_utc(topic.updated_at),
    )


def settings_public(row: TopicBotSettings) -> TopicSettingsPublic:
    return TopicSettingsPublic(
        bot_id=row.bot_id,
        topic_enabled=row.topic_enabled,
        fallback_policy=row.fallback_policy,
        publish_rate_per_minute=row.publish_rate_per_minute,
        dedupe_window_seconds=row.dedupe_window_seconds,
        allow_remote_images=row.allow_remote_images,
        updated_at=iso_utc(row.updated_at),
    )


# --- settings ---------------------------------------------------------------------------------


def load_settings(*, session: Session, bot_id: str, for_update: bool = False) -> TopicBotSettings:
    """The bot's settings row; with `for_update`, locked until the transaction ends (PostgreSQL).

    Raises bot_not_found.
    """
    query = select(TopicBotSettings).where(TopicBotSettings.bot_id == bot_id)
    if for_update:
        query = query.with_for_update()
    row = session.exec(query).first() if is_lookup_key(bot_id) else None
    if row is None:
        raise AppError("bot_not_found", f"no bot with id {bot_id!r}")
    return row


def get_topic_settings(*, session: Session, bot_id: str) -> TopicSettingsPublic:
    """Raises bot_not_found."""
    return settings_public(load_settings(session=session, bot_id=bot_id))


def update_topic_settings(
    *,
    session: Session,
    bot_id: str,
    update: TopicSettingsUpdate,
    actor: Actor | None = None,
    action: str = "bot.update_settings",
) -> TopicSettingsPublic:
    """Change some of a bot's topic settings; with `actor`, audited (what changed) in the same
    transaction. Raises bot_not_found."""
    row = load_settings(session=session, bot_id=bot_id, for_update=True)
    before = settings_public(row).model_dump(exclude={"updated_at"})
    for field, value in update.model_dump(exclude_none=True).items():
        setattr(row, field, value)
    row.updated_at = utcnow()
    session.add(row)
    if actor is not None:
        changed = changes(before, settings_public(row).model_dump(exclude={"updated_at"}))
        record(session=session, by=actor, action=action, target=f"bot:{bot_id}", bot_id=bot_id, detail=changed)
    session.commit()
    return settings_public(row)


def set_topic_enabled(
    *, session: Session, bot_id: str, enabled: bool, actor: Actor | None = None
) -> TopicSettingsPublic:
    """The bot's Topic switch; with `actor`, audited. Raises bot_not_found."""
    return update_topic_settings(
        session=session,
        bot_id=bot_id,
        update=TopicSettingsUpdate(topic_enabled=enabled),
        actor=actor,
        action="bot.set_topic_enabled",
    )


# --- topics -----------------------------------------------------------------------------------


def topic_rows(*, session: Session, bot_id: str, active_only: bool = False) -> list[Topic]:
    """A bot's topic rows, fallback first, then by key (for the services). Raises bot_not_found."""
    if not is_lookup_key(bot_id) or session.get(Bot, bot_id) is None:
        raise AppError("bot_not_found", f"no bot with id {bot_id!r}")
    query = select(Topic).where(Topic.bot_id == bot_id)
    if active_only:
        query = query.where(col(Topic.is_active).is_(True))
    return list(session.exec(query.order_by(col(Topic.is_default_fallback).desc(), col(Topic.topic_key))))


def topic_names_per_bot(*, session: Session, bot_ids: list[str]) -> dict[tuple[str, str], str]:
    """(bot id, topic key) -> name over `bot_ids` (one query), by bot id and then topic id."""
    rows = session.exec(
        select(Topic.bot_id, Topic.topic_key, Topic.name)
        .where(col(Topic.bot_id).in_(bot_ids))
        .order_by(col(Topic.bot_id), col(Topic.id))
    ).all()
    return {(bot_id, key): name for bot_id, key, name in rows}


def names_by_key(per_bot: dict[tuple[str, str], str]) -> dict[str, str]:
    """Topic key -> name from `topic_names_per_bot`: a key several bots use is named by the first bot's (by id)."""
    names: dict[str, str] = {}
    for (_, key), name in per_bot.items():
        names.setdefault(key, name)
    return names


def topic_names(*, session: Session, bot_ids: list[str]) -> dict[str, str]:
    """Topic key -> name over `bot_ids` (one query); a key several bots use is named by the first bot's (by id)."""
    return names_by_key(topic_names_per_bot(session=session, bot_ids=bot_ids))


def list_topics(*, session: Session, bot_id: str, active_only: bool = False) -> list[TopicPublic]:
    """A bot's topics, fallback first, then by key. Raises bot_not_found."""
    return [topic_public(row) for row in topic_rows(session=session, bot_id=bot_id, active_only=active_only)]


def topic_row(*, session: Session, bot_id: str, topic_key: str) -> Topic:
    """The topic's row (for the services). Raises topic_not_found."""
    topic = (
        session.exec(select(Topic).where(Topic.bot_id == bot_id, Topic.topic_key == topic_key)).first()
        if is_lookup_key(bot_id) and is_lookup_key(topic_key)
        else None
    )
    if topic is None:
        raise AppError("topic_not_found", f"bot {bot_id!r} has no topic {topic_key!r}")
    return topic


def get_topic(*, session: Session, bot_id: str, topic_key: str) -> TopicPublic:
    """Raises topic_not_found."""
    return topic_public(topic_row(session=session, bot_id=bot_id, topic_key=topic_key))


class TopicEntry(BaseModel):
    """One topic as a bot sees it in `topic_list_topics`: what it is for and what it accepts."""

    topic_key: str
    name: str
    description: str
    purpose: str
    include_when: list[str]
    exclude_when: list[str]
    priority: int
    is_fallback: bool
    allowed_view_types: list[str]


class BotTopics(BaseModel):
    """Everything a bot needs to decide where a result goes (the `topic_list_topics` answer)."""

    topic_enabled: bool
    fallback_policy: str
    fallback_topic_key: str | None
    topics: list[TopicEntry]


def topics_for_bot(*, session: Session, bot_id: str) -> BotTopics:
    """The bot's switch, fallback and active topics with their rules in brief. Raises bot_not_found."""
    from topic_dashboard.routing import validate_routing

    settings = load_settings(session=session, bot_id=bot_id)
    entries = []
    for topic in topic_rows(session=session, bot_id=bot_id, active_only=True):
        rule = validate_routing(topic.routing_json or {})
        entries.append(
            TopicEntry(
                topic_key=topic.topic_key,
                name=topic.name,
                description=topic.description,
                purpose=rule.purpose,
                include_when=list(rule.include_when),
                exclude_when=list(rule.exclude_when),
                priority=rule.priority,
                is_fallback=topic.is_default_fallback,
                allowed_view_types=parse_allowed_view_types(topic.view_schema_json),
            )
        )
    return BotTopics(
        topic_enabled=settings.topic_enabled,
        fallback_policy=settings.fallback_policy,
        fallback_topic_key=next((e.topic_key for e in entries if e.is_fallback), None),
        topics=entries,
    )


def _validated_rule(routing_json: Any) -> dict[str, Any]:
    from topic_dashboard.routing import validate_routing

    # Field paths as validate_routing names them ("include_when[1]"), with its code.
    check_json(routing_json, field="routing_json", code="invalid_rule", relative=True)
    return validate_routing(routing_json).model_dump(mode="json", exclude_none=True)


def _validated_view_schema(view_schema_json: Any) -> dict[str, Any]:
    return validate_view_schema_json(check_json(view_schema_json, field="view_schema_json"))


def _validate_text(value: str, field: str, max_chars: int, *, required: bool, single_line: bool) -> str:
    value = check_text(value, field=field).strip()
    if single_line:
        check_line(value, field=field)
    if required and not value:
        raise AppError("validation_error", f"{field} must not be empty", field=field)
    if len(value) > max_chars:
        raise AppError("validation_error", f"{field} is longer than {max_chars} characters", field=field)
    return value


def _validate_name(name: str) -> str:
    return _validate_text(name, "name", MAX_NAME_CHARS, required=True, single_line=True)


def _validate_description(description: str) -> str:
    return _validate_text(description, "description", MAX_DESCRIPTION_CHARS, required=False, single_line=False)


def _record_change(
    session: Session,
    *,
    bot_id: str,
    topic_key: str,
    actor: Actor,
    action: str,
    before: TopicPublic | None,
    after: TopicPublic | None,
    detail: dict[str, Any] | None = None,
    history_label: str | None = None,
) -> None:
    """The rule's history row and the audit row (`topic.<action>`), in the caller's transaction.
    `history_label` names the change in the rule's history instead of `action` (a "move" taught it)."""
    session.add(
        TopicRuleChange(
            bot_id=bot_id,
            topic_key=topic_key,
            actor=actor.name[:100],
            action=(history_label or action)[:16],
            before_json=before.model_dump() if before else None,
            after_json=after.model_dump() if after else None,
        )
    )
    stamps = ("created_at", "updated_at")
    if detail is None:
        detail = changes(
            before.model_dump(exclude=set(stamps)) if before else {},
            after.model_dump(exclude=set(stamps)) if after else {},
        )
    record(
        session=session,
        by=actor,
        action=f"topic.{action}",
        target=f"topic:{bot_id}/{topic_key}",
        bot_id=bot_id,
        topic_key=topic_key,
        detail=detail,
    )


def create_topic(*, session: Session, bot_id: str, data: TopicCreate, actor: Actor | str) -> TopicPublic:
    """Create a topic (its history and audit rows name `actor`; a plain name is a system actor).
    Raises bot_not_found, invalid_topic_key, topic_exists, invalid_rule, validation_error."""
    load_settings(session=session, bot_id=bot_id, for_update=True)
    if not TOPIC_KEY_RE.fullmatch(data.topic_key):
        raise AppError(
            "invalid_topic_key",
            f"the key {printable(data.topic_key)[:80]!r} cannot be used: a topic key is lower-case letters, digits "
            "and underscores, starting with a letter (at most 64)",
            field="topic_key",
        )
    if session.exec(select(Topic.id).where(Topic.bot_id == bot_id, Topic.topic_key == data.topic_key)).first():
        raise AppError("topic_exists", f"topic {data.topic_key!r} exists already", field="topic_key")
    topic = Topic(
        bot_id=bot_id,
        topic_key=data.topic_key,
        name=_validate_name(data.name),
        description=_validate_description(data.description),
        is_active=data.is_active,
        routing_json=_validated_rule(data.routing_json),
        view_schema_json=_validated_view_schema(data.view_schema_json),
        retention_days=_validated_retention(data.retention_days, "retention_days", MAX_RETENTION_DAYS),
        retention_items=_validated_retention(data.retention_items, "retention_items", MAX_RETENTION_ITEMS),
    )
    session.add(topic)
    session.flush()
    public = topic_public(topic)
    _record_change(
        session,
        bot_id=bot_id,
        topic_key=topic.topic_key,
        actor=as_actor(actor),
        action="create",
        before=None,
        after=public,
    )
    bump_rules_version(session, bot_id)
    _store_vectors(session, topic)
    session.commit()
    return public


def _store_vectors(session: Session, topic: Topic) -> None:
    """The new rule texts' vectors go in with the change (routes only read them)."""
    from topic_dashboard.services.routing_service import store_rule_vectors, topic_spec

    store_rule_vectors(session=session, topics=[topic_spec(topic)])


def update_topic(
    *, session: Session, bot_id: str, topic_key: str, data: TopicUpdate, actor: Actor | str
) -> TopicPublic:
    """Change a topic. Raises topic_not_found, immutable_field, fallback_protected, invalid_rule, validation_error."""
    after = apply_topic_update(session=session, bot_id=bot_id, topic_key=topic_key, data=data, actor=actor)
    session.commit()
    return after


def apply_topic_update(
    *,
    session: Session,
    bot_id: str,
    topic_key: str,
    data: TopicUpdate,
    actor: Actor | str,
    history_label: str | None = None,
) -> TopicPublic:
    """`update_topic` in the caller's transaction (which commits it), for services that change more
    than the topic at once. Same checks, history and audit rows and version bumps; raises what it raises.
    `history_label` says in the rule's history what made the change ("move", "undo move")."""
    load_settings(session=session, bot_id=bot_id, for_update=True)
    topic = topic_row(session=session, bot_id=bot_id, topic_key=topic_key)
    before = topic_public(topic)
    if data.topic_key is not None and data.topic_key != topic.topic_key:
        raise AppError(
            "immutable_field", "topic_key cannot change after creation; create a new topic instead", field="topic_key"
        )
    if data.is_default_fallback is not None and data.is_default_fallback != topic.is_default_fallback:
        raise AppError("immutable_field", "which topic is the fallback cannot change", field="is_default_fallback")
    if data.is_active is False and topic.is_default_fallback:
        raise AppError(
            "fallback_protected",
            "the fallback topic cannot be deactivated: unrouted results go there",
            field="is_active",
        )
    if data.name is not None:
        topic.name = _validate_name(data.name)
    if data.description is not None:
        topic.description = _validate_description(data.description)
    if data.is_active is not None:
        topic.is_active = data.is_active
    if data.routing_json is not None:
        topic.routing_json = _validated_rule(data.routing_json)
    if data.view_schema_json is not None:
        topic.view_schema_json = _validated_view_schema(data.view_schema_json)
    if data.retention_days is not None:
        topic.retention_days = _validated_retention(data.retention_days, "retention_days", MAX_RETENTION_DAYS)
    if data.retention_items is not None:
        topic.retention_items = _validated_retention(data.retention_items, "retention_items", MAX_RETENTION_ITEMS)
    topic.updated_at = utcnow()
    session.add(topic)
    session.flush()
    after = topic_public(topic)
    _record_change(
        session,
        bot_id=bot_id,
        topic_key=topic_key,
        actor=as_actor(actor),
        action="update",
        before=before,
        after=after,
        history_label=history_label,
    )
    bump_rules_version(session, bot_id)
    _store_vectors(session, topic)
    return after


def count_items(*, session: Session, bot_id: str, topic_key: str) -> int:
    return session.exec(
        select(sa.func.count())
        .select_from(TopicItem)
        .where(TopicItem.bot_id == bot_id, TopicItem.topic_key == topic_key)
    ).one()


def delete_topic(
    *,
    session: Session,
    bot_id: str,
    topic_key: str,
    actor: Actor | str,
    items: Literal["move", "delete"] | None = None,
) -> int:
    """Delete a topic; its items move to the fallback topic or are deleted, as asked.

    Returns the number of items moved or deleted. Raises topic_not_found, fallback_protected, and
    conflict when the topic has items and `items` does not say what to do with them.
    """
    load_settings(session=session, bot_id=bot_id, for_update=True)
    topic = topic_row(session=session, bot_id=bot_id, topic_key=topic_key)
    if topic.is_default_fallback:
        raise AppError("fallback_protected", "the fallback topic cannot be deleted: unrouted results go there")
    count = count_items(session=session, bot_id=bot_id, topic_key=topic_key)
    if count and items is None:
        raise AppError(
            "conflict",
            f"topic {topic_key!r} has {count} items: say items=move (to the fallback topic) or items=delete",
            field="items",
            item_count=count,
        )
    where = sa.and_(col(TopicItem.bot_id) == bot_id, col(TopicItem.topic_key) == topic_key)
    if count and items == "move":
        fallback = fallback_topic_row(session=session, bot_id=bot_id)
        session.exec(sa.update(TopicItem).where(where).values(topic_key=fallback.topic_key))
    elif count:
        session.exec(sa.delete(TopicItem).where(where))
    _record_change(
        session,
        bot_id=bot_id,
        topic_key=topic_key,
        actor=as_actor(actor),
        action="delete",
        before=topic_public(topic),
        after=None,
        detail={"name": topic.name, "items": count, "items_action": items if count else None},
    )
    session.delete(topic)
    bump_rules_version(session, bot_id)
    session.commit()
    return count


def fallback_topic_row(*, session: Session, bot_id: str) -> Topic:
    """The bot's fallback topic (`inbox`). Raises topic_not_found if it is missing."""
    topic = session.exec(select(Topic).where(Topic.bot_id == bot_id, col(Topic.is_default_fallback).is_(True))).first()
    if topic is None:
        raise AppError("topic_not_found", "this bot has no fallback topic")
    return topic


class RuleChangePublic(BaseModel):
    """One saved change of a topic or its rule: who, what, when, and the topic before and after."""

    id: int
    topic_key: str
    actor: str
    action: str
    created_at: str | None
    before: dict[str, Any] | None
    after: dict[str, Any] | None


def rule_history(
    *, session: Session, bot_id: str, topic_key: str | None = None, limit: int = 50
) -> list[RuleChangePublic]:
    """The newest changes first."""
    query = select(TopicRuleChange).where(TopicRuleChange.bot_id == bot_id)
    if topic_key is not None:
        query = query.where(TopicRuleChange.topic_key == topic_key)
    return [
        RuleChangePublic(
            id=row.id or 0,
            topic_key=row.topic_key,
            actor=row.actor,
            action=row.action,
            created_at=iso_utc(row.created_at),
            before=row.before_json,
            after=row.after_json,
        )
        for row in session.exec(query.order_by(col(TopicRuleChange.id).desc()).limit(limit))
    ]


class TopicOverview(BaseModel):
    topic_key: str
    name: str
    is_active: bool
    is_default_fallback: bool
    priority: int
    item_count: int  # in the panel: archived items left out
    archived_count: int  # archived for everyone (TopicItem.is_archived); still the topic's, e.g. on delete
    last_item_at: str | None


def topics_overview(*, session: Session, bot_id: str) -> list[TopicOverview]:
    """The Rules page's table: every topic with its priority, item counts (in the panel, and archived
    for everyone) and last item time."""
    archived = sa.cast(TopicItem.is_archived, sa.Integer)
    stats = {
        key: (count - int(archived_count or 0), int(archived_count or 0), last)
        for key, count, archived_count, last in session.exec(
            select(TopicItem.topic_key, sa.func.count(), sa.func.sum(archived), sa.func.max(TopicItem.created_at))
            .where(TopicItem.bot_id == bot_id)
            .group_by(TopicItem.topic_key)
        ).all()
    }
    rows = []
    for topic in topic_rows(session=session, bot_id=bot_id):
        count, archived_count, last = stats.get(topic.topic_key, (0, 0, None))
        priority = (topic.routing_json or {}).get("priority", 50)
        rows.append(
            TopicOverview(
                topic_key=topic.topic_key,
                name=topic.name,
                is_active=topic.is_active,
                is_default_fallback=topic.is_default_fallback,
                priority=priority if isinstance(priority, int) else 50,
                item_count=int(count),
                archived_count=archived_count,
                last_item_at=iso_utc(last),
            )
        )
    return rows
