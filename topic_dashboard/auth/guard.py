"""One door for every UI event.

Reflex runs any event that a websocket names, whatever the page shows: an `on_load` check protects
nothing. So no page State decides on its own whether a caller may run it. `EventGuard`, an app
middleware, runs before every event handler and resolves the caller from the login session token
the browser holds (every time: a logout or an expiry takes effect on the next event, in every tab):

- events of Reflex's own plumbing and of `AuthState` (the login page) are public;
- events of a `SignedInState` subclass (every page State) need a live login, and one whose password
  an admin reset may choose a new one and do nothing else (they are sent to the change-password page);
- handlers marked `@admin_only` need an admin;
- events of any other State are refused: a State that forgets its base is closed, not open.

A refused event runs nothing and reads nothing: the caller gets a redirect to the login page or an
error toast. Handlers read the caller with `self._principal()` / `self._admin()`; an `AppError` a
handler raises becomes an error toast once, in `app_error_toast` (the UI's one error mapping).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import reflex as rx
from reflex.middleware import Middleware
from reflex.state import (
    BaseState,
    FrontendEventExceptionState,
    OnLoadInternalState,
    State,
    StateUpdate,
    UpdateVarsInternalState,
)
from reflex_base.event import Event, EventSpec

from topic_dashboard.auth.state import CHANGE_PASSWORD_ROUTE, LOGIN_ROUTE, AuthState
from topic_dashboard.errors import AppError
from topic_dashboard.services import accounts

logger = logging.getLogger(__name__)

ADMIN = "admin"
_ACCESS_ATTR = "_td_access"
_QUIET_ATTR = "_td_quiet_when_signed_out"
_caller: contextvars.ContextVar[accounts.Principal | None] = contextvars.ContextVar("td_caller", default=None)

F = TypeVar("F", bound=Callable[..., Any])


def quiet_when_signed_out(fn: F) -> F:
    """Mark a handler that a page fires by itself (on mount, on a timer) rather than on a person's
    action: refused for a caller who is not signed in, it runs nothing as always, but sends no redirect
    to the login page. Such an event can reach the server before the page's stored login did (a
    socket's first events race its hydration, more so with several workers on Redis); the page's own
    load sends a signed-out person to the login page.

    Put it under `@rx.event`, like `admin_only`.
    """
    setattr(fn, _QUIET_ATTR, True)
    return fn


def admin_only(fn: F) -> F:
    """Mark an event handler as admin-only; `EventGuard` refuses it for everyone else.

    Put it under `@rx.event`: `@rx.event` then `@admin_only` then `def ...`.
    """
    setattr(fn, _ACCESS_ATTR, ADMIN)
    return fn


class SignedInState(rx.State):
    """Base of every page State: its events run only for a signed-in person (see `EventGuard`)."""

    def _principal(self) -> accounts.Principal:
        """Who sent the event being handled. Raises unauthorized (only outside a guarded event)."""
        principal = _caller.get()
        if principal is None:
            raise AppError("unauthorized", "your session has ended; log in again")
        return principal

    def _admin(self) -> accounts.Principal:
        """The caller, who must be an admin. Raises forbidden."""
        principal = self._principal()
        accounts.require_admin(principal)
        return principal

    def _is_admin(self) -> bool:
        principal = _caller.get()
        return principal is not None and principal.is_admin


# Reflex's own plumbing (hydration, client storage, on_load dispatch, frontend error reports) and the
# login page: the only States whose events run without a login.
PUBLIC_STATES: tuple[type[BaseState], ...] = (
    State,
    UpdateVarsInternalState,
    OnLoadInternalState,
    FrontendEventExceptionState,
    AuthState,
)


def handler_of(event_name: str) -> tuple[type[BaseState], Any] | None:
    """The State class and EventHandler an event names, or None when it names nothing."""
    state_path, _, handler_name = event_name.rpartition(".")
    if not state_path:
        return None
    try:
        state_cls = State.get_class_substate(state_path)
    except (ValueError, KeyError, AttributeError):
        return None
    handler = state_cls.event_handlers.get(handler_name)
    return (state_cls, handler) if handler is not None else None


def required_access(state_cls: type[BaseState], handler: Any) -> str:
    """'public', 'signed_in', 'admin', or 'closed' for an event of `state_cls`."""
    if state_cls in PUBLIC_STATES:
        return "public"
    if not issubclass(state_cls, SignedInState):
        return "closed"
    if getattr(getattr(handler, "fn", None), _ACCESS_ATTR, None) == ADMIN:
        return ADMIN
    return "signed_in"


_STRICTNESS = ("public", "signed_in", ADMIN, "closed")


def _setvar_access(state_cls: type[BaseState], payload: Any, access: str) -> str:
    """Reflex's built-in `setvar(var_name, value)` calls `set_<var_name>` directly, past this guard:
    it needs what that setter needs (and is closed when there is no such handler)."""
    var_name = payload.get("var_name") if isinstance(payload, dict) else None
    target = state_cls.event_handlers.get(f"set_{var_name}") if isinstance(var_name, str) else None
    if target is None:
        return "closed"
    needed = required_access(state_cls, target)
    return max(access, needed, key=_STRICTNESS.index)


def _refusal(events: Any) -> StateUpdate:
    return StateUpdate(delta={}, events=Event.from_event_type(events))


class EventGuard(Middleware):
    """Checks every event before its handler runs (registered with `app.add_middleware`)."""

    async def preprocess(self, app: Any, state: BaseState, event: Event) -> StateUpdate | None:
        _caller.set(None)
        found = handler_of(event.name)
        if found is None:
            # Reflex itself answers an unknown name; frontend-only specs never reach here.
            return None
        state_cls, handler = found
        access = required_access(state_cls, handler)
        if event.name.rsplit(".", 1)[-1] == "setvar" and access != "public":
            access = _setvar_access(state_cls, event.payload, access)
        if access == "public":
            return None
        if access == "closed":
            logger.warning("refused event %s: closed (no SignedInState, or setvar naming no setter)", event.name[:200])
            return _refusal(rx.toast.error("This action is not available."))
        auth = await state.get_state(AuthState)
        principal = auth._resolve()
        auth._show_principal(principal)
        if principal is None:
            if getattr(getattr(handler, "fn", None), _QUIET_ATTR, False):
                return _refusal([])
            return _refusal(rx.redirect(LOGIN_ROUTE))
        if principal.must_change_password:  # the one-time password of a reset opens nothing else
            return _refusal(rx.redirect(CHANGE_PASSWORD_ROUTE))
        if access == ADMIN and not principal.is_admin:
            return _refusal(rx.toast.error("Only admins can change this; your account can read only."))
        _caller.set(principal)
        return None


@contextlib.contextmanager
def acting_as(principal: accounts.Principal) -> Iterator[None]:
    """Handlers' `_principal()` is `principal` inside the block: for a background task (a panel's push
    loop) that resolved the caller again itself, after the event that started it."""
    token = _caller.set(principal)
    try:
        yield
    finally:
        _caller.reset(token)


def app_error_toast(exception: Exception) -> EventSpec:
    """The UI's one mapping of errors: an AppError's message as a toast; anything else is logged, not shown."""
    if isinstance(exception, AppError):
        return rx.toast.error(exception.message)
    logger.error("unexpected error in an event handler", exc_info=exception)
    return rx.toast.error("Something went wrong on the server; it has been logged.")
