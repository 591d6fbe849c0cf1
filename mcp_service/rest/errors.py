"""The REST surface's one mapping of errors: `{"error": {"code", "message", ...}}` with the right status."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from topic_dashboard.errors import AppError
from topic_dashboard.text_policy import printable

logger = logging.getLogger(__name__)

# Said instead of the driver's text, which can carry SQL, hosts and file paths.
DATABASE_UNAVAILABLE_MESSAGE = "the database is not reachable right now; try again shortly"


class ErrorDetail(BaseModel):
    code: str
    message: str
    field: str | None = None


class ErrorBody(BaseModel):
    error: ErrorDetail


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": description}
    for status, description in (
        (400, "Bad request (invalid_json, invalid_cursor, ...)"),
        (401, "Missing or unknown API token"),
        (403, "A viewer tried to write"),
        (404, "Not found (bot_not_found, topic_not_found, item_not_found)"),
        (409, "Conflict (topic_exists, fallback_protected, ...)"),
        (422, "Invalid input; `field` names it"),
        (429, "Rate limited"),
        (503, "The database is not reachable (database_unavailable)"),
    )
}


def is_database_unavailable(exc: DBAPIError) -> bool:
    """Connection failures (server down, file unopenable, connection lost), as opposed to a refused statement."""
    return isinstance(exc, OperationalError | InterfaceError) or exc.connection_invalidated


def error_response(error: AppError) -> JSONResponse:
    headers = {}
    if error.code == "rate_limited" and "retry_after_seconds" in error.details:
        headers["Retry-After"] = str(int(error.details["retry_after_seconds"]))
    if error.status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    body = {key: printable(value) if isinstance(value, str) else value for key, value in error.to_dict().items()}
    return JSONResponse({"error": body}, status_code=error.status, headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    from mcp_service.rest.refusals import audit_refusal

    @app.exception_handler(AppError)
    async def _app_error(request: Request, exc: AppError) -> JSONResponse:
        await audit_refusal(request, exc)
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        loc = [str(part) for part in first.get("loc", ()) if part not in ("body", "query", "path")]
        field = ".".join(loc) or None
        if first.get("type") == "json_invalid":
            error = AppError("invalid_json", "the request body is not valid JSON")
        else:
            error = AppError("validation_error", f"{field or 'request'}: {first.get('msg', 'invalid')}", field=field)
        await audit_refusal(request, error)
        return error_response(error)

    @app.exception_handler(DBAPIError)
    async def _database(request: Request, exc: DBAPIError) -> JSONResponse:
        if is_database_unavailable(exc):
            logger.error("database unavailable on %s %s: %s", request.method, request.url.path, exc.orig)
            return error_response(AppError("database_unavailable", DATABASE_UNAVAILABLE_MESSAGE))
        logger.exception("database error on %s %s", request.method, request.url.path)
        return error_response(AppError("internal_error", "the server failed to handle this request"))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {
            400: "invalid_json",
            401: "unauthorized",
            403: "forbidden",
            404: "not_found",
            405: "method_not_allowed",
        }.get(exc.status_code, "invalid_argument")
        return JSONResponse(
            {"error": {"code": code, "message": str(exc.detail)}}, status_code=exc.status_code, headers=exc.headers
        )
