"""The Accounts page (`/accounts`, admins): people and API tokens; secrets shown once."""

from __future__ import annotations

import re
from dataclasses import dataclass

from playwright.sync_api import expect

from tests.e2e.pages.shell import PAGE_LOAD_MS, Shell


@dataclass
class AccountsPage(Shell):
    def open(self) -> AccountsPage:
        self.page.goto(self.path("/accounts"))
        expect(self.page.locator("#page-title")).to_have_text("Accounts", timeout=PAGE_LOAD_MS)
        expect(self.page.locator("#people-table")).to_be_visible()
        return self

    def _shown_secret(self) -> str:
        secret = self.page.locator("#shown-secret")
        expect(secret).to_have_text(re.compile(r"\S{16,}"))
        value = secret.inner_text().strip()
        self.page.locator("#secret-done").click()
        expect(secret).to_have_count(0)
        return value

    def add_person(self, username: str) -> str:
        """Add a viewer; returns the one-time password shown once."""
        self.page.locator("#new-username").fill(username)
        self.page.locator("#create-user").click()
        return self._shown_secret()

    def delete_person(self, username: str) -> None:
        self.page.get_by_role("button", name=f"Actions for {username}").click()
        self.page.get_by_role("menuitem", name=f"Delete {username}").click()
        action = self.page.locator("#confirm-action")
        expect(action).to_have_text("Delete")
        action.click()
        expect(self.page.locator(f"#person-{username}")).to_have_count(0)
