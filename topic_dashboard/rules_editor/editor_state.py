"""The open topic's rule editor and its live "test this message" preview.

Two substates of `RulesState` in one module because each calls the other: every edit re-routes the
test message, and the preview routes against the draft (and adds the message to it as an example).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import reflex as rx

from topic_dashboard.auth.guard import admin_only
from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.item_views import VIEW_TYPES
from topic_dashboard.routing import RouteRequest, TopicSpec
from topic_dashboard.routing.examples import example_text
from topic_dashboard.rules_editor.draft import (
    RuleDraft,
    draft_from_json,
    draft_from_routing_json,
    draft_to_json,
    form_message,
    routing_json_of,
    validate_draft,
    view_schema_json_of,
)
from topic_dashboard.rules_editor.history import history_row
from topic_dashboard.rules_editor.link import rules_url
from topic_dashboard.rules_editor.preview import plain_labels, preview_topics, score_rows
from topic_dashboard.rules_editor.rows import HistoryRow, ScoreRow
from topic_dashboard.rules_editor.state import RulesState
from topic_dashboard.services import topics as topic_service
from topic_dashboard.services.audit import actor_of
from topic_dashboard.services.routing_service import preview_route

LIST_FIELDS = ("include_when", "exclude_when", "positive", "negative", "keywords")


class RuleEditorState(RulesState):
    """The open topic: its own fields, its rule as form fields and as JSON, and its change history."""

    selected_key: str = ""
    is_new: bool = False
    # the topic's own fields
    name: str = ""
    description: str = ""
    is_active: bool = True
    is_fallback: bool = False
    # the rule, as form fields
    draft: RuleDraft = RuleDraft()
    mode: str = "form"  # form | json
    json_text: str = ""
    error_message: str = ""
    error_field: str = ""
    dirty: bool = False
    history: list[HistoryRow] = []
    # The open topic as stored (`_as_stored`): an edit back to it is no edit, so Save stays off (a walkthrough
    # retyped the same JSON, was offered Save, and got a "saved without changes" entry in the history).
    _stored: dict[str, Any] = {}

    @rx.var
    def has_selection(self) -> bool:
        return self.selected_key != "" or self.is_new

    @rx.var
    def view_type_choices(self) -> list[str]:
        return list(VIEW_TYPES)

    def _edits(self) -> tuple[str, str] | None:
        if not self.dirty or not (self.selected_key or self.is_new):
            return None
        return self.selected_key, self.name or self.selected_key or "the new topic"

    def _topic_closed(self) -> None:
        self.selected_key, self.is_new, self.dirty = "", False, False
        self.error_message, self.error_field = "", ""
        self.history = []

    # --- opening ------------------------------------------------------------------------------

    @rx.event
    async def select_topic(self, topic_key: str) -> rx.event.EventSpec | None:
        """Open a topic from the list; its key goes into the address (a new history entry: Back reopens
        the topic before)."""
        already_open = topic_key == self.selected_key and not self.is_new
        if not already_open and await self._guard(rules_url(self.bot_id, topic_key)):
            return None
        failed = await self._open(topic_key)
        if failed or already_open:
            return failed
        return self._url_script(topic_key)

    async def _topic_linked(self, topic_key: str) -> rx.event.EventSpec | None:
        return await self._open(topic_key)

    async def _open(self, topic_key: str) -> rx.event.EventSpec | None:
        """Load a topic into the editor; an error toast when it cannot be read (the editor is left as it was)."""
        try:
            with read_session() as session:
                topic = topic_service.get_topic(session=session, bot_id=self.bot_id, topic_key=topic_key)
                changes = topic_service.rule_history(session=session, bot_id=self.bot_id, topic_key=topic_key)
            draft = draft_from_routing_json(topic.routing_json, topic.view_schema_json)
        except AppError as error:
            return rx.toast.error(error.message)
        self.selected_key, self.is_new = topic_key, False
        self.link_note = ""  # a topic is open: a note on the link's topic would now speak of another
        self.name, self.description = topic.name, topic.description
        self.is_active, self.is_fallback = topic.is_active, topic.is_default_fallback
        self._set_draft(draft)
        self.dirty = False
        self._stored = self._as_stored()
        self.history = [history_row(change) for change in changes]
        await self._refresh_preview()
        return None

    def _as_stored(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "is_active": self.is_active,
            "routing_json": routing_json_of(self.draft),
            "view_schema_json": view_schema_json_of(self.draft),
        }

    def _mark_edited(self) -> None:
        """`dirty`: the topic differs from what is stored (a new topic always does)."""
        self.dirty = self.is_new or self._as_stored() != self._stored

    def _set_draft(self, draft: RuleDraft) -> None:
        self.draft = draft
        self.json_text = draft_to_json(draft)
        self.error_message, self.error_field = "", ""

    def _edited_spec(self) -> TopicSpec | None:
        """The open topic as edited, for the preview; None when none is open or its draft does not validate."""
        if not self.selected_key or self.error_message:
            return None
        return TopicSpec(
            topic_key=self.selected_key,
            name=self.name,
            description=self.description,
            is_active=self.is_active,
            is_default_fallback=self.is_fallback,
            routing=routing_json_of(self.draft),
        )

    async def _refresh_preview(self) -> None:
        preview = await self.get_state(RulePreviewState)
        preview._refresh(self._edited_spec())

    # --- editing ------------------------------------------------------------------------------

    async def _update(self, **changes: Any) -> None:
        self.draft = dataclasses.replace(self.draft, **changes)
        await self._edited()

    async def _edited(self) -> None:
        self._mark_edited()
        self.json_text = draft_to_json(self.draft)
        try:
            validate_draft(self.draft)
            self.error_message, self.error_field = "", ""
        except AppError as error:
            self.error_message, self.error_field = form_message(error.message, error.field or ""), error.field or ""
        await self._refresh_preview()

    @rx.event
    def set_name(self, value: str) -> None:
        self.name = value
        self._mark_edited()

    @rx.event
    def set_description(self, value: str) -> None:
        self.description = value
        self._mark_edited()

    @rx.event
    async def set_is_active(self, value: bool) -> None:
        self.is_active = value
        await self._edited()

    @rx.event
    async def set_purpose(self, value: str) -> None:
        await self._update(purpose=value)

    @rx.event
    async def set_priority(self, value: list[int | float] | str | int) -> None:
        raw = value[0] if isinstance(value, list) and value else value
        try:
            # an empty list stays a list: float() raises TypeError, caught below
            priority = max(0, min(100, int(float(raw))))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return
        await self._update(priority=priority)

    @rx.event
    async def set_list_item(self, field: str, index: int, value: str) -> None:
        if field in LIST_FIELDS:
            values = list(getattr(self.draft, field))
            if 0 <= index < len(values):
                values[index] = value
                await self._update(**{field: values})

    @rx.event
    def add_list_item(self, field: str) -> None:
        if field in LIST_FIELDS:
            self.draft = dataclasses.replace(self.draft, **{field: [*getattr(self.draft, field), ""]})
            self.dirty = True  # a row to fill: leaving it would drop it
            self.json_text = draft_to_json(self.draft)

    @rx.event
    async def remove_list_item(self, field: str, index: int) -> None:
        if field in LIST_FIELDS:
            values = list(getattr(self.draft, field))
            if 0 <= index < len(values):
                del values[index]
                await self._update(**{field: values})

    @rx.event
    async def toggle_view_type(self, kind: str, on: bool) -> None:
        chosen = set(self.draft.allowed_types) | {kind} if on else set(self.draft.allowed_types) - {kind}
        await self._update(allowed_types=[k for k in VIEW_TYPES if k in chosen])

    @rx.event
    def set_mode(self, mode: str | list[str]) -> None:
        mode = mode[0] if isinstance(mode, list) else mode
        if mode == "form" and self.mode == "json" and self.error_message:
            return  # stay in JSON until it parses, so nothing typed there is lost
        self.mode = mode
        if mode == "json":
            self.json_text = draft_to_json(self.draft)

    @rx.event
    async def set_json_text(self, text: str) -> None:
        self.json_text = text
        self.dirty = True  # until it parses: what is typed is not stored
        try:
            self.draft = draft_from_json(text)
            self.error_message, self.error_field = "", ""
            self._mark_edited()
            await self._refresh_preview()
        except AppError as error:
            self.error_message, self.error_field = (
                error.message,
                error.field or ("$" if error.code == "invalid_json" else ""),
            )

    @rx.event
    async def revert(self) -> rx.event.EventSpec | None:
        if self.selected_key:
            return await self._open(self.selected_key)
        return None

    @rx.event
    @admin_only
    async def save(self) -> rx.event.EventSpec | None:
        if self.error_message:
            return rx.toast.error(f"Fix the rule first: {self.error_message}")
        try:
            with write_session() as session:
                topic_service.update_topic(
                    session=session,
                    bot_id=self.bot_id,
                    topic_key=self.selected_key,
                    actor=actor_of(self._principal()),
                    data=topic_service.TopicUpdate(
                        name=self.name,
                        description=self.description,
                        is_active=self.is_active,
                        routing_json=routing_json_of(self.draft),
                        view_schema_json=view_schema_json_of(self.draft),
                    ),
                )
        except AppError as error:
            field = error.field or ""
            message = form_message(error.message, field) if self.mode == "form" else error.message
            self.error_message, self.error_field = message, field
            return rx.toast.error(message)
        self._load_topics()
        await self._open(self.selected_key)
        return rx.toast.success("Saved: bots route by this rule from their next topic_route call")

    @rx.event
    @admin_only
    async def set_topic_active(self, value: bool) -> rx.event.EventSpec:
        """Deactivate/reactivate straight from the editor's switch, saved at once."""
        with write_session() as session:
            topic_service.update_topic(
                session=session,
                bot_id=self.bot_id,
                topic_key=self.selected_key,
                actor=actor_of(self._principal()),
                data=topic_service.TopicUpdate(is_active=value),
            )
        self.is_active = value
        if self._stored:  # stored at once: the rest of what is unsaved stays unsaved
            self._stored = {**self._stored, "is_active": value}
            self._mark_edited()
        self._load_topics()
        await self._refresh_preview()
        return rx.toast.success("Topic reactivated" if value else "Topic deactivated: nothing is routed to it")


class RulePreviewState(RulesState):
    """Test this message: how the bot's topics, with the open one's draft in place, would route it."""

    test_message: str = ""
    test_title: str = ""  # optional, as topic_publish's title: routing reads both, so a titled item can go elsewhere
    test_type: str = "result"
    decision_publish: bool = False
    decision_topic: str = ""
    decision_confidence: int = 0
    decision_reason: str = ""
    decision_filtered: str = ""
    scores: list[ScoreRow] = []

    def _topic_closed(self) -> None:
        self.scores = []

    @rx.event
    async def set_test_message(self, value: str) -> None:
        self.test_message = value
        self._refresh((await self.get_state(RuleEditorState))._edited_spec())

    @rx.event
    async def set_test_title(self, value: str) -> None:
        self.test_title = value
        self._refresh((await self.get_state(RuleEditorState))._edited_spec())

    @rx.event
    async def set_test_type(self, value: str) -> None:
        self.test_type = value
        self._refresh((await self.get_state(RuleEditorState))._edited_spec())

    def _refresh(self, edited: TopicSpec | None) -> None:
        """Route the test message again, against the saved topics with `edited` (see `preview_topics`)."""
        if not self.test_message.strip():
            self.scores, self.decision_reason, self.decision_topic = [], "", ""
            return
        decision = preview_route(
            topics=preview_topics(self._specs, edited),
            request=RouteRequest(
                content=self.test_message, title=self.test_title.strip() or None, message_type=self.test_type or None
            ),
            topic_enabled=self._topic_enabled,
            fallback_policy=self._fallback_policy,
        )
        self.decision_publish = decision.should_publish
        self.decision_topic = decision.topic_key or ""
        self.decision_confidence = round(decision.confidence * 100)
        self.decision_reason = plain_labels(decision.reason)
        self.decision_filtered = decision.filtered or ""
        self.scores = score_rows(decision)

    @rx.event
    async def add_test_as_example(self, positive: bool) -> rx.event.EventSpec | None:
        # as a moved item is taught: the title and the content on two lines
        text = example_text(self.test_title, self.test_message) if self.test_message.strip() else ""
        editor = await self.get_state(RuleEditorState)
        if not text or not editor.selected_key:
            return None
        field = "positive" if positive else "negative"
        if text not in getattr(editor.draft, field):
            await editor._update(**{field: [*getattr(editor.draft, field), text]})
        return rx.toast.info(f"Added as a {field} example; save to apply it")
