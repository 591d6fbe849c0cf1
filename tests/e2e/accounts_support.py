"""Accounts for browser tests: unique names, users made on demand, logging in through the real form."""

from __future__ import annotations

import itertools
import os

from playwright.sync_api import Page
from sqlmodel import Session

from tests.e2e.conftest import E2EApp
from tests.e2e.pages.shell import PAGE_LOAD_MS, Shell
from topic_dashboard.errors import AppError
from topic_dashboard.services import accounts

PASSWORD = "long enough password"
__all__ = ["PAGE_LOAD_MS", "PASSWORD", "ensure_user", "expect_live", "log_in", "submit_login", "unique"]
_names = itertools.count(1)


def unique(prefix: str) -> str:
    """A name no other test (or earlier run of the same test) uses."""
    return f"{prefix}-{os.getpid()}-{next(_names)}"


def ensure_user(app: E2EApp, username: str, role: str) -> None:
    with Session(app.engine) as session:
        try:
            accounts.create_user(session=session, username=username, password=PASSWORD, role=role)
        except AppError:
            session.rollback()  # made by an earlier test


def submit_login(page: Page, app: E2EApp, username: str, password: str = PASSWORD) -> None:
    Shell(page, app.url).log_in(username, password)


def log_in(page: Page, app: E2EApp, username: str, role: str = "admin", landing: str = "/") -> None:
    """Log in as `username` (made with `role` if new) and wait until the shell shows them, on
    `landing` (a flow that goes on to another page saves a page load by landing there).

    The login session is opened by the accounts service and handed to the browser where the login
    form puts it (localStorage `td_session`), which saves each test the form's round trips; the
    form itself is tested by the tests that call `submit_login` (test_shell.py and others)."""
    ensure_user(app, username, role)
    with Session(app.engine) as session:
        _, token = accounts.log_in(session=session, username=username, password=PASSWORD, ttl_hours=12)
    page.goto(app.path("/api/health"))  # the app's origin, without loading the app
    page.evaluate("(token) => localStorage.setItem('td_session', token)", token)
    page.goto(app.path(landing))
    Shell(page, app.url).expect_signed_in(username)


def expect_live(page: Page) -> None:
    """Wait until a signed-in page is live (`Shell.expect_live`)."""
    Shell.on(page).expect_live()
