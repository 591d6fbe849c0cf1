"""A scripted OpenAI-compatible LLM over HTTP, for tests that run a real agent (nanobot) without network.

The test gives a script: a function from the request body (the JSON the agent sent to
`POST /v1/chat/completions`) to a reply: `Text` (a bare str is one part), a list of `ToolCall` (a
`Text` in the list is said before the calls), or `LLMError`. The server answers the way OpenAI
streams (`chat.completion.chunk` server-sent events ending in `data: [DONE]`), which is the only way
nanobot asks; a request with `stream: false` gets one `chat.completion` object.
Every request body is kept, in order, so a test can check what the model was shown.

    def script(request):
        if called(request, "mcp_topic_mcp_topic_publish"):
            return Text("Done: ", "published.")
        return [ToolCall("mcp_topic_mcp_topic_publish", {"title": "Build", "content": "passed"})]

    with ScriptedLLM(script) as llm:  # llm.base_url is what the agent's provider needs as apiBase
        ...
        assert tool_results(llm.requests[-1])[0].text.startswith('{"ok"')
"""

from __future__ import annotations

import json
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

DEFAULT_MODEL = "scripted-model"


@dataclass(frozen=True)
class Text:
    """A text answer, streamed as one delta per part, `delay` seconds apart."""

    parts: tuple[str, ...]
    delay: float = 0.0

    def __init__(self, *parts: str, delay: float = 0.0) -> None:
        object.__setattr__(self, "parts", parts or ("",))
        object.__setattr__(self, "delay", delay)

    @property
    def content(self) -> str:
        return "".join(self.parts)


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asks for; the id is made up when not given."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class LLMError:
    """An HTTP error instead of an answer. nanobot retries 408/409/429 and 5xx three times (1+2+4 s
    of back-off) before giving up; other statuses fail the model call at once."""

    status: int = 400
    message: str = "scripted failure"


Reply = Text | str | list[ToolCall | Text] | LLMError
Script = Callable[[dict[str, Any]], Reply]


@dataclass(frozen=True)
class ToolResult:
    """A role=tool message the model was shown: which call it answers and its text (nanobot 0.3.5
    appends "\n\n[Analyze the error above and try a different approach.]" to a tool error's text)."""

    tool_call_id: str
    name: str | None
    text: str


def message_text(message: dict[str, Any]) -> str:
    """The text of a chat message whose content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def _since_last_user(request: dict[str, Any]) -> list[dict[str, Any]]:
    messages = [m for m in request.get("messages", []) if isinstance(m, dict)]
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return messages[last_user + 1 :]


def last_user_text(request: dict[str, Any]) -> str:
    """The text of the last role=user message ("" if there is none)."""
    users = [m for m in request.get("messages", []) if isinstance(m, dict) and m.get("role") == "user"]
    return message_text(users[-1]) if users else ""


def user_texts(request: dict[str, Any]) -> list[str]:
    """The text of every role=user message, oldest first (what the model sees of the conversation)."""
    return [message_text(m) for m in request.get("messages", []) if isinstance(m, dict) and m.get("role") == "user"]


def tool_results(request: dict[str, Any]) -> list[ToolResult]:
    """The role=tool messages since the last user message, named after the calls they answer."""
    messages = _since_last_user(request)
    names = {
        call.get("id"): call.get("function", {}).get("name")
        for m in messages
        if m.get("role") == "assistant"
        for call in m.get("tool_calls") or []
    }
    return [
        ToolResult(
            tool_call_id=m.get("tool_call_id", ""),
            name=m.get("name") or names.get(m.get("tool_call_id")),
            text=message_text(m),
        )
        for m in messages
        if m.get("role") == "tool"
    ]


def called(request: dict[str, Any], tool_name: str) -> bool:
    """Whether the model already called `tool_name` since the last user message."""
    return any(
        call.get("function", {}).get("name") == tool_name
        for m in _since_last_user(request)
        if m.get("role") == "assistant"
        for call in m.get("tool_calls") or []
    )


def tool_names(request: dict[str, Any]) -> list[str]:
    """The names of the tools offered to the model in this request."""
    return [t.get("function", {}).get("name", "") for t in request.get("tools") or [] if isinstance(t, dict)]


class ScriptedLLM:
    """The server, on 127.0.0.1 and a free port, in a background thread while the block runs.

    `script` may be replaced at any time (`llm.script = ...`). A script that raises answers HTTP 400
    (not 5xx, which nanobot would retry for 7 s) and the traceback is kept in `errors`.
    """

    def __init__(self, script: Script, *, model: str = DEFAULT_MODEL) -> None:
        self.model = model
        self._script = script
        self._lock = threading.Condition()
        self._requests: list[dict[str, Any]] = []
        self._errors: list[str] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- what tests read ----------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The OpenAI base URL (ends in /v1): an OpenAI client posts to `{base_url}/chat/completions`."""
        if self._httpd is None:
            raise RuntimeError("the scripted LLM is not running")
        return f"http://127.0.0.1:{self._httpd.server_port}/v1"

    @property
    def script(self) -> Script:
        with self._lock:
            return self._script

    @script.setter
    def script(self, script: Script) -> None:
        with self._lock:
            self._script = script

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every chat-completions request body received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def errors(self) -> list[str]:
        """Tracebacks of scripts that raised."""
        with self._lock:
            return list(self._errors)

    def clear(self) -> None:
        with self._lock:
            self._requests.clear()
            self._errors.clear()

    def wait_for_requests(self, count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Block until at least `count` requests arrived. Raises TimeoutError."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self._requests) >= count, timeout=timeout):
                raise TimeoutError(f"{len(self._requests)} of {count} requests after {timeout}s")
            return list(self._requests)

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> Self:
        handler = type("_BoundHandler", (_Handler,), {"llm": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="scripted-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- used by the handler ------------------------------------------------------------------

    def _answer(self, body: dict[str, Any]) -> Text | list[ToolCall | Text] | LLMError:
        with self._lock:
            self._requests.append(body)
            script = self._script
            self._lock.notify_all()
        try:
            reply = script(body)
        except Exception:  # a test's script may fail any way (an assert): kept for the test, then re-raised
            with self._lock:
                self._errors.append(traceback.format_exc())
            raise
        if isinstance(reply, str):
            return Text(reply)
        if isinstance(reply, (Text, LLMError)) or (
            isinstance(reply, list) and all(isinstance(r, (ToolCall, Text)) for r in reply)
        ):
            return reply
        with self._lock:
            self._errors.append(f"the script returned {reply!r}")
        raise TypeError(f"a script must return Text, str, a list of ToolCall or LLMError, not {reply!r}")


class _Handler(BaseHTTPRequestHandler):
    llm: ScriptedLLM
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the request log lives in ScriptedLLM.requests

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            self._json(
                200,
                {
                    "object": "list",
                    "data": [{"id": self.llm.model, "object": "model", "created": 0, "owned_by": "tests"}],
                },
            )
        else:
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})

    def do_POST(self) -> None:
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
            return
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        except json.JSONDecodeError:
            self._json(400, {"error": {"message": "invalid JSON", "type": "invalid_request_error"}})
            return
        try:
            reply = self.llm._answer(body)
        except Exception as exc:  # goes back to the agent as a failed model call (see ScriptedLLM)
            self._json(400, {"error": {"message": f"script failed: {exc!r}", "type": "invalid_request_error"}})
            return
        if isinstance(reply, LLMError):
            error_type = "server_error" if reply.status >= 500 else "invalid_request_error"
            self._json(reply.status, {"error": {"message": reply.message, "type": error_type}})
            return
        completion_id = f"chatcmpl-{uuid.uuid4().hex[:12]}"
        if body.get("stream"):
            self._stream(
                reply, completion_id, include_usage=bool((body.get("stream_options") or {}).get("include_usage"))
            )
        else:
            self._json(200, self._completion(reply, completion_id))

    # -- answers ------------------------------------------------------------------------------

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _chunk(self, completion_id: str, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": self.llm.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }

    def _send_event(self, payload: dict[str, Any] | str) -> None:
        data = payload if isinstance(payload, str) else json.dumps(payload)
        event = f"data: {data}\n\n".encode()
        # Chunked transfer encoding, so each event leaves at once on a kept-alive connection.
        self.wfile.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
        self.wfile.flush()

    def _stream(self, reply: Text | list[ToolCall | Text], completion_id: str, *, include_usage: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        texts = [reply] if isinstance(reply, Text) else [r for r in reply if isinstance(r, Text)]
        calls = [] if isinstance(reply, Text) else _tool_calls(reply)
        first = True
        for text in texts:
            for n, part in enumerate(text.parts):
                if n and text.delay:
                    time.sleep(text.delay)
                delta: dict[str, Any] = {"role": "assistant", "content": part} if first else {"content": part}
                self._send_event(self._chunk(completion_id, delta))
                first = False
        if calls:
            delta = {"tool_calls": [{"index": n, **call} for n, call in enumerate(calls)]}
            if first:
                delta = {"role": "assistant", "content": None, **delta}
            self._send_event(self._chunk(completion_id, delta))
            self._send_event(self._chunk(completion_id, {}, "tool_calls"))
        else:
            self._send_event(self._chunk(completion_id, {}, "stop"))
        if include_usage:
            usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
            self._send_event({**self._chunk(completion_id, {}), "choices": [], "usage": usage})
        self._send_event("[DONE]")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _completion(self, reply: Text | list[ToolCall | Text], completion_id: str) -> dict[str, Any]:
        texts = [reply] if isinstance(reply, Text) else [r for r in reply if isinstance(r, Text)]
        calls = [] if isinstance(reply, Text) else _tool_calls(reply)
        message: dict[str, Any] = {"role": "assistant", "content": "".join(t.content for t in texts) or None}
        if calls:
            message["tool_calls"] = calls
        finish_reason = "tool_calls" if calls else "stop"
        return {
            "id": completion_id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.llm.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }


def _tool_calls(reply: list[ToolCall | Text]) -> list[dict[str, Any]]:
    return [
        {
            "id": call.id or f"call_{uuid.uuid4().hex[:12]}",
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
        }
        for call in reply
        if isinstance(call, ToolCall)
    ]
