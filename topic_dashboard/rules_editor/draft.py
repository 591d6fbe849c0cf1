"""A rule being edited, as form fields and as JSON, converting both ways without losing anything.

Pure: no Reflex, no database. The editor's State keeps a `RuleDraft`; the JSON view is
`draft_to_json(draft)`, and JSON typed by a person comes back through `draft_from_json`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from topic_dashboard.errors import AppError
from topic_dashboard.item_views import VIEW_TYPES, parse_allowed_view_types
from topic_dashboard.routing import RoutingRules, validate_routing


@dataclasses.dataclass
class RuleDraft:
    purpose: str = ""
    include_when: list[str] = dataclasses.field(default_factory=list)
    exclude_when: list[str] = dataclasses.field(default_factory=list)
    positive: list[str] = dataclasses.field(default_factory=list)
    negative: list[str] = dataclasses.field(default_factory=list)
    priority: int = 50
    keywords: list[str] = dataclasses.field(default_factory=list)
    fallback_topic_key: str = ""
    allowed_types: list[str] = dataclasses.field(default_factory=lambda: list(VIEW_TYPES))


def draft_from_rules(rules: RoutingRules, view_schema_json: Any = None) -> RuleDraft:
    return RuleDraft(
        purpose=rules.purpose,
        include_when=list(rules.include_when),
        exclude_when=list(rules.exclude_when),
        positive=list(rules.examples.positive),
        negative=list(rules.examples.negative),
        priority=rules.priority,
        keywords=list(rules.keywords),
        fallback_topic_key=rules.fallback_topic_key or "",
        allowed_types=parse_allowed_view_types(view_schema_json),
    )


def draft_from_routing_json(routing_json: Any, view_schema_json: Any = None) -> RuleDraft:
    """Raises invalid_rule."""
    return draft_from_rules(validate_routing(routing_json or {}), view_schema_json)


def routing_json_of(draft: RuleDraft, *, drop_blank: bool = True) -> dict[str, Any]:
    """The `routing_json` a draft stands for (blank list entries dropped: the form's empty rows)."""

    def clean(values: list[str]) -> list[str]:
        return [value for value in values if value.strip()] if drop_blank else list(values)

    body: dict[str, Any] = {
        "purpose": draft.purpose,
        "include_when": clean(draft.include_when),
        "exclude_when": clean(draft.exclude_when),
        "examples": {"positive": clean(draft.positive), "negative": clean(draft.negative)},
        "priority": draft.priority,
        "system_filters": ["progress", "tool_hint"],
    }
    if draft.keywords and clean(draft.keywords):
        body["keywords"] = clean(draft.keywords)
    if draft.fallback_topic_key:
        body["fallback_topic_key"] = draft.fallback_topic_key
    return body


def view_schema_json_of(draft: RuleDraft) -> dict[str, Any]:
    chosen = [kind for kind in VIEW_TYPES if kind in draft.allowed_types]
    return {"allowed_types": [] if len(chosen) == len(VIEW_TYPES) else chosen}


def draft_to_json(draft: RuleDraft) -> str:
    """The JSON view: the routing rule plus the allowed view types, pretty-printed."""
    body = {**routing_json_of(draft, drop_blank=False), "allowed_view_types": list(draft.allowed_types)}
    return json.dumps(body, ensure_ascii=False, indent=2)


def draft_from_json(text: str) -> RuleDraft:
    """Parse the JSON view. Raises invalid_json (with line and column) or invalid_rule (with the field)."""
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AppError("invalid_json", f"not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc
    if not isinstance(body, dict):
        raise AppError("invalid_rule", "the rule must be a JSON object", field="$")
    body = dict(body)
    allowed = body.pop("allowed_view_types", None)
    if allowed is not None and (not isinstance(allowed, list) or any(kind not in VIEW_TYPES for kind in allowed)):
        raise AppError(
            "invalid_rule", f"allowed_view_types must be a list of: {', '.join(VIEW_TYPES)}", field="allowed_view_types"
        )
    rules = validate_routing(body)
    draft = draft_from_rules(rules)
    draft.allowed_types = list(allowed) if allowed else list(VIEW_TYPES)
    return draft


def validate_draft(draft: RuleDraft) -> dict[str, Any]:
    """The validated routing_json of a draft. Raises invalid_rule naming the field."""
    return validate_routing(routing_json_of(draft)).model_dump(mode="json", exclude_none=True)


# What the form calls each routing_json field (rules_editor/page.py `rule_form`): a person editing the form
# reads "Include when #2 is 612 characters long", not "include_when[1] …" (a walkthrough found the JSON
# names in the form's errors). The JSON view keeps the JSON names: there they are what the person typed.
_FORM_LABELS = {
    "purpose": "Purpose",
    "include_when": "Include when",
    "exclude_when": "Exclude when",
    "examples.positive": "Positive example",
    "examples.negative": "Negative example",
    "examples": "Examples",
    "keywords": "Keyword",
    "priority": "Priority",
    "fallback_topic_key": "Fallback topic",
    "system_filters": "System filter",
    "view_types": "View types",
}
_LISTED = re.compile(r"^(?P<list>[a-z_.]+)\[(?P<index>\d+)\]$")


def form_label(field: str) -> str:
    """The form's name for a routing_json field: "include_when[1]" -> "Include when #2" (rows are numbered
    from 1, as the form's remove buttons are); a field the form does not show keeps its name."""
    listed = _LISTED.match(field)
    if listed and listed["list"] in _FORM_LABELS:
        return f"{_FORM_LABELS[listed['list']]} #{int(listed['index']) + 1}"
    return _FORM_LABELS.get(field, field)


def form_message(message: str, field: str) -> str:
    """`message` with the field it starts with named as the form names it."""
    if field and message.startswith(field):
        return form_label(field) + message[len(field) :]
    return message
