"""One catalogue of application errors, each with a stable code and an HTTP status.

Every surface maps `AppError` once: the REST API to `{"error": {...}}` with `status`,
MCP tools to a tool error whose text is `{"ok": false, "error": {...}}`, the UI to a toast.
"""

from __future__ import annotations

from typing import Any

# code -> HTTP status. Codes are part of the public contract: never rename one.
CATALOGUE: dict[str, int] = {
    # generic
    "invalid_json": 400,
    "invalid_argument": 422,
    "validation_error": 422,
    "not_found": 404,
    "conflict": 409,
    "payload_too_large": 413,
    "rate_limited": 429,
    "database_unavailable": 503,
    "data_dir_unavailable": 503,
    "internal_error": 500,
    # the HTTP edge (mcp_service/http_guards.py)
    "invalid_host": 421,
    "forbidden_origin": 403,
    "method_not_allowed": 405,
    "unsupported_media_type": 415,
    # access
    "unauthorized": 401,
    "invalid_credentials": 401,
    "session_expired": 401,
    "forbidden": 403,
    "user_exists": 409,
    "weak_password": 422,
    "setup_done": 409,
    "too_many_attempts": 429,
    "user_not_found": 404,
    "api_token_not_found": 404,
    "last_admin": 409,
    "own_account": 409,
    # bots and their nanobot config
    "bot_not_found": 404,
    "invalid_mcp_config": 422,
    "locked_field": 422,
    "config_io_error": 500,
    "config_path_not_allowed": 422,
    "config_path_in_use": 409,
    "adoption_not_confirmed": 409,
    # topics, rules, items
    "topic_not_found": 404,
    "topic_exists": 409,
    "invalid_topic_key": 422,
    "invalid_rule": 422,
    "immutable_field": 422,
    "fallback_protected": 409,
    "topic_disabled": 409,
    "filtered_progress": 422,
    "filtered_tool_hint": 422,
    "filtered_chat": 422,
    "filtered_noise": 422,
    "invalid_view": 422,
    "item_not_found": 404,
    "not_routed": 422,
    "invalid_cursor": 400,
    # conversations and user inputs
    "missing_source_conversation": 400,
    "invalid_conversation_id": 400,
    "conversation_not_found": 404,
    "message_not_found": 404,
    "not_a_guide_card": 409,
    "guide_card_already_submitted": 409,
    # the dashboard channel: relaying a conversation to the bot (services/chat.py, chat/relay.py)
    "invalid_chat_url": 422,
    "no_chat_endpoint": 409,
    "bot_unreachable": 502,
    "bot_timeout": 504,
    "bot_auth_failed": 502,
    "bot_error": 502,
    "not_nanobot": 502,
    "run_in_progress": 409,
    "nothing_to_retry": 409,
}


class AppError(Exception):
    """An error a caller can act on: `code` is stable, `message` says what to do instead.

    `field` names the offending input (a JSON path such as `view.rows[2]`) where there is one;
    `details` carries extra machine-readable context (e.g. `retry_after_seconds`).
    """

    def __init__(self, code: str, message: str, *, field: str | None = None, **details: Any) -> None:
        if code not in CATALOGUE:
            raise ValueError(f"unknown error code {code!r}: add it to errors.CATALOGUE")
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.details = details

    @property
    def status(self) -> int:
        return CATALOGUE[self.code]

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field is not None:
            body["field"] = self.field
        body.update(self.details)
        return body

    def __repr__(self) -> str:
        return f"AppError({self.code!r}, {self.message!r})"
