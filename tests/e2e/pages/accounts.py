"""The Accounts page (`/accounts`, admins): people and API tokens; secrets shown once."""

from __future__ import annotations

import re
from dataclasses import dataclass

from playwright.sync_api import Locator, expect

from tests.e2e.pages.shell import PAGE_LOAD_MS, Shell


@dataclass
class AccountsPage(Shell):
    def open(self) -> AccountsPage:
        self.page.goto(self.path("/accounts"))
        self.expect_open()
        return self

    def open_from_nav(self) -> AccountsPage:
        """Through the shell's Accounts link, as a person does."""
        self.nav("accounts")
        self.expect_open()
        return self

    def expect_open(self) -> None:
        expect(self.page_title()).to_have_text("Accounts", timeout=PAGE_LOAD_MS)
        expect(self.people_table()).to_be_visible()

    # People -------------------------------------------------------------------------------------
    def people_table(self) -> Locator:
        return self.page.locator("#people-table")

    def people_rows(self) -> Locator:
        return self.page.locator("#people-table tbody tr")

    def people_summary(self) -> Locator:
        """The summary line: "N accounts · M active admins"."""
        return self.page.locator("#people-summary")

    def person(self, username: str) -> Locator:
        """A person's row."""
        return self.page.locator(f"#person-{username}")

    def new_username(self) -> Locator:
        return self.page.locator("#new-username")

    def shown_secret(self) -> str:
        """The password or token shown once: read it, then Done (it is gone)."""
        secret = self.page.locator("#shown-secret")
        expect(secret).to_have_text(re.compile(r"\S{16,}"))
        value = secret.inner_text().strip()
        self.page.locator("#secret-done").click()
        expect(secret).to_have_count(0)
        return value

    def add_person(self, username: str) -> str:
        """Add a viewer; returns the one-time password shown once."""
        self.new_username().fill(username)
        self.page.locator("#create-user").click()
        return self.shown_secret()

    def role_of(self, username: str) -> Locator:
        """The role select of a person's row."""
        return self.page.get_by_role("combobox", name=f"Role of {username}")

    def set_role(self, username: str, role: str) -> None:
        self.role_of(username).click()
        self.page.get_by_role("option", name=role, exact=True).click()

    def actions_for(self, username: str) -> Locator:
        """The button that opens a person's row menu."""
        return self.page.get_by_role("button", name=f"Actions for {username}")

    def act(self, username: str, item: str) -> None:
        """Pick an action from a person's row menu (e.g. "Disable ana"); most then ask to confirm."""
        self.actions_for(username).click()
        self.page.get_by_role("menuitem", name=item).click()

    def confirm(self, button: str) -> None:
        """The confirmation asks with `button` (Delete, Disable, Reset password, Revoke); confirmed."""
        action = self.page.locator("#confirm-action")
        expect(action).to_have_text(button)
        action.click()
        expect(action).to_have_count(0)

    def delete_person(self, username: str) -> None:
        self.act(username, f"Delete {username}")
        self.confirm("Delete")
        expect(self.person(username)).to_have_count(0)

    # API tokens -----------------------------------------------------------------------------------
    def create_token(self, name: str, days: str) -> str:
        """A new API token (role as chosen, viewer by default); returns the token shown once."""
        self.page.locator("#new-token-name").fill(name)
        self.page.locator("#new-token-days").fill(days)
        self.page.locator("#create-token").click()
        return self.shown_secret()

    def token_name_field(self) -> Locator:
        return self.page.locator("#new-token-name")

    def token_days_field(self) -> Locator:
        return self.page.locator("#new-token-days")

    def press_create_token(self) -> None:
        """Create token, whatever the form holds (an error stays under the form)."""
        self.page.locator("#create-token").click()

    def token_error(self) -> Locator:
        return self.page.locator("#new-token-error")

    def new_token_role(self) -> Locator:
        return self.page.get_by_role("combobox", name="Role of the new token")

    def token_row(self, name: str) -> Locator:
        return self.page.locator("#tokens-table tbody tr").filter(has_text=name)

    def revoke(self, name: str) -> None:
        """Revoke a token (asks first: `confirm("Revoke")`)."""
        self.page.get_by_role("button", name=f"Revoke {name}").click()
