"""The Retention dialog of the open topic: keep N days and/or the newest N items, what a purge would
delete now (the dry run), and "Purge now"."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.auth.guard import admin_only
from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.rules_editor.editor_state import RuleEditorState
from topic_dashboard.rules_editor.state import RulesState
from topic_dashboard.services import retention
from topic_dashboard.services import topics as topic_service
from topic_dashboard.services.audit import actor_of


def _limit(text: str, field: str) -> int:
    """The typed limit as a number: empty is 0 (no limit). Raises validation_error."""
    value = text.strip()
    if not value:
        return 0
    if not value.isdigit():
        raise AppError("validation_error", "Use a whole number, or leave it empty for no limit", field=field)
    return int(value)


class RetentionState(RulesState):
    retention_open: bool = False
    keep_days: str = ""
    keep_items: str = ""
    would_purge: int = 0  # what a purge would delete now, with the saved limits
    saved_days: int = 0
    saved_items: int = 0
    retention_error: str = ""

    async def _load(self) -> None:
        key = (await self.get_state(RuleEditorState)).selected_key
        with read_session() as session:
            topic = topic_service.get_topic(session=session, bot_id=self.bot_id, topic_key=key)
            self.would_purge = retention.count_purgeable(session=session, bot_id=self.bot_id, topic_key=key).items
        self.saved_days, self.saved_items = topic.retention_days or 0, topic.retention_items or 0
        self.keep_days = str(self.saved_days) if self.saved_days else ""
        self.keep_items = str(self.saved_items) if self.saved_items else ""

    @rx.event
    async def open_retention(self) -> rx.event.EventSpec | None:
        try:
            await self._load()
        except AppError as error:
            return rx.toast.error(error.message)
        self.retention_error = ""
        self.retention_open = True
        return None

    @rx.event
    def set_retention_open(self, value: bool) -> None:
        self.retention_open = value

    @rx.event
    def set_keep_days(self, value: str) -> None:
        self.keep_days = value[:8]

    @rx.event
    def set_keep_items(self, value: str) -> None:
        self.keep_items = value[:8]

    @rx.event
    @admin_only
    async def save_retention(self) -> rx.event.EventSpec | None:
        key = (await self.get_state(RuleEditorState)).selected_key
        try:
            update = topic_service.TopicUpdate(
                retention_days=_limit(self.keep_days, "retention_days"),
                retention_items=_limit(self.keep_items, "retention_items"),
            )
            with write_session() as session:
                topic_service.update_topic(
                    session=session, bot_id=self.bot_id, topic_key=key, data=update, actor=actor_of(self._principal())
                )
            await self._load()
        except AppError as error:
            self.retention_error = error.message
            return None
        self.retention_error = ""
        return rx.toast.success(f"Retention of {key!r} saved")

    @rx.event
    @admin_only
    async def purge_now(self) -> rx.event.EventSpec | None:
        key = (await self.get_state(RuleEditorState)).selected_key
        try:
            result = retention.purge_topic(
                sessions=write_session, bot_id=self.bot_id, topic_key=key, actor=actor_of(self._principal())
            )
            await self._load()
        except AppError as error:
            return rx.toast.error(error.message)
        self._load_topics()
        count = result.items
        return rx.toast.success(f"Purged {count} item{'s' if count != 1 else ''} of {key!r}")
