"""Checks on the plain fields of a published item: title, content, level, tags, total size."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

from topic_dashboard.errors import AppError
from topic_dashboard.item_views.limits import DEFAULT_LEVEL, LEVELS, LIMITS, TAG_RULE, TAG_SYMBOLS, json_size
from topic_dashboard.item_views.safety import describe_char, forbidden_char, normalize_newlines
from topic_dashboard.text_policy import check_line


def validate_item_fields(
    *, title: str, content: str | None, level: str | None, tags: Sequence[str] | None
) -> tuple[str, str, str, list[str]]:
    """Return (title, content, level, tags) normalized for storage.

    The title is trimmed and its whitespace runs (including newlines) collapse to one space, and
    it may hold no bidi override or isolate (text_policy);
    content is trimmed with line breaks normalized to LF (None counts as ""); level defaults
    to "info" and is matched case-insensitively; tags are trimmed and de-duplicated
    case-insensitively, keeping the first spelling.

    Raises:
        AppError("validation_error") with `field` "title", "content", "level", "tags" or
        "tags[i]" naming the first problem.
    """
    return (
        _check_title(title),
        _check_content(content),
        check_level(level),
        _check_tags(tags),
    )


def check_payload_size(payload: Any) -> None:
    """Refuse a publish call whose JSON encoding is larger than `LIMITS.payload_max_bytes`.

    Raises:
        AppError("payload_too_large") with `size_bytes` and `limit_bytes` details.
    """
    size = json_size(payload)
    limit = LIMITS.payload_max_bytes
    if size > limit:
        raise AppError(
            "payload_too_large",
            f"the call is {size} bytes as UTF-8 JSON; at most {limit} are allowed: shorten "
            "content or view, or split the message into several items",
            size_bytes=size,
            limit_bytes=limit,
        )


def _invalid(field: str, message: str) -> AppError:
    return AppError("validation_error", message, field=field)


def _clean_text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise _invalid(field, f"{field} must be a string")
    text = normalize_newlines(value)
    char = forbidden_char(text)
    if char is not None:
        raise _invalid(
            field,
            f"{field} contains the control character {describe_char(char)}; remove it "
            "(only newline and tab are allowed)",
        )
    return text.strip()


def _check_title(title: Any) -> str:
    text = " ".join(_clean_text(title, "title").split())
    if not text:
        raise _invalid("title", "title is empty; give a one-line summary of the item")
    if len(text) > LIMITS.title_max_chars:
        raise _invalid(
            "title",
            f"title has {len(text)} characters; at most {LIMITS.title_max_chars} are allowed: "
            "keep it to one line and move the rest into content",
        )
    return check_line(text, field="title")  # whitespace is collapsed; bidi overrides would disguise it


def _check_content(content: Any) -> str:
    text = _clean_text("" if content is None else content, "content")
    if len(text) > LIMITS.content_max_chars:
        raise _invalid(
            "content",
            f"content has {len(text)} characters; at most {LIMITS.content_max_chars} are "
            "allowed: summarize it or split it into several items",
        )
    return text


def check_level(level: Any) -> str:
    """The level as stored: `level` trimmed and lower-cased, "info" when empty. Raises validation_error
    (field "level") for anything else; topic_route checks a level with it too."""
    if level is None or level == "":
        return DEFAULT_LEVEL
    normalized = level.strip().lower() if isinstance(level, str) else level
    if normalized not in LEVELS:
        raise _invalid("level", f"level {level!r} is not a level; use one of: {', '.join(LEVELS)}")
    return normalized


def _check_tags(tags: Any) -> list[str]:
    if tags is None:
        return []
    if isinstance(tags, (str, bytes)) or not isinstance(tags, Sequence):
        raise _invalid("tags", 'tags must be a list of strings, e.g. ["deploy", "prod"]')
    kept: list[str] = []
    seen: set[str] = set()
    for index, raw in enumerate(tags):
        tag = _check_tag(raw, f"tags[{index}]")
        if tag.casefold() not in seen:
            seen.add(tag.casefold())
            kept.append(tag)
    if len(kept) > LIMITS.tags_max_count:
        raise _invalid(
            "tags",
            f"tags has {len(kept)} distinct tags; at most {LIMITS.tags_max_count} are allowed: "
            "keep the most useful ones",
        )
    return kept


def _check_tag(raw: Any, field: str) -> str:
    if not isinstance(raw, str):
        raise _invalid(field, f"{field} must be a string")
    tag = raw.strip()
    if not tag:
        raise _invalid(field, f"{field} is empty; remove it or give a word")
    if len(tag) > LIMITS.tag_max_chars:
        raise _invalid(field, f"{field} has {len(tag)} characters; at most {LIMITS.tag_max_chars} are allowed")
    for char in tag:
        if not (unicodedata.category(char)[0] in "LNM" or char in TAG_SYMBOLS):
            shown = "a space" if char.isspace() else repr(char)
            raise _invalid(field, f"{field} {tag!r} contains {shown}; a tag may contain {TAG_RULE}")
    return tag
