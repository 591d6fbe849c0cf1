"""The HTTP edge over real HTTP: Host and Origin checks (DNS rebinding, cross-site websocket hijacking),
body-size limits before auth, no event streams on the stateless MCP endpoints, security headers,
a JSON 503 while the database is down, and the loopback listen address.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import select
import socket
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import psutil
import pytest
import websocket
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from sqlmodel import Session
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from mcp_service.http_guards import HttpGuards, host_allowed, inline_script_hashes, origin_allowed
from tests.support.server import LiveServer, configured, free_port
from topic_dashboard.services.accounts import create_api_token
from topic_dashboard.services.bots import create_bot
from topic_dashboard.settings import ENV_PREFIX, Settings, get_settings

ROOT = Path(__file__).resolve().parents[2]
MCP_PATHS = ["/api/mcp/topic", "/api/mcp/ccweb"]
MCP_HEADERS = {"accept": "application/json, text/event-stream"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
FOREIGN_HOSTS = ["evil.example", "evil.example:3000", "127.0.0.1.evil.example:3000", "localhost.evil.example"]


@pytest.fixture
def bot_token(server_session: Session) -> str:
    _, token = create_bot(session=server_session, name="guarded")
    return token


@pytest.fixture
def api_token(server_session: Session) -> str:
    return create_api_token(session=server_session, name="guarded-admin", role="admin")


def error_code(response: httpx.Response) -> str:
    assert response.headers["content-type"].startswith("application/json"), response.text
    return response.json()["error"]["code"]


# --- Host and Origin -------------------------------------------------------------------------------


def event_socket(server: LiveServer, **options: Any) -> websocket.WebSocket:
    url = server.base_url.replace("http://", "ws://") + "/_event/?EIO=4&transport=websocket"
    return websocket.create_connection(url, timeout=10, **options)


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1.evil.example:3000"])
def test_the_event_socket_refuses_foreign_and_null_origins_before_accepting(server: LiveServer, origin: str) -> None:
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        event_socket(server, origin=origin)
    assert refused.value.status_code == 403
    assert json.loads(refused.value.resp_body or b"{}")["error"]["code"] == "forbidden_origin"


@pytest.mark.parametrize("origin", ["http://evil.example", "null"])
def test_the_event_polling_transport_refuses_foreign_origins(server: LiveServer, origin: str) -> None:
    response = httpx.get(server.base_url + "/_event/?EIO=4&transport=polling", headers={"origin": origin})
    assert response.status_code == 403
    assert error_code(response) == "forbidden_origin"


@pytest.mark.parametrize("origin", ["http://localhost:3001", "http://127.0.0.1:3001", None])
def test_the_event_socket_accepts_the_allowed_origins(server: LiveServer, origin: str | None) -> None:
    # The Reflex dev frontend runs on another localhost port than the backend.
    options = {"origin": origin} if origin else {"suppress_origin": True}
    sock = event_socket(server, **options)
    try:
        assert sock.recv().startswith("0{")  # engine.io's open packet
    finally:
        sock.close()


@pytest.mark.parametrize("host", FOREIGN_HOSTS)
def test_the_event_socket_refuses_foreign_hosts(server: LiveServer, host: str) -> None:
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        event_socket(server, host=host)
    assert refused.value.status_code == 421
    assert json.loads(refused.value.resp_body or b"{}")["error"]["code"] == "invalid_host"


@pytest.mark.parametrize("host", FOREIGN_HOSTS)
@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/"), ("GET", "/api/health"), ("GET", "/ping"), ("POST", "/api/mcp/topic"), ("GET", "/api/openapi.json")],
)
def test_foreign_hosts_are_refused_on_every_path(
    server: LiveServer, bot_token: str, host: str, method: str, path: str
) -> None:
    response = httpx.request(
        method,
        server.base_url + path,
        json=LIST_TOOLS if method == "POST" else None,
        headers={**MCP_HEADERS, "x-topic-mcp-token": bot_token, "host": host},
    )
    assert response.status_code == 421
    assert error_code(response) == "invalid_host"


def test_an_mcp_call_from_a_foreign_origin_gets_a_json_refusal(server: LiveServer, bot_token: str) -> None:
    response = httpx.post(
        server.base_url + "/api/mcp/topic",
        json=LIST_TOOLS,
        headers={**MCP_HEADERS, "x-topic-mcp-token": bot_token, "origin": "http://evil.example"},
    )
    assert response.status_code == 403
    assert error_code(response) == "forbidden_origin"


# --- Body size, before auth and before parsing ------------------------------------------------------


def raw_exchange(
    base_url: str, head: str, chunks: Iterable[bytes] = (), timeout: float = 10
) -> tuple[int, dict[str, str], bytes, int]:
    """Send a request head, then body chunks until the server answers; returns status, headers, body, bytes sent."""
    parts = urlsplit(base_url)
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        sock.sendall(head.encode())
        sent = 0
        for chunk in chunks:
            if select.select([sock], [], [], 0)[0]:
                break  # the server answered early
            try:
                sock.sendall(chunk)
            except OSError:
                break
            sent += len(chunk)
        answer = b""
        while b"\r\n\r\n" not in answer:
            data = sock.recv(65536)
            if not data:
                break
            answer += data
        head_bytes, _, body = answer.partition(b"\r\n\r\n")
        lines = head_bytes.decode("latin-1").split("\r\n")
        headers = {
            name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])
        }
        while len(body) < int(headers.get("content-length", "0")):
            data = sock.recv(65536)
            if not data:
                break
            body += data
    return int(lines[0].split()[1]), headers, body, sent


def request_head(server: LiveServer, path: str, *, length: int | None = None, extra: str = "") -> str:
    framing = f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked"
    host = urlsplit(server.base_url).netloc
    return f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n{extra}{framing}\r\n\r\n"


def chunked(total: int, size: int = 64 * 1024) -> Iterator[bytes]:
    for _ in range(total // size):
        yield f"{size:x}\r\n".encode() + b"x" * size + b"\r\n"


@pytest.mark.parametrize("path", ["/api/bots", "/api/bots/b1/topics", "/", "/api/mcp/topic"])
def test_a_declared_oversized_body_is_refused_at_once_before_auth(server: LiveServer, path: str) -> None:
    # 200 MB announced and never sent: the answer must not wait for the body, nor for auth.
    status, headers, body, _ = raw_exchange(server.base_url, request_head(server, path, length=200 * 1024 * 1024))
    assert status == 413
    assert headers["content-type"].startswith("application/json")
    assert json.loads(body)["error"]["code"] == "payload_too_large"


@pytest.mark.parametrize("path", ["/api/bots", "/api/mcp/topic"])
def test_a_streamed_body_is_cut_at_the_limit(server: LiveServer, path: str) -> None:
    total = 64 * 1024 * 1024
    status, _, body, sent = raw_exchange(server.base_url, request_head(server, path), chunked(total))
    assert status == 413
    assert json.loads(body)["error"]["code"] == "payload_too_large"
    assert sent < total


def test_the_rest_limit_is_one_mib_and_the_mcp_limit_four(server: LiveServer, bot_token: str) -> None:
    settings = get_settings()
    assert (settings.rest_max_body_bytes, settings.mcp_max_body_bytes) == (1024 * 1024, 4 * 1024 * 1024)
    just_over_rest = b"x" * (settings.rest_max_body_bytes + 1)
    response = httpx.post(
        server.base_url + "/api/bots", content=just_over_rest, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413 and error_code(response) == "payload_too_large"
    # Over the REST limit but within the MCP one: the MCP call is served.
    padded = {**LIST_TOOLS, "params": {"_meta": {"pad": "x" * 2 * 1024 * 1024}}}
    response = httpx.post(
        server.base_url + "/api/mcp/topic", json=padded, headers={**MCP_HEADERS, "x-topic-mcp-token": bot_token}
    )
    assert response.status_code == 200, response.text


# --- No event streams on the stateless MCP endpoints ---------------------------------------------------


@pytest.mark.parametrize("path", MCP_PATHS)
@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_get_and_delete_on_the_mcp_endpoints_answer_405_at_once(
    server: LiveServer, bot_token: str, path: str, method: str
) -> None:
    response = httpx.request(
        method,
        server.base_url + path,
        timeout=5,
        headers={"accept": "text/event-stream", "x-topic-mcp-token": bot_token},
    )
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert error_code(response) == "method_not_allowed"


def test_fifty_mcp_gets_hold_no_file_descriptors(server: LiveServer, bot_token: str) -> None:
    process = psutil.Process()  # the server runs in this process
    headers = {"accept": "text/event-stream", "x-topic-mcp-token": bot_token}
    with httpx.Client(timeout=5) as client:
        assert client.get(server.topic_mcp_url, headers=headers).status_code == 405
        before = process.num_fds()
        for _ in range(50):
            assert client.get(server.topic_mcp_url, headers=headers).status_code == 405
        after = process.num_fds()
    assert after - before <= 3, (before, after)


# --- Security headers ---------------------------------------------------------------------------------


def assert_security_headers(response: httpx.Response) -> None:
    policy = response.headers["content-security-policy"]
    for directive in (
        "default-src 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "img-src 'self' data: https:",
        "style-src 'self' 'unsafe-inline'",
        "script-src 'self' 'unsafe-eval'",
        "connect-src 'self' ws://127.0.0.1:* wss://127.0.0.1:*",
    ):
        assert directive in policy, (directive, policy)
    assert "sha256-" not in policy  # hashes only for inline scripts of HTML answers
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"


def test_every_kind_of_answer_carries_the_security_headers(server: LiveServer, bot_token: str) -> None:
    base = server.base_url
    answers = {
        "health": httpx.get(base + "/api/health"),
        "mcp": httpx.post(
            base + "/api/mcp/topic", json=LIST_TOOLS, headers={**MCP_HEADERS, "x-topic-mcp-token": bot_token}
        ),
        "mcp 401": httpx.post(base + "/api/mcp/topic", json=LIST_TOOLS, headers=MCP_HEADERS),
        "api 404": httpx.get(base + "/api/nope"),
        "page 404": httpx.get(base + "/no-such-page"),
        "refused host": httpx.get(base + "/api/health", headers={"host": "evil.example"}),
    }
    assert [name for name, response in answers.items() if response.status_code >= 500] == []
    assert answers["mcp"].status_code == 200
    for response in answers.values():
        assert_security_headers(response)


# --- Database down: a JSON 503, never the driver's text ---------------------------------------------------


@pytest.fixture(params=["postgresql-nothing-listening", "sqlite-file-unopenable"])
def database_down(request: pytest.FixtureRequest, server: LiveServer, tmp_path: Path) -> Iterator[None]:
    if request.param.startswith("postgresql"):
        url = f"postgresql://postgres@127.0.0.1:{free_port()}/postgres"
    else:
        url = f"sqlite:///{tmp_path}"  # a directory: "unable to open database file"
    with configured(url, str(tmp_path / "data")):
        yield


def assert_database_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert error_code(response) == "database_unavailable"
    text = response.text.lower()
    for leak in ("sqlite", "psycopg", "select", "127.0.0.1", "operationalerror", "connection refused"):
        assert leak not in text, response.text


def test_rest_answers_a_json_503_while_the_database_is_down(server: LiveServer, database_down: None) -> None:
    assert_database_unavailable(httpx.get(server.base_url + "/api/bots", headers={"authorization": "Bearer tdapi_x"}))
    assert httpx.get(server.base_url + "/api/health").status_code == 503


@pytest.mark.parametrize("path", MCP_PATHS)
def test_mcp_answers_a_json_503_while_the_database_is_down(server: LiveServer, database_down: None, path: str) -> None:
    response = httpx.post(
        server.base_url + path, json=LIST_TOOLS, headers={**MCP_HEADERS, "x-topic-mcp-token": "tdb_x"}
    )
    assert_database_unavailable(response)


# --- The listen address --------------------------------------------------------------------------------


def test_the_server_listens_on_loopback_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_PREFIX + "LISTEN_HOST", raising=False)
    assert Settings(_env_file=None).listen_host == "127.0.0.1"
    import rxconfig

    assert rxconfig.config.backend_host == "127.0.0.1"


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_listening_on_every_interface_warns_at_start(host: str) -> None:
    env = {**os.environ, ENV_PREFIX + "LISTEN_HOST": host}
    env.pop("_TOPIC_DASHBOARD_EXPOSURE_WARNED", None)
    done = subprocess.run(
        [sys.executable, "-c", "import rxconfig; print(rxconfig.config.backend_host)"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.strip().splitlines()[-1] == host
    assert "every network interface" in done.stderr
    assert ENV_PREFIX + "ALLOWED_HOSTS" in done.stderr


# --- The guard on its own: the same matching as the MCP SDK, and CSP hashes for HTML answers ---------------


@pytest.mark.parametrize(
    "value",
    [
        "127.0.0.1:3000",
        "127.0.0.1",
        "127.0.0.1.evil.example:3000",
        "localhost:1",
        "[::1]:8000",
        "evil.example",
        "dashboard.lan:8000",
        "dashboard.lan:8001",
        "",
        "http://127.0.0.1:3000",
        "http://localhost",
        "http://evil.example",
        "null",
    ],
)
def test_host_and_origin_matching_is_the_mcp_sdks(value: str) -> None:
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", "dashboard.lan:8000"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://dashboard.lan:8000"]
    sdk = TransportSecurityMiddleware(TransportSecuritySettings(allowed_hosts=hosts, allowed_origins=origins))
    assert host_allowed(value, hosts) == sdk._validate_host(value)
    assert origin_allowed(value, origins) == sdk._validate_origin(value)


def csp_hash(script: str) -> str:
    return f"'sha256-{base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()}'"


PAGE = (
    b'<!doctype html><html><head><script>window.__ctx = {"a": "</scripted>"};</script>\n'
    b'<script type="module" async="">import("/assets/entry.js");\r\n</script>'
    b'<script src="/assets/app.js"></script><script data-x=">" src=/x.js>ignored()</script></head>'
    b"<body><SCRIPT >alert('Hello, world.');</SCRIPT ></body></html>"
)
PAGE_HASHES = [
    csp_hash('window.__ctx = {"a": "</scripted>"};'),
    csp_hash('import("/assets/entry.js");\n'),
    "'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='",
]  # CSP's own example: alert('Hello, world.');


def guarded_client(response: Response) -> TestClient:
    async def endpoint(_request: Request) -> Response:
        return response

    app = Starlette(routes=[Route("/", endpoint)])
    guarded = HttpGuards(
        app,
        allowed_hosts=["testserver"],
        allowed_origins=[],
        rest_max_body_bytes=1024,
        mcp_max_body_bytes=4096,
        connect=["'self'", "ws://testserver"],
    )
    return TestClient(guarded)


def script_sources(response: Response | httpx.Response) -> list[str]:
    policy = dict(part.strip().split(" ", 1) for part in response.headers["content-security-policy"].split(";"))
    return policy["script-src"].split()


def test_the_inline_scripts_of_an_html_page_are_allowed_by_hash_and_no_others() -> None:
    assert inline_script_hashes(PAGE.decode()) == PAGE_HASHES
    response = guarded_client(Response(PAGE, media_type="text/html")).get("/")
    assert response.content == PAGE
    assert script_sources(response) == ["'self'", "'unsafe-eval'", *PAGE_HASHES]
    assert response.headers["x-frame-options"] == "DENY"


def test_a_gzipped_or_streamed_html_page_gets_the_same_hashes() -> None:
    gzipped = Response(gzip.compress(PAGE), media_type="text/html", headers={"content-encoding": "gzip"})
    assert script_sources(guarded_client(gzipped).get("/")) == ["'self'", "'unsafe-eval'", *PAGE_HASHES]
    streamed = StreamingResponse(iter([PAGE[:40], PAGE[40:90], PAGE[90:]]), media_type="text/html")
    response = guarded_client(streamed).get("/")
    assert response.content == PAGE
    assert script_sources(response) == ["'self'", "'unsafe-eval'", *PAGE_HASHES]


def test_answers_other_than_html_get_no_script_hashes() -> None:
    response = guarded_client(JSONResponse({"html": "<script>alert(1)</script>"})).get("/")
    assert script_sources(response) == ["'self'", "'unsafe-eval'"]
    assert "connect-src 'self' ws://testserver" in response.headers["content-security-policy"]


def test_a_not_modified_answer_leaves_the_cached_pages_policy_alone() -> None:
    """A browser updates the headers stored with its cached page from a 304's: a policy there would replace
    the page's own, and the page's inline scripts (React Router's hydration data) would no longer run."""
    response = guarded_client(Response(status_code=304, headers={"etag": '"v1"'})).get("/")
    assert response.status_code == 304
    assert "content-security-policy" not in response.headers
    assert response.headers["x-frame-options"] == "DENY"


def test_the_mcp_endpoints_are_answered_directly_and_only_once_the_guards_passed() -> None:
    """`direct` paths skip the API app (its routing and middleware cost every bot call about a
    millisecond), never the guards: a foreign Host, another media type, a GET or an oversized body
    are refused before the endpoint sees anything."""
    bodies: list[bytes] = []

    async def mcp_endpoint(scope: Any, receive: Any, send: Any) -> None:
        bodies.append((await receive())["body"])
        await JSONResponse({"answered_by": "mcp"})(scope, receive, send)

    async def api_endpoint(_request: Request) -> Response:
        return JSONResponse({"answered_by": "api"})

    app = Starlette(routes=[Route("/{path:path}", api_endpoint, methods=["GET", "POST"])])
    guarded = HttpGuards(
        app,
        allowed_hosts=["testserver"],
        allowed_origins=[],
        rest_max_body_bytes=1024,
        mcp_max_body_bytes=64,
        direct={"/api/mcp/topic": mcp_endpoint},
    )
    client = TestClient(guarded)
    json_type = {"content-type": "application/json"}
    answer = client.post("/api/mcp/topic", content=b'{"id": 1}', headers=json_type)
    assert answer.json() == {"answered_by": "mcp"}
    assert answer.headers["x-frame-options"] == "DENY"
    assert bodies == [b'{"id": 1}']
    # Other paths, MCP or not, still go to the app.
    assert client.post("/api/mcp/other", content=b"{}", headers=json_type).json() == {"answered_by": "api"}
    assert client.post("/api/items", content=b"{}", headers=json_type).json() == {"answered_by": "api"}
    refused = [
        client.post("/api/mcp/topic", content=b"{}", headers={**json_type, "host": "evil.example"}),
        client.post("/api/mcp/topic", content=b"{}", headers={"content-type": "text/plain"}),
        client.get("/api/mcp/topic"),
        client.post("/api/mcp/topic", content=b"{" + b" " * 100 + b"}", headers=json_type),
    ]
    assert [response.status_code for response in refused] == [421, 415, 405, 413]
    assert bodies == [b'{"id": 1}']
