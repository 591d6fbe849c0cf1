"""The Bots page in a real browser: create a bot (token shown once, config written, token works over
MCP), rotate its token, edit its MCP config with topic_mcp locked, adopt an existing config, delete
it; viewers see the list only."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session, select

from tests.e2e.accounts_support import log_in, unique
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.bots import BotsPage
from tests.support.mcp import mcp_client, run_async
from topic_dashboard.models import Bot
from topic_dashboard.security import BOT_TOKEN_PREFIX
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.topics import get_topic_settings

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

ADMIN = "bots-admin"
VIEWER = "bots-viewer"
SCREENSHOT = screenshot_path("bots.png")
TOPIC_TOOLS = {"topic_list_topics", "topic_get_schema", "topic_route", "topic_publish"}


def _open_bots(page: Page, app: E2EApp, username: str = ADMIN, role: str = "admin") -> BotsPage:
    log_in(page, app, username, role)
    bots = BotsPage(page, app.url).open()
    bots.expect_loaded()
    return bots


def _bot(app: E2EApp) -> tuple[str, str, str, Path]:
    """A bot made through the service (as the CLI would): (bot_id, name, token, config path)."""
    name = unique("bots-bot")
    with Session(app.engine) as session:
        bot, token = create_bot(session=session, name=name)
    assert bot.config_path
    return bot.bot_id, name, token, Path(bot.config_path)


def _bot_named(app: E2EApp, name: str) -> Bot | None:
    with Session(app.engine) as session:
        return session.exec(select(Bot).where(Bot.name == name)).first()


def _config(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _topic_mcp(path: Path) -> dict[str, Any]:
    return _config(path)["tools"]["mcpServers"]["topic_mcp"]


def _tool_names(app: E2EApp, token: str) -> set[str]:
    async def body() -> set[str]:
        async with mcp_client(app.backend_url + "/api/mcp/topic", token) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    return run_async(body)


def _mcp_status(app: E2EApp, token: str) -> int:
    """The HTTP status of an MCP initialize request made with `token`."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}},
    }
    response = httpx.post(
        app.backend_url + "/api/mcp/topic",
        json=initialize,
        timeout=30,
        headers={"x-topic-mcp-token": token, "accept": "application/json, text/event-stream"},
    )
    return response.status_code


def _create_in_ui(bots: BotsPage, name: str, config_path: str = "") -> str:
    """Create a bot through the dialog (adopting `config_path` if given); returns the token the page shows (once)."""
    bots.start_create(name, config_path)
    token = bots.shown_token()
    expect(token).to_contain_text(BOT_TOKEN_PREFIX)
    return token.inner_text()


def test_an_admin_creates_a_bot_sees_its_token_once_and_the_token_works_over_mcp(page: Page, e2e_app: E2EApp) -> None:
    bots = _open_bots(page, e2e_app)
    name = unique("created-in-ui")

    token = _create_in_ui(bots, name)

    bot = _bot_named(e2e_app, name)
    assert bot is not None and bot.config_path
    path = Path(bot.config_path)
    expect(bots.shown_config_path()).to_have_text(str(path))
    snippet = bots.config_snippet()
    assert snippet["tools"]["mcpServers"]["topic_mcp"]["headers"] == {"x-topic-mcp-token": token}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    written = _topic_mcp(path)
    assert written == snippet["tools"]["mcpServers"]["topic_mcp"]
    assert written["type"] == "streamableHttp" and written["url"].endswith("/api/mcp/topic")
    assert TOPIC_TOOLS <= _tool_names(e2e_app, token)
    # At a laptop's 1400x900 the whole config (the token in it too) can be read and Done is on screen:
    # a walkthrough found the token cut off at the right and the buttons below the fold.
    page.set_viewport_size({"width": 1400, "height": 900})
    expect(page.locator("#token-done")).to_be_in_viewport()
    snippet_box = page.locator("#config-snippet")
    assert snippet_box.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "the config is cut off at the right"
    page.screenshot(path=str(screenshot_path("bots-token.png")))

    bots.token_done()
    row = bots.bot_row(bot.id)
    expect(row).to_contain_text(name)
    expect(row).to_contain_text("delivering")
    assert token not in page.content()  # shown once: gone from the page after Done


def test_rotating_shows_a_new_token_and_the_old_one_gets_401(page: Page, e2e_app: E2EApp) -> None:
    bot_id, name, old_token, path = _bot(e2e_app)
    assert _mcp_status(e2e_app, old_token) == 200
    bots = _open_bots(page, e2e_app)

    bots.rotate_button(bot_id).click()
    dialog = bots.dialog()
    expect(dialog).to_contain_text(f"Rotate the token of {name}?")
    expect(dialog).to_contain_text("The old token stops working at once")
    bots.confirm()

    shown = bots.shown_token()
    expect(shown).to_contain_text(BOT_TOKEN_PREFIX)
    new_token = shown.inner_text()
    assert new_token != old_token
    assert _topic_mcp(path)["headers"] == {"x-topic-mcp-token": new_token}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert _mcp_status(e2e_app, old_token) == 401
    assert TOPIC_TOOLS <= _tool_names(e2e_app, new_token)
    bots.token_done()


def test_the_mcp_config_editor_keeps_topic_mcp_locked_saves_its_timeout_and_checks_new_servers(
    page: Page, e2e_app: E2EApp
) -> None:
    bot_id, name, _, path = _bot(e2e_app)
    bots = _open_bots(page, e2e_app)

    bots.open_config(bot_id)
    editor = bots.config_editor()
    expect(bots.config_title()).to_have_text(f"Settings of {name}")
    locked = bots.locked_server("topic_mcp")
    expect(locked).to_contain_text("topic_mcp")
    expect(bots.locked_server("ccweb")).to_contain_text("/api/mcp/ccweb")  # the second managed entry
    expect(locked).to_contain_text("locked")
    expect(locked).to_contain_text("x-topic-mcp-token: ***")
    expect(bots.remove_buttons(editor)).to_have_count(0)
    timeout = bots.locked_timeout("topic_mcp")
    expect(timeout).to_have_value(str(_topic_mcp(path)["toolTimeout"]))

    timeout.fill("120")
    bots.save_config_button().click()
    expect(bots.config_notice()).to_contain_text("Saved to config.json")
    assert _topic_mcp(path)["toolTimeout"] == 120
    expect(timeout).to_have_value("120")

    # A new server with broken JSON, then with an entry nanobot would refuse: errors, and the file stays as it was.
    before = path.read_bytes()
    bots.add_server()
    server_json = bots.server_json("server_1")
    expect(server_json).to_be_visible()
    expect(bots.remove_buttons(editor)).to_have_count(1)
    expect(bots.remove_buttons(locked)).to_have_count(0)
    server_json.fill('{"type": "stdio", "command": ')
    bots.save_config_button().click()
    expect(bots.config_error()).to_contain_text("server_1: not valid JSON")
    expect(bots.config_notice()).to_have_count(0)
    assert path.read_bytes() == before
    server_json.fill(json.dumps({"type": "stdio", "args": ["-y", "x"]}))
    bots.save_config_button().click()
    expect(bots.config_error()).to_contain_text("mcpServers.server_1.command is required for a stdio server")
    assert path.read_bytes() == before
    server_json.fill(json.dumps({"type": "sse", "url": "https://example.com/sse", "colour": "red"}))
    bots.save_config_button().click()
    expect(bots.config_error()).to_contain_text("mcpServers.server_1.colour is not a setting nanobot knows")
    assert path.read_bytes() == before

    server_json.fill(json.dumps({"type": "stdio", "command": "npx", "args": ["-y", "files-mcp"]}))
    name_input = bots.server_name("server_1")
    name_input.fill("topic_mcp")
    name_input.blur()
    expect(bots.config_error()).to_contain_text("server_1: a server needs a name of its own; 'topic_mcp' is taken")
    name_input.fill("files")
    name_input.blur()
    expect(bots.server_json("files")).to_be_visible()
    bots.save_config_button().click()
    expect(bots.config_error()).to_have_count(0)
    expect(bots.config_notice()).to_contain_text("Saved to config.json")
    servers = _config(path)["tools"]["mcpServers"]
    assert list(servers) == ["ccweb", "topic_mcp", "files"]  # managed entries first, as the editor lists them
    assert servers["files"] == {"type": "stdio", "command": "npx", "args": ["-y", "files-mcp"]}
    assert servers["topic_mcp"]["toolTimeout"] == 120
    assert stat.S_IMODE(path.stat().st_mode) == 0o600

    page.set_viewport_size({"width": 1440, "height": 1400})
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT))


def test_adopting_an_existing_config_keeps_its_other_servers_and_unknown_keys(page: Page, e2e_app: E2EApp) -> None:
    path = e2e_app.data_dir / unique("nanobot") / "config.json"
    path.parent.mkdir(parents=True)
    existing = {
        "agents": {"defaults": {"model": "some/model", "temperature": 0.2}},
        "tools": {
            "mcpServers": {
                "search": {"type": "streamableHttp", "url": "https://search.example.com/mcp", "toolTimeout": 45},
            },
            "exec": {"timeout": 60},
            "futureToolSetting": True,
        },
        "someUnknownSection": {"keep": ["me", 1]},
    }
    path.write_text(json.dumps(existing), encoding="utf-8")
    bots = _open_bots(page, e2e_app)
    name = unique("adopted")

    token = _create_in_ui(bots, name, str(path))

    expect(bots.shown_config_path()).to_have_text(str(path))
    config = _config(path)
    assert config["agents"] == existing["agents"]
    assert config["someUnknownSection"] == existing["someUnknownSection"]
    assert config["tools"]["exec"] == {"timeout": 60} and config["tools"]["futureToolSetting"] is True
    assert config["tools"]["mcpServers"]["search"] == existing["tools"]["mcpServers"]["search"]
    assert config["tools"]["mcpServers"]["topic_mcp"]["headers"] == {"x-topic-mcp-token": token}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    bot = _bot_named(e2e_app, name)
    assert bot is not None and bot.config_path == str(path)
    bots.token_done()

    # The editor shows both servers; the adopted one can be removed, topic_mcp cannot.
    bots.open_config(bot.id)
    expect(bots.locked_server("topic_mcp")).to_contain_text("topic_mcp")
    expect(bots.server_json("search")).to_have_value(json.dumps(existing["tools"]["mcpServers"]["search"], indent=2))
    expect(bots.remove_buttons(bots.config_editor())).to_have_count(1)


def test_deleting_a_bot_says_what_happens_and_removes_it(page: Page, e2e_app: E2EApp) -> None:
    bot_id, name, token, path = _bot(e2e_app)
    bots = _open_bots(page, e2e_app)
    expect(bots.bot_row(bot_id)).to_contain_text(name)

    bots.delete_button(bot_id).click()
    dialog = bots.dialog()
    expect(dialog).to_contain_text(f"Delete {name}?")
    expect(dialog).to_contain_text("Its topics, settings, conversations and all 0 items are deleted.")
    expect(dialog).to_contain_text("Its config.json stays on disk, but its token no longer works.")
    bots.confirm()

    expect(page.get_by_text(f"Deleted '{name}': 1 topic, 0 items, 0 conversations")).to_be_visible()
    expect(bots.bot_row(bot_id)).to_have_count(0)
    assert _bot_named(e2e_app, name) is None
    assert path.exists()
    assert _mcp_status(e2e_app, token) == 401


def test_a_viewer_sees_the_list_without_create_rotate_or_delete(page: Page, e2e_app: E2EApp) -> None:
    bot_id, name, _, _ = _bot(e2e_app)
    bots = _open_bots(page, e2e_app, VIEWER, "viewer")

    expect(bots.bot_row(bot_id)).to_contain_text(name)
    expect(bots.new_bot_button()).to_have_count(0)
    expect(bots.rotate_button(bot_id)).to_have_count(0)
    expect(bots.delete_button(bot_id)).to_have_count(0)
    expect(bots.any_rotate_or_delete()).to_have_count(0)

    bots.open_config(bot_id)
    expect(bots.locked_server("topic_mcp")).to_contain_text("topic_mcp")
    expect(bots.locked_timeout("topic_mcp")).to_have_attribute("readonly", "")
    expect(bots.save_config_button()).to_have_count(0)
    expect(bots.add_server_button()).to_have_count(0)
    expect(bots.save_settings_button()).to_have_count(0)
    expect(bots.allow_images()).to_be_disabled()


def test_delivery_settings_are_edited_and_refused_when_out_of_bounds(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _, _, _ = _bot(e2e_app)
    bots = _open_bots(page, e2e_app)
    bots.open_config(bot_id)
    expect(bots.delivery_settings()).to_be_visible()
    expect(bots.publish_rate()).to_have_value("60")

    bots.publish_rate().fill("0")
    bots.save_settings_button().click()
    # named by the box's label, not the API's field (a walkthrough read "publish_rate_per_minute: Input should …")
    expect(bots.settings_error()).to_contain_text("Publishes per minute: input should be greater than or equal to 1")
    expect(bots.settings_error()).not_to_contain_text("publish_rate_per_minute")
    with Session(e2e_app.engine) as session:
        assert get_topic_settings(session=session, bot_id=bot_id).publish_rate_per_minute == 60

    bots.publish_rate().fill("5")
    bots.dedupe_window().fill("30")
    bots.allow_images().click()
    expect(bots.allow_images()).to_have_attribute("aria-checked", "true")
    bots.save_settings_button().click()
    expect(bots.settings_error()).to_have_count(0)
    expect(page.get_by_text("Delivery settings saved")).to_be_visible()
    with Session(e2e_app.engine) as session:
        saved = get_topic_settings(session=session, bot_id=bot_id)
    assert (saved.publish_rate_per_minute, saved.dedupe_window_seconds, saved.allow_remote_images) == (5, 30, True)


def test_a_connection_test_result_goes_when_the_address_it_tried_changes(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough tested one chat endpoint, typed another and saved: the first one's red error stayed beside
    "Chat endpoint saved", as if it were about the saved address."""
    bot_id, _, _, _ = _bot(e2e_app)
    bots = _open_bots(page, e2e_app)
    bots.open_config(bot_id)
    bots.chat_url().fill("http://127.0.0.1:9/")  # nothing listens there
    bots.check_chat_endpoint()
    expect(bots.chat_check()).to_be_visible(timeout=20_000)
    bots.chat_url().fill("http://127.0.0.1:18790/")
    expect(bots.chat_check()).to_have_count(0)
    bots.save_chat_endpoint()
    expect(page.get_by_text("Chat endpoint saved")).to_be_visible()
    expect(bots.chat_check()).to_have_count(0)


def test_on_a_phone_each_bot_is_a_card_whose_actions_are_in_reach_without_scrolling_sideways(
    page: Page, e2e_app: E2EApp
) -> None:
    """A walkthrough at 390 px found the bots in a seven-column table that scrolled sideways: Settings, Rotate
    token and Delete sat off the screen. On a phone each bot is a card: its figures labelled, its actions in view."""
    bot_id, name, _, _ = _bot(e2e_app)
    page.set_viewport_size({"width": 390, "height": 844})
    bots = _open_bots(page, e2e_app)
    row = bots.bot_row(bot_id)
    row.scroll_into_view_if_needed()
    expect(row).to_contain_text(name)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width
    # nothing in the list scrolls sideways inside the page either (the table's own scroll area did)
    sideways = page.evaluate(
        """(selector) => [...document.querySelectorAll(selector + ', ' + selector + ' *')]
            .filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')
            .map((e) => e.className + ' ' + e.scrollWidth + '>' + e.clientWidth)""",
        BotsPage.TABLE,
    )
    assert sideways == [], sideways
    actions = [
        page.locator(f"#config-{bot_id}"),
        row.get_by_role("link").filter(has_text="Topics"),
        bots.rotate_button(bot_id),
        bots.delete_button(bot_id),
    ]
    for action in actions:
        expect(action).to_be_visible()
        box = action.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    # each figure says what it is (the table's header row is not there to say it)
    for label in ("Delivery", "Token age", "Last MCP call", "Items today"):
        expect(row.locator(f"td[data-label='{label}']")).to_be_visible()
    row.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path("bots-phone.png")))

    bots.open_config(bot_id)
    expect(bots.config_title()).to_have_text(f"Settings of {name}")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width
    bots.config_editor().screenshot(path=str(screenshot_path("bots-settings-phone.png")))


def test_each_settings_section_has_its_own_named_save_and_says_beside_it_what_happened(
    page: Page, e2e_app: E2EApp
) -> None:
    """A walkthrough found three Save buttons in a bot's settings ("Save settings", "Save", "Save config") and
    a toast in a corner: which one saved what? Each Save names its section, and beside it the section says
    it has unsaved changes, what its save did, or why it was refused; the other sections say nothing."""
    bot_id, _, _, path = _bot(e2e_app)
    page.set_viewport_size({"width": 1280, "height": 900})
    bots = _open_bots(page, e2e_app)
    bots.open_config(bot_id)
    sections = {
        "delivery-settings": ("Save delivery settings", "save-settings"),
        "chat-endpoint": ("Save chat endpoint", "save-chat-endpoint"),
        "mcp-servers": ("Save MCP servers", "save-config"),
    }
    editor = bots.config_editor()
    expect(editor.get_by_role("button", name="Save", exact=True)).to_have_count(0)
    for section, (label, _) in sections.items():
        expect(bots.section(section).get_by_role("button", name=label, exact=True)).to_be_visible()
    expect(editor.get_by_role("button", name=re.compile("^Save"))).to_have_count(3)

    bots.publish_rate().fill("12")
    expect(bots.save_status("save-settings")).to_have_text("Unsaved changes")
    expect(bots.save_status("save-chat-endpoint")).to_have_text("")
    expect(bots.save_status("save-config")).to_have_text("")
    page.screenshot(path=str(screenshot_path("bots-settings-unsaved.png")))

    bots.section("delivery-settings").get_by_role("button", name="Save delivery settings").click()
    expect(bots.save_status("save-settings")).to_have_text("Delivery settings saved")
    expect(bots.save_status("save-chat-endpoint")).to_have_text("")
    with Session(e2e_app.engine) as session:
        assert get_topic_settings(session=session, bot_id=bot_id).publish_rate_per_minute == 12
    # beside its own button, not in a corner of the screen
    button = bots.save_settings_button().bounding_box()
    said = bots.save_status("save-settings").bounding_box()
    assert button is not None and said is not None
    assert abs((said["y"] + said["height"] / 2) - (button["y"] + button["height"] / 2)) < button["height"], (
        button,
        said,
    )
    assert 0 <= said["x"] - (button["x"] + button["width"]) < 40, (button, said)

    bots.chat_url().fill("ftp://not-a-chat-endpoint")
    expect(bots.save_status("save-chat-endpoint")).to_have_text("Unsaved changes")
    expect(bots.save_status("save-settings")).to_have_text("Delivery settings saved")
    bots.section("chat-endpoint").get_by_role("button", name="Save chat endpoint").click()
    expect(bots.section("chat-endpoint").locator("#chat-error")).to_be_visible()
    expect(bots.save_status("save-chat-endpoint")).to_have_text("Unsaved changes")
    bots.chat_url().fill("http://127.0.0.1:18790/")
    bots.save_chat_endpoint()
    expect(bots.save_status("save-chat-endpoint")).to_have_text("Chat endpoint saved")
    expect(bots.section("chat-endpoint").locator("#chat-error")).to_have_count(0)

    bots.locked_timeout("topic_mcp").fill("90")
    expect(bots.save_status("save-config")).to_have_text("Unsaved changes")
    bots.section("mcp-servers").get_by_role("button", name="Save MCP servers").click()
    expect(bots.save_status("save-config")).to_have_text("Saved to config.json")
    assert _topic_mcp(path)["toolTimeout"] == 90
    expect(page.locator("[data-sonner-toast]")).to_have_count(0)  # said where it happened, once
    bots.config_editor().screenshot(path=str(screenshot_path("bots-settings-saved.png")))


def test_choosing_another_bot_with_unsaved_settings_asks_before_dropping_them(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough typed a bot's delivery settings, opened another bot's settings and found the edit gone
    without a word. Now the page asks, as the Rules page does: Keep editing leaves the edit, the bot and the
    address as they were; Discard changes opens the other bot and stores nothing. The row's Topics link asks too."""
    first_id, first_name, _, _ = _bot(e2e_app)
    second_id, second_name, _, _ = _bot(e2e_app)
    page.set_viewport_size({"width": 1280, "height": 900})
    bots = _open_bots(page, e2e_app)
    bots.open_config(first_id)
    expect(bots.config_title()).to_have_text(f"Settings of {first_name}")
    bots.publish_rate().fill("17")
    expect(bots.save_status("save-settings")).to_have_text("Unsaved changes")
    dialog = page.locator("#bots-unsaved-dialog")

    # Another bot's Settings: asked, naming what would be lost; Keep editing keeps it all.
    bots.open_config(second_id)
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text(f"Your changes to {first_name}'s delivery settings are not saved")
    dialog.evaluate("(e) => Promise.all(e.getAnimations({subtree: true}).map((a) => a.finished))")  # faded in
    page.screenshot(path=str(screenshot_path("bots-unsaved-asks.png")))
    page.locator("#bots-keep-editing").click()
    expect(dialog).to_have_count(0)
    expect(bots.config_title()).to_have_text(f"Settings of {first_name}")
    expect(bots.publish_rate()).to_have_value("17")
    expect(bots.save_status("save-settings")).to_have_text("Unsaved changes")
    expect(page).to_have_url(re.compile(rf"/bots/?\?bot={first_id}$"))

    # Escape keeps editing too; a reload keeps the edit (the address names the edited bot).
    bots.open_config(second_id)
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    page.reload()
    expect(bots.config_title()).to_have_text(f"Settings of {first_name}", timeout=30_000)
    expect(bots.publish_rate()).to_have_value("17")

    # Another section's edit is named as well; the row's Topics link asks before leaving the page.
    bots.chat_url().fill("http://127.0.0.1:18791/")
    topics = page.locator(f"#topics-{second_id}")
    topics.click()
    expect(dialog).to_contain_text(f"Your changes to {first_name}'s delivery settings and chat endpoint")
    page.locator("#bots-keep-editing").click()
    expect(page).to_have_url(re.compile(rf"/bots/?\?bot={first_id}$"))
    expect(bots.chat_url()).to_have_value("http://127.0.0.1:18791/")

    # Discard changes: the other bot's settings open, as stored; nothing of the edit was saved.
    bots.open_config(second_id)
    page.locator("#bots-discard").click()
    expect(dialog).to_have_count(0)
    expect(bots.config_title()).to_have_text(f"Settings of {second_name}")
    expect(bots.publish_rate()).to_have_value("60")
    expect(bots.save_status("save-settings")).to_have_text("")
    expect(page).to_have_url(re.compile(rf"/bots/?\?bot={second_id}$"))
    with Session(e2e_app.engine) as session:
        assert get_topic_settings(session=session, bot_id=first_id).publish_rate_per_minute == 60

    # Nothing unsaved: nothing asked.
    bots.open_config(first_id)
    expect(bots.config_title()).to_have_text(f"Settings of {first_name}")
    expect(bots.publish_rate()).to_have_value("60")
    expect(dialog).to_have_count(0)

    # Discard from the Topics link leaves for the bot's topics.
    bots.dedupe_window().fill("30")
    expect(bots.save_status("save-settings")).to_have_text("Unsaved changes")
    page.locator(f"#topics-{second_id}").click()
    page.locator("#bots-discard").click()
    expect(page).to_have_url(re.compile(rf"/\?bot={second_id}"))
    expect(page.locator("#page-title")).to_have_text("Topics")
    with Session(e2e_app.engine) as session:
        assert get_topic_settings(session=session, bot_id=first_id).dedupe_window_seconds == 600
