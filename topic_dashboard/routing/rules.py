"""The routing rules of one topic (its `routing_json`, docs/DESIGN.md §4.1) and their validation.

Validation runs when a rule is saved; every error names the offending field as a JSON path
("priority", "include_when[1]", "examples.positive[0]") so the editor can point at it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from topic_dashboard.errors import AppError

MAX_LIST_ITEMS = 50
MAX_CONDITION_CHARS = 500
MAX_EXAMPLE_CHARS = 2000
MAX_PURPOSE_CHARS = 1000
MAX_KEYWORD_CHARS = 100
DEFAULT_PRIORITY = 50
ALWAYS_ON_FILTERS = ("progress", "tool_hint")
_FILTER_ALIASES = {  # keys are lower-cased with spaces, "-" and "_" removed
    "progress": "progress",
    "sendprogress": "progress",
    "进度": "progress",
    "toolhint": "tool_hint",
    "toolhints": "tool_hint",
    "sendtoolhints": "tool_hint",
    "工具提示": "tool_hint",
}
TOPIC_KEY_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")


class RoutingExamples(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    positive: list[str] = Field(default_factory=list)
    negative: list[str] = Field(default_factory=list)


class RoutingRules(BaseModel):
    """A validated routing_json. Every field is optional; `keywords` is an extension."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    purpose: str = ""
    include_when: list[str] = Field(default_factory=list)
    exclude_when: list[str] = Field(default_factory=list)
    examples: RoutingExamples = Field(default_factory=RoutingExamples)
    priority: int = DEFAULT_PRIORITY
    system_filters: list[str] = Field(default_factory=lambda: list(ALWAYS_ON_FILTERS))
    fallback_topic_key: str | None = None
    keywords: list[str] = Field(default_factory=list)


_FIELDS = tuple(RoutingRules.model_fields)


def _invalid(message: str, field: str | None) -> AppError:
    return AppError("invalid_rule", message, field=field)


def _text(value: Any, field: str, max_chars: int, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise _invalid(f"{field} must be a string, got {type(value).__name__}", field)
    text = value.strip()
    if not text and not allow_empty:
        raise _invalid(f"{field} is empty: remove it or write the condition", field)
    if len(text) > max_chars:
        raise _invalid(f"{field} is {len(text)} characters long; the limit is {max_chars}", field)
    return text


def _text_list(value: Any, field: str, max_chars: int) -> list[str]:
    if isinstance(value, str):  # a single condition written without brackets
        value = [value]
    if not isinstance(value, list):
        raise _invalid(f"{field} must be a list of strings", field)
    if len(value) > MAX_LIST_ITEMS:
        raise _invalid(f"{field} has {len(value)} entries; the limit is {MAX_LIST_ITEMS}", field)
    return [_text(item, f"{field}[{i}]", max_chars) for i, item in enumerate(value)]


def _matchable(texts: list[str], field: str) -> None:
    """Refuse conditions with nothing to match on: no letters at all ("!!!"), or only filler words
    ("的", "是的", "a"). A condition the word matcher cannot use still counts ("No-show 记录" once
    was; "断货", out of stock, splits into two single characters): the embedding model matches it
    by meaning."""
    from topic_dashboard.routing.conditions import STOP_ZH, parse_condition  # jieba loads lazily
    from topic_dashboard.routing.text import STOP_EN

    for i, text in enumerate(texts):
        letters = [ch for ch in text if ch.isalnum()]
        filler = all(ch in STOP_ZH for ch in letters if not ch.isascii()) and all(
            word in STOP_EN for word in re.findall(r"[a-z0-9]+", text.lower())
        )
        if not letters or (len(text.strip()) <= 3 and filler and not parse_condition(text).alts):
            raise _invalid(f"{field}[{i}] {text!r} has no words to match on", f"{field}[{i}]")


def _priority(value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _invalid("priority must be a whole number from 0 to 100", "priority")
    if not 0 <= value <= 100:
        raise _invalid(f"priority is {value}; it must be from 0 to 100", "priority")
    return value


def _examples(value: Any) -> RoutingExamples:
    if value is None:
        return RoutingExamples()
    if not isinstance(value, dict):
        raise _invalid('examples must be an object: {"positive": [...], "negative": [...]}', "examples")
    for key in value:
        if key not in ("positive", "negative"):
            raise _invalid(f"unknown field {key!r} in examples; use positive or negative", f"examples.{key}")
    return RoutingExamples(
        positive=_text_list(value.get("positive") or [], "examples.positive", MAX_EXAMPLE_CHARS),
        negative=_text_list(value.get("negative") or [], "examples.negative", MAX_EXAMPLE_CHARS),
    )


def _filters(value: Any) -> list[str]:
    names = list(ALWAYS_ON_FILTERS)
    if value is None:
        return names
    for i, item in enumerate(_text_list(value, "system_filters", 40)):
        name = _FILTER_ALIASES.get(re.sub(r"[\s_\-]", "", item.lower()))
        if name is None:
            raise _invalid(f"unknown system filter {item!r}; known: progress, tool_hint", f"system_filters[{i}]")
        if name not in names:
            names.append(name)
    return names


def _fallback_key(value: Any) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not TOPIC_KEY_PATTERN.match(value):
        raise _invalid("fallback_topic_key must be a topic key such as 'inbox'", "fallback_topic_key")
    return value


def validate_routing(obj: Any) -> RoutingRules:
    """Validate a routing_json (dict, JSON text, None or RoutingRules) into RoutingRules.

    Raises AppError("invalid_rule") whose `field` is the JSON path of the first bad value.
    """
    if isinstance(obj, RoutingRules):
        return obj
    if obj is None:
        return RoutingRules()
    if isinstance(obj, str):
        try:
            obj = json.loads(obj) if obj.strip() else {}
        except json.JSONDecodeError as exc:
            raise _invalid(f"routing_json is not valid JSON: {exc.msg} at line {exc.lineno}", None) from exc
    if not isinstance(obj, dict):
        raise _invalid("routing_json must be a JSON object", None)
    for key in obj:
        if key not in _FIELDS:
            raise _invalid(f"unknown field {key!r}; known fields: {', '.join(_FIELDS)}", str(key))
    include = _text_list(obj.get("include_when") or [], "include_when", MAX_CONDITION_CHARS)
    exclude = _text_list(obj.get("exclude_when") or [], "exclude_when", MAX_CONDITION_CHARS)
    _matchable(include, "include_when")
    _matchable(exclude, "exclude_when")
    return RoutingRules(
        purpose=_text(obj.get("purpose") or "", "purpose", MAX_PURPOSE_CHARS, allow_empty=True),
        include_when=include,
        exclude_when=exclude,
        examples=_examples(obj.get("examples")),
        priority=_priority(DEFAULT_PRIORITY if obj.get("priority") is None else obj["priority"]),
        system_filters=_filters(obj.get("system_filters")),
        fallback_topic_key=_fallback_key(obj.get("fallback_topic_key")),
        keywords=_text_list(obj.get("keywords") or [], "keywords", MAX_KEYWORD_CHARS),
    )
