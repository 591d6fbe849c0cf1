"""A small vocabulary for describing view shapes once and getting two things from it.

Each node yields its JSON Schema fragment (what `topic_get_schema` shows a bot) and checks a
value against itself (what `topic_publish` enforces), so the published schema and the
validator cannot drift apart. A check returns a normalized copy or raises
`AppError("invalid_view")` naming the JSON path of the first problem and how to fix it.

The validator is deliberately a little more lenient than the schema in one way: null in an
optional field means "absent", because models often send null rather than omit a field.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn, Protocol

from topic_dashboard.errors import AppError
from topic_dashboard.item_views.safety import (
    describe_char,
    forbidden_char,
    normalize_newlines,
    safe_url,
)
from topic_dashboard.text_policy import is_bounded_number, printable

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Node(Protocol):
    @property
    def description(self) -> str: ...  # read-only: the nodes are frozen dataclasses

    def schema(self) -> dict[str, Any]: ...

    def check(self, value: Any, path: str) -> Any: ...


def fail(path: str, message: str, **details: Any) -> NoReturn:
    raise AppError("invalid_view", message, field=path, **details)


def child_path(path: str, key: Any) -> str:
    if isinstance(key, str) and _IDENTIFIER.fullmatch(key):
        return f"{path}.{key}"
    shown = key[:40] if isinstance(key, str) else str(key)
    return f"{path}[{printable(json.dumps(shown, ensure_ascii=False))}]"


def json_type(value: Any) -> str:
    """The JSON name of a Python value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _number_kind(value: Any) -> str:
    """What a value is, for messages; numbers that are not finite or beyond 64-bit integers are named as such."""
    kind = json_type(value)
    if kind == "number" and not is_bounded_number(value):
        return "a non-finite number" if isinstance(value, float) else "an integer beyond 64 bits"
    return kind


def _check_string(value: Any, path: str, *, min_chars: int, max_chars: int) -> str:
    if not isinstance(value, str):
        fail(path, f"{path} must be a string, got {json_type(value)}")
    text = normalize_newlines(value)
    char = forbidden_char(text)
    if char is not None:
        fail(
            path,
            f"{path} contains the control character {describe_char(char)}; remove it "
            "(only newline and tab are allowed)",
        )
    text = text.strip()
    if len(text) < min_chars:
        fail(path, f"{path} is empty; give a non-empty text")
    if len(text) > max_chars:
        fail(path, f"{path} has {len(text)} characters; at most {max_chars} are allowed: shorten it")
    return text


@dataclass(frozen=True, kw_only=True)
class Text:
    """A string, trimmed, with line breaks normalized to LF and no control characters."""

    max_chars: int
    description: str
    min_chars: int = 1

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "string", "description": self.description}
        if self.min_chars:
            out["minLength"] = self.min_chars
        out["maxLength"] = self.max_chars
        return out

    def check(self, value: Any, path: str) -> str:
        return _check_string(value, path, min_chars=self.min_chars, max_chars=self.max_chars)


@dataclass(frozen=True, kw_only=True)
class Url:
    """An absolute http(s) or mailto URL, as `safe_url` accepts it."""

    max_chars: int
    description: str

    def schema(self) -> dict[str, Any]:
        return {
            "type": "string",
            "description": self.description,
            "pattern": "^([Hh][Tt][Tt][Pp][Ss]?://|[Mm][Aa][Ii][Ll][Tt][Oo]:)",
            "maxLength": self.max_chars,
        }

    def check(self, value: Any, path: str) -> str:
        text = _check_string(value, path, min_chars=1, max_chars=self.max_chars)
        url = safe_url(text)
        if url is None:
            shown = text if len(text) <= 60 else text[:57] + "..."
            fail(
                path,
                f"{path} must be an absolute http:// or https:// URL with a host (and no user@ "
                f"part) or a mailto: URL; {shown!r} is not allowed",
            )
        return url


@dataclass(frozen=True, kw_only=True)
class Number:
    """A finite JSON number, an integer within 64 bits (booleans are not numbers)."""

    description: str

    def schema(self) -> dict[str, Any]:
        return {"type": "number", "description": self.description}

    def check(self, value: Any, path: str) -> int | float:
        if not is_bounded_number(value):
            fail(path, f"{path} must be a number such as 12 or -2.5, got {_number_kind(value)}")
        return value


@dataclass(frozen=True, kw_only=True)
class Boolean:
    description: str

    def schema(self) -> dict[str, Any]:
        return {"type": "boolean", "description": self.description}

    def check(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            fail(path, f"{path} must be true or false, got {json_type(value)}")
        return value


@dataclass(frozen=True, kw_only=True)
class Const:
    """The discriminator of a view shape, e.g. `"type": "table"`."""

    value: str
    description: str

    def schema(self) -> dict[str, Any]:
        return {"const": self.value, "description": self.description}

    def check(self, value: Any, path: str) -> str:
        if value != self.value:
            fail(path, f"{path} must be {self.value!r}")
        return self.value


@dataclass(frozen=True, kw_only=True)
class Choice:
    """One string out of a fixed list."""

    values: tuple[str, ...]
    description: str

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "enum": list(self.values), "description": self.description}

    def check(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or value not in self.values:
            fail(path, f"{path} must be one of: {', '.join(self.values)}; got {value!r}")
        return value


@dataclass(frozen=True, kw_only=True)
class Scalar:
    """A single JSON value of one of a few scalar types; strings follow `Text` rules."""

    types: tuple[str, ...]  # subset of "string", "number", "boolean", "null"
    max_chars: int
    description: str
    min_chars: int = 0

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": list(self.types), "description": self.description}
        if "string" in self.types:
            if self.min_chars:
                out["minLength"] = self.min_chars
            out["maxLength"] = self.max_chars
        return out

    def check(self, value: Any, path: str) -> Any:
        kind = json_type(value)
        if kind == "number" and not is_bounded_number(value):
            kind = _number_kind(value)
        if kind not in self.types:
            fail(path, f"{path} must be a {' or '.join(self.types)}, got {kind}")
        if kind == "string":
            return _check_string(value, path, min_chars=self.min_chars, max_chars=self.max_chars)
        return value


@dataclass(frozen=True, kw_only=True)
class Array:
    item: Node
    max_items: int
    description: str
    min_items: int = 0
    noun: str = "entries"  # "rows", "items"... used in messages
    too_many_hint: str = "keep the most important ones or split them across several items"

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "array", "description": self.description}
        out["items"] = self.item.schema()
        if self.min_items:
            out["minItems"] = self.min_items
        out["maxItems"] = self.max_items
        return out

    def check(self, value: Any, path: str) -> list[Any]:
        if not isinstance(value, (list, tuple)):
            fail(path, f"{path} must be an array (a JSON list) of {self.noun}, got {json_type(value)}")
        if len(value) > self.max_items:
            fail(
                path,
                f"{path} has {len(value)} {self.noun}; at most {self.max_items} are allowed: {self.too_many_hint}",
            )
        if len(value) < self.min_items:
            fail(path, f"{path} has {len(value)} {self.noun}; give at least {self.min_items}")
        return [self.item.check(entry, f"{path}[{index}]") for index, entry in enumerate(value)]


_MISSING: Any = object()


@dataclass(frozen=True, kw_only=True)
class Field:
    name: str
    node: Node
    required: bool = False
    default: Any = _MISSING  # filled in when the field is absent (or null)


@dataclass(frozen=True, kw_only=True)
class Object:
    """A JSON object with a closed set of fields: unknown keys are rejected.

    Absent or null optional fields, and optional strings that are empty after trimming, are
    left out of the normalized copy; `finish` may add cross-field checks and defaults.
    """

    fields: tuple[Field, ...]
    description: str
    what: str  # "a table view", "a card field": used in messages
    finish: Callable[[dict[str, Any], str], dict[str, Any]] | None = None

    def schema(self) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        for spec in self.fields:
            properties[spec.name] = spec.node.schema()
            if spec.default is not _MISSING:
                properties[spec.name]["default"] = spec.default
        return {
            "type": "object",
            "description": self.description,
            "properties": properties,
            "required": [spec.name for spec in self.fields if spec.required],
            "additionalProperties": False,
        }

    def check(self, value: Any, path: str) -> dict[str, Any]:
        names = [spec.name for spec in self.fields]
        if not isinstance(value, dict):
            fail(path, f"{path} must be an object with fields {', '.join(names)}; got {json_type(value)}")
        for key in value:
            if key not in names:
                close = difflib.get_close_matches(str(key), names, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                fail(
                    child_path(path, key),
                    f"{child_path(path, key)} is not a field of {self.what}{hint}; its fields are: {', '.join(names)}",
                )
        out: dict[str, Any] = {}
        for spec in self.fields:
            field_path = child_path(path, spec.name)
            raw = value.get(spec.name)
            if raw is None:
                if spec.required:
                    fail(field_path, f"{field_path} is missing; {self.what} needs it: {spec.node.description}")
                if spec.default is not _MISSING:
                    out[spec.name] = spec.default
                continue
            checked = spec.node.check(raw, field_path)
            if checked == "" and not spec.required:
                continue
            out[spec.name] = checked
        return self.finish(out, path) if self.finish else out
