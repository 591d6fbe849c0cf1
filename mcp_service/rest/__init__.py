"""The REST API under /api (design §7): thin adapters over the domain services."""

from __future__ import annotations

from fastapi import APIRouter

from mcp_service.rest import health


def build_rest_router() -> APIRouter:
    router = APIRouter(prefix="/api")
    router.include_router(health.router)
    return router
