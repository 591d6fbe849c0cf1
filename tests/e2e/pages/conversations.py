"""The Conversations page (`/conversations`): a bot's conversations, their messages and guide cards, the composer."""

from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import Locator, expect

from tests.e2e.pages.shell import Shell


@dataclass
class ConversationsPage(Shell):
    # Selectors that scripts run in the page also need (`page.wait_for_function`, `document.querySelector`).
    MESSAGES = "#messages"
    BOT_SELECT = "#conversations-bot-select"

    def open(self, bot_id: str) -> ConversationsPage:
        """The page on `bot_id`, once it is live (served pre-rendered, it hydrates after it shows)."""
        self.page.goto(self.path(f"/conversations?bot={bot_id}"))
        self.expect_title("Conversations")
        self.expect_live()
        return self

    def bot_select(self) -> Locator:
        return self.page.locator(self.BOT_SELECT)

    # The list of conversations ------------------------------------------------------------------
    def start(self, title: str) -> None:
        """New conversation: a title, then the button (the conversation opens)."""
        self.page.locator("#new-conversation-title").fill(title)
        self.new_conversation_button().click()

    def new_conversation_button(self) -> Locator:
        return self.page.locator("#new-conversation")

    def conversation(self, conversation_id: str) -> Locator:
        """A conversation in the list; a click opens it."""
        return self.page.locator(f"#conversation-{conversation_id}")

    def opened_id(self) -> str:
        """The open conversation's id, once the address names it (a moment after its heading shows)."""
        return str(self.page.wait_for_function("new URLSearchParams(location.search).get('conversation')").json_value())

    def heading(self, title: str) -> Locator:
        return self.page.get_by_role("heading", name=title)

    def title(self) -> Locator:
        """The open conversation's title."""
        return self.page.locator("#conversation-title")

    def rename(self, title: str) -> None:
        self.page.locator("#rename-conversation").click()
        self.page.locator("#rename-input").fill(title)
        self.page.locator("#rename-save").click()

    def delete_button(self) -> Locator:
        return self.page.locator("#delete-conversation")

    def confirm_delete(self) -> None:
        self.page.locator("#delete-confirm").click()

    # Messages -----------------------------------------------------------------------------------
    def messages(self) -> Locator:
        return self.page.locator(self.MESSAGES)

    def messages_of(self, role: str) -> Locator:
        """The messages of one kind: user, assistant, tool, system."""
        return self.messages().locator(f".msg-{role}")

    def streaming(self) -> Locator:
        """An answer still arriving."""
        return self.page.locator(".msg-streaming")

    def card(self, message_id: str) -> Locator:
        """A guide card by its message id."""
        return self.page.locator(self.card_selector(message_id))

    @staticmethod
    def card_selector(message_id: str) -> str:
        return f"#card-{message_id}"

    @classmethod
    def card_select_selector(cls, message_id: str, index: int) -> str:
        """The `index`-th select (a Radix combobox) of a card, for checks that take a selector."""
        return f"{cls.card_selector(message_id)} button[role=combobox] >> nth={index}"

    def cards(self) -> Locator:
        return self.messages().locator(".guide-card")

    @staticmethod
    def card_text(card: Locator) -> Locator:
        """The words the bot wrote with a card."""
        return card.locator(".guide-card-text")

    @staticmethod
    def card_submit(card: Locator) -> Locator:
        return card.locator(".guide-card-submit")

    @staticmethod
    def card_field(card: Locator, name: str) -> Locator:
        """A text field or text area of a card, by its field name."""
        return card.locator(f"textarea[name={name}], input[name={name}]")

    def published_results(self) -> Locator:
        """What this conversation published to topics."""
        return self.page.locator("#published-results")

    def published_links(self) -> Locator:
        return self.published_results().locator(".published-link")

    # The composer (admins) ------------------------------------------------------------------------
    def role_select(self) -> Locator:
        return self.page.locator("#message-role")

    def draft(self) -> Locator:
        return self.page.locator("#message-draft")

    def send_button(self) -> Locator:
        return self.page.locator("#send-message")

    def send_hint(self) -> Locator:
        return self.page.locator("#send-hint")

    def chat_endpoint_link(self) -> Locator:
        """In the hint of a bot without a chat endpoint (admins): the way to its settings, where it is set."""
        return self.page.locator("#chat-endpoint-link")

    def chat_endpoint_note(self) -> Locator:
        """A viewer's note that the bot has no chat endpoint yet and that an admin sets it."""
        return self.page.locator("#chat-endpoint-note")

    def send(self, role: str, text: str) -> None:
        """Choose who speaks, type, send; waits until the message is listed and the draft is empty."""
        self.role_select().click()
        self.page.get_by_role("option", name=role, exact=True).click()
        expect(self.role_select()).to_have_text(role)
        self.draft().fill(text)
        self.send_button().click()
        expect(self.messages()).to_contain_text(text)
        expect(self.draft()).to_have_value("")

    def add_guide_card_button(self) -> Locator:
        return self.page.locator("#add-guide-card")

    def guide_card_json(self) -> Locator:
        return self.page.locator("#guide-card-json")

    def create_guide_card(self) -> None:
        self.page.locator("#guide-card-create").click()

    def guide_card_error(self) -> Locator:
        return self.page.locator("#guide-card-error")

    # A bot's run ---------------------------------------------------------------------------------
    def run_status(self) -> Locator:
        """Carries `data-status`: idle, running, stopped."""
        return self.page.locator("#run-status")

    def run_error(self) -> Locator:
        return self.page.locator("#run-error")

    def retry(self) -> None:
        self.page.locator("#retry-run").click()

    def stop(self) -> None:
        self.page.locator("#stop-run").click()
