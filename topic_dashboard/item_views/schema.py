"""The view contract between bots and the panel: its JSON Schema, its validator, and the
document `topic_get_schema` returns.

A view is optional, declarative data in one of six shapes (`shapes.py`); there is no way
to send scripts or HTML. Which shapes a topic accepts is stored in the topic's
`view_schema_json` as `{"allowed_types": [...]}`, where an empty or missing list means all.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from topic_dashboard.errors import AppError
from topic_dashboard.item_views.limits import LEVELS, LIMITS, VIEW_TYPES, json_size, limits_document
from topic_dashboard.item_views.nodes import child_path, fail, json_type
from topic_dashboard.item_views.shapes import EXAMPLES, SHAPES

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

NOTES: tuple[str, ...] = (
    (
        "view is optional: title and content alone make a complete item; a view adds a structured "
        "rendering of the same information."
    ),
    (
        "Pick the view type that fits: table for rows and columns, metric for one key number, "
        "checklist for to-dos or steps, timeline for events in time, card for one thing with a few "
        "labelled facts and a link, markdown for anything else."
    ),
    (
        'Send view as a JSON object with a "type" field, not as a string of JSON. Omit optional '
        "fields you have no value for (null counts as omitted)."
    ),
    (
        "No HTML and no scripts: all text is shown as text, and markdown (content, markdown.text, "
        "card.body) is rendered without raw HTML, so tags appear literally."
    ),
    (
        "Links must be absolute http://, https:// or mailto: URLs. Other link fields are rejected; "
        "other links inside markdown are shown as plain text."
    ),
    (
        "Sizes: *_chars limits count characters, *_bytes limits count UTF-8 bytes of the JSON "
        "(a Chinese character is 3 bytes)."
    ),
    "A rejected call stores nothing; the error's field is the JSON path to fix, e.g. view.rows[2].",
    "Each topic lists its allowed_view_types; a view of another type is rejected.",
)


def view_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of `view`: one of six shapes chosen by `type`.

    Row width (one cell per column), link safety and `LIMITS.view_max_bytes` cannot be
    written in JSON Schema; `validate_view` checks them too, and their rules are stated in
    the descriptions.
    """
    branches = []
    for name, shape in SHAPES.items():
        branch = {"title": name, **shape.schema(), "examples": [copy.deepcopy(EXAMPLES[name])]}
        branches.append(branch)
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": "view",
        "description": (
            'Optional structured rendering of a topic item. Choose one shape by its "type": '
            f"{', '.join(VIEW_TYPES)}. Declarative only: no HTML, no scripts. At most "
            f"{LIMITS.view_max_bytes} bytes as UTF-8 JSON."
        ),
        "type": "object",
        "oneOf": branches,
    }


def validate_view(view: Any, *, allowed_types: Sequence[str] | None = None) -> dict[str, Any] | None:
    """Return a normalized copy of `view`, or None when there is no view.

    `allowed_types` are the topic's view types; None allows all six, an empty list none.
    Strings are trimmed, line breaks become LF; null or empty optional fields are dropped;
    `checklist.items[].done` defaults to false and `card.link.label` to the URL.

    Raises:
        AppError("invalid_view") with `field` the JSON path of the first problem, starting
        with "view" (e.g. "view.rows[2][1]", "view.link.url", "view.foo" for an unknown key),
        including a view over `LIMITS.view_max_bytes` (field "view").
    """
    if view is None:
        return None
    if not isinstance(view, dict):
        hint = " (send the object itself, not a string of JSON)" if isinstance(view, str) else ""
        fail("view", f'view must be an object with a "type" field, got {json_type(view)}{hint}')
    kind = view.get("type")
    if kind is None:
        fail("view.type", f"view.type is missing; set it to one of: {', '.join(VIEW_TYPES)}")
    if not isinstance(kind, str) or kind not in SHAPES:
        fail("view.type", f"view.type {kind!r} is not a view type; use one of: {', '.join(VIEW_TYPES)}")
    check_view_allowed(view, allowed_types)
    normalized = SHAPES[kind].check(view, "view")
    size = json_size(normalized)
    if size > LIMITS.view_max_bytes:
        fail(
            "view",
            f"view is {size} bytes as UTF-8 JSON; at most {LIMITS.view_max_bytes} are allowed: "
            "show less (fewer rows, shorter text) and put the rest in content",
            size_bytes=size,
            limit_bytes=LIMITS.view_max_bytes,
        )
    return normalized


def parse_allowed_view_types(view_schema_json: Any) -> list[str]:
    """The view types a topic accepts, read from its stored `view_schema_json`.

    Lenient on purpose, since stored data was validated on the way in: a missing, empty or
    unreadable setting, or one naming no known type, means all six. Every type is safe to
    render, so falling back to all never exposes anything. Never raises.
    """
    value = view_schema_json
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return list(VIEW_TYPES)
    raw = value.get("allowed_types") if isinstance(value, dict) else None
    if not isinstance(raw, (list, tuple)):
        return list(VIEW_TYPES)
    return _known_types(raw) or list(VIEW_TYPES)


def check_view_allowed(view: dict[str, Any] | None, allowed_types: Sequence[str] | None) -> None:
    """Refuse a view (one `validate_view` accepted, or will check) whose type the topic does not allow.

    Raises AppError("invalid_view") with field "view.type" and `allowed_types`.
    """
    if view is None or allowed_types is None:
        return
    kind = view.get("type")
    allowed = _known_types(allowed_types)
    if kind not in allowed:
        if not allowed:
            fail("view.type", "this topic accepts no view; omit view", allowed_types=[])
        fail(
            "view.type",
            f"view type {kind!r} is not allowed in this topic; use one of: {', '.join(allowed)}, or omit view",
            allowed_types=list(allowed),
        )


def validate_view_schema_json(obj: Any) -> dict[str, Any]:
    """Check a topic's `view_schema_json` as a user submits it; return it normalized.

    None becomes `{"allowed_types": []}` (all types). The result lists each type once, in the
    canonical order of `VIEW_TYPES`.

    Raises:
        AppError("validation_error") with `field` "view_schema_json",
        "view_schema_json.<unknown key>", "view_schema_json.allowed_types" or
        "view_schema_json.allowed_types[i]".
    """
    base = "view_schema_json"
    if obj is None:
        return {"allowed_types": []}
    if not isinstance(obj, dict):
        raise AppError("validation_error", f'{base} must be an object like {{"allowed_types": ["table"]}}', field=base)
    for key in obj:
        if key != "allowed_types":
            path = child_path(base, key)
            raise AppError("validation_error", f"{path} is not a setting; the only one is allowed_types", field=path)
    raw = obj.get("allowed_types")
    if raw is None:
        return {"allowed_types": []}
    field = f"{base}.allowed_types"
    if not isinstance(raw, (list, tuple)):
        raise AppError("validation_error", f"{field} must be a list of view types (empty means all)", field=field)
    for index, kind in enumerate(raw):
        if not isinstance(kind, str) or kind not in VIEW_TYPES:
            raise AppError(
                "validation_error",
                f"{field}[{index}] is {kind!r}, not a view type; use: {', '.join(VIEW_TYPES)}",
                field=f"{field}[{index}]",
            )
    return {"allowed_types": _known_types(raw)}


def schema_document(topics: Sequence[tuple[str, list[str] | None]]) -> dict[str, Any]:
    """Everything `topic_get_schema` returns: the view schema, levels, limits, and for each
    `(topic_key, allowed_view_types)` pair the types that topic accepts (None means all)."""
    return {
        "view_schema": view_json_schema(),
        "view_types": list(VIEW_TYPES),
        "levels": list(LEVELS),
        "limits": limits_document(),
        "topics": [
            {
                "topic_key": key,
                "allowed_view_types": list(VIEW_TYPES) if allowed is None else _known_types(allowed),
            }
            for key, allowed in topics
        ],
        "notes": list(NOTES),
    }


def _known_types(types: Sequence[Any]) -> list[str]:
    """The known view types among `types`, once each, in canonical order."""
    wanted = {kind for kind in types if isinstance(kind, str)}
    return [kind for kind in VIEW_TYPES if kind in wanted]
