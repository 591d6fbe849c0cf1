"""Pick a conversation's recent user inputs under a count limit and a character budget.

Pure domain logic behind the `ccweb_list_user_inputs` MCP tool: argument clamping,
conversation id cleaning and the selection/truncation rules. The DB layer fetches rows;
the tool adapter reads arguments and shapes the answer; neither repeats these rules.

Characters are Unicode code points throughout: Python `str` length and slicing already work
on code points, so an emoji counts as one and a cut never falls inside it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from topic_dashboard.errors import AppError

DEFAULT_LIMIT = 15
MIN_LIMIT = 1
MAX_LIMIT = 50
DEFAULT_MAX_CHARS = 1000
MIN_MAX_CHARS = 1
MAX_MAX_CHARS = 1000

# Generated ids are uuid4().hex; accept a conservative superset that can never name a path
# (no dots, slashes, backslashes, spaces or control characters). ASCII classes on purpose.
CONVERSATION_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")


@dataclass(frozen=True)
class UserInput:
    """One stored `role=user` text message, as the DB layer hands it over."""

    message_id: str | None
    created_at: datetime | None
    content: str


def clamp_int(value: Any, *, name: str, default: int, lo: int, hi: int) -> int:
    """Return `value` clamped into `[lo, hi]`, or `default` when it is None.

    Only real integers are accepted: bool, float (even 3.0) and numeric strings are not.

    Raises:
        AppError: `invalid_argument` with `field=name` when `value` is not an integer.
    """
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise AppError(
            "invalid_argument",
            f"{name} must be an integer between {lo} and {hi}",
            field=name,
        )
    return max(lo, min(hi, int(value)))


def clean_conversation_id(raw: Any) -> str | None:
    """Return `raw` trimmed if it is a usable conversation id, else None.

    Non-strings, empty, path-like, overlong (> 128) or non-ASCII ids are unusable.
    """
    if not isinstance(raw, str):
        return None
    cleaned = raw.strip()
    if CONVERSATION_ID_PATTERN.fullmatch(cleaned) is None:
        return None
    return cleaned


def resolve_conversation_id(explicit: Any, source: Any) -> str:
    """Return the conversation to read: the explicit argument if given, else the source one.

    An explicit id (anything but None, including "") is used or rejected; it never falls back
    to the source conversation. The source id (from a request header) is cleaned the same way.

    Raises:
        AppError: `invalid_conversation_id` when an explicit id is unusable after cleaning;
            `missing_source_conversation` when there is no explicit id and no usable source.
    """
    if explicit is not None:
        cleaned = clean_conversation_id(explicit)
        if cleaned is None:
            raise AppError(
                "invalid_conversation_id",
                "conversationId must be 1-128 characters of A-Z, a-z, 0-9, '_' or '-', starting with a letter or digit",
                field="conversationId",
            )
        return cleaned
    cleaned = clean_conversation_id(source)
    if cleaned is None:
        raise AppError(
            "missing_source_conversation",
            "no source conversation for this call: pass conversationId explicitly",
        )
    return cleaned


def is_blank(content: str | None) -> bool:
    """True for empty or whitespace-only content (Unicode whitespace, e.g. U+3000, included)."""
    return not content or content.isspace()


def format_created_at(created_at: datetime | None) -> str | None:
    """ISO 8601 in UTC with a `+00:00` offset and microseconds; naive values are taken as UTC."""
    if created_at is None:
        return None
    if created_at.tzinfo is None:
        created_at = created_at.replace(tzinfo=UTC)
    return created_at.astimezone(UTC).isoformat(timespec="microseconds")


def select_user_inputs(
    newest_first: Iterable[UserInput],
    *,
    conversation_id: str,
    limit: int,
    max_chars: int,
) -> dict[str, Any]:
    """Build the `ccweb_list_user_inputs` result from a conversation's user messages.

    Contract with the DB layer:
      * `newest_first` yields the conversation's `role=user` text messages (no assistant,
        tool or system messages, no guide cards), newest first, in one gapless run from the
        newest message backwards.
      * It is read lazily and only until `limit + 1` non-blank messages have been seen: the
        first `limit` are the candidates, the extra one only proves older inputs exist. Blank
        (empty or whitespace-only) messages are skipped here, because SQL cannot reliably
        test Unicode whitespace.
      * So the DB layer may pass a generator paging through the rows, or a list it has cut
        short only after `limit + 1` non-blank rows (or at the conversation's first message).
        A fixed `LIMIT limit + 1` query is not enough when blank rows may be among them.
      * `limit` and `max_chars` are already clamped (see `clamp_int`); both are >= 1.

    The budget goes from the newest candidate towards older ones. A message that does not
    fit keeps its beginning (if at least one character fits) and is marked `truncated`; no
    older message is added after it. Items come back oldest first, content untrimmed.
    `hasMore` is true when older inputs exist beyond `limit`, or when the budget cut or left
    out a candidate.
    """
    candidates: list[UserInput] = []
    older_exist = False
    for message in newest_first:
        if is_blank(message.content):
            continue
        if len(candidates) == limit:
            older_exist = True
            break
        candidates.append(message)

    items: list[dict[str, Any]] = []
    remaining = max_chars
    budget_cut = False
    for message in candidates:
        original_chars = len(message.content)
        if remaining == 0:
            budget_cut = True
            break
        content = message.content[:remaining]
        truncated = len(content) < original_chars
        items.append(
            {
                "messageId": message.message_id,
                "createdAt": format_created_at(message.created_at),
                "content": content,
                "contentChars": len(content),
                "originalChars": original_chars,
                "truncated": truncated,
            }
        )
        remaining -= len(content)
        if truncated:
            budget_cut = True
            break
    items.reverse()

    return {
        "ok": True,
        "conversationId": conversation_id,
        "requestedLimit": limit,
        "maxChars": max_chars,
        "totalChars": max_chars - remaining,
        "returnedCount": len(items),
        "hasMore": older_exist or budget_cut,
        "items": items,
    }
