"""An audit row's `detail`: JSON text with every secret masked and every part bounded.

Secrets are found by key name (a password, a token, a hash, a key that is not a lookup key such as
`topic_key`, an Authorization header, …) and by value (anything that starts like one of the
dashboard's own tokens). Strings are cut, lists and objects are shortened and nesting is limited
before the JSON is written; the text as a whole is cut to DETAIL_MAX_CHARS last.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from topic_dashboard.security import API_TOKEN_PREFIX, BOT_TOKEN_PREFIX, SESSION_TOKEN_PREFIX, SETUP_TOKEN_PREFIX

DETAIL_MAX_CHARS = 4_000
VALUE_MAX_CHARS = 500  # one string inside the detail
ITEMS_MAX = 50  # elements of one list, keys of one object
DEPTH_MAX = 6
MASK = "***"

# Key names (any case; words split on _ - . space and camelCase) that hold a secret.
_SECRET_WORDS = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "secret",
        "secrets",
        "token",
        "tokens",
        "hash",
        "authorization",
        "cookie",
        "cookies",
        "credential",
        "credentials",
        "apikey",
        "signature",
        "env",  # an MCP server's environment: API keys under any name
        "headers",  # an MCP server's headers: Authorization and friends under any name
    }
)
# "key" is a secret on its own or after these words (`api_key`, `chat_key`): `topic_key` and `key_set` are not.
_KEY_QUALIFIERS = frozenset({"api", "chat", "private", "secret", "access", "auth", "signing", "encryption", "client"})
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_TOKEN_PREFIXES = (BOT_TOKEN_PREFIX, API_TOKEN_PREFIX, SESSION_TOKEN_PREFIX, SETUP_TOKEN_PREFIX)


def is_secret_key(name: str) -> bool:
    """Whether a value stored under this key name must never be written to the trail."""
    words = [word.lower() for word in _WORD.findall(name)]
    if not words:
        return False
    if any(word in _SECRET_WORDS for word in words):
        return True
    if words == ["key"]:
        return True
    return any(word == "key" and index and words[index - 1] in _KEY_QUALIFIERS for index, word in enumerate(words))


def _looks_like_token(value: str) -> bool:
    return value.startswith(_TOKEN_PREFIXES) or value.lower().startswith("bearer ")


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    marker = f"…[{len(text)} chars]"
    return text[: max(0, limit - len(marker))] + marker


def redacted(value: Any, depth: int = 0) -> Any:
    """`value` as JSON-ready data: secrets masked, strings cut, lists and objects shortened."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return MASK if _looks_like_token(value) else _cut(value, VALUE_MAX_CHARS)
    if depth >= DEPTH_MAX:
        return "…"
    if isinstance(value, Mapping):
        shown: dict[str, Any] = {}
        for index, (key, inner) in enumerate(value.items()):
            if index == ITEMS_MAX:
                shown["…"] = f"{len(value) - ITEMS_MAX} more"
                break
            name = _cut(str(key), 100)
            hidden = is_secret_key(str(key)) and inner not in (None, "", {}, []) and not isinstance(inner, bool)
            shown[name] = MASK if hidden else redacted(inner, depth + 1)
        return shown
    if isinstance(value, list | tuple | set | frozenset):
        items = list(value)
        shown_items = [redacted(inner, depth + 1) for inner in items[:ITEMS_MAX]]
        if len(items) > ITEMS_MAX:
            shown_items.append(f"…{len(items) - ITEMS_MAX} more")
        return shown_items
    return _cut(str(value), VALUE_MAX_CHARS)


def detail_text(detail: Mapping[str, Any] | None) -> str | None:
    """The detail as the trail stores it: redacted JSON of at most DETAIL_MAX_CHARS characters."""
    if not detail:
        return None
    text = json.dumps(redacted(detail), ensure_ascii=False, separators=(",", ":"), default=str)
    return _cut(text, DETAIL_MAX_CHARS)


def changes(before: Mapping[str, Any], after: Mapping[str, Any], *, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The fields that differ: {field: {"before": …, "after": …}} (for an update's detail)."""
    return {
        name: {"before": before.get(name), "after": after.get(name)}
        for name in dict.fromkeys([*before, *after])
        if name not in skip and before.get(name) != after.get(name)
    }


# What a refused call's code means, for a person reading the trail: the call's own message (kept in the
# detail since it is recorded there) says what this call did; this says what the rule is.
REFUSAL_MEANINGS: dict[str, str] = {
    "filtered_progress": "Progress updates never go to a topic: they stay in the chat.",
    "filtered_tool_hint": "Tool hints (which tool the bot is calling) never go to a topic: they stay in the chat.",
    "filtered_chat": "Chat is conversation, not a result: it never goes to a topic.",
    "filtered_noise": "The text read as thanks, a greeting, an acknowledgement, a question back, progress or a "
    "tool call, not a task result: it never goes to a topic.",
    "topic_disabled": "Delivery is switched off for this bot (Topic panel switch): nothing is published.",
    "rate_limited": "The bot published more often than its per-minute limit (Bots page, Delivery settings).",
    "not_routed": "No topic was given and routing decided not to publish.",
    "topic_not_found": "The topic named does not exist for this bot, or is inactive.",
    "invalid_view": "The item's view did not match what the topic allows or the view schema.",
    "validation_error": "A field was missing, too long or not acceptable text.",
    "invalid_argument": "An argument had a value the tool does not take.",
    "payload_too_large": "The item was larger than an item may be.",
    "item_not_found": "The item named does not exist for this bot.",
    "missing_source_conversation": "No conversation was named and none was being answered.",
    "invalid_conversation_id": "The conversation id was not one.",
    "conversation_not_found": "The conversation named does not exist for this bot.",
    "database_unavailable": "The database did not answer in time.",
    "internal_error": "The dashboard failed on its side; its log has the details.",
    "forbidden": "The caller may read but not change this.",
    "unauthorized": "The caller was not signed in, or its token is not valid.",
    "invalid_credentials": "The username or password was wrong.",
    "too_many_attempts": "Too many failed attempts in a row: wait before trying again.",
}


def refusal_meaning(code: str | None) -> str:
    """What `code` means in words ("" for a code without an entry)."""
    return REFUSAL_MEANINGS.get(code or "", "")


def recorded_error(detail: str | None) -> dict[str, str]:
    """The error a refused tool call answered, as its row's detail keeps it (`{"error": {...}}`): its
    `message` and `field` as text; empty when the row kept none (or its detail was cut)."""
    if not detail:
        return {}
    try:
        parsed = json.loads(detail)
    except ValueError:
        return {}
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if not isinstance(error, dict):
        return {}
    return {key: str(error[key]) for key in ("message", "field") if error.get(key) not in (None, "")}
