"""The Conversations page in a real browser: a person produces every message kind `ccweb_list_user_inputs`
tells apart (user, assistant, tool, system, a guide card and its submission), and the tool returns
exactly the user's inputs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session

from tests.e2e.accounts_support import PAGE_LOAD_MS, expect_live, log_in, unique
from tests.e2e.conftest import E2EApp, screenshot_path
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


def _open_conversations(page: Page, app: E2EApp, bot_id: str, username: str = ADMIN, role: str = "admin") -> None:
    log_in(page, app, username, role)
    page.goto(app.path(f"/conversations?bot={bot_id}"))
    expect(page.locator("#page-title")).to_have_text("Conversations", timeout=PAGE_LOAD_MS)
    expect_live(page)


def _send(page: Page, role: str, text: str) -> None:
    page.locator("#message-role").click()
    page.get_by_role("option", name=role, exact=True).click()
    expect(page.locator("#message-role")).to_have_text(role)
    page.locator("#message-draft").fill(text)
    page.locator("#send-message").click()
    expect(page.locator("#messages")).to_contain_text(text)
    expect(page.locator("#message-draft")).to_have_value("")


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
    _open_conversations(page, e2e_app, bot_id)

    page.locator("#new-conversation-title").fill("Quarterly report")
    page.locator("#new-conversation").click()
    messages = page.locator("#messages")
    expect(page.get_by_role("heading", name="Quarterly report")).to_be_visible()
    expect(page.locator("#message-draft")).to_be_visible()
    # The address follows the new conversation a moment after its heading shows: wait for it.
    conversation_id = page.wait_for_function("new URLSearchParams(location.search).get('conversation')").json_value()
    assert conversation_id

    _send(page, "user", "Please summarise the Q3 report")
    _send(page, "assistant", "Sure, a few questions first.")
    _send(page, "tool", '{"rows": 3, "source": "q3.xlsx"}')
    _send(page, "system", "Run started")
    expect(messages.locator(".msg-user")).to_have_text(["Please summarise the Q3 report"])
    expect(messages.locator(".msg-assistant")).to_have_text(["Sure, a few questions first."])
    expect(messages.locator(".msg-tool")).to_contain_text('{"rows": 3, "source": "q3.xlsx"}')
    expect(messages.locator(".msg-system")).to_have_text(["Run started"])

    # A guide card: invalid JSON is refused with its line, then the card is added.
    page.locator("#add-guide-card").click()
    card_json = page.locator("#guide-card-json")
    card_json.fill('{"title": "x",')
    page.locator("#guide-card-create").click()
    expect(page.locator("#guide-card-error")).to_contain_text("not valid JSON (line 1)")
    card_json.fill(json.dumps(CARD, indent=2))
    page.locator("#guide-card-create").click()
    expect(card_json).to_have_count(0)
    card = messages.locator(".guide-card")
    expect(card).to_have_count(1)
    expect(card).to_contain_text("Before I start")
    expect(card.locator(".guide-card-submit")).to_have_text("Start")

    # Fill it in and submit it once.
    card.locator("textarea[name=scope]").fill("Q3 revenue by region")
    card.get_by_role("combobox").click()
    page.get_by_role("option", name="table", exact=True).click()
    card.locator("input[name=deadline]").fill("Friday")
    card.get_by_role("checkbox").click()
    expect(card.get_by_role("checkbox")).to_have_attribute("aria-checked", "true")
    card.locator(".guide-card-submit").click()

    expect(card).to_contain_text("submitted")
    expect(card.locator(".guide-card-submit")).to_have_count(0)
    expect(messages.locator(".msg-user")).to_have_count(2)
    expect(messages.locator(".msg-user").nth(1)).to_have_text(ANSWERS)
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
    _open_conversations(page, e2e_app, bot_id)
    page.locator("#new-conversation-title").fill("Read me")
    page.locator("#new-conversation").click()
    _send(page, "user", "Hello from the admin")
    conversation_id = page.wait_for_function("new URLSearchParams(location.search).get('conversation')").json_value()
    page.locator("#logout").click()

    _open_conversations(page, e2e_app, bot_id, VIEWER, "viewer")
    page.locator(f"#conversation-{conversation_id}").click()
    expect(page.locator("#messages .msg-user")).to_have_text(["Hello from the admin"])
    for control in ("#message-draft", "#send-message", "#add-guide-card", "#new-conversation"):
        expect(page.locator(control)).to_have_count(0)
    expect(page.get_by_text("Viewers read conversations; only admins write.")).to_be_visible()
