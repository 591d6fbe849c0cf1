"""The Bots page (`/bots`): bots, their token (shown once) and the nanobot config the dashboard writes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import expect

from tests.e2e.pages.shell import PAGE_LOAD_MS, Shell
from topic_dashboard.security import BOT_TOKEN_PREFIX


@dataclass
class BotsPage(Shell):
    def open(self) -> BotsPage:
        self.page.goto(self.path("/bots"))
        expect(self.page.locator("#page-title")).to_have_text("Bots", timeout=PAGE_LOAD_MS)
        return self

    def create(self, name: str) -> tuple[str, dict[str, Any]]:
        """New bot → name → Create: returns the token shown once and the nanobot config snippet shown with it."""
        self.page.locator("#new-bot").click()
        self.page.locator("#new-bot-name").fill(name)
        self.page.locator("#create-bot-submit").click()
        token = self.page.locator("#shown-token")
        expect(token).to_contain_text(BOT_TOKEN_PREFIX)
        snippet = json.loads(self.page.locator("#config-snippet").inner_text())
        value = token.inner_text().strip()
        self.page.locator("#token-done").click()
        expect(self.page.locator("#shown-token")).to_have_count(0)
        return value, snippet
