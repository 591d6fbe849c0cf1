"""Logging in and the shell every signed-in page shares."""

from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import Page, expect

# A page's first load (scripts, hydration, the event socket) can take seconds on a busy machine.
PAGE_LOAD_MS = 30_000


@dataclass
class Shell:
    page: Page
    base_url: str

    def path(self, route: str) -> str:
        return self.base_url.rstrip("/") + route

    def log_in(self, username: str, password: str) -> None:
        """Through the real form, as a person does; waits until the shell names them."""
        self.page.goto(self.path("/login"))
        expect(self.page.locator("#login-submit")).to_be_enabled(timeout=PAGE_LOAD_MS)
        self.page.locator("#login-username").fill(username)
        self.page.locator("#login-password").fill(password)
        self.page.locator("#login-submit").click()

    def expect_signed_in(self, username: str) -> None:
        expect(self.page.locator("#current-user")).to_have_text(username, timeout=PAGE_LOAD_MS)

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
        self.page.locator("#login-setup-token").fill(setup_token)
        self.page.locator("#login-username").fill(username)
        self.page.locator("#login-password").fill(password)
        self.page.locator("#setup-submit").click()

    def log_out(self) -> None:
        self.page.locator("#logout").click()
        expect(self.page.locator("#login-submit")).to_be_visible(timeout=PAGE_LOAD_MS)

    def nav(self, name: str) -> None:
        """Follow a navigation link: topics, rules, bots, conversations, audit, insights, accounts."""
        self.page.locator(f"#nav-{name}").click()
