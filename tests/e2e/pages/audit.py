"""The Audit page (`/audit`): what people, tokens and bots did, filtered, a row's detail, the CSV export."""

from __future__ import annotations

import re
from dataclasses import dataclass

from playwright.sync_api import Locator, expect

from tests.e2e.pages.rules import CELLS_OUT_OF_VIEW
from tests.e2e.pages.shell import Shell


@dataclass
class AuditPage(Shell):
    # For checks that take a selector: the bot filter has no name of its own, it is the page's first select.
    BOT_SELECT = "[role=combobox] >> nth=0"

    def open(self, query: str = "") -> AuditPage:
        self.page.goto(self.path("/audit" + query))
        self.expect_title("Audit")
        return self

    def table(self) -> Locator:
        return self.page.locator("#audit-table")

    def rows(self) -> Locator:
        return self.page.locator("#audit-table tbody tr")

    def cells_out_of_view(self) -> list[str]:
        """The text of each cell not wholly in view (behind the table's sideways scroll, or off screen)."""
        cut: list[str] = self.table().evaluate(CELLS_OUT_OF_VIEW)
        return cut

    # Filters (an empty text clears one) -------------------------------------------------------
    def filter_actor(self, text: str) -> None:
        """Who: a person's name, a token's or a bot's name."""
        self.page.locator("#audit-actor").fill(text)

    def filter_error_code(self, text: str) -> None:
        self.page.locator("#audit-error-code").fill(text)

    def filter_outcome(self, outcome: str) -> None:
        self.page.get_by_role("combobox", name="All outcomes").click()
        self.page.get_by_role("option", name=outcome, exact=True).click()

    def filter_until(self, day: str) -> None:
        """The last day (YYYY-MM-DD) of the range."""
        self.page.locator("#audit-until").fill(day)

    def filter_since(self, day: str) -> None:
        self.page.locator("#audit-since").fill(day)

    def outcome_select(self) -> Locator:
        return self.page.get_by_role("combobox", name="All outcomes")

    def bot_select(self) -> Locator:
        """The bot filter: the page's first select."""
        return self.page.locator(self.BOT_SELECT)

    def clear_filters(self) -> None:
        self.page.get_by_role("button", name="Clear").click()

    def nothing_recorded(self) -> Locator:
        return self.page.get_by_text("Nothing recorded")

    # A row's detail and the export ------------------------------------------------------------
    def open_detail(self, row: Locator) -> Locator:
        """Open a row's detail; returns it (its facts, then the recorded JSON, all plain text)."""
        self.detail_button(row).click()
        return self.detail()

    @staticmethod
    def detail_button(row: Locator) -> Locator:
        return row.get_by_role("button", name=re.compile("Detail of audit row"))

    def detail(self) -> Locator:
        return self.page.locator("#audit-detail")

    def detail_fact(self, name: str) -> Locator:
        """One fact of the opened row: tool, actor, bot, outcome, error_code, message, field, meaning, target,
        topic, item, latency (its label and its value)."""
        return self.page.locator(f"#audit-fact-{name}")

    def detail_json(self) -> Locator:
        """The opened row's recorded detail, as indented JSON."""
        return self.page.locator("#audit-detail-text")

    def close_detail(self) -> None:
        self.page.keyboard.press("Escape")
        expect(self.detail()).to_have_count(0)

    def export_button(self) -> Locator:
        """Download the filtered rows as CSV."""
        return self.page.locator("#audit-export")
