"""The REST API under /api (docs/DESIGN.md §6): thin adapters over the domain services."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from mcp_service.rest import audit, bots, conversations, health, tokens, topics
from mcp_service.rest.deps import checked_parameters


def build_rest_router() -> APIRouter:
    # Every route's path and query parameters pass the text policy before the route runs.
    router = APIRouter(prefix="/api", dependencies=[Depends(checked_parameters)])
    router.include_router(health.router)
    router.include_router(bots.router)
    router.include_router(topics.router)
    router.include_router(audit.router)
    router.include_router(conversations.router)
    router.include_router(tokens.router)
    return router
