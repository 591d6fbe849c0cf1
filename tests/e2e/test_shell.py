"""Log in, see the shell and its navigation, switch theme, log out."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session

from tests.e2e.conftest import E2EApp
from topic_dashboard.services import accounts

pytestmark = pytest.mark.e2e


def _ensure_user(app: E2EApp, username: str, role: str) -> None:
    with Session(app.engine) as session:
        try:
            accounts.create_user(session=session, username=username, password="long enough password", role=role)
        except accounts.AppError:
            session.rollback()


def log_in(page: Page, app: E2EApp, username: str, password: str = "long enough password") -> None:
    page.goto(app.path("/login"))
    page.locator("#login-username").fill(username)
    page.locator("#login-password").fill(password)
    page.locator("#login-submit").click()


def test_strangers_are_sent_to_the_login_page(page: Page, e2e_app: E2EApp) -> None:
    page.goto(e2e_app.path("/bots"))
    expect(page).to_have_url(re.compile(r"/login/?$"))


def test_wrong_password_shows_an_error(page: Page, e2e_app: E2EApp) -> None:
    _ensure_user(e2e_app, "ada", "admin")
    log_in(page, e2e_app, "ada", "not the password")
    expect(page.locator("#login-error")).to_contain_text("wrong username or password")


def test_log_in_see_the_shell_navigate_and_log_out(page: Page, e2e_app: E2EApp) -> None:
    _ensure_user(e2e_app, "ada", "admin")
    log_in(page, e2e_app, "ada")
    expect(page.locator("#current-user")).to_have_text("ada")
    expect(page.locator("#current-role")).to_have_text("admin")
    for label in ("rules", "bots", "conversations", "audit", "topics"):
        page.locator(f"#nav-{label}").click()
        expect(page.locator("#page-title")).to_have_text(label.capitalize())
    page.locator("#logout").click()
    expect(page).to_have_url(re.compile(r"/login/?$"))
    page.goto(e2e_app.path("/rules"))
    expect(page).to_have_url(re.compile(r"/login/?$"))
