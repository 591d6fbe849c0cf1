"""Who is logged in: a login session token kept in the browser, resolved by the server on every event.

Every public method of a Reflex State is an event any websocket can name: this State's events are
the login and change-password pages' (public by design, see `guard.PUBLIC_STATES`), so it has no
other public method, and those that need a login resolve it themselves.
"""

from __future__ import annotations

import reflex as rx

from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.services import accounts
from topic_dashboard.settings import get_settings

LOGIN_ROUTE = "/login"
# After an admin's password reset the guard sends every other event here until a new one is chosen.
CHANGE_PASSWORD_ROUTE = "/change-password"


def _landing(must_change_password: bool) -> rx.event.EventSpec:
    """Where a signed-in person goes: the change-password form while a reset's one-time password is in use."""
    return rx.redirect(CHANGE_PASSWORD_ROUTE if must_change_password else "/")


class AuthState(rx.State):
    session_token: str = rx.LocalStorage("", name="td_session", sync=True)
    # What the page shows about the caller; set by the guard from the resolved session, never trusted.
    username: str = ""
    role: str = ""
    login_error: str = ""
    needs_setup: bool = False
    must_change_password: bool = False

    @rx.var
    def is_admin(self) -> bool:
        return self.role == "admin"

    @rx.var
    def logged_in(self) -> bool:
        return bool(self.username)

    def _show_principal(self, principal: accounts.Principal | None) -> None:
        name, role = (principal.name, principal.role) if principal is not None else ("", "")
        if (self.username, self.role) != (name, role):
            self.username, self.role = name, role

    def _resolve(self) -> accounts.Principal | None:
        if not self.session_token:
            return None
        try:
            with read_session() as session:
                return accounts.resolve_login(session=session, token=self.session_token)
        except AppError:
            return None

    def _client_address(self) -> str | None:
        return self.router.session.client_ip or None

    @rx.event
    def load_login_page(self) -> rx.event.EventSpec | None:
        principal = self._resolve()
        if principal is not None:
            return _landing(principal.must_change_password)
        with read_session() as session:
            self.needs_setup = accounts.count_users(session=session) == 0
        self.login_error = ""
        return None

    @rx.event
    def log_in(self, form: dict[str, str]) -> rx.event.EventSpec | None:
        """Throttled per account and per address (the service counts failures); a new token every time."""
        try:
            with write_session() as session:
                user, token = accounts.log_in(
                    session=session,
                    username=str(form.get("username", "")),
                    password=str(form.get("password", "")),
                    ttl_hours=get_settings().session_ttl_hours,
                    address=self._client_address(),
                )
                if self.session_token:  # the browser's earlier session ends: one live token per tab
                    accounts.log_out(session=session, token=self.session_token)
        except AppError as error:
            self.login_error = error.message
            return None
        self.session_token = token
        self.username, self.role, self.login_error = user.username, user.role, ""
        return _landing(user.must_change_password)

    @rx.event
    def set_up_first_admin(self, form: dict[str, str]) -> rx.event.EventSpec | None:
        try:
            with write_session() as session:
                accounts.redeem_setup_token(
                    session=session,
                    token=str(form.get("setup_token", "")),
                    username=str(form.get("username", "")),
                    password=str(form.get("password", "")),
                )
        except AppError as error:
            self.login_error = error.message
            return None
        self.needs_setup = False
        return self.log_in(form)

    @rx.event
    def load_change_password_page(self) -> rx.event.EventSpec | None:
        principal = self._resolve()
        if principal is None:
            return rx.redirect(LOGIN_ROUTE)
        self._show_principal(principal)
        self.must_change_password = principal.must_change_password
        self.login_error = ""
        return None

    @rx.event
    def change_password(self, form: dict[str, str]) -> rx.event.EventSpec | None:
        """For the signed-in caller only (resolved here: this State is public); a wrong current password
        counts as a failed log-in. This tab's session stays open, the caller's other sessions end."""
        principal = self._resolve()
        if principal is None:
            return rx.redirect(LOGIN_ROUTE)
        new_password = str(form.get("new_password", ""))
        if new_password != str(form.get("confirm_password", "")):
            self.login_error = "the two new passwords differ: type the same one twice"
            return None
        try:
            with write_session() as session:
                accounts.change_password(
                    session=session,
                    username=principal.name,
                    old_password=str(form.get("old_password", "")),
                    new_password=new_password,
                    address=self._client_address(),
                    keep_token=self.session_token,
                )
        except AppError as error:
            self.login_error = error.message
            return None
        self.must_change_password, self.login_error = False, ""
        return rx.redirect("/")

    @rx.event
    def log_out(self) -> rx.event.EventSpec:
        if self.session_token:
            with write_session() as session:
                accounts.log_out(session=session, token=self.session_token)
        self.session_token = ""
        self.username, self.role = "", ""
        return rx.redirect(LOGIN_ROUTE)
