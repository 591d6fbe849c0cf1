"""Request dependencies: the session and the principal behind the API token."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from functools import lru_cache
from typing import Annotated

from fastapi import Depends, Request
from sqlmodel import Session
from starlette.datastructures import Headers

from mcp_service.auth import bearer_token
from topic_dashboard.db import read_session, write_session
from topic_dashboard.services.accounts import (
    Principal,
    admin_token_problem,
    note_api_token_use,
    require_admin,
    resolve_api_token,
)
from topic_dashboard.settings import get_settings
from topic_dashboard.text_policy import check_parameters

logger = logging.getLogger(__name__)


def db_write_session() -> Iterator[Session]:
    with write_session() as session:
        yield session


def db_read_session() -> Iterator[Session]:
    with read_session() as session:
        yield session


# Endpoints that change data take a WriteSession (it takes the write lock first); reads take a
# ReadSession, which never blocks writers.
WriteSession = Annotated[Session, Depends(db_write_session)]
ReadSession = Annotated[Session, Depends(db_read_session)]


@lru_cache(maxsize=8)
def _warn_unusable_admin_token(problem: str) -> None:
    """Say once per process (not on every request) why the admin-token setting is not accepted."""
    logger.warning(problem)


def usable_admin_token() -> str | None:
    """The admin-token setting when it is long enough to accept, else None (and a warning, once).

    A short setting is refused rather than fatal: the rest of the API keeps working with API tokens,
    and the log says why the setting does not.
    """
    setting = get_settings().admin_token
    if setting is None:
        return None
    problem = admin_token_problem(setting.get_secret_value())
    if problem is not None:
        _warn_unusable_admin_token(problem)
        return None
    return setting.get_secret_value()


def principal(request: Request) -> Principal:
    """Raises unauthorized unless `Authorization: Bearer <api token>` is valid.

    Resolved in a read session of its own; the token's last use is written (in a short write
    session) only when it is due, so most requests never take the write lock for it.
    """
    with read_session() as session:
        who = resolve_api_token(
            session=session,
            token=bearer_token(Headers(scope=request.scope)) or "",
            admin_token=usable_admin_token(),
        )
    if who.last_use_due:
        with write_session() as session:
            note_api_token_use(session=session, principal=who)
    request.state.principal = who  # for the audit row of a refused write (rest/refusals.py)
    return who


def admin(who: Annotated[Principal, Depends(principal)]) -> Principal:
    """Raises forbidden unless the principal is an admin."""
    require_admin(who)
    return who


Reader = Annotated[Principal, Depends(principal)]
Admin = Annotated[Principal, Depends(admin)]


def checked_parameters(request: Request) -> None:
    """The REST API's guard: every path and query parameter is one line of text the text policy
    allows (no NUL, lone surrogate, control or bidi character), whatever the route; else 422."""
    check_parameters([*request.path_params.items(), *request.query_params.multi_items()])
