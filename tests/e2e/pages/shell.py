"""Logging in and the shell every signed-in page shares."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Self
from urllib.parse import urlsplit

from playwright.sync_api import Locator, Page, expect

# A page's first load (scripts, hydration, the event socket) can take seconds on a busy machine.
PAGE_LOAD_MS = 30_000


@dataclass
class Shell:
    page: Page
    base_url: str

    # Roles, for checks that take a selector: the open confirmation dialog, an open select's options.
    DIALOG = "[role=alertdialog]"
    LISTBOX = "[role=listbox]"

    @classmethod
    def on(cls, page: Page) -> Self:
        """The page object for a page already open on the app (its address gives the app's)."""
        parts = urlsplit(page.url)
        return cls(page, f"{parts.scheme}://{parts.netloc}")

    def path(self, route: str) -> str:
        return self.base_url.rstrip("/") + route

    # The login form ------------------------------------------------------------------------------
    def open_login(self) -> None:
        """The login page, once its form can be sent (it arrives pre-rendered, the button disabled)."""
        self.page.goto(self.path("/login"))
        expect(self.login_button()).to_be_enabled(timeout=PAGE_LOAD_MS)

    def log_in(self, username: str, password: str) -> None:
        """Through the real form, as a person does (`expect_signed_in` waits until the shell names them)."""
        self.open_login()
        self.fill_login(username, password)

    def fill_login(self, username: str, password: str) -> None:
        """On the open login page: type the name and password, send the form."""
        self.username_field().fill(username)
        self.password_field().fill(password)
        self.login_button().click()

    def login_button(self) -> Locator:
        return self.page.locator("#login-submit")

    def username_field(self) -> Locator:
        return self.page.locator("#login-username")

    def password_field(self) -> Locator:
        return self.page.locator("#login-password")

    def setup_token_field(self) -> Locator:
        """The first start's form: the setup token printed by the server."""
        return self.page.locator("#login-setup-token")

    def login_error(self) -> Locator:
        return self.page.locator("#login-error")

    def expect_signed_in(self, username: str) -> None:
        expect(self.current_user()).to_have_text(username, timeout=PAGE_LOAD_MS)

    def expect_live(self) -> None:
        """Wait until a signed-in page is live. Pages are served pre-rendered, so their controls show before
        Reflex has hydrated them (a click then does nothing); the shell names the user only once it has."""
        expect(self.current_user()).to_have_text(re.compile(r"\S"), timeout=PAGE_LOAD_MS)

    # The shell ------------------------------------------------------------------------------------
    def current_user(self) -> Locator:
        return self.page.locator("#current-user")

    def current_role(self) -> Locator:
        return self.page.locator("#current-role")

    def content(self) -> Locator:
        """What every page shows once loaded: its main region or its title."""
        return self.page.locator("main, #page-title").first

    def page_title(self) -> Locator:
        return self.page.locator("#page-title")

    def expect_title(self, title: str) -> None:
        """The page's title, after a first load (which may take a while)."""
        expect(self.page_title()).to_have_text(title, timeout=PAGE_LOAD_MS)

    def choose_password(self, old: str, new: str) -> None:
        """The form a one-time password leads to."""
        expect(self.page.locator("#change-password-reason")).to_contain_text("one-time password", timeout=PAGE_LOAD_MS)
        self.page.locator("#login-old-password").fill(old)
        self.page.locator("#login-new-password").fill(new)
        self.page.locator("#login-confirm-password").fill(new)
        self.page.locator("#change-password-submit").click()

    def set_up_first_admin(self, setup_token: str, username: str, password: str) -> None:
        self.page.goto(self.path("/login"))
        expect(self.page.locator("#setup-submit")).to_be_enabled(timeout=PAGE_LOAD_MS)
        self.setup_token_field().fill(setup_token)
        self.username_field().fill(username)
        self.password_field().fill(password)
        self.page.locator("#setup-submit").click()

    def log_out(self) -> None:
        self.press_log_out()
        expect(self.login_button()).to_be_visible(timeout=PAGE_LOAD_MS)

    def press_log_out(self) -> None:
        self.page.locator("#logout").click()

    def nav(self, name: str) -> None:
        """Follow a navigation link: topics, rules, bots, conversations, audit, insights, accounts."""
        self.nav_link(name).click()

    def nav_link(self, name: str) -> Locator:
        return self.page.locator(f"#nav-{name}")

    def shown_nav_link(self, label: str) -> Locator:
        """The navigation's link to a page (e.g. "Bots") in the navigation on screen: the sidebar's,
        or on a phone the icon bar's."""
        return self.page.get_by_role("link", name=label, exact=True).filter(visible=True)

    def current_page_link(self) -> Locator:
        """The navigation link on screen that marks the page open (aria-current="page")."""
        return self.page.locator("a[aria-current=page]").filter(visible=True)

    def back_to_topics(self) -> Locator:
        """The Change password page's way back to the app."""
        return self.page.get_by_role("link", name="Back to topics")

    def document_root(self) -> Locator:
        """The page's root element: it carries the theme (class `dark` in the dark one)."""
        return self.page.locator("html")

    def focus_page(self) -> None:
        """Click an empty corner of the page, so that keys go to the page rather than a field."""
        self.page.locator("body").click(position={"x": 5, "y": 5})

    def alert_banner(self) -> Locator:
        """An alert that fired (Insights' alerts): shown on every page."""
        return self.page.locator("#alert-banner")

    def dialog(self) -> Locator:
        """The open confirmation dialog (Radix's alert dialog)."""
        return self.page.get_by_role("alertdialog")

    def cancel_dialog(self) -> None:
        self.dialog().get_by_role("button", name="Cancel").click()

    def listbox(self) -> Locator:
        """The options of an open select."""
        return self.page.get_by_role("listbox")

    def loading_placeholders(self) -> Locator:
        """The skeleton rows a page shows while it loads."""
        return self.page.locator(".rt-Skeleton")
