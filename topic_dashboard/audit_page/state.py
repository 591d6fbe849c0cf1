"""The Audit page's state: the trail filtered and paged in the database, one row's detail, CSV export."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import reflex as rx

from topic_dashboard.audit_page.detail import DetailFact, detail_facts, detail_json, opens
from topic_dashboard.auth.guard import SignedInState
from topic_dashboard.components.bot_choice import BotOption, bot_choice
from topic_dashboard.components.last_bot import remember_bot
from topic_dashboard.db import read_session
from topic_dashboard.errors import AppError
from topic_dashboard.services import audit as audit_service

PAGE = 100
ALL = "all"
OUTCOMES = ("ok", "deduplicated", "updated", "refused", "error", "suppressed")
# what `?outcome=` may name: a stored outcome, or the failures as Insights counts them
LINKED_OUTCOMES = frozenset((*OUTCOMES, audit_service.FAILED))


@dataclasses.dataclass
class AuditRow:
    id: int = 0
    created_at: str = ""  # "YYYY-MM-DD HH:MM:SS", UTC
    actor_kind: str = ""
    actor: str = ""  # a bot's name for a bot's call; else the username, token name or task
    bot_id: str = ""
    bot_name: str = ""
    tool: str = ""
    target: str = ""
    outcome: str = ""
    error_code: str = ""
    topic_key: str = ""
    item_id: str = ""
    latency_ms: float = 0.0
    calls: int = 1
    has_detail: bool = False
    filtered: bool = False  # a refusal that kept chat, progress or noise out: not a failure


def _day(text: str, field: str) -> datetime | None:
    """A YYYY-MM-DD day (UTC) typed in a filter, or None when empty. Raises validation_error."""
    value = text.strip()
    if not value:
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError as exc:
        raise AppError("validation_error", "a day is YYYY-MM-DD", field=field) from exc


def _call_target(row: audit_service.AuditPublic) -> str:
    """What a bot's tool call reached (its topic and item), for rows that name no target of their own."""
    if row.item_id:
        return f"item:{row.item_id}" + (f" in {row.topic_key}" if row.topic_key else "")
    return f"topic:{row.topic_key}" if row.topic_key else ""


def _target_text(row: audit_service.AuditPublic, names: dict[str, str]) -> str:
    """What a row changed, as a person reads it: a bot by its name ("bot Shop ops", not "bot:d91d4143fa60"), and
    the switch's new state ("bot Shop ops: delivery off"), which a walkthrough could read only in the Detail."""
    target = row.target or _call_target(row)
    if target.startswith("bot:") and (name := names.get(target.removeprefix("bot:"))):
        target = f"bot {name}"
    if row.tool == "bot.set_topic_enabled" and row.detail:
        try:
            after = json.loads(row.detail).get("topic_enabled", {}).get("after")
        except (ValueError, AttributeError):
            after = None
        if isinstance(after, bool):
            target += ": delivery on" if after else ": delivery off"
    return target


class AuditState(SignedInState):
    bots: list[BotOption] = []
    bot_id: str = ALL
    tool: str = ALL  # the MCP tool or the action
    outcome: str = ALL
    actor: str = ""
    error_code: str = ""
    since: str = ""  # YYYY-MM-DD, UTC, inclusive
    until: str = ""  # YYYY-MM-DD, UTC, inclusive
    filter_error: str = ""
    rows: list[AuditRow] = []
    chart: list[dict[str, str | int]] = []
    has_more: bool = False
    detail_open: bool = False
    detail_title: str = ""
    detail_facts: list[DetailFact] = []
    detail_text: str = ""  # the recorded detail as indented JSON ("" when the facts say all of it)

    @rx.event
    def load_page(self) -> None:
        """on_load: the whole trail. A trail narrowed to the bot last chosen would hide what people and tokens
        did (they have no bot): this page opens on all bots, and uses `bot_choice` for its options only."""
        self.bots, _ = bot_choice("", reader=self._principal().user_id, fallback=False)
        query = self.router.url.query_parameters
        wanted = query.get("bot", "")
        if any(bot.id == wanted for bot in self.bots):  # a link that names a bot (Insights' failure rate per bot)
            self.bot_id = wanted
        if query.get("outcome", "") in LINKED_OUTCOMES:  # ... and its failures
            self.outcome = query["outcome"]
        self._load()

    def _reader(self) -> audit_service.AuditReader:
        principal = self._principal()
        return audit_service.AuditReader(kind=principal.kind, name=principal.name, is_admin=principal.is_admin)

    def _bot_names(self) -> dict[str, str]:
        return {bot.id: bot.name for bot in self.bots}

    def _filters(self) -> dict[str, Any]:
        """The filters as list_calls takes them. Raises validation_error (a day that is no day)."""
        until = _day(self.until, "until")
        return {
            "bot_id": None if self.bot_id == ALL else self.bot_id,
            "tool": None if self.tool == ALL else self.tool,
            "outcome": None if self.outcome == ALL else self.outcome,
            # A bot is shown by its name and stored by its id: either finds its calls.
            "actor": {bot.name: bot.id for bot in self.bots}.get(self.actor.strip(), self.actor.strip()) or None,
            "error_code": self.error_code.strip() or None,
            "since": _day(self.since, "since"),
            "until": until + timedelta(days=1) if until is not None else None,
        }

    def _row(self, row: audit_service.AuditPublic, names: dict[str, str]) -> AuditRow:
        bot_name = names.get(row.bot_id or "", row.bot_id or "")
        actor = row.actor or ""
        return AuditRow(
            id=row.id,
            created_at=(row.created_at or "")[:19].replace("T", " "),
            actor_kind=row.actor_kind,
            actor=names.get(actor, actor) if row.actor_kind == "bot" else actor,
            bot_id=row.bot_id or "",
            bot_name=bot_name,
            tool=row.tool,
            target=_target_text(row, names),
            outcome=row.outcome,
            error_code=row.error_code or "",
            topic_key=row.topic_key or "",
            item_id=str(row.item_id or ""),
            latency_ms=row.latency_ms,
            calls=row.calls,
            has_detail=opens(row),
            filtered=audit_service.is_filtered_refusal(row.outcome, row.error_code),
        )

    def _load(self, before_id: int | None = None) -> None:
        try:
            filters = self._filters()
        except AppError as error:
            self.filter_error = error.message
            return
        self.filter_error = ""
        with read_session() as session:
            rows = audit_service.list_calls(
                session=session, **filters, before_id=before_id, limit=PAGE + 1, reader=self._reader()
            )
            if before_id is None:
                self.chart = audit_service.hourly_counts(session=session, bot_id=filters["bot_id"])
        names = self._bot_names()
        converted = [self._row(row, names) for row in rows[:PAGE]]
        self.rows = converted if before_id is None else self.rows + converted
        self.has_more = len(rows) > PAGE

    @rx.event
    async def set_bot(self, value: str) -> None:
        """One bot's calls (the person's choice from now on, where the other pages open) or all."""
        self.bot_id = value if isinstance(value, str) and any(bot.id == value for bot in self.bots) else ALL
        if self.bot_id != ALL:
            await remember_bot(self, self.bot_id)
        self._load()

    @rx.event
    def set_tool(self, value: str) -> None:
        self.tool = value
        self._load()

    @rx.event
    def set_outcome(self, value: str) -> None:
        self.outcome = value
        self._load()

    @rx.event
    def set_actor(self, value: str) -> None:
        self.actor = value[: audit_service.ACTOR_MAX_CHARS]
        self._load()

    @rx.event
    def set_error_code(self, value: str) -> None:
        self.error_code = value[: audit_service.FIELD_MAX_CHARS]
        self._load()

    @rx.event
    def set_since(self, value: str) -> None:
        self.since = value[:10]
        self._load()

    @rx.event
    def set_until(self, value: str) -> None:
        self.until = value[:10]
        self._load()

    @rx.event
    def clear_filters(self) -> None:
        self.bot_id, self.tool, self.outcome = ALL, ALL, ALL
        self.actor = self.error_code = self.since = self.until = ""
        self._load()

    @rx.event
    def load_more(self) -> None:
        if self.rows:
            self._load(before_id=self.rows[-1].id)

    @rx.event
    def refresh(self) -> None:
        self._load()

    @rx.event
    def open_detail(self, audit_id: int) -> rx.event.EventSpec | None:
        """Show one row's facts and detail as plain text (read from the database: rows do not carry it); a
        refused call says what was refused and why."""
        try:
            wanted = int(audit_id)
        except (TypeError, ValueError):
            return None
        with read_session() as session:
            row = audit_service.get_call(session=session, audit_id=wanted, reader=self._reader())
        if row is None:
            return rx.toast.error("That audit row is not there")
        shown = self._row(row, self._bot_names())
        self.detail_title = f"{row.tool} {row.outcome} · {shown.created_at} UTC"
        self.detail_facts = detail_facts(row, bot_name=shown.bot_name, actor=shown.actor)
        self.detail_text = detail_json(row.detail)
        self.detail_open = True
        return None

    @rx.event
    def set_detail_open(self, value: bool) -> None:
        self.detail_open = value
        if not value:
            self.detail_text, self.detail_facts = "", []

    @rx.event
    def export_csv(self) -> rx.event.EventSpec | None:
        """Download the rows the filters select (newest first, at most audit_service.MAX_EXPORT) as CSV."""
        try:
            filters = self._filters()
        except AppError as error:
            return rx.toast.error(error.message)
        with read_session() as session:
            rows = audit_service.list_calls(
                session=session, **filters, limit=audit_service.MAX_EXPORT, reader=self._reader()
            )
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M")
        return rx.download(
            data=audit_service.as_csv(rows, self._bot_names()), filename=f"audit-{stamp}.csv", mime_type="text/csv"
        )
