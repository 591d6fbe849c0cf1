"""Log in, see the shell and its navigation (which marks the page open), switch theme, change the
password and come back, log out."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect
from sqlmodel import Session

from tests.e2e.accounts_support import PAGE_LOAD_MS, PASSWORD, ensure_user, log_in, submit_login, unique
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.shell import Shell
from topic_dashboard.services import accounts

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


SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def _background(link: Locator) -> str:
    background: str = link.evaluate("e => getComputedStyle(e).backgroundColor")
    return background


@pytest.mark.parametrize("size", SIZES)
def test_the_navigation_marks_the_page_that_is_open(page: Page, e2e_app: E2EApp, size: str) -> None:
    """A walkthrough found the navigation (icons only on a phone) saying nowhere which page is open:
    the open page's link is marked, to the eye (its own background) and to a screen reader
    (aria-current="page"), and the mark follows a click to another page."""
    page.set_viewport_size(SIZES[size])
    log_in(page, e2e_app, "ada", "admin", landing="/bots")
    shell = Shell(page, e2e_app.url)
    shell.expect_title("Bots")
    current = shell.current_page_link()
    expect(current).to_have_count(1)
    expect(current).to_have_accessible_name("Bots")
    assert _background(current) not in ("rgba(0, 0, 0, 0)", _background(shell.shown_nav_link("Rules")))
    page.screenshot(path=str(screenshot_path(f"nav-current-{size}.png")))

    shell.shown_nav_link("Audit").click()
    shell.expect_title("Audit")
    expect(shell.current_page_link()).to_have_accessible_name("Audit")
    expect(shell.current_page_link()).to_have_count(1)
    expect(shell.shown_nav_link("Bots")).not_to_have_attribute("aria-current", "page")


def test_the_change_password_page_leads_back_to_the_app(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough found no way back from the Change password page but the browser's."""
    page.set_viewport_size(SIZES["desktop"])
    log_in(page, e2e_app, "ada", "admin", landing="/bots")
    shell = Shell(page, e2e_app.url)
    shell.expect_title("Bots")
    page.locator("#change-own-password").click()
    expect(page).to_have_url(re.compile(r"/change-password/?$"))
    expect(shell.back_to_topics()).to_be_visible(timeout=PAGE_LOAD_MS)
    page.screenshot(path=str(screenshot_path("change-password.png")))
    shell.back_to_topics().click()
    shell.expect_title("Topics")
    expect(page).to_have_url(re.compile(r"/(\?.*)?$"))


def test_a_one_time_password_offers_no_way_around_choosing_ones_own(page: Page, e2e_app: E2EApp) -> None:
    """While a reset's one-time password is in use every page leads back to the form: no link away."""
    name = unique("one-time")
    with Session(e2e_app.engine) as session:
        accounts.create_user(
            session=session, username=name, password=PASSWORD, role="viewer", must_change_password=True
        )
    log_in(page, e2e_app, name, "viewer", landing="/change-password")
    expect(page.locator("#change-password-reason")).to_contain_text("one-time password", timeout=PAGE_LOAD_MS)
    expect(Shell(page, e2e_app.url).back_to_topics()).to_have_count(0)


def test_a_refused_password_change_keeps_what_was_typed(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough typed two new passwords that differed: the error showed and all three fields were
    emptied, so retyping only the confirmation failed again. What was typed stays until it is right."""
    name = unique("retype")
    with Session(e2e_app.engine) as session:
        accounts.create_user(
            session=session, username=name, password=PASSWORD, role="viewer", must_change_password=True
        )
    log_in(page, e2e_app, name, "viewer", landing="/change-password")
    old, new, again = (page.locator(f"#login-{part}") for part in ("old-password", "new-password", "confirm-password"))
    expect(old).to_be_visible(timeout=PAGE_LOAD_MS)
    old.fill(PASSWORD)
    new.fill("a brand new passphrase")
    again.fill("a brand new passfrase")
    page.locator("#change-password-submit").click()
    expect(page.locator("#login-error")).to_contain_text("the two new passwords differ")
    expect(old).to_have_value(PASSWORD)
    expect(new).to_have_value("a brand new passphrase")
    again.fill("a brand new passphrase")  # only the one that was wrong
    page.locator("#change-password-submit").click()
    Shell(page, e2e_app.url).expect_title("Topics")
