"""The Rules page (`/rules`): topics and their routing rules, the live "test this message", retention."""

from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import Locator, expect

from tests.e2e.pages.shell import PAGE_LOAD_MS, Shell


@dataclass
class RulesPage(Shell):
    def open(self, bot_id: str) -> RulesPage:
        self.page.goto(self.path(f"/rules?bot={bot_id}"))
        expect(self.page.locator("#rule-row-inbox")).to_be_visible(timeout=PAGE_LOAD_MS)
        return self

    def add_from_template(self, label: str, topic_key: str) -> None:
        """New topic → a template → Create; the editor then shows it."""
        self.page.locator("#new-topic").click()
        self.page.locator("#new-template").click()
        self.page.get_by_role("option", name=label, exact=True).click()
        expect(self.page.locator("#new-key")).to_have_value(topic_key)
        self.page.locator("#new-create").click()
        expect(self.page.locator("#editor-key")).to_have_text(topic_key)

    def select(self, topic_key: str) -> None:
        self.page.locator(f"#rule-row-{topic_key}").click()
        expect(self.page.locator("#editor-key")).to_have_text(topic_key)

    def test_message(self, text: str) -> Locator:
        """Type a message into "test this message"; returns where the decision shows ("→ key")."""
        self.page.locator("#test-message").fill(text)
        return self.page.locator("#decision-topic")

    def add_include_condition(self, text: str) -> None:
        fields = self.page.locator("[id^='include_when-']")
        count = fields.count()
        self.page.locator("#add-include_when").click()
        self.page.locator(f"#include_when-{count}").fill(text)

    def save(self) -> None:
        self.page.locator("#rule-save").click()
        expect(self.page.get_by_text("Saved: bots route by this rule")).to_be_visible()

    def set_retention(self, *, days: str = "", items: str = "") -> Locator:
        """Open the topic's Retention dialog, save the limits; returns the dry-run line."""
        self.page.locator("#rule-retention").click()
        self.page.locator("#keep-days").fill(days)
        self.page.locator("#keep-items").fill(items)
        self.page.locator("#retention-save").click()
        expect(self.page.get_by_text("saved").first).to_be_visible()
        return self.page.locator("#retention-dry-run")

    def purge_now(self) -> None:
        self.page.locator("#retention-purge").click()
