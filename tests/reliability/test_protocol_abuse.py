"""Protocol abuse on the MCP endpoints over real HTTP, on SQLite and PostgreSQL.

Malformed JSON-RPC, batches, wrong content types and Accept headers, a bogus protocol version,
a 10 MB body, other methods than POST, and Host/Origin spoofing: each must get a clean 4xx with
a JSON body (ours or a JSON-RPC error), never a 5xx, and the server must answer normally afterwards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import httpx
import pytest
from sqlmodel import Session

from tests.support.server import LiveServer
from topic_dashboard.services.bots import create_bot

MCP_PATHS = ["/api/mcp/topic", "/api/mcp/ccweb"]
ACCEPT = {"accept": "application/json, text/event-stream"}
LIST_TOOLS = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
JSON = {"content-type": "application/json"}


@dataclass(frozen=True)
class Abuse:
    name: str
    content: bytes = LIST_TOOLS
    headers: dict[str, str] = field(default_factory=lambda: dict(JSON))
    method: str = "POST"
    with_token: bool = True
    status: int | None = None  # when one status is the only right answer


ABUSES = [
    Abuse("malformed json", b"{not json", status=400),
    Abuse("truncated json", b'{"jsonrpc": "2.0", "id": 1,', status=400),
    Abuse("invalid utf-8", b'{"jsonrpc": "2.0", "id": 1, "method": "\xff\xfe"}', status=400),
    Abuse("deeply nested json", b"[" * 100_000 + b"]" * 100_000, status=400),
    Abuse("json-rpc batch", b"[" + LIST_TOOLS + b"," + LIST_TOOLS + b"]", status=400),
    Abuse("empty batch", b"[]", status=400),
    Abuse("not json-rpc", b'{"hello": 1}', status=400),
    Abuse("bare string", b'"tools/list"', status=400),
    Abuse("null", b"null", status=400),
    Abuse("json-rpc 1.0", b'{"jsonrpc": "1.0", "id": 1, "method": "tools/list"}', status=400),
    Abuse("no method", b'{"jsonrpc": "2.0", "id": 1}', status=400),
    Abuse("text/plain", headers={"content-type": "text/plain"}, status=415),
    Abuse("no content type", headers={}, status=415),
    Abuse("form encoded", headers={"content-type": "application/x-www-form-urlencoded"}, status=415),
    Abuse("multipart", headers={"content-type": "multipart/form-data; boundary=x"}, status=415),
    Abuse("json lookalike", headers={"content-type": "application/jsonp"}, status=415),
    Abuse("accepts html only", headers={**JSON, "accept": "text/html"}, status=406),
    Abuse("bogus protocol version", headers={**JSON, "mcp-protocol-version": "1999-01-01"}, status=400),
    Abuse("10 MB body", b'{"pad": "' + b"x" * (10 * 1024 * 1024) + b'"}', status=413),
    Abuse("10 MB body, no token", b'{"pad": "' + b"x" * (10 * 1024 * 1024) + b'"}', with_token=False, status=413),
    Abuse("GET", b"", headers={"accept": "text/event-stream"}, method="GET", status=405),
    Abuse("DELETE", b"", headers={}, method="DELETE", status=405),
    Abuse("PUT", method="PUT", status=405),
    Abuse("PATCH", method="PATCH", status=405),
    Abuse("spoofed host", headers={**JSON, "host": "evil.example"}, status=421),
    Abuse("spoofed host with a port", headers={**JSON, "host": "evil.example:3000"}, status=421),
    Abuse("foreign origin", headers={**JSON, "origin": "http://evil.example"}, status=403),
    Abuse("null origin", headers={**JSON, "origin": "null"}, status=403),
    Abuse("lookalike origin", headers={**JSON, "origin": "http://127.0.0.1.evil.example:3000"}, status=403),
    Abuse("no token", with_token=False, status=401),
]


@pytest.fixture
def bot_token(server_session: Session) -> str:
    _, token = create_bot(session=server_session, name="abused")
    return token


def still_answers(server: LiveServer, path: str, token: str) -> None:
    response = httpx.post(
        server.base_url + path, content=LIST_TOOLS, headers={**ACCEPT, **JSON, "x-topic-mcp-token": token}
    )
    assert response.status_code == 200, response.text
    assert response.json()["result"]["tools"]


@pytest.mark.parametrize("path", MCP_PATHS)
@pytest.mark.parametrize("abuse", ABUSES, ids=lambda abuse: abuse.name)
def test_abuse_gets_a_clean_4xx_with_a_json_body(server: LiveServer, bot_token: str, path: str, abuse: Abuse) -> None:
    headers = {**ACCEPT, **abuse.headers}
    if abuse.with_token:
        headers["x-topic-mcp-token"] = bot_token
    response = httpx.request(
        abuse.method, server.base_url + path, content=abuse.content or None, headers=headers, timeout=10
    )
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    if abuse.status is not None:
        assert response.status_code == abuse.status, response.text[:300]
    assert response.headers["content-type"].startswith("application/json"), response.text[:300]
    assert "error" in response.json()
    assert "Traceback" not in response.text
    still_answers(server, path, bot_token)
