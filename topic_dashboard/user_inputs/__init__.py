"""User input history: which recent user messages an LLM may read back, and how much."""

from topic_dashboard.user_inputs.selection import (
    DEFAULT_LIMIT,
    DEFAULT_MAX_CHARS,
    MAX_LIMIT,
    MAX_MAX_CHARS,
    MIN_LIMIT,
    MIN_MAX_CHARS,
    UserInput,
    clamp_int,
    clean_conversation_id,
    resolve_conversation_id,
    select_user_inputs,
)

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_MAX_CHARS",
    "MAX_LIMIT",
    "MAX_MAX_CHARS",
    "MIN_LIMIT",
    "MIN_MAX_CHARS",
    "UserInput",
    "clamp_int",
    "clean_conversation_id",
    "resolve_conversation_id",
    "select_user_inputs",
]
