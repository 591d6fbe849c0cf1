"""Talk to a bot's chat endpoint: nanobot's OpenAI-compatible `POST /v1/chat/completions`.

One dashboard conversation is one nanobot session (`session_id` = the conversation id, which
nanobot keeps as `api:<id>`), so the bot remembers the conversation without the dashboard
resending it. Answers are asked for as a stream (server-sent `chat.completion.chunk` events) and
handed on part by part. Every failure becomes an `AppError` whose message says what is wrong in
words a person can act on: refused, timed out, wrong key, not nanobot.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx

from topic_dashboard.errors import AppError

CONNECT_TIMEOUT_SECONDS = 5.0
CHECK_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class EndpointCheck:
    ok: bool
    code: str | None  # an errors.CATALOGUE code when not ok
    message: str
    model: str | None = None


def _headers(key: str | None) -> dict[str, str]:
    headers = {"accept": "application/json"}
    if key:
        headers["authorization"] = f"Bearer {key}"
    return headers


def _transport_error(url: str, exc: httpx.HTTPError) -> AppError:
    if isinstance(exc, httpx.ConnectTimeout):
        return AppError(
            "bot_timeout", f"no answer from {url} within {CONNECT_TIMEOUT_SECONDS:.0f} s: is the address right?"
        )
    if isinstance(exc, httpx.TimeoutException):
        return AppError("bot_timeout", f"the bot at {url} stopped answering (timed out)")
    if isinstance(exc, httpx.ConnectError):
        return AppError(
            "bot_unreachable", f"cannot connect to {url} (connection refused or no route): is `nanobot serve` running?"
        )
    return AppError("bot_unreachable", f"the connection to {url} failed: {type(exc).__name__}")


def _status_error(url: str, status: int, body: str) -> AppError:
    if status in (401, 403):
        return AppError("bot_auth_failed", f"the bot at {url} refused the key (HTTP {status}): check the chat key")
    if status == 404:
        return AppError("not_nanobot", f"{url} answers, but has no /v1/chat/completions: is it nanobot serve?")
    detail = _error_text(body)
    return AppError("bot_error", f"the bot answered HTTP {status}" + (f": {detail}" if detail else ""))


def _error_text(body: str) -> str:
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()[:200]
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return str(error.get("message", ""))[:200]
    return str(error or "")[:200]


async def check_endpoint(url: str, key: str | None, *, timeout: float = CHECK_TIMEOUT_SECONDS) -> EndpointCheck:
    """Is nanobot serve answering at `url` with this key? Never raises."""
    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            health = await client.get(f"{url}/health")
            models = await client.get(f"{url}/v1/models", headers=_headers(key))
    except httpx.HTTPError as exc:
        error = _transport_error(url, exc)
        return EndpointCheck(False, error.code, error.message)
    if models.status_code in (401, 403):
        error = _status_error(url, models.status_code, models.text)
        return EndpointCheck(False, error.code, error.message)
    try:
        data = models.json()
        health_ok = health.status_code == 200 and health.json().get("status") == "ok"
    except ValueError:
        data, health_ok = None, False
    entries = data.get("data") if isinstance(data, dict) else None
    if models.status_code != 200 or not health_ok or not isinstance(entries, list) or not entries:
        return EndpointCheck(
            False,
            "not_nanobot",
            f"something answers at {url}, but not nanobot's API (GET /health: HTTP {health.status_code}, "
            f"GET /v1/models: HTTP {models.status_code})",
        )
    first = entries[0] if isinstance(entries[0], dict) else {}
    model = str(first.get("id", "")) or None
    owner = str(first.get("owned_by", ""))
    if owner != "nanobot":
        return EndpointCheck(
            False, "not_nanobot", f"{url} is an OpenAI-compatible API, but not nanobot's (model owner {owner!r})"
        )
    return EndpointCheck(True, None, f"nanobot is answering at {url} (model {model})", model)


async def stream_answer(
    url: str,
    key: str | None,
    *,
    session_id: str,
    text: str,
    on_text: Callable[[str], Awaitable[bool]],
    read_timeout: float,
) -> str:
    """Send `text` as the next user turn of session `session_id`; call `on_text(answer so far)` as
    parts arrive (it returns True to stop: the stream is closed and what arrived is returned).
    Returns the whole answer. Raises AppError (bot_unreachable, bot_timeout, bot_auth_failed,
    bot_error, not_nanobot)."""
    body = {"messages": [{"role": "user", "content": text}], "session_id": session_id, "stream": True}
    timeout = httpx.Timeout(read_timeout, connect=CONNECT_TIMEOUT_SECONDS)
    answer = ""
    try:
        async with (
            httpx.AsyncClient(timeout=timeout) as client,
            client.stream("POST", f"{url}/v1/chat/completions", json=body, headers=_headers(key)) as response,
        ):
            if response.status_code != 200:
                raise _status_error(url, response.status_code, (await response.aread()).decode("utf-8", "replace"))
            kind = response.headers.get("content-type", "")
            if kind.startswith("application/json"):  # a server that ignores `stream`
                return _whole_answer(url, (await response.aread()).decode("utf-8", "replace"))
            if not kind.startswith("text/event-stream"):
                raise AppError("not_nanobot", f"{url} answered {kind or 'no content type'}, not a chat stream")
            finished = False
            async for line in response.aiter_lines():
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    finished = True
                    break
                delta, reason = _chunk(url, data)
                if delta:
                    answer += delta
                    if await on_text(answer):
                        return answer
                if reason is not None:
                    finished = True
            if not finished:
                raise AppError("bot_error", "the bot's answer broke off before it finished (see the bot's log)")
    except httpx.HTTPError as exc:
        raise _transport_error(url, exc) from exc
    return answer


def _chunk(url: str, data: str) -> tuple[str, str | None]:
    try:
        event: Any = json.loads(data)
        choice = event["choices"][0]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise AppError("not_nanobot", f"{url} sent a stream that is not chat completion chunks") from exc
    delta = choice.get("delta") or {}
    content = delta.get("content") if isinstance(delta, dict) else None
    reason = choice.get("finish_reason")
    return (content if isinstance(content, str) else ""), (str(reason) if reason else None)


def _whole_answer(url: str, body: str) -> str:
    try:
        content = json.loads(body)["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise AppError("not_nanobot", f"{url} answered JSON that is not a chat completion") from exc
    return str(content or "")
