"""The Topic panel (`/`): the stream, the detail pane, search, mark all read, the switch, notifications."""

from __future__ import annotations

import re
from dataclasses import dataclass

from playwright.sync_api import Locator, expect

from tests.e2e.pages.shell import PAGE_LOAD_MS, Shell

# How long a change may take to reach an open panel (the panel reads every 700 ms).
LIVE_MS = 10_000


@dataclass
class TopicPanel(Shell):
    def open(self, bot_id: str, query: str = "") -> TopicPanel:
        self.page.goto(self.path(f"/?bot={bot_id}{query}"))
        expect(self.page.locator("#stream-heading")).to_be_visible(timeout=PAGE_LOAD_MS)
        expect(self.page.locator(".rt-Skeleton")).to_have_count(0)  # the loading rows are gone
        return self

    # The stream -------------------------------------------------------------------------------
    def rows(self) -> Locator:
        return self.page.locator("#item-list .item-row")

    def row(self, item_id: int) -> Locator:
        return self.page.locator(f"#item-{item_id}")

    def shown_ids(self) -> list[int]:
        ids = self.rows().evaluate_all("(rows) => rows.map((row) => row.id)")
        return [int(value.removeprefix("item-")) for value in ids]

    def expect_item(self, item_id: int, title: str) -> None:
        """The item arrives (live) with its title."""
        expect(self.row(item_id).locator(".item-title")).to_have_text(title, timeout=LIVE_MS)

    def expect_unread(self, item_id: int, unread: bool = True) -> None:
        state = r"\bitem-unread\b" if unread else r"\bitem-read\b"
        expect(self.row(item_id)).to_have_class(re.compile(state), timeout=LIVE_MS)

    def view(self, name: str) -> None:
        """all, unread, pinned, or topic:<key>."""
        target = f"#topic-{name.removeprefix('topic:')}" if name.startswith("topic:") else f"#view-{name}"
        self.page.locator(target).click()

    def heading(self) -> Locator:
        return self.page.locator("#stream-heading")

    # The detail pane ---------------------------------------------------------------------------
    def open_item(self, item_id: int) -> Locator:
        self.row(item_id).locator(".item-title").click()
        return self.page.locator("#detail-title")

    def close_item(self) -> None:
        self.page.keyboard.press("Escape")
        expect(self.page.locator("#detail-title")).to_have_count(0)

    def toggle_pin(self) -> None:
        self.page.locator("#detail-toggle-pin").click()

    # Search and reading many -------------------------------------------------------------------
    def search(self, text: str) -> None:
        self.page.locator("#search-input").fill(text)
        expect(self.heading()).to_have_text(f"Search: {text}" if text else "All items")

    def clear_search(self) -> None:
        self.page.locator("#search-clear").click()

    def mark_all_read(self, expected: int) -> None:
        """Asks first, naming how many; confirmed."""
        self.page.locator("#mark-all-read").click()
        expect(self.page.locator("#mark-read-confirm")).to_contain_text(
            f"Mark {expected} item{'s' if expected != 1 else ''} read"
        )
        self.page.locator("#mark-read-ok").click()

    def undo(self) -> None:
        self.page.get_by_role("button", name="Undo").click()

    # The bot's switch ---------------------------------------------------------------------------
    def switch(self) -> Locator:
        return self.page.locator("#topic-enabled-switch")

    def expect_delivery(self, on: bool) -> None:
        expect(self.switch()).to_have_attribute("aria-checked", "true" if on else "false", timeout=LIVE_MS)
        expect(self.page.locator("#delivery-off-banner")).to_have_count(0 if on else 1, timeout=LIVE_MS)

    # Notifications --------------------------------------------------------------------------------
    def turn_on_notifications(self, mute: tuple[str, ...] = ()) -> None:
        self.page.locator("#notify-button").click()
        self.page.locator("#notify-enabled").click()
        expect(self.page.locator("#notify-enabled")).to_have_attribute("aria-checked", "true")
        for topic_key in mute:
            self.page.locator(f"#notify-topic-{topic_key}").click()
            expect(self.page.locator(f"#notify-topic-{topic_key}")).to_have_attribute("aria-checked", "false")
        self.page.keyboard.press("Escape")
