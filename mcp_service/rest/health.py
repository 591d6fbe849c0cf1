"""GET /api/health: is the database reachable, which version runs, how routing decides.

`routing` is "rules+meaning" when the embedding model loaded, "rules" when it did not (or is
switched off); `routing_detail` says which model or why not.

503 when the database cannot be used, with the error body's code (`database_unavailable` or
`data_dir_unavailable`) and a message that names nothing of the URL: this endpoint answers anyone.
The details (URL with its password masked, the driver's reason) go to the server log, once per change.
"""

from __future__ import annotations

import logging

import anyio
from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from mcp_service.rest.errors import ErrorDetail
from topic_dashboard import __version__
from topic_dashboard.db import check_database
from topic_dashboard.errors import AppError
from topic_dashboard.services.routing_service import routing_mode

router = APIRouter(tags=["health"])
logger = logging.getLogger(__name__)
_last_problem: list[str | None] = [None]

PUBLIC_MESSAGES = {
    "database_unavailable": "the database cannot be reached or opened; the server log says which and why",
    "data_dir_unavailable": "the data dir cannot be written; the server log says which and why",
}


class Health(BaseModel):
    status: str
    database: str
    version: str
    routing: str | None = None
    routing_detail: str | None = None
    error: ErrorDetail | None = None


@router.get("/health", response_model=Health, responses={503: {"model": Health}})
async def health() -> JSONResponse:
    try:
        await anyio.to_thread.run_sync(check_database)
    except AppError as error:
        if _last_problem[0] != error.message:
            logger.error("health: %s", error.message)
            _last_problem[0] = error.message
        detail = ErrorDetail(code=error.code, message=PUBLIC_MESSAGES.get(error.code, "the service is unavailable"))
        body = Health(status="unavailable", database="unreachable", version=__version__, error=detail)
        return JSONResponse(body.model_dump(exclude_none=True), status_code=503)
    if _last_problem[0] is not None:
        logger.warning("health: the database answers again")
        _last_problem[0] = None
    mode, detail = await anyio.to_thread.run_sync(routing_mode)
    body = Health(status="ok", database="ok", version=__version__, routing=mode, routing_detail=detail)
    return JSONResponse(body.model_dump(exclude_none=True))
