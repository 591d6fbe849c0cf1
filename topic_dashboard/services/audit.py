"""The audit trail (docs/DESIGN.md §2.5, §3.6): one row per MCP tool call, accepted or not, and one per
action of a person, an API token or the system that changes what others see.

Rows are only ever added: nothing in the application updates or deletes one (except the per-minute
summary row of a refused flood, whose count goes up).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import sqlalchemy as sa
from pydantic import BaseModel, Field
from sqlmodel import Session, col, select

from topic_dashboard.models import AuditLog, Bot, iso_utc, utcnow
from topic_dashboard.services.audit_detail import DETAIL_MAX_CHARS, detail_text
from topic_dashboard.text_policy import is_lookup_key

# Every stored text is cut to its column; a cut value ends with a marker.
FIELD_MAX_CHARS = 64
OUTCOME_MAX_CHARS = 32
ACTOR_KIND_MAX_CHARS = 16
ACTOR_MAX_CHARS = 100
TARGET_MAX_CHARS = 200
# Refused (or failed) calls of one bot, or refused actions of one person or token, that get a row each
# per minute; the rest of that minute is counted into one `suppressed` row, so a flood stays visible
# but cannot grow the trail without bound.
REFUSED_ROWS_PER_MINUTE = 30
NOT_ACCEPTED = ("refused", "error")
# Refusals that kept chat, progress, tool hints or noise out of the topics: the product doing its job.
FILTERED_PREFIX = "filtered_"


def failed_call(outcome: Any, error_code: Any) -> sa.ColumnElement[bool]:
    """SQL: a refused or failed call that says something went wrong (the failure rate's numerator, on the
    Insights page and in alerts). A `filtered_*` refusal is not one: a bot that sends "Thanks!" and is told
    it is chat behaves as designed, and counting it made a bot that works well look 20% failing."""
    filtered = sa.func.coalesce(error_code, "").like(FILTERED_PREFIX.replace("_", "\\_") + "%", escape="\\")
    return sa.and_(outcome.in_(NOT_ACCEPTED), sa.not_(filtered))


def is_filtered_refusal(outcome: str, error_code: str | None) -> bool:
    """A stored row's `failed_call` counterpart: a refusal that kept chat, progress, tool hints or noise out."""
    return outcome == "refused" and (error_code or "").startswith(FILTERED_PREFIX)


SUPPRESSED = "suppressed"
# Not an outcome that is stored: the filter for the rows the failure rate counts (`failing_row`), so that
# Insights' "Failure rate per bot" can open the Audit page on a bot's failures and nothing else.
FAILED = "failed"


def failing_row(outcome: Any, error_code: Any) -> sa.ColumnElement[bool]:
    """SQL: a row the failure rate counts: a failed call (`failed_call`) or a `suppressed` row, which counts
    the refusals past the per-minute cap."""
    return sa.or_(outcome == SUPPRESSED, failed_call(outcome, error_code))


SUPPRESSED_TOOL = "*"
ACTOR_KINDS = ("bot", "user", "api_token", "system")
MCP_TOOLS = ("topic_list_topics", "topic_get_schema", "topic_route", "topic_publish", "ccweb_list_user_inputs")
# Every action people, API tokens and the system are audited for (docs/DESIGN.md §3.6); each row's
# `tool` is one of these or one of MCP_TOOLS.
ACTIONS = (
    "bot.create",
    "bot.rotate_token",
    "bot.delete",
    "bot.update_mcp_config",
    "bot.update_chat_endpoint",
    "bot.update_settings",
    "bot.set_topic_enabled",
    "topic.create",
    "topic.update",
    "topic.delete",
    "retention.purge",
    *(f"item.{verb}" for verb in ("read", "unread", "pin", "unpin", "archive", "unarchive")),
    "item.resolve",
    "item.reopen",
    *(f"item.bulk_{verb}" for verb in ("read", "unread", "pin", "unpin", "archive", "unarchive")),
    "item.mark_all_read",
    "item.mark_all_read_undo",
    "item.move",
    "item.move_undo",
    "item.bulk_move",
    "item.bulk_move_undo",
    "conversation.create",
    "conversation.rename",
    "conversation.delete",
    "conversation.add_message",
    "conversation.send",
    "conversation.submit_guide_card",
    "conversation.retry",
    "conversation.stop",
    "auth.login",
    "auth.logout",
    "user.create",
    "user.enable",
    "user.disable",
    "user.set_role",
    "user.delete",
    "user.reset_password",
    "user.change_password",
    "user.log_out_everywhere",
    "api_token.create",
    "api_token.revoke",
    "alert.create",
    "alert.delete",
    "alert.open",
    "alert.clear",
)
MAX_PAGE = 500
# Who logged in from where, failed log-ins, accounts and API tokens: an admin's to read. Anyone else reads
# only their own such rows (a walkthrough's viewer read the admins' log-ins and their addresses).
ACCOUNT_ACTIONS = tuple(action for action in ACTIONS if action.split(".", 1)[0] in ("auth", "user", "api_token"))


@dataclass(frozen=True)
class AuditReader:
    """Who reads the trail: an admin reads it all; anyone else every row but others' account rows."""

    kind: str  # user | api_token | admin_token
    name: str
    is_admin: bool


def _readable_by(reader: AuditReader) -> sa.ColumnElement[bool]:
    """The rows `reader` may read (for a non-admin: not another's account or security row)."""
    own = sa.and_(col(AuditLog.actor_kind) == reader.kind, col(AuditLog.actor) == reader.name)
    about_me = col(AuditLog.target) == f"user:{reader.name}" if reader.kind == "user" else sa.false()
    return sa.or_(col(AuditLog.tool).not_in(ACCOUNT_ACTIONS), own, about_me)


class AuditPublic(BaseModel):
    id: int
    bot_id: str | None
    tool: str = Field(description="The MCP tool, or the action's name (bot.create, topic.update, …).")
    outcome: str
    error_code: str | None
    topic_key: str | None
    item_id: int | None
    latency_ms: float
    created_at: str | None
    calls: int = Field(default=1, description="How many calls the row stands for (more than 1 only when suppressed).")
    actor_kind: str = Field(default="bot", description="bot, user, api_token or system")
    actor: str | None = Field(default=None, description="The username, API token name, bot id or system task.")
    target: str | None = Field(default=None, description='What the action changed: "bot:<id>", "item:<id>", …')
    detail: str | None = Field(default=None, description="JSON text, secrets masked, at most 4,000 characters.")


@dataclass(frozen=True)
class Actor:
    """Who takes an action: `kind` is one of ACTOR_KINDS, `name` a username, token name or task name."""

    kind: str
    name: str


class _Caller(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str: ...


def actor_of(principal: _Caller) -> Actor:
    """The actor behind a signed-in person or an API token (the admin-token setting counts as one)."""
    return Actor("user" if principal.kind == "user" else "api_token", principal.name)


def as_actor(actor: Actor | str) -> Actor:
    """A plain name (scripts, the demo, tests) stands for a system actor of that name."""
    return actor if isinstance(actor, Actor) else Actor("system", actor)


RETENTION_SWEEP = Actor("system", "retention")


@dataclass(frozen=True)
class CallAudit:
    """The audit row a service writes inside its own transaction: which tool, and when the call began."""

    tool: str
    started: float = field(default_factory=time.perf_counter)

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000


def storable_text(value: str, limit: int = FIELD_MAX_CHARS) -> str:
    """`value` as every backend stores it: NUL and lone surrogates escaped, at most `limit` characters.

    PostgreSQL text cannot hold NUL and no driver encodes a lone surrogate; a longer value keeps its
    start and ends with a marker naming its original length.
    """
    head = value[: limit + 1]  # the rest is cut anyway: never escape megabytes
    clean = head.replace("\x00", "\\x00").encode("utf-8", "backslashreplace").decode("utf-8")
    if len(value) <= limit and len(clean) <= limit:
        return clean
    marker = f"…[{len(value)} chars]"
    return clean[: max(0, limit - len(marker))] + marker


def _optional(value: str | None, limit: int = FIELD_MAX_CHARS) -> str | None:
    return None if value is None else storable_text(value, limit)


# --- MCP tool calls -------------------------------------------------------------------------------


def add_call(
    *,
    session: Session,
    bot_id: str | None,
    tool: str,
    outcome: str,
    error_code: str | None = None,
    topic_key: str | None = None,
    item_id: int | None = None,
    latency_ms: float = 0.0,
) -> None:
    """Add one bounded audit row to the caller's transaction (the caller commits: both or neither)."""
    session.add(_bounded_call(bot_id, tool, outcome, error_code, topic_key, item_id, latency_ms, None))


def record_call(
    *,
    session: Session,
    bot_id: str | None,
    tool: str,
    outcome: str,
    error_code: str | None = None,
    topic_key: str | None = None,
    item_id: int | None = None,
    latency_ms: float = 0.0,
    error: Mapping[str, Any] | None = None,
) -> None:
    """Write one audit row in its own transaction (so refused calls, rolled back, still leave one).

    `error` is what a refused call answered (the tool error's `{"code", "message", "field", ...}`): it is
    kept as the row's detail, masked and bounded like every detail, so the Audit page can say why.
    A bot's refused calls beyond REFUSED_ROWS_PER_MINUTE in a minute are counted into that minute's
    one `suppressed` row instead.
    """
    row = _bounded_call(bot_id, tool, outcome, error_code, topic_key, item_id, latency_ms, error)
    if row.outcome in NOT_ACCEPTED:
        _add_not_accepted(session, row)
    else:
        session.add(row)
    session.commit()


def _bounded_call(
    bot_id: str | None,
    tool: str,
    outcome: str,
    error_code: str | None,
    topic_key: str | None,
    item_id: int | None,
    latency_ms: float,
    error: Mapping[str, Any] | None,
) -> AuditLog:
    text = detail_text({"error": dict(error)}) if error else None
    return AuditLog(
        bot_id=_optional(bot_id),
        tool=storable_text(tool),
        outcome=storable_text(outcome, OUTCOME_MAX_CHARS),
        error_code=_optional(error_code),
        topic_key=_optional(topic_key),
        item_id=item_id,
        latency_ms=round(latency_ms, 3),
        actor_kind="bot",
        actor=_optional(bot_id, ACTOR_MAX_CHARS),
        detail=None if text is None else storable_text(text, DETAIL_MAX_CHARS),
    )


# --- actions of people, API tokens and the system ---------------------------------------------------


def record_action(
    *,
    session: Session,
    actor_kind: str,
    actor: str,
    action: str,
    target: str | None,
    bot_id: str | None = None,
    outcome: str = "ok",
    error_code: str | None = None,
    detail: Mapping[str, Any] | None = None,
    topic_key: str | None = None,
    item_id: int | None = None,
) -> None:
    """Add one bounded audit row for an action to the caller's transaction: the action and its row are
    committed together, or neither. `detail` is stored as JSON with every secret masked (by key
    name: passwords, tokens, hashes, keys, headers, env) and cut to DETAIL_MAX_CHARS.

    Raises ValueError for an actor kind outside ACTOR_KINDS (a programming error, not input).
    """
    session.add(
        _bounded_action(actor_kind, actor, action, target, bot_id, outcome, error_code, detail, topic_key, item_id)
    )


def record(
    *,
    session: Session,
    by: Actor,
    action: str,
    target: str | None,
    detail: Mapping[str, Any] | None = None,
    **more: Any,
) -> None:
    """`record_action` for an `Actor` (what the services hold)."""
    record_action(
        session=session, actor_kind=by.kind, actor=by.name, action=action, target=target, detail=detail, **more
    )


def add_refusal(
    *,
    session: Session,
    by: Actor,
    action: str,
    error_code: str,
    target: str | None = None,
    detail: Mapping[str, Any] | None = None,
) -> None:
    """Add a refused action's row to the caller's transaction (the caller commits), capped per minute
    per actor like every refusal (a password-guessing flood leaves one `suppressed` row a minute)."""
    row = _bounded_action(by.kind, by.name, action, target, None, "refused", error_code, detail, None, None)
    _add_not_accepted(session, row)


def record_refusal(
    *,
    session: Session,
    actor_kind: str,
    actor: str,
    action: str,
    error_code: str,
    target: str | None = None,
    bot_id: str | None = None,
    detail: Mapping[str, Any] | None = None,
) -> None:
    """Write a refused action's row in its own transaction (the action's own was rolled back): pass a
    session that holds nothing else. Beyond REFUSED_ROWS_PER_MINUTE refusals of one actor in a
    minute, the rest are counted into that minute's one `suppressed` row. A `bot_id` that names no
    bot is dropped (the target still names it): the Audit page's bot filter lists real bots."""
    if bot_id is not None and (not is_lookup_key(bot_id) or session.get(Bot, bot_id) is None):
        bot_id = None
    row = _bounded_action(actor_kind, actor, action, target, bot_id, "refused", error_code, detail, None, None)
    _add_not_accepted(session, row)
    session.commit()


def _bounded_action(
    actor_kind: str,
    actor: str,
    action: str,
    target: str | None,
    bot_id: str | None,
    outcome: str,
    error_code: str | None,
    detail: Mapping[str, Any] | None,
    topic_key: str | None,
    item_id: int | None,
) -> AuditLog:
    if actor_kind not in ACTOR_KINDS:
        raise ValueError(f"actor_kind must be one of {ACTOR_KINDS}, not {actor_kind!r}")
    text = detail_text(detail)
    return AuditLog(
        actor_kind=actor_kind,
        actor=storable_text(actor, ACTOR_MAX_CHARS),
        tool=storable_text(action),
        target=_optional(target, TARGET_MAX_CHARS),
        bot_id=_optional(bot_id),
        outcome=storable_text(outcome, OUTCOME_MAX_CHARS),
        error_code=_optional(error_code),
        topic_key=_optional(topic_key),
        item_id=item_id,
        detail=None if text is None else storable_text(text, DETAIL_MAX_CHARS),
    )


# --- the per-minute cap on refusals -----------------------------------------------------------------


def _add_not_accepted(session: Session, row: AuditLog) -> None:
    """Add `row`, or count it into the minute's suppressed row once its bot (or, for an action, its
    actor) used its allowance."""
    bot_call = row.actor_kind == "bot"
    _lock_trail(session, f"{row.bot_id}" if bot_call else f"{row.actor_kind}:{row.actor}")
    minute = row.created_at.replace(second=0, microsecond=0)
    table = sa.inspect(AuditLog).local_table  # AuditLog.__table__, which SQLModel's types do not declare
    assert isinstance(table, sa.Table)  # narrows the mapper's FromClause
    column = table.c
    if bot_call:
        same = column.bot_id == row.bot_id if row.bot_id is not None else column.bot_id.is_(None)
    else:
        same = sa.and_(column.actor_kind == row.actor_kind, column.actor == row.actor)
    rows_this_minute = session.exec(
        select(sa.func.count()).where(same, column.outcome.in_(NOT_ACCEPTED), column.created_at >= minute)
    ).one()
    if rows_this_minute < REFUSED_ROWS_PER_MINUTE:
        session.add(row)
        return
    summary = session.exec(
        select(column.id).where(same, column.outcome == SUPPRESSED, column.created_at >= minute)
    ).first()
    if summary is None:
        # Until the table has a count column, a suppressed row keeps its count in item_id (it names no item).
        session.add(
            AuditLog(
                bot_id=row.bot_id,
                tool=SUPPRESSED_TOOL,
                outcome=SUPPRESSED,
                item_id=1,
                created_at=row.created_at,
                actor_kind=row.actor_kind,
                actor=row.actor,
            )
        )
    else:
        session.exec(sa.update(table).where(column.id == summary).values(item_id=column.item_id + 1))


def _lock_trail(session: Session, key: str) -> None:
    """Serialise the count-then-write of one bot's (or actor's) refused rows (SQLite: BEGIN IMMEDIATE does)."""
    bind = session.get_bind()
    if bind.dialect.name == "postgresql":
        lock = sa.text("SELECT pg_advisory_xact_lock(hashtext(:key))").bindparams(key=f"audit:{key}")
        session.connection().execute(lock)  # the session's transaction; SQLModel's exec() takes no text()


# --- reading the trail ------------------------------------------------------------------------------


def _public(row: AuditLog) -> AuditPublic:
    suppressed = row.outcome == SUPPRESSED
    return AuditPublic(
        id=row.id or 0,
        bot_id=row.bot_id,
        tool=row.tool,
        outcome=row.outcome,
        error_code=row.error_code,
        topic_key=row.topic_key,
        item_id=None if suppressed else row.item_id,
        latency_ms=row.latency_ms,
        created_at=iso_utc(row.created_at),
        calls=(row.item_id or 1) if suppressed else 1,
        actor_kind=row.actor_kind,
        actor=row.actor,
        target=row.target,
        detail=row.detail,
    )


def get_call(*, session: Session, audit_id: int, reader: AuditReader | None = None) -> AuditPublic | None:
    """One row by its id, or None (also when `reader` may not read it: as if it were not there)."""
    if not 0 < audit_id < 2**63:
        return None
    query = select(AuditLog).where(col(AuditLog.id) == audit_id)
    if reader is not None and not reader.is_admin:
        query = query.where(_readable_by(reader))
    row = session.exec(query).first()
    return _public(row) if row is not None else None


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def list_calls(
    *,
    session: Session,
    bot_id: str | None = None,
    tool: str | None = None,
    outcome: str | None = None,
    actor: str | None = None,
    actor_kind: str | None = None,
    error_code: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    before_id: int | None = None,
    limit: int = 100,
    reader: AuditReader | None = None,
) -> list[AuditPublic]:
    """Audit rows newest first, filtered (by the values as stored; `tool` is the tool or action name;
    `since` inclusive, `until` exclusive; a naive time is UTC), paged by id: pass the last row's id
    as `before_id` for the next page. `outcome` "failed" (FAILED) finds the rows the failure rate counts.
    With a `reader` who is no admin, others' account rows are left out."""
    query = select(AuditLog)
    if reader is not None and not reader.is_admin:
        query = query.where(_readable_by(reader))
    if outcome == FAILED:
        query = query.where(failing_row(col(AuditLog.outcome), col(AuditLog.error_code)))
        outcome = None
    for column, value, limit_chars in (
        (AuditLog.bot_id, bot_id, FIELD_MAX_CHARS),
        (AuditLog.tool, tool, FIELD_MAX_CHARS),
        (AuditLog.outcome, outcome, OUTCOME_MAX_CHARS),
        (AuditLog.actor, actor, ACTOR_MAX_CHARS),
        (AuditLog.actor_kind, actor_kind, ACTOR_KIND_MAX_CHARS),
        (AuditLog.error_code, error_code, FIELD_MAX_CHARS),
    ):
        if value:
            query = query.where(column == storable_text(value, limit_chars))
    if since is not None:
        query = query.where(col(AuditLog.created_at) >= _aware(since))
    if until is not None:
        query = query.where(col(AuditLog.created_at) < _aware(until))
    if before_id:
        query = query.where(col(AuditLog.id) < before_id)
    rows = session.exec(query.order_by(col(AuditLog.id).desc()).limit(max(1, min(limit, MAX_EXPORT))))
    return [_public(row) for row in rows]


MAX_EXPORT = 10_000
EXPORT_COLUMNS = (
    "id",
    "created_at",
    "actor_kind",
    "actor",
    "bot",
    "bot_id",
    "action",
    "target",
    "outcome",
    "error_code",
    "calls",
    "topic_key",
    "item_id",
    "latency_ms",
    "detail",
)


def as_csv(rows: list[AuditPublic], bot_names: Mapping[str, str]) -> str:
    """The rows as CSV (a BOM first; cells a spreadsheet would run as a formula defused), each bot by
    name too. `bot_names`: bot id -> name (a deleted bot keeps only its id)."""
    from topic_dashboard.services.export import csv_text

    return csv_text(
        EXPORT_COLUMNS,
        [
            {
                **row.model_dump(),
                "action": row.tool,
                "bot": bot_names.get(row.bot_id or "", "") if row.bot_id else "",
                "item_id": row.item_id,
            }
            for row in rows
        ],
    )


def hourly_counts(*, session: Session, bot_id: str | None = None, hours: int = 24) -> list[dict[str, object]]:
    """Tool calls per hour (UTC) over the last `hours`, split into accepted, filtered (chat, progress or noise
    kept out: the product doing its job) and refused (a suppressed row counts the refusals it stands for), oldest first, for the chart; people's actions are not counted.
    Counted in the database, one row per hour (1,000,000 rows: docs/PERFORMANCE.md)."""
    now = utcnow().replace(minute=0, second=0, microsecond=0)
    start = now - timedelta(hours=hours - 1)
    created = col(AuditLog.created_at)
    if session.get_bind().dialect.name == "postgresql":
        hour = sa.func.to_char(sa.func.timezone("UTC", created), "YYYY-MM-DD HH24")
    else:  # SQLite keeps UTC date-times as text
        hour = sa.func.strftime("%Y-%m-%d %H", created)
    outcome = col(AuditLog.outcome)
    # A `filtered_*` refusal kept chat, progress or noise out: counted apart, as Insights does (not a failure).
    kept_out = sa.and_(outcome == "refused", sa.not_(failed_call(outcome, col(AuditLog.error_code))))
    filtered = sa.case((kept_out, 1), else_=0)
    refused = sa.case(
        (outcome == SUPPRESSED, sa.func.coalesce(col(AuditLog.item_id), 1)),
        (kept_out, 0),
        (outcome == "refused", 1),
        else_=0,
    )
    accepted = sa.case((outcome.in_(("refused", SUPPRESSED)), 0), else_=1)
    query = (
        select(hour.label("hour"), sa.func.sum(accepted), sa.func.sum(filtered), sa.func.sum(refused))
        .where(created >= start, col(AuditLog.actor_kind) == "bot")
        .group_by(hour)
    )
    if bot_id:
        query = query.where(col(AuditLog.bot_id) == storable_text(bot_id))
    counted = {str(key): (int(ok or 0), int(kept or 0), int(bad or 0)) for key, ok, kept, bad in session.exec(query)}
    buckets = []
    for i in range(hours):
        at = start + timedelta(hours=i)
        ok, kept, bad = counted.get(at.strftime("%Y-%m-%d %H"), (0, 0, 0))
        buckets.append({"hour": at.strftime("%H:00"), "ok": ok, "filtered": kept, "refused": bad})
    return buckets
