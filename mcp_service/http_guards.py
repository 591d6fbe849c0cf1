"""The one guard at the HTTP edge, around the whole app: Reflex's pages and event socket, /api, MCP.

Before anything behind it runs, in this order:
1. the Host header must match `allowed_hosts`, on every HTTP and websocket request (DNS rebinding);
2. an Origin header on a websocket (Reflex's `/_event`), on `/_event`'s polling transport and on the
   MCP endpoints must match `allowed_origins` (cross-site websocket hijacking; `null` is refused);
3. the MCP endpoints take POST with a JSON body only: their servers are stateless and answer JSON,
   so a GET would only open an event stream that nothing ever closes;
4. a request body over the limit is refused: by its Content-Length at once, a streamed one as soon
   as it passes the limit; before auth and before any parsing.
The MCP endpoints (`direct`) are then answered here, past nothing else: they need none of the API app's
routing, error pages or middleware, which cost a bot's every call about a millisecond.
Every HTTP answer then carries the security headers; an HTML answer's Content-Security-Policy allows
the inline <script> blocks of that very answer by hash, and no other inline script. A 304 carries no
policy: the browser keeps the page it has cached, with the policy that came with it.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import logging
import re
from collections import deque
from collections.abc import Mapping, Sequence

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from topic_dashboard.errors import AppError
from topic_dashboard.settings import Settings

logger = logging.getLogger(__name__)

MCP_PREFIX = "/api/mcp/"
EVENT_PATH = "/_event"  # Reflex's socket.io endpoint (reflex.constants.Endpoint.EVENT)

SECURITY_HEADERS = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def matches_allowed(value: str, allowed: Sequence[str]) -> bool:
    """The MCP SDK's matching (mcp.server.transport_security): an exact value, or `base:*` for any port of base."""
    if value in allowed:
        return True
    return any(pattern.endswith(":*") and value.startswith(pattern[:-2] + ":") for pattern in allowed)


def host_allowed(host: str | None, allowed: Sequence[str]) -> bool:
    return bool(host) and matches_allowed(host or "", allowed)


def origin_allowed(origin: str | None, allowed: Sequence[str]) -> bool:
    """A request without Origin passes: same-origin navigations and non-browser clients send none."""
    return not origin or matches_allowed(origin, allowed)


def connect_sources(allowed_hosts: Sequence[str], public_base_url: str) -> list[str]:
    """CSP connect-src: this origin, the websocket of every allowed host, and the backend URL the frontend is built with."""
    sources = ["'self'"]
    for host in allowed_hosts:
        if host.startswith("["):
            continue  # CSP host-sources cannot name IPv6 literals; 'self' still covers the page's own host
        sources += [f"ws://{host}", f"wss://{host}"]
    base = public_base_url.rstrip("/")
    sources += [base, base.replace("http", "ws", 1)]
    return list(dict.fromkeys(sources))


def content_security_policy(connect: Sequence[str], script_hashes: Sequence[str] = ()) -> str:
    # 'unsafe-eval': Reflex's frontend runs rx.call_script payloads through eval (utils/state.js).
    # 'unsafe-inline' styles: Radix and Emotion inject <style> elements at run time.
    script_src = " ".join(["'self'", "'unsafe-eval'", *script_hashes])
    return (
        f"default-src 'self'; script-src {script_src}; style-src 'self' 'unsafe-inline'; "
        f"img-src 'self' data: https:; connect-src {' '.join(connect)}; object-src 'none'; "
        "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
    )


# A browser ends a script element at the first `</script` followed by whitespace, `/` or `>`.
_SCRIPT = re.compile(
    r"<script\b((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>(.*?)</script(?=[\t\n\f\r />])", re.IGNORECASE | re.DOTALL
)
_SRC_ATTRIBUTE = re.compile(r"(?:^|\s)src\s*=", re.IGNORECASE)


def inline_script_hashes(html: str) -> list[str]:
    """CSP sources ('sha256-...') for the inline <script> blocks of `html`, hashed as a browser hashes them."""
    hashes: list[str] = []
    for match in _SCRIPT.finditer(html):
        if _SRC_ATTRIBUTE.search(match.group(1)):
            continue
        text = match.group(2).replace("\r\n", "\n").replace("\r", "\n")  # the HTML parser's newline normalisation
        source = f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"
        if source not in hashes:
            hashes.append(source)
    return hashes


def _html_text(headers: Headers, body: bytes) -> str | None:
    encoding = headers.get("content-encoding", "identity").strip().lower()
    if encoding == "gzip":
        body = gzip.decompress(body)
    elif encoding != "identity":
        logger.warning("HTML answer in %s encoding: its inline scripts get no CSP hashes", encoding)
        return None
    charset = headers.get("content-type", "").partition("charset=")[2].split(";")[0].strip() or "utf-8"
    return body.decode(charset, errors="replace")


class _SecuredSend:
    """Adds the security headers; holds an HTML answer until its body is complete, to hash its inline scripts."""

    def __init__(self, send: Send, connect: Sequence[str]) -> None:
        self._send = send
        self._connect = connect
        self._held_start: Message | None = None
        self._held_body: list[bytes] = []

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            if message.get("status") == 304:
                # Not Modified: the browser updates the headers stored with its cached page from these, so a
                # policy here would replace that page's own, and its script hashes with it.
                await self._send(self._secured(message, (), with_policy=False))
                return
            if Headers(raw=message.get("headers", [])).get("content-type", "").startswith("text/html"):
                self._held_start = message
                return
            await self._send(self._secured(message, ()))
        elif message["type"] == "http.response.body" and self._held_start is not None:
            self._held_body.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            start, self._held_start, body = self._held_start, None, b"".join(self._held_body)
            html = _html_text(Headers(raw=start.get("headers", [])), body)
            await self._send(self._secured(start, inline_script_hashes(html) if html else ()))
            await self._send({"type": "http.response.body", "body": body, "more_body": False})
        else:
            await self._send(message)

    def _secured(self, start: Message, script_hashes: Sequence[str], *, with_policy: bool = True) -> Message:
        start = {**start, "headers": list(start.get("headers", []))}
        headers = MutableHeaders(scope=start)
        if with_policy:
            headers.setdefault("content-security-policy", content_security_policy(self._connect, script_hashes))
        for name, value in SECURITY_HEADERS.items():
            headers.setdefault(name, value)
        return start


async def _answer_error(scope: Scope, send: Send, error: AppError, extra: Sequence[tuple[str, str]] = ()) -> None:
    """The JSON error body; on a websocket, as the handshake's HTTP answer (or a close, without that extension)."""
    body = json.dumps({"error": error.to_dict()}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(name.encode(), value.encode()) for name, value in extra]
    if scope["type"] == "websocket":
        if "websocket.http.response" not in scope.get("extensions", {}):
            await send({"type": "websocket.close", "code": 1008})
            return
        await send({"type": "websocket.http.response.start", "status": error.status, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": body})
        return
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _read_body(receive: Receive, limit: int) -> list[Message] | None:
    """The request's messages to the end of its body, or None as soon as the body passes `limit`."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages  # the client went away; the app sees that as it would have
        size += len(message.get("body", b""))
        if size > limit:
            return None
        if not message.get("more_body", False):
            return messages


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = deque(messages)

    async def replayed() -> Message:
        return pending.popleft() if pending else await receive()

    return replayed


class HttpGuards:
    """ASGI middleware around the whole app; see the module docstring for what it refuses and adds."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: Sequence[str],
        allowed_origins: Sequence[str],
        rest_max_body_bytes: int,
        mcp_max_body_bytes: int,
        connect: Sequence[str] = ("'self'",),
        event_path: str = EVENT_PATH,
        direct: Mapping[str, ASGIApp] | None = None,
    ) -> None:
        self.app = app
        # Exact paths (POST only) answered by their own ASGI app once the guards passed: the MCP endpoints.
        self.direct = dict(direct or {})
        self.allowed_hosts = list(allowed_hosts)
        self.allowed_origins = list(allowed_origins)
        self.rest_max_body_bytes = rest_max_body_bytes
        self.mcp_max_body_bytes = mcp_max_body_bytes
        self.connect = list(connect)
        self.event_path = event_path.rstrip("/")

    @classmethod
    def from_settings(
        cls,
        app: ASGIApp,
        settings: Settings,
        *,
        event_path: str = EVENT_PATH,
        direct: Mapping[str, ASGIApp] | None = None,
    ) -> HttpGuards:
        return cls(
            app,
            allowed_hosts=settings.allowed_hosts,
            allowed_origins=settings.allowed_origins,
            rest_max_body_bytes=settings.rest_max_body_bytes,
            mcp_max_body_bytes=settings.mcp_max_body_bytes,
            connect=connect_sources(settings.allowed_hosts, settings.public_base_url),
            event_path=event_path,
            direct=direct,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, _SecuredSend(send, self.connect))
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def _refusal(self, scope: Scope, headers: Headers, *, check_origin: bool) -> AppError | None:
        host = headers.get("host")
        if not host_allowed(host, self.allowed_hosts):
            logger.info("refused Host %r on %s", host, scope["path"])
            return AppError(
                "invalid_host",
                "this Host is not served here; the operator can allow it in TOPIC_DASHBOARD_ALLOWED_HOSTS",
            )
        origin = headers.get("origin")
        if check_origin and not origin_allowed(origin, self.allowed_origins):
            logger.info("refused Origin %r on %s", origin, scope["path"])
            return AppError(
                "forbidden_origin",
                "requests from this Origin are not accepted; the operator can "
                "allow it in TOPIC_DASHBOARD_ALLOWED_ORIGINS",
            )
        return None

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self._refusal(scope, Headers(scope=scope), check_origin=True)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        await receive()  # websocket.connect; the handshake is then denied, never accepted
        await _answer_error(scope, send, refusal)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        path: str = scope["path"]
        is_mcp = path.startswith(MCP_PREFIX)
        is_event = path == self.event_path or path.startswith(self.event_path + "/")
        refusal = self._refusal(scope, headers, check_origin=is_mcp or is_event)
        if refusal is not None:
            await _answer_error(scope, send, refusal)
            return
        if is_mcp and scope["method"] != "POST":
            error = AppError(
                "method_not_allowed", "the MCP endpoints are stateless and answer JSON: POST a JSON-RPC message"
            )
            await _answer_error(scope, send, error, [("allow", "POST")])
            return
        limit = self.mcp_max_body_bytes if is_mcp else self.rest_max_body_bytes
        too_large = AppError("payload_too_large", f"the request body is over {limit} bytes", limit_bytes=limit)
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await _answer_error(scope, send, too_large, [("connection", "close")])
            return
        if is_mcp and headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            error = AppError("unsupported_media_type", "send the JSON-RPC message with Content-Type: application/json")
            await _answer_error(scope, send, error)
            return
        messages = await _read_body(receive, limit)
        if messages is None:
            await _answer_error(scope, send, too_large, [("connection", "close")])
            return
        if "http.response.pathsend" in scope.get("extensions", {}):
            # A file sent by path (Granian) could not be held to hash an HTML page's scripts: have it sent as body.
            extensions = {k: v for k, v in scope["extensions"].items() if k != "http.response.pathsend"}
            scope = {**scope, "extensions": extensions}
        target = self.direct.get(path, self.app) if is_mcp else self.app
        await target(scope, _replay(messages, receive), send)
