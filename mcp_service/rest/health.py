"""GET /api/health: is the database reachable, which version runs."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

import anyio
from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from topic_dashboard.db import ping

router = APIRouter(tags=["health"])


def app_version() -> str:
    try:
        return version("topic-dashboard")
    except PackageNotFoundError:
        return "0.0.0+local"


class Health(BaseModel):
    status: str
    database: str
    version: str


@router.get("/health", response_model=Health, responses={503: {"model": Health}})
async def health() -> JSONResponse:
    reachable = await anyio.to_thread.run_sync(ping)
    body = Health(status="ok" if reachable else "degraded", database="ok" if reachable else "unreachable", version=app_version())
    return JSONResponse(body.model_dump(), status_code=200 if reachable else 503)
