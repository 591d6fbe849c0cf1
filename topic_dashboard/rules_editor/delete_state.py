"""The delete dialog for the open topic: what happens to its items (moved to the fallback topic, or deleted)."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.auth.guard import admin_only
from topic_dashboard.db import write_session
from topic_dashboard.errors import AppError
from topic_dashboard.rules_editor.editor_state import RuleEditorState
from topic_dashboard.rules_editor.state import RulesState
from topic_dashboard.services import topics as topic_service
from topic_dashboard.services.audit import actor_of


class DeleteTopicState(RulesState):
    delete_open: bool = False
    delete_items: str = "move"
    delete_item_count: int = 0

    @rx.event
    async def open_delete(self) -> rx.event.EventSpec | None:
        editor = await self.get_state(RuleEditorState)
        if editor.is_fallback:
            return rx.toast.error("The fallback topic cannot be deleted: unrouted results go there")
        # archived items are the topic's too: they move or go with it
        self.delete_item_count = next(
            (row.item_count + row.archived_count for row in self.topics if row.key == editor.selected_key), 0
        )
        self.delete_items = "move"
        self.delete_open = True
        return None

    @rx.event
    def set_delete_open(self, value: bool) -> None:
        self.delete_open = value

    @rx.event
    def set_delete_items(self, value: str) -> None:
        self.delete_items = value

    @rx.event
    @admin_only
    async def confirm_delete(self) -> rx.event.EventSpec | list[rx.event.EventSpec]:
        key = (await self.get_state(RuleEditorState)).selected_key
        try:
            with write_session() as session:
                count = topic_service.delete_topic(
                    session=session,
                    bot_id=self.bot_id,
                    topic_key=key,
                    actor=actor_of(self._principal()),
                    items="delete" if self.delete_items == "delete" else "move",
                )
        except AppError as error:
            self.delete_open = False
            return rx.toast.error(error.message)
        self.delete_open = False
        await self._close_topic()
        self._load_topics()
        what = "deleted" if self.delete_items == "delete" else "moved to the fallback topic"
        return [
            self._url_script(replace=True),  # the address no longer names the deleted topic
            rx.toast.success(f"Deleted topic {key!r}" + (f"; {count} items {what}" if count else "")),
        ]
