"""Log in, see the shell and its navigation, switch theme, log out."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.accounts_support import PAGE_LOAD_MS, PASSWORD, ensure_user, submit_login
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.shell import Shell

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]


def test_strangers_are_sent_to_the_login_page(page: Page, e2e_app: E2EApp) -> None:
    page.goto(e2e_app.path("/bots"))
    expect(page).to_have_url(re.compile(r"/login/?$"))


def test_the_login_fields_are_named_by_their_labels(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough found "Username" and "Password" to be plain paragraphs beside unnamed text boxes."""
    ensure_user(e2e_app, "ada", "admin")  # an account exists: the login form, not the first-admin one
    page.goto(e2e_app.path("/login"))
    expect(page.get_by_label("Username")).to_have_id("login-username")
    expect(page.get_by_label("Password")).to_have_id("login-password")
    # password managers fill them (a walkthrough found no autocomplete hints)
    expect(page.get_by_label("Username")).to_have_attribute("autocomplete", "username")
    expect(page.get_by_label("Password")).to_have_attribute("autocomplete", "current-password")
    expect(page.locator("#login-submit")).to_be_enabled()  # live: the username field has taken its autofocus
    page.get_by_text("Password", exact=True).click()  # a click on the label focuses its field
    expect(page.locator("#login-password")).to_be_focused()
    page.screenshot(path=str(screenshot_path("login.png")))
    expect(page.get_by_role("button", name="Switch light or dark theme")).to_be_visible()  # it had no name


def test_wrong_password_shows_an_error(page: Page, e2e_app: E2EApp) -> None:
    ensure_user(e2e_app, "ada", "admin")
    submit_login(page, e2e_app, "ada", "not the password")
    expect(Shell(page, e2e_app.url).login_error()).to_contain_text("wrong username or password")


def test_the_login_form_cannot_be_sent_before_the_page_is_live(page: Page, e2e_app: E2EApp) -> None:
    """The login page arrives pre-rendered: until its scripts have run, the browser would send the form
    itself, as a GET with the password in the URL. Its submit button is disabled until then, which
    stops the Enter key too."""
    shell = Shell(page, e2e_app.url)
    page.route(re.compile(r"\.js(\?.*)?$"), lambda route: route.abort())
    page.goto(e2e_app.path("/login"))
    expect(shell.password_field()).to_be_visible()
    expect(shell.login_button()).to_be_disabled()


def test_a_reloaded_page_comes_alive_again(page: Page, e2e_app: E2EApp) -> None:
    """A reload revalidates the cached page (304 Not Modified): the page keeps the Content-Security-Policy
    that allows its own inline scripts, so it hydrates again and logging in works."""
    ensure_user(e2e_app, "ada", "admin")
    shell = Shell(page, e2e_app.url)
    shell.open_login()
    page.reload()
    shell.fill_login("ada", PASSWORD)
    expect(shell.current_user()).to_have_text("ada", timeout=PAGE_LOAD_MS)


def test_log_in_see_the_shell_navigate_and_log_out(page: Page, e2e_app: E2EApp) -> None:
    ensure_user(e2e_app, "ada", "admin")
    shell = Shell(page, e2e_app.url)
    submit_login(page, e2e_app, "ada")
    expect(shell.current_user()).to_have_text("ada")
    expect(shell.current_role()).to_have_text("admin")
    for label in ("rules", "bots", "conversations", "audit", "topics"):
        shell.nav(label)
        expect(shell.page_title()).to_have_text(label.capitalize())
    shell.press_log_out()
    expect(page).to_have_url(re.compile(r"/login/?$"))
    page.goto(e2e_app.path("/rules"))
    expect(page).to_have_url(re.compile(r"/login/?$"))
