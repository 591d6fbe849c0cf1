"""The Audit page's state."""

from __future__ import annotations

import dataclasses

import reflex as rx

from topic_dashboard.auth.guard import SignedInState
from topic_dashboard.components.bot_choice import BotOption, bot_choice
from topic_dashboard.db import read_session
from topic_dashboard.services import audit as audit_service

PAGE = 100


@dataclasses.dataclass
class AuditRow:
    id: int = 0
    bot_id: str = ""
    tool: str = ""
    outcome: str = ""
    error_code: str = ""
    topic_key: str = ""
    item_id: str = ""
    latency_ms: float = 0.0
    created_at: str = ""
    calls: int = 1


class AuditState(SignedInState):
    bots: list[BotOption] = []
    bot_id: str = "all"
    tool: str = "all"
    outcome: str = "all"
    rows: list[AuditRow] = []
    chart: list[dict[str, str | int]] = []
    has_more: bool = False

    @rx.event
    def load_page(self) -> None:
        self.bots, _ = bot_choice("", reader=self._principal().user_id)
        self._load()

    def _load(self, before_id: int | None = None) -> None:
        with read_session() as session:
            rows = audit_service.list_calls(
                session=session,
                bot_id=None if self.bot_id == "all" else self.bot_id,
                tool=None if self.tool == "all" else self.tool,
                outcome=None if self.outcome == "all" else self.outcome,
                before_id=before_id,
                limit=PAGE + 1,
            )
            if before_id is None:
                self.chart = audit_service.hourly_counts(
                    session=session, bot_id=None if self.bot_id == "all" else self.bot_id
                )
        converted = [
            AuditRow(
                id=r.id,
                bot_id=r.bot_id or "",
                tool=r.tool,
                outcome=r.outcome,
                error_code=r.error_code or "",
                topic_key=r.topic_key or "",
                item_id=str(r.item_id or ""),
                latency_ms=r.latency_ms,
                created_at=r.created_at or "",
                calls=r.calls,
            )
            for r in rows[:PAGE]
        ]
        self.rows = converted if before_id is None else self.rows + converted
        self.has_more = len(rows) > PAGE

    @rx.event
    def set_bot(self, value: str) -> None:
        self.bot_id = value
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
    def load_more(self) -> None:
        if self.rows:
            self._load(before_id=self.rows[-1].id)

    @rx.event
    def refresh(self) -> None:
        self._load()
