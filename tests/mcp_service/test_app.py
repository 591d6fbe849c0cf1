"""The co-hosted service over real HTTP: health, the two MCP endpoints, bot-token gate, OpenAPI."""

import importlib.metadata

import httpx
import pytest
from sqlmodel import Session

from tests.support.mcp import mcp_client, run_async
from tests.support.server import LiveServer
from topic_dashboard import __version__
from topic_dashboard.services.bots import create_bot


def test_health_reports_database_and_version(server: LiveServer) -> None:
    response = httpx.get(server.base_url + "/api/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["database"] == "ok" and body["version"]
    # How routing decides: with the bundled embedding model (it ships in the package, so it loads).
    assert body["routing"] == "rules+meaning" and "e5" in body["routing_detail"]


@pytest.mark.parametrize("path", ["/api/mcp/topic", "/api/mcp/ccweb"])
@pytest.mark.parametrize("headers", [{}, {"x-topic-mcp-token": "tdb_wrong"}, {"authorization": "Bearer tdb_wrong"}])
def test_mcp_endpoints_answer_401_without_a_valid_bot_token(
    server: LiveServer, path: str, headers: dict[str, str]
) -> None:
    response = httpx.post(
        server.base_url + path,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"accept": "application/json, text/event-stream", **headers},
    )
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


def test_both_mcp_endpoints_list_tools_for_a_bot(server: LiveServer, server_session: Session) -> None:
    _, token = create_bot(session=server_session, name="lister")

    async def body() -> tuple[str, str]:
        async with mcp_client(server.topic_mcp_url, token) as client:
            topic_name = client.session.server_info.name if client.session.server_info else ""
            await client.list_tools()
        async with mcp_client(server.ccweb_mcp_url, headers={"authorization": f"Bearer {token}"}) as client:
            ccweb_name = client.session.server_info.name if client.session.server_info else ""
            await client.list_tools()
        return topic_name, ccweb_name

    assert run_async(body) == ("topic_mcp", "ccweb")


def test_foreign_hosts_are_refused_by_the_dns_rebinding_check(server: LiveServer, server_session: Session) -> None:
    _, token = create_bot(session=server_session, name="rebind")
    response = httpx.post(
        server.topic_mcp_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={
            "accept": "application/json, text/event-stream",
            "x-topic-mcp-token": token,
            "host": "evil.example:80",
        },
    )
    assert response.status_code in (403, 421)


def test_openapi_document_is_served(server: LiveServer) -> None:
    document = httpx.get(server.base_url + "/api/openapi.json").json()
    assert document["openapi"].startswith("3.")
    assert "/api/health" in document["paths"]


def test_the_package_the_api_and_both_mcp_servers_report_one_version(
    server: LiveServer, server_session: Session
) -> None:
    _, token = create_bot(session=server_session, name="versioned")

    async def body() -> tuple[str, str]:
        async with mcp_client(server.topic_mcp_url, token) as client:
            topic = client.session.server_info.version if client.session.server_info else ""
        async with mcp_client(server.ccweb_mcp_url, headers={"authorization": f"Bearer {token}"}) as client:
            ccweb = client.session.server_info.version if client.session.server_info else ""
        return topic, ccweb

    openapi = httpx.get(server.base_url + "/api/openapi.json").json()
    health = httpx.get(server.base_url + "/api/health").json()
    assert __version__ == importlib.metadata.version("topic-dashboard") != "1"
    assert run_async(body) == (__version__, __version__)
    assert openapi["info"]["version"] == health["version"] == __version__
