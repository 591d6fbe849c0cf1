"""The Bots page (`/bots`): bots, their token (shown once) and the nanobot config the dashboard writes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Locator, expect

from tests.e2e.pages.shell import PAGE_LOAD_MS, Shell
from topic_dashboard.security import BOT_TOKEN_PREFIX


@dataclass
class BotsPage(Shell):
    # For checks that take a selector.
    TABLE = "#bots-table"

    def open(self) -> BotsPage:
        self.page.goto(self.path("/bots"))
        expect(self.page_title()).to_have_text("Bots", timeout=PAGE_LOAD_MS)
        return self

    def expect_loaded(self) -> None:
        """The list is shown (its loading rows are gone)."""
        expect(self.loading_placeholders()).to_have_count(0)

    # The list ---------------------------------------------------------------------------------
    def bot_row(self, bot_id: str | int) -> Locator:
        """A bot's row (by its bot id or its database id: both name the same row element)."""
        return self.page.locator(f"#bot-row-{bot_id}")

    def new_bot_button(self) -> Locator:
        return self.page.locator("#new-bot")

    def rotate_button(self, bot_id: str) -> Locator:
        return self.page.locator(f"#rotate-{bot_id}")

    def delete_button(self, bot_id: str) -> Locator:
        """The bot's Delete (it asks first, in a dialog)."""
        return self.page.locator(f"#delete-{bot_id}")

    def any_rotate_or_delete(self) -> Locator:
        """Every Rotate and Delete button on the page (an admin's)."""
        return self.page.locator("[id^=rotate-], [id^=delete-]")

    def confirm(self) -> None:
        """Confirm the open dialog (Rotate, Delete)."""
        self.page.locator("#confirm-action").click()

    # Creating a bot; the token shown once ---------------------------------------------------------
    def start_create(self, name: str, config_path: str = "") -> None:
        """New bot → name (→ adopt an existing config.json) → Create."""
        self.new_bot_button().click()
        self.page.locator("#new-bot-name").fill(name)
        if config_path:
            self.page.locator("#new-bot-config-path").fill(config_path)
            self.page.locator("#new-bot-adopt").click()
        self.page.locator("#create-bot-submit").click()

    def shown_token(self) -> Locator:
        return self.page.locator("#shown-token")

    def shown_config_path(self) -> Locator:
        return self.page.locator("#shown-config-path")

    def config_snippet(self) -> dict[str, Any]:
        """The nanobot config snippet shown with a new token."""
        snippet: dict[str, Any] = json.loads(self.page.locator("#config-snippet").inner_text())
        return snippet

    def token_done(self) -> None:
        """Done with the token shown once: it is gone from the page."""
        self.page.locator("#token-done").click()
        expect(self.shown_token()).to_have_count(0)

    def create(self, name: str) -> tuple[str, dict[str, Any]]:
        """New bot → name → Create: returns the token shown once and the nanobot config snippet shown with it."""
        self.start_create(name)
        token = self.shown_token()
        expect(token).to_contain_text(BOT_TOKEN_PREFIX)
        snippet = self.config_snippet()
        value = token.inner_text().strip()
        self.token_done()
        return value, snippet

    # A bot's MCP config and delivery settings ------------------------------------------------------
    def open_config(self, bot_id: str | int) -> None:
        """The bot's config editor (MCP servers, delivery settings, the chat endpoint)."""
        self.page.locator(f"#config-{bot_id}").click()

    def config_editor(self) -> Locator:
        return self.page.locator("#config-editor")

    def config_title(self) -> Locator:
        """The heading of the settings shown: "Settings of <bot name>"."""
        return self.page.locator("#config-title")

    def section(self, name: str) -> Locator:
        """A section of the bot's settings: delivery-settings, chat-endpoint or mcp-servers."""
        return self.page.locator(f"#{name}")

    def save_status(self, button_id: str) -> Locator:
        """What is said beside a section's Save (by the button's id): unsaved changes, or what the save did."""
        return self.page.locator(f"#{button_id}-status")

    def locked_server(self, name: str) -> Locator:
        """A server the dashboard manages (topic_mcp, ccweb): shown, not editable."""
        return self.page.locator(f"#server-locked-{name}")

    def locked_timeout(self, name: str) -> Locator:
        return self.page.locator(f"#locked-timeout-{name}")

    @staticmethod
    def remove_buttons(within: Locator) -> Locator:
        """The Remove buttons of servers, inside `within` (the editor, a server)."""
        return within.locator(".remove-server")

    def add_server(self) -> None:
        self.add_server_button().click()

    def add_server_button(self) -> Locator:
        return self.page.locator("#add-server")

    def server_json(self, name: str) -> Locator:
        return self.page.locator(f"#server-json-{name}")

    def server_name(self, name: str) -> Locator:
        return self.page.locator(f"#server-name-{name}")

    def save_config_button(self) -> Locator:
        return self.page.locator("#save-config")

    def config_notice(self) -> Locator:
        return self.page.locator("#config-notice")

    def config_error(self) -> Locator:
        return self.page.locator("#config-error")

    def delivery_settings(self) -> Locator:
        return self.page.locator("#delivery-settings")

    def publish_rate(self) -> Locator:
        return self.page.locator("#publish-rate")

    def dedupe_window(self) -> Locator:
        return self.page.locator("#dedupe-window")

    def allow_images(self) -> Locator:
        """The "allow remote images" switch."""
        return self.page.locator("#allow-images")

    def save_settings_button(self) -> Locator:
        return self.page.locator("#save-settings")

    def settings_error(self) -> Locator:
        return self.page.locator("#settings-error")

    # The chat endpoint (nanobot serve) --------------------------------------------------------------
    def chat_endpoint(self) -> Locator:
        return self.page.locator("#chat-endpoint")

    def chat_url(self) -> Locator:
        return self.page.locator("#chat-url")

    def chat_key(self) -> Locator:
        return self.page.locator("#chat-key")

    def check_chat_endpoint(self) -> None:
        self.page.locator("#test-chat-endpoint").click()

    def chat_check(self) -> Locator:
        """What the endpoint test found."""
        return self.page.locator("#chat-check")

    def save_chat_endpoint(self) -> None:
        self.page.locator("#save-chat-endpoint").click()
