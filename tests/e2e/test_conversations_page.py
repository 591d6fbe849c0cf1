"""The Conversations page in a real browser: a person produces every message kind `ccweb_list_user_inputs`
tells apart (user, assistant, tool, system, a guide card and its submission), and the tool returns
exactly the user's inputs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session

from tests.e2e.accounts_support import log_in, unique
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.bots import BotsPage
from tests.e2e.pages.conversations import ConversationsPage
from tests.support.mcp import mcp_client, result_json, run_async
from topic_dashboard.errors import AppError
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.conversations import list_messages, submit_guide_card

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

ADMIN = "conversations-admin"
VIEWER = "conversations-viewer"
SCREENSHOT = screenshot_path("conversations.png")

CARD = {
    "title": "Before I start",
    "fields": [
        {"name": "scope", "label": "What should I cover?", "type": "textarea", "required": True},
        {"name": "format", "label": "Format", "type": "select", "options": ["summary", "table", "report"]},
        {"name": "deadline", "label": "Deadline", "type": "text"},
        {"name": "notify", "label": "Notify me when done", "type": "checkbox"},
    ],
    "submit_label": "Start",
}
ANSWERS = "Before I start\nWhat should I cover?: Q3 revenue by region\nFormat: table\nDeadline: Friday\nNotify me when done: yes"


def _bot(app: E2EApp) -> tuple[str, str]:
    with Session(app.engine) as session:
        bot, token = create_bot(session=session, name=unique("conversations-bot"))
        return bot.bot_id, token


def _open_conversations(
    page: Page, app: E2EApp, bot_id: str, username: str = ADMIN, role: str = "admin"
) -> ConversationsPage:
    log_in(page, app, username, role)
    return ConversationsPage(page, app.url).open(bot_id)


def _user_inputs(app: E2EApp, token: str, conversation_id: str) -> dict[str, Any]:
    async def body() -> dict[str, Any]:
        headers = {"x-ccweb-conversation-id": conversation_id}
        async with mcp_client(app.backend_url + "/api/mcp/ccweb", token, headers=headers) as client:
            result = await client.call_tool("ccweb_list_user_inputs", {})
            assert not result.is_error, result
            return result_json(result)

    return run_async(body)


def test_every_message_kind_made_on_the_page_and_ccweb_returns_only_the_users(page: Page, e2e_app: E2EApp) -> None:
    bot_id, token = _bot(e2e_app)
    chats = _open_conversations(page, e2e_app, bot_id)

    chats.start("Quarterly report")
    expect(chats.heading("Quarterly report")).to_be_visible()
    expect(chats.draft()).to_be_visible()
    # The address follows the new conversation a moment after its heading shows: wait for it.
    conversation_id = chats.opened_id()
    assert conversation_id

    chats.send("user", "Please summarise the Q3 report")
    chats.send("assistant", "Sure, a few questions first.")
    chats.send("tool", '{"rows": 3, "source": "q3.xlsx"}')
    chats.send("system", "Run started")
    expect(chats.messages_of("user")).to_have_text(["Please summarise the Q3 report"])
    expect(chats.messages_of("assistant")).to_have_text(["Sure, a few questions first."])
    expect(chats.messages_of("tool")).to_contain_text('{"rows": 3, "source": "q3.xlsx"}')
    expect(chats.messages_of("system")).to_have_text(["Run started"])
    # What a person wrote as the assistant, a tool or the system says so: a walkthrough took it for the bot's.
    added = page.locator(".msg-added-by")
    expect(added).to_have_count(3)
    expect(page.locator("#message-2 .msg-added-by")).to_contain_text("added by ")
    expect(page.locator("#message-2 .msg-added-by")).to_contain_text(", not the bot")
    expect(page.locator("#message-1 .msg-added-by")).to_have_count(0)  # the person's own message needs no mark
    page.screenshot(path=str(screenshot_path("conversations-added-by.png")))

    # A guide card: invalid JSON is refused with its line, then the card is added.
    chats.add_guide_card_button().click()
    card_json = chats.guide_card_json()
    card_json.fill('{"title": "x",')
    chats.create_guide_card()
    expect(chats.guide_card_error()).to_contain_text("not valid JSON (line 1)")
    card_json.fill(json.dumps(CARD, indent=2))
    chats.create_guide_card()
    expect(card_json).to_have_count(0)
    card = chats.cards()
    expect(card).to_have_count(1)
    expect(card).to_contain_text("Before I start")
    expect(chats.card_submit(card)).to_have_text("Start")

    # Fill it in and submit it once.
    chats.card_field(card, "scope").fill("Q3 revenue by region")
    card.get_by_role("combobox").click()
    page.get_by_role("option", name="table", exact=True).click()
    chats.card_field(card, "deadline").fill("Friday")
    card.get_by_role("checkbox").click()
    expect(card.get_by_role("checkbox")).to_have_attribute("aria-checked", "true")
    chats.card_submit(card).click()

    expect(card).to_contain_text("submitted")
    expect(chats.card_submit(card)).to_have_count(0)
    expect(chats.messages_of("user")).to_have_count(2)
    expect(chats.messages_of("user").nth(1)).to_have_text(ANSWERS)
    page.set_viewport_size({"width": 1440, "height": 1300})
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT))

    # The card cannot be submitted a second time, whoever tries.
    with Session(e2e_app.engine) as session:
        stored = list_messages(session=session, conversation_id=conversation_id)
        assert [(m.role, m.kind) for m in stored] == [
            ("user", "text"),
            ("assistant", "text"),
            ("tool", "text"),
            ("system", "text"),
            ("assistant", "guide_card"),
            ("user", "text"),
        ]
        with pytest.raises(AppError) as again:
            submit_guide_card(
                session=session,
                conversation_id=conversation_id,
                message_id=stored[4].message_id,
                answers={"scope": "again"},
            )
        assert again.value.code == "guide_card_already_submitted"

    # The bot reads back exactly what the user typed and submitted, nothing else.
    inputs = _user_inputs(e2e_app, token, conversation_id)
    assert inputs["conversationId"] == conversation_id
    assert [item["content"] for item in inputs["items"]] == ["Please summarise the Q3 report", ANSWERS]
    assert [item["messageId"] for item in inputs["items"]] == [stored[0].message_id, stored[5].message_id]
    assert inputs["hasMore"] is False


def test_a_viewer_reads_conversations_but_has_no_composer(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = _bot(e2e_app)
    chats = _open_conversations(page, e2e_app, bot_id)
    page.locator("#new-conversation-title").fill("Read me")
    page.keyboard.press("Enter")  # Enter in the title creates it, as the + button does (a walkthrough)
    expect(chats.heading("Read me")).to_be_visible()
    chats.send("user", "Hello from the admin")
    expect(page.locator("#run-error")).to_contain_text("Retry sends it again")
    conversation_id = chats.opened_id()
    chats.press_log_out()

    chats = _open_conversations(page, e2e_app, bot_id, VIEWER, "viewer")
    chats.conversation(conversation_id).click()
    expect(chats.messages_of("user")).to_have_text(["Hello from the admin"])
    # a viewer cannot retry: the note says who can
    expect(page.locator("#run-error")).to_contain_text("an admin can retry it")
    expect(page.locator("#run-error")).not_to_contain_text("Retry sends it again")
    for control in (chats.draft(), chats.send_button(), chats.add_guide_card_button(), chats.new_conversation_button()):
        expect(control).to_have_count(0)
    expect(page.get_by_text("Viewers read conversations; only admins write.")).to_be_visible()


def test_a_conversation_fits_a_phone(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough at 390 px found the page 463 px wide: the list beside the conversation cut its reading
    pane off. On a phone the list sits above it."""
    bot_id, _ = _bot(e2e_app)
    page.set_viewport_size({"width": 390, "height": 844})
    chats = _open_conversations(page, e2e_app, bot_id)
    chats.start("On the train")
    expect(chats.heading("On the train")).to_be_visible()
    chats.send("user", "Summarise today's build results in three lines, please.")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width
    box = chats.draft().bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    page.screenshot(path=str(screenshot_path("conversations-phone.png")))


def test_without_a_chat_endpoint_the_hint_links_admins_to_its_setting_and_tells_viewers_who_sets_it(
    page: Page, e2e_app: E2EApp
) -> None:
    """A walkthrough read "this bot has no chat endpoint yet (Bots page)" and had to find the Bots page, the
    bot and its settings alone. The hint links to the bot's chat endpoint; a viewer is told an admin sets it."""
    bot_id, _ = _bot(e2e_app)
    chats = _open_conversations(page, e2e_app, bot_id)
    # said before anything is written (a walkthrough learned it only after sending)
    banner = page.locator("#chat-endpoint-banner")
    expect(banner).to_contain_text("kept in the record, not sent to the bot")
    expect(banner.get_by_role("link", name="Set its chat endpoint")).to_have_attribute("href", f"/bots?bot={bot_id}")
    chats.start("Before the endpoint")
    expect(chats.heading("Before the endpoint")).to_be_visible()
    conversation_id = chats.opened_id()
    expect(chats.send_hint()).to_contain_text("this bot has no chat endpoint yet: the message is kept, not sent")
    link = chats.chat_endpoint_link()
    expect(link).to_have_text("Set its chat endpoint")
    expect(link).to_have_attribute("href", f"/bots?bot={bot_id}")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.screenshot(path=str(screenshot_path("conversations-no-endpoint.png")))

    link.click()
    bots = BotsPage(page, e2e_app.url)
    expect(bots.config_title()).to_contain_text("Settings of conversations-bot")
    expect(bots.chat_url()).to_be_focused()  # at the box the hint spoke of, scrolled into view
    expect(bots.chat_url()).to_be_in_viewport()
    page.screenshot(path=str(screenshot_path("bots-from-conversations.png")))

    viewer = _open_conversations(page, e2e_app, bot_id, VIEWER, "viewer")
    viewer.conversation(conversation_id).click()
    expect(viewer.chat_endpoint_note()).to_contain_text("an admin sets it in the bot's settings on the Bots page")
    expect(viewer.chat_endpoint_link()).to_have_count(0)
    expect(page.locator("#chat-endpoint-banner")).to_contain_text("An admin sets it on the Bots page.")
