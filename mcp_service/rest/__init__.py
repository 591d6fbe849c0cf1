"""The REST API under /api (design §7): thin adapters over the domain services."""

from __future__ import annotations

from fastapi import APIRouter

from mcp_service.rest import audit, bots, conversations, health, topics


def build_rest_router() -> APIRouter:
    router = APIRouter(prefix="/api")
    router.include_router(health.router)
    router.include_router(bots.router)
    router.include_router(topics.router)
    router.include_router(audit.router)
    router.include_router(conversations.router)
    return router
