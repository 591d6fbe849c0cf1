"""Who is logged in: a login session token kept in the browser, checked by the server on every page."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.services import accounts
from topic_dashboard.settings import get_settings

LOGIN_ROUTE = "/login"


class AuthState(rx.State):
    session_token: str = rx.LocalStorage("", name="td_session", sync=True)
    username: str = ""
    role: str = ""
    login_error: str = ""
    needs_setup: bool = False

    @rx.var
    def is_admin(self) -> bool:
        return self.role == "admin"

    @rx.var
    def logged_in(self) -> bool:
        return bool(self.username)

    def _principal(self) -> accounts.Principal | None:
        if not self.session_token:
            return None
        try:
            with read_session() as session:
                return accounts.resolve_login(session=session, token=self.session_token)
        except AppError:
            return None

    def require_login(self) -> rx.event.EventSpec | None:
        """on_load of every protected page: send strangers to the login page."""
        principal = self._principal()
        if principal is None:
            self.username, self.role = "", ""
            return rx.redirect(LOGIN_ROUTE)
        self.username, self.role = principal.name, principal.role
        return None

    def require_admin_principal(self) -> accounts.Principal:
        """For write handlers: the server-side check, whatever the UI shows. Raises forbidden."""
        principal = self._principal()
        if principal is None:
            raise AppError("unauthorized", "your session has ended; log in again")
        accounts.require_admin(principal)
        return principal

    def load_login_page(self) -> rx.event.EventSpec | None:
        if self._principal() is not None:
            return rx.redirect("/")
        with read_session() as session:
            self.needs_setup = accounts.count_users(session=session) == 0
        self.login_error = ""
        return None

    def log_in(self, form: dict[str, str]) -> rx.event.EventSpec | None:
        try:
            with write_session() as session:
                user, token = accounts.log_in(
                    session=session,
                    username=form.get("username", ""),
                    password=form.get("password", ""),
                    ttl_hours=get_settings().session_ttl_hours,
                )
        except AppError as error:
            self.login_error = error.message
            return None
        self.session_token = token
        self.username, self.role, self.login_error = user.username, user.role, ""
        return rx.redirect("/")

    def set_up_first_admin(self, form: dict[str, str]) -> rx.event.EventSpec | None:
        try:
            with write_session() as session:
                accounts.redeem_setup_token(
                    session=session,
                    token=form.get("setup_token", ""),
                    username=form.get("username", ""),
                    password=form.get("password", ""),
                )
        except AppError as error:
            self.login_error = error.message
            return None
        self.needs_setup = False
        return self.log_in(form)

    def log_out(self) -> rx.event.EventSpec:
        if self.session_token:
            with write_session() as session:
                accounts.log_out(session=session, token=self.session_token)
        self.session_token = ""
        self.username, self.role = "", ""
        return rx.redirect(LOGIN_ROUTE)
