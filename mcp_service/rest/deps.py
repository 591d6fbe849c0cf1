"""Request dependencies: the session and the principal behind the API token."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlmodel import Session
from starlette.datastructures import Headers

from mcp_service.auth import bearer_token
from topic_dashboard.db import write_session
from topic_dashboard.services.accounts import Principal, require_admin, resolve_api_token
from topic_dashboard.settings import get_settings


def db_session() -> Iterator[Session]:
    with write_session() as session:
        yield session


SessionDep = Annotated[Session, Depends(db_session)]


def principal(request: Request, session: SessionDep) -> Principal:
    """Raises unauthorized unless `Authorization: Bearer <api token>` is valid."""
    admin_token = get_settings().admin_token
    return resolve_api_token(
        session=session,
        token=bearer_token(Headers(scope=request.scope)) or "",
        admin_token=admin_token.get_secret_value() if admin_token else None,
    )


def admin(who: Annotated[Principal, Depends(principal)]) -> Principal:
    """Raises forbidden unless the principal is an admin."""
    require_admin(who)
    return who


Reader = Annotated[Principal, Depends(principal)]
Admin = Annotated[Principal, Depends(admin)]
