"""The new-topic dialog: a key, a name and a template; the created topic opens in the editor."""

from __future__ import annotations

from typing import Any

import reflex as rx

from topic_dashboard.auth.guard import admin_only
from topic_dashboard.db import write_session
from topic_dashboard.errors import AppError
from topic_dashboard.item_views import VIEW_TYPES
from topic_dashboard.rule_templates import TEMPLATE_FAMILIES, TEMPLATES, family_template_keys
from topic_dashboard.rules_editor.draft import RuleDraft, draft_from_routing_json, routing_json_of, view_schema_json_of
from topic_dashboard.rules_editor.editor_state import RuleEditorState
from topic_dashboard.rules_editor.state import NEW_TOPIC, RulesState
from topic_dashboard.services import topics as topic_service
from topic_dashboard.services.audit import actor_of

# The New topic form's template choices after "Blank rule": (family, [(template key, label), ...]). The same
# for every visitor, so the page renders them once rather than sending them as state.
TEMPLATE_GROUPS: list[tuple[str, list[tuple[str, str]]]] = [
    (family, [(key, TEMPLATES[key]["label"]) for key in family_template_keys(family)]) for family in TEMPLATE_FAMILIES
]


class CreateTopicState(RulesState):
    new_key: str = ""
    new_name: str = ""
    new_template: str = "blank"
    new_error: str = ""
    create_open: bool = False

    @rx.event
    async def open_create(self) -> None:
        if await self._guard(NEW_TOPIC):
            return
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
    async def submit_create(self, form: dict[str, Any]) -> rx.event.EventSpec | list[rx.event.EventSpec] | None:
        """The dialog's form sent (Create, or Enter in a box: a walkthrough pressed Enter and nothing happened),
        with the boxes' values as typed, whatever their updates still on the way."""
        form = form if isinstance(form, dict) else {}  # the browser's word: any shape may come
        key, name = form.get("key", self.new_key), form.get("name", self.new_name)
        self.new_key = key.strip() if isinstance(key, str) else ""
        self.new_name = name if isinstance(name, str) else ""
        template = TEMPLATES.get(self.new_template)
        draft = draft_from_routing_json(template["routing"]) if template else RuleDraft()
        if template:
            draft.allowed_types = [kind for kind in VIEW_TYPES if kind in template["view_types"]]
        try:
            with write_session() as session:
                created = topic_service.create_topic(
                    session=session,
                    bot_id=self.bot_id,
                    actor=actor_of(self._principal()),
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
        editor = await self.get_state(RuleEditorState)
        failed = await editor._open(created.topic_key)  # a toast only when it fails
        if failed:
            return failed
        return [self._url_script(created.topic_key), rx.toast.success(f"Created topic {created.topic_key!r}")]
