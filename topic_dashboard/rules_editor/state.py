"""The Rules page's state: topics of a bot, the rule being edited, and the live routing preview."""

from __future__ import annotations

import dataclasses

import reflex as rx

from topic_dashboard.auth.guard import SignedInState, admin_only
from topic_dashboard.components.bot_choice import BotOption, bot_choice
from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.item_views import VIEW_TYPES
from topic_dashboard.routing import RouteRequest, TopicSpec
from topic_dashboard.rule_templates import TEMPLATES
from topic_dashboard.rules_editor.draft import (
    RuleDraft,
    draft_from_json,
    draft_from_routing_json,
    draft_to_json,
    routing_json_of,
    validate_draft,
    view_schema_json_of,
)
from topic_dashboard.rules_editor.history import history_row
from topic_dashboard.rules_editor.rows import HistoryRow, RuleTopicRow, ScoreRow
from topic_dashboard.services import topics as topic_service
from topic_dashboard.services.routing_service import preview_route, topic_spec

LIST_FIELDS = ("include_when", "exclude_when", "positive", "negative", "keywords")


class RulesState(SignedInState):
    bots: list[BotOption] = []
    bot_id: str = ""
    topics: list[RuleTopicRow] = []
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
    # new topic dialog
    new_key: str = ""
    new_name: str = ""
    new_template: str = "blank"
    new_error: str = ""
    create_open: bool = False
    # delete dialog
    delete_open: bool = False
    delete_items: str = "move"
    delete_item_count: int = 0
    # test this message
    test_message: str = ""
    test_type: str = "result"
    decision_publish: bool = False
    decision_topic: str = ""
    decision_confidence: int = 0
    decision_reason: str = ""
    decision_filtered: str = ""
    scores: list[ScoreRow] = []
    history: list[HistoryRow] = []
    _topic_enabled: bool = True
    _fallback_policy: str = "inbox"
    _specs: list[TopicSpec] = []

    @rx.var
    def has_selection(self) -> bool:
        return self.selected_key != "" or self.is_new

    @rx.var
    def view_type_choices(self) -> list[str]:
        return list(VIEW_TYPES)

    @rx.var
    def template_choices(self) -> list[list[str]]:
        return [["blank", "Blank rule"]] + [[key, template["label"]] for key, template in TEMPLATES.items()]

    # --- loading ------------------------------------------------------------------------------

    @rx.event
    def load_page(self) -> rx.event.EventSpec | None:
        self.bots, self.bot_id = bot_choice(self.router.url.query_parameters.get("bot", ""))
        self._clear_editor()
        if self.bot_id:
            return self._load_topics()
        return None

    def _clear_editor(self) -> None:
        self.selected_key, self.is_new, self.dirty = "", False, False
        self.error_message, self.error_field = "", ""
        self.history = []
        self.scores = []

    def _load_topics(self) -> rx.event.EventSpec | None:
        try:
            with read_session() as session:
                overview = topic_service.topics_overview(session=session, bot_id=self.bot_id)
                rows = topic_service.list_topics(session=session, bot_id=self.bot_id)
                settings = topic_service.get_topic_settings(session=session, bot_id=self.bot_id)
        except AppError as error:
            return rx.toast.error(error.message)
        self.topics = [
            RuleTopicRow(
                key=row.topic_key,
                name=row.name,
                is_active=row.is_active,
                is_fallback=row.is_default_fallback,
                priority=row.priority,
                item_count=row.item_count,
                last_item_at=row.last_item_at or "",
            )
            for row in overview
        ]
        self._specs = [topic_spec(row) for row in rows]
        self._topic_enabled, self._fallback_policy = settings.topic_enabled, settings.fallback_policy
        return None

    @rx.event
    def select_bot(self, bot_id: str) -> rx.event.EventSpec | None:
        self.bot_id = bot_id
        self._clear_editor()
        return self._load_topics()

    @rx.event
    def select_topic(self, topic_key: str) -> rx.event.EventSpec | None:
        try:
            with read_session() as session:
                topic = topic_service.get_topic(session=session, bot_id=self.bot_id, topic_key=topic_key)
                changes = topic_service.rule_history(session=session, bot_id=self.bot_id, topic_key=topic_key)
            draft = draft_from_routing_json(topic.routing_json, topic.view_schema_json)
        except AppError as error:
            return rx.toast.error(error.message)
        self.selected_key, self.is_new = topic_key, False
        self.name, self.description = topic.name, topic.description
        self.is_active, self.is_fallback = topic.is_active, topic.is_default_fallback
        self._set_draft(draft)
        self.dirty = False
        self.history = [history_row(change) for change in changes]
        self._refresh_preview()
        return None

    def _set_draft(self, draft: RuleDraft) -> None:
        self.draft = draft
        self.json_text = draft_to_json(draft)
        self.error_message, self.error_field = "", ""

    # --- creating -----------------------------------------------------------------------------

    @rx.event
    def open_create(self) -> None:
        self.create_open = True
        self.new_key, self.new_name, self.new_template, self.new_error = "", "", "blank", ""

    @rx.event
    def set_create_open(self, value: bool) -> None:
        self.create_open = value

    @rx.event
    def set_new_key(self, value: str) -> None:
        self.new_key = value.strip()

    @rx.event
    def set_new_name(self, value: str) -> None:
        self.new_name = value

    @rx.event
    def set_new_template(self, value: str) -> None:
        self.new_template = value
        if value in TEMPLATES:
            if not self.new_key:
                self.new_key = value
            if not self.new_name:
                self.new_name = TEMPLATES[value]["name"]

    @rx.event
    @admin_only
    def create_topic(self) -> rx.event.EventSpec | None:
        template = TEMPLATES.get(self.new_template)
        draft = draft_from_routing_json(template["routing"]) if template else RuleDraft()
        if template:
            draft.allowed_types = [kind for kind in VIEW_TYPES if kind in template["view_types"]]
        try:
            with write_session() as session:
                created = topic_service.create_topic(
                    session=session,
                    bot_id=self.bot_id,
                    actor=self._principal().name,
                    data=topic_service.TopicCreate(
                        topic_key=self.new_key,
                        name=self.new_name or self.new_key,
                        description=template["description"] if template else "",
                        routing_json=routing_json_of(draft),
                        view_schema_json=view_schema_json_of(draft),
                    ),
                )
        except AppError as error:
            self.new_error = error.message
            return None
        self.create_open = False
        self._load_topics()
        # select_topic runs here as a plain method: it returns a toast only when it fails
        failed = self.select_topic(created.topic_key)
        return failed or rx.toast.success(f"Created topic {created.topic_key!r}")

    # --- editing ------------------------------------------------------------------------------

    def _update(self, **changes: object) -> None:
        self.draft = dataclasses.replace(self.draft, **changes)  # type: ignore[arg-type]
        self._edited()

    def _edited(self) -> None:
        self.dirty = True
        self.json_text = draft_to_json(self.draft)
        try:
            validate_draft(self.draft)
            self.error_message, self.error_field = "", ""
        except AppError as error:
            self.error_message, self.error_field = error.message, error.field or ""
        self._refresh_preview()

    @rx.event
    def set_name(self, value: str) -> None:
        self.name, self.dirty = value, True

    @rx.event
    def set_description(self, value: str) -> None:
        self.description, self.dirty = value, True

    @rx.event
    def set_is_active(self, value: bool) -> None:
        self.is_active = value
        self._edited()

    @rx.event
    def set_purpose(self, value: str) -> None:
        self._update(purpose=value)

    @rx.event
    def set_priority(self, value: list[int | float] | str | int) -> None:
        raw = value[0] if isinstance(value, list) and value else value
        try:
            priority = max(0, min(100, int(float(raw))))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return
        self._update(priority=priority)

    @rx.event
    def set_list_item(self, field: str, index: int, value: str) -> None:
        if field in LIST_FIELDS:
            values = list(getattr(self.draft, field))
            if 0 <= index < len(values):
                values[index] = value
                self._update(**{field: values})

    @rx.event
    def add_list_item(self, field: str) -> None:
        if field in LIST_FIELDS:
            self.draft = dataclasses.replace(self.draft, **{field: [*getattr(self.draft, field), ""]})
            self.dirty = True
            self.json_text = draft_to_json(self.draft)

    @rx.event
    def remove_list_item(self, field: str, index: int) -> None:
        if field in LIST_FIELDS:
            values = list(getattr(self.draft, field))
            if 0 <= index < len(values):
                del values[index]
                self._update(**{field: values})

    @rx.event
    def toggle_view_type(self, kind: str, on: bool) -> None:
        chosen = set(self.draft.allowed_types) | {kind} if on else set(self.draft.allowed_types) - {kind}
        self._update(allowed_types=[k for k in VIEW_TYPES if k in chosen])

    @rx.event
    def set_mode(self, mode: str | list[str]) -> None:
        mode = mode[0] if isinstance(mode, list) else mode
        if mode == "form" and self.mode == "json" and self.error_message:
            return  # stay in JSON until it parses, so nothing typed there is lost
        self.mode = mode
        if mode == "json":
            self.json_text = draft_to_json(self.draft)

    @rx.event
    def set_json_text(self, text: str) -> None:
        self.json_text = text
        self.dirty = True
        try:
            self.draft = draft_from_json(text)
            self.error_message, self.error_field = "", ""
            self._refresh_preview()
        except AppError as error:
            self.error_message, self.error_field = (
                error.message,
                error.field or ("$" if error.code == "invalid_json" else ""),
            )

    @rx.event
    def revert(self) -> rx.event.EventSpec | None:
        if self.selected_key:
            return self.select_topic(self.selected_key)
        return None

    @rx.event
    @admin_only
    def save(self) -> rx.event.EventSpec | None:
        if self.error_message:
            return rx.toast.error(f"Fix the rule first: {self.error_message}")
        try:
            with write_session() as session:
                topic_service.update_topic(
                    session=session,
                    bot_id=self.bot_id,
                    topic_key=self.selected_key,
                    actor=self._principal().name,
                    data=topic_service.TopicUpdate(
                        name=self.name,
                        description=self.description,
                        is_active=self.is_active,
                        routing_json=routing_json_of(self.draft),
                        view_schema_json=view_schema_json_of(self.draft),
                    ),
                )
        except AppError as error:
            self.error_message, self.error_field = error.message, error.field or ""
            return rx.toast.error(error.message)
        self._load_topics()
        self.select_topic(self.selected_key)
        return rx.toast.success("Saved: bots route by this rule from their next topic_route call")

    @rx.event
    @admin_only
    def set_topic_active(self, value: bool) -> rx.event.EventSpec:
        """Deactivate/reactivate straight from the editor's switch, saved at once."""
        with write_session() as session:
            topic_service.update_topic(
                session=session,
                bot_id=self.bot_id,
                topic_key=self.selected_key,
                actor=self._principal().name,
                data=topic_service.TopicUpdate(is_active=value),
            )
        self.is_active = value
        self._load_topics()
        self._refresh_preview()
        return rx.toast.success("Topic reactivated" if value else "Topic deactivated: nothing is routed to it")

    # --- deleting -----------------------------------------------------------------------------

    @rx.event
    def open_delete(self) -> rx.event.EventSpec | None:
        if self.is_fallback:
            return rx.toast.error("The fallback topic cannot be deleted: unrouted results go there")
        self.delete_item_count = next((row.item_count for row in self.topics if row.key == self.selected_key), 0)
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
    def confirm_delete(self) -> rx.event.EventSpec:
        key = self.selected_key
        try:
            with write_session() as session:
                count = topic_service.delete_topic(
                    session=session,
                    bot_id=self.bot_id,
                    topic_key=key,
                    actor=self._principal().name,
                    items="delete" if self.delete_items == "delete" else "move",
                )
        except AppError as error:
            self.delete_open = False
            return rx.toast.error(error.message)
        self.delete_open = False
        self._clear_editor()
        self._load_topics()
        what = "deleted" if self.delete_items == "delete" else "moved to the fallback topic"
        return rx.toast.success(f"Deleted topic {key!r}" + (f"; {count} items {what}" if count else ""))

    # --- test this message --------------------------------------------------------------------

    @rx.event
    def set_test_message(self, value: str) -> None:
        self.test_message = value
        self._refresh_preview()

    @rx.event
    def set_test_type(self, value: str) -> None:
        self.test_type = value
        self._refresh_preview()

    def _refresh_preview(self) -> None:
        if not self.test_message.strip():
            self.scores, self.decision_reason, self.decision_topic = [], "", ""
            return
        specs = [spec for spec in self._specs if spec.topic_key != self.selected_key]
        if self.selected_key and not self.error_message:
            specs.append(
                TopicSpec(
                    topic_key=self.selected_key,
                    name=self.name,
                    description=self.description,
                    is_active=self.is_active,
                    is_default_fallback=self.is_fallback,
                    routing=routing_json_of(self.draft),
                )
            )
        elif self.selected_key:
            specs = list(self._specs)  # the draft does not validate: preview the saved rule
        decision = preview_route(
            topics=specs,
            request=RouteRequest(content=self.test_message, message_type=self.test_type or None),
            topic_enabled=self._topic_enabled,
            fallback_policy=self._fallback_policy,
        )
        self.decision_publish = decision.should_publish
        self.decision_topic = decision.topic_key or ""
        self.decision_confidence = round(decision.confidence * 100)
        self.decision_reason = decision.reason
        self.decision_filtered = decision.filtered or ""
        self.scores = [
            ScoreRow(
                topic_key=c.topic_key,
                score=c.score,
                score_pct=round(c.score * 100),
                priority=c.priority,
                matched="; ".join(c.matched[:3]),
                vetoed_by=c.vetoed_by or "",
                chosen=decision.should_publish and c.topic_key == decision.topic_key,
            )
            for c in decision.candidates
        ]

    @rx.event
    def add_test_as_example(self, positive: bool) -> rx.event.EventSpec | None:
        text = self.test_message.strip()
        if not text or not self.selected_key:
            return None
        field = "positive" if positive else "negative"
        if text not in getattr(self.draft, field):
            self._update(**{field: [*getattr(self.draft, field), text]})
        return rx.toast.info(f"Added as a {field} example; save to apply it")
