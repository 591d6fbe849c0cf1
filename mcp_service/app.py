"""The co-hosted service: MCP endpoints and the REST API in front of Reflex's backend.

Reflex calls `build_api` (its `api_transformer`) each time it builds its ASGI app, so everything
here is built fresh per call: a Starlette app or a session manager cannot be started twice.
Reflex never runs a mounted app's lifespan, so `mcp_lifespan` is registered with Reflex and
runs the session managers of the servers built last.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import AsyncIterator

from fastapi import FastAPI
from mcp.server.transport_security import TransportSecuritySettings
from reflex.config import get_config
from reflex.constants import Endpoint
from sqlalchemy.exc import SQLAlchemyError
from starlette.types import ASGIApp

from mcp_service.auth import BotTokenGate
from mcp_service.ccweb_server import build_ccweb_server
from mcp_service.http_guards import HttpGuards
from mcp_service.rest import build_rest_router
from mcp_service.rest.errors import install_error_handlers
from mcp_service.tooling import StrictMCPServer
from topic_dashboard import __version__
from topic_dashboard.chat.worker import ChatWorker
from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.services.alerts import AlertEvaluator
from topic_dashboard.services.retention import RetentionSweeper
from topic_dashboard.services.routing_service import warm_rule_vectors
from topic_dashboard.settings import get_settings

logger = logging.getLogger(__name__)

TOPIC_MCP_PATH = "/api/mcp/topic"
CCWEB_MCP_PATH = "/api/mcp/ccweb"

_current_servers: list[StrictMCPServer] = []


def transport_security() -> TransportSecuritySettings:
    settings = get_settings()
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=list(settings.allowed_hosts),
        allowed_origins=list(settings.allowed_origins),
    )


def _mcp_endpoint(path: str, server: StrictMCPServer) -> ASGIApp:
    """The server's stateless JSON endpoint behind the bot-token gate (HttpGuards calls it directly)."""
    inner = server.streamable_http_app(
        streamable_http_path=path,
        stateless_http=True,
        json_response=True,
        transport_security=transport_security(),
        max_request_body_size=get_settings().mcp_max_body_bytes,
    )
    return BotTokenGate(inner)


def build_api(reflex_app: ASGIApp) -> ASGIApp:
    """Reflex's api_transformer: all behind HttpGuards, which answers the MCP endpoints itself (POST only:
    stateless servers with JSON answers have no use for GET's event stream or DELETE's session end);
    then the REST routes, then everything else to Reflex."""
    from mcp_service.topic_server import build_topic_server

    topic = build_topic_server()
    ccweb = build_ccweb_server()
    api = FastAPI(
        title="Topic Dashboard API",
        version=__version__,
        openapi_url="/api/openapi.json",
        # No Swagger UI page: it loads its scripts from a CDN, which the Content-Security-Policy refuses
        # (and which should not run on the dashboard's origin). The OpenAPI document is served.
        docs_url=None,
        redoc_url=None,
    )
    install_error_handlers(api)
    api.include_router(build_rest_router())
    api.add_api_route(
        "/api/{path:path}",
        _unknown_api_path,
        methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
        include_in_schema=False,
    )
    api.mount("", reflex_app)
    _current_servers[:] = [topic, ccweb]
    return HttpGuards.from_settings(
        api,
        get_settings(),
        event_path=get_config().prepend_backend_path(str(Endpoint.EVENT)),
        direct={
            TOPIC_MCP_PATH: _mcp_endpoint(TOPIC_MCP_PATH, topic),
            CCWEB_MCP_PATH: _mcp_endpoint(CCWEB_MCP_PATH, ccweb),
        },
    )


async def _unknown_api_path(path: str) -> None:
    """Anything else under /api is an API mistake: answer the JSON error body, not the UI's page."""
    raise AppError("not_found", f"no API endpoint /api/{path} with this method; see /api/openapi.json")


@contextlib.asynccontextmanager
async def mcp_lifespan() -> AsyncIterator[None]:
    """Run the session managers of the MCP servers that `build_api` built last, and load the
    routing model and store any missing rule vectors in the background, so the first topic_route
    waits for neither."""
    threading.Thread(target=warm_rule_vectors, name="load-embedding-model", daemon=True).start()
    threading.Thread(target=_upgrade_bot_configs, name="upgrade-bot-configs", daemon=True).start()
    worker = ChatWorker(enabled=lambda: get_settings().chat_relay)
    await worker.start()
    sweeper = RetentionSweeper(write_session, get_settings().retention_interval_seconds)
    sweeper.start()
    evaluator = AlertEvaluator(
        write_session,
        get_settings().alert_interval_seconds,
        enabled=lambda: get_settings().alert_checks,
        readers=read_session,
    )
    evaluator.start()
    try:
        async with contextlib.AsyncExitStack() as stack:
            for server in _current_servers:
                await stack.enter_async_context(server.session_manager.run())
            yield
    finally:
        evaluator.stop()
        sweeper.stop()
        await worker.stop()


def _upgrade_bot_configs() -> None:
    """Existing bots' config.json files get the managed entries added since they were written (ccweb)."""
    from topic_dashboard.services.bots import upgrade_managed_configs

    try:
        with write_session() as session:
            changed = upgrade_managed_configs(session=session)
        if changed:
            logger.info("added the managed MCP entries to %d bot config(s)", changed)
    except (AppError, OSError, SQLAlchemyError):  # no database yet, or a file it may not write: next start
        logger.exception("upgrading the bots' config files failed")
