"""Live updates over MCP, and the per-bot delivery switch (who may flip it, what it changes).

"An item published by a bot appears in every open panel of that bot, and the counts change,
within 1 second, without a reload": two browser contexts on one bot, a publish over topic_mcp
with the bot's token. The assertion allows 3 s (a loaded CI machine); the measured latency is
printed (`pytest -s`).
"""

from __future__ import annotations

import re
import time

import httpx
import pytest
from playwright.sync_api import Page, expect
from pytest_playwright import CreateContextCallback
from sqlmodel import Session

from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.topic_panel import TopicPanel
from tests.e2e.topic_panel_support import (
    ADMIN,
    VIEWER,
    log_in,
    make_bot,
    mcp_call,
    mcp_publish,
    open_panel,
    seed,
    unique,
)
from topic_dashboard.services import accounts
from topic_dashboard.services.topics import get_topic_settings

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

LIVE_BOUND_MS = 3000

# Records (Date.now()) when a title first appears in the item list: the browser's own clock,
# so Playwright's polling interval does not inflate the measured latency.
WATCH_FOR_TITLE = """([list, title]) => {
  window.__seenAt = 0;
  const seen = () => (document.querySelector(list)?.textContent || '').includes(title);
  const observer = new MutationObserver(() => {
    if (!window.__seenAt && seen()) { window.__seenAt = Date.now(); observer.disconnect(); }
  });
  observer.observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


def _topic_enabled(app: E2EApp, bot_id: str) -> bool:
    with Session(app.engine) as session:
        return get_topic_settings(session=session, bot_id=bot_id).topic_enabled


def _panels(new_context: CreateContextCallback, app: E2EApp, bot_id: str, *users: tuple[str, str]) -> list[TopicPanel]:
    panels = []
    for username, role in users:
        page = new_context(viewport={"width": 1400, "height": 900}).new_page()
        log_in(page, app, username, role)
        panels.append(open_panel(page, app, bot_id))
    return panels


def test_a_publish_over_mcp_appears_live_in_every_open_panel(
    new_context: CreateContextCallback, e2e_app: E2EApp
) -> None:
    bot_id, token = make_bot(e2e_app, "ci")
    earlier = seed(e2e_app, bot_id, topic_key="ci", title="Build 41 passed")
    panels = _panels(new_context, e2e_app, bot_id, (ADMIN, "admin"), (VIEWER, "viewer"))
    for panel in panels:
        expect(panel.rows()).to_have_count(1)
        expect(panel.topic_unread("ci")).to_have_text("1")
        panel.page.evaluate(WATCH_FOR_TITLE, [TopicPanel.ITEM_LIST, "Build 42 failed"])

    called_at = time.time() * 1000
    is_error, body = mcp_publish(
        e2e_app,
        token,
        topic_key="ci",
        title="Build 42 failed",
        content="3 tests failing",
        level="error",
        message_type="result",
    )
    committed_at = time.time() * 1000
    started = time.monotonic()
    assert not is_error, body
    item_id = body["item_id"]
    waits = []
    for panel in panels:
        expect(panel.row(item_id)).to_be_visible(timeout=LIVE_BOUND_MS)
        waits.append((time.monotonic() - started) * 1000)
    for panel in panels:
        expect(panel.rows().first).to_have_id(f"item-{item_id}")
        expect(panel.row(item_id)).to_have_class(re.compile(r"\bitem-unread\b"))
        expect(panel.topic_unread("ci")).to_have_text("2", timeout=LIVE_BOUND_MS)
        expect(panel.view_count("unread")).to_have_text("2")
        expect(panel.view_link("all")).to_have_text(re.compile(r"^All\s*2$"))
    seen_at = [panel.page.evaluate("window.__seenAt") for panel in panels]
    assert all(seen_at), seen_at
    print(
        "\nlive latency, MCP publish -> row in the DOM (browser clock): "
        + ", ".join(
            f"panel {n}: {at - called_at:.0f} ms after the call started ({at - committed_at:.0f} ms after it returned)"
            for n, at in enumerate(seen_at, 1)
        )
        + "; expect() waits (monotonic): "
        + ", ".join(f"{wait:.0f} ms" for wait in waits)
    )
    assert max(seen_at) - committed_at < LIVE_BOUND_MS

    # Reading state is each person's own: the admin's read, pin and archive follow the admin's other
    # tab live, and change nothing the viewer sees.
    admin, viewer = panels
    second_tab = open_panel(admin.page.context.new_page(), e2e_app, bot_id)
    admin.row(item_id).click()
    expect(admin.detail_title()).to_have_text("Build 42 failed")
    expect(second_tab.row(item_id)).to_have_class(re.compile(r"\bitem-read\b"), timeout=LIVE_BOUND_MS)
    expect(second_tab.topic_unread("ci")).to_have_text("1", timeout=LIVE_BOUND_MS)
    admin.toggle_pin()
    expect(second_tab.row_pin(item_id)).to_be_visible(timeout=LIVE_BOUND_MS)
    admin.row(earlier).click()
    # The detail's buttons act on the item they show: wait for it, as a reader would.
    expect(admin.detail_title()).to_have_text("Build 41 passed")
    admin.archive_button().click()
    expect(admin.row(earlier)).to_have_count(0)
    expect(second_tab.row(earlier)).to_have_count(0, timeout=LIVE_BOUND_MS)
    expect(second_tab.view_link("all")).to_have_text(re.compile(r"^All\s*1$"))
    expect(viewer.topic_unread("ci")).to_have_text("2")
    expect(viewer.row(item_id)).to_have_class(re.compile(r"\bitem-unread\b"))
    expect(viewer.row_pin(item_id)).to_have_count(0)
    expect(viewer.row(earlier)).to_be_visible()
    expect(viewer.view_link("all")).to_have_text(re.compile(r"^All\s*2$"))
    # "Archive for everyone" (an admin's) does reach the viewer, live.
    admin.row(item_id).click()
    expect(admin.detail_title()).to_have_text("Build 42 failed")
    admin.archive_for_everyone()
    expect(viewer.row(item_id)).to_have_count(0, timeout=LIVE_BOUND_MS)
    expect(viewer.view_link("all")).to_have_text(re.compile(r"^All\s*1$"))
    expect(viewer.topic_unread("ci")).to_have_text("1")


def test_delivery_off_shows_the_banner_refuses_publishing_and_keeps_history(
    new_context: CreateContextCallback, e2e_app: E2EApp
) -> None:
    bot_id, token = make_bot(e2e_app, "ci")
    kept = seed(e2e_app, bot_id, topic_key="ci", title="Before the switch", content="Still **readable**.")
    admin, viewer = _panels(new_context, e2e_app, bot_id, (ADMIN, "admin"), (VIEWER, "viewer"))
    switch = admin.switch()
    expect(switch).to_have_attribute("aria-checked", "true")
    expect(admin.delivery_off_banner()).to_have_count(0)
    # The state in words: a viewer's disabled switch is washed out and read as off (a walkthrough)
    expect(admin.switch_state()).to_have_text("On")
    expect(viewer.switch_state()).to_have_text("On (admins change it)")

    # Off asks first, naming the bot and what the bot then gets; "Keep it on" changes nothing.
    switch.click()
    confirm = admin.delivery_off_confirm()
    expect(confirm).to_contain_text("Turn off topic delivery for ")
    expect(confirm).to_contain_text("stays in its chats and is not added here later")
    admin.page.wait_for_function("document.getAnimations().every((a) => a.playState !== 'running')")  # opened
    admin.page.screenshot(path=str(screenshot_path("panel-delivery-off-confirm.png")))
    admin.page.locator("#delivery-off-cancel").click()
    expect(confirm).to_have_count(0)
    expect(switch).to_have_attribute("aria-checked", "true")
    assert _topic_enabled(e2e_app, bot_id)
    switch.click()
    admin.page.locator("#delivery-off-ok").click()
    expect(switch).to_have_attribute("aria-checked", "false")
    expect(switch).to_have_attribute("data-state", "unchecked")
    expect(admin.delivery_off_banner()).to_be_visible()
    expect(admin.delivery_off_banner()).to_contain_text("topic_publish is refused")
    assert not _topic_enabled(e2e_app, bot_id)
    # Other open panels learn it live.
    expect(viewer.delivery_off_banner()).to_be_visible(timeout=LIVE_BOUND_MS)
    expect(viewer.switch()).to_have_attribute("aria-checked", "false")
    expect(viewer.switch_state()).to_have_text("Off (admins change it)")

    is_error, body = mcp_publish(e2e_app, token, topic_key="ci", title="After the switch", content="refused")
    assert is_error
    assert body["ok"] is False
    assert body["error"]["code"] == "topic_disabled"
    is_error, route = mcp_call(e2e_app, token, "topic_route", content="CI build 43 failed", message_type="result")
    assert not is_error
    assert route["should_publish"] is False

    # History stays listed and openable, for both.
    for panel in (admin, viewer):
        expect(panel.rows()).to_have_count(1)
        panel.row(kept).click()
        expect(panel.detail_title()).to_have_text("Before the switch")
        expect(panel.detail_content().locator("strong")).to_have_text("readable")

    switch.click()
    expect(switch).to_have_attribute("aria-checked", "true")
    expect(admin.delivery_off_banner()).to_have_count(0)
    expect(viewer.delivery_off_banner()).to_have_count(0, timeout=LIVE_BOUND_MS)
    assert _topic_enabled(e2e_app, bot_id)
    is_error, body = mcp_publish(e2e_app, token, topic_key="ci", title="After switching back on", content="ok")
    assert not is_error, body
    for panel in (admin, viewer):
        expect(panel.row(body["item_id"])).to_be_visible(timeout=LIVE_BOUND_MS)


# Calls the switch's own change handler (found through React's fiber), i.e. sends the very
# event an enabled switch would send: what a viewer could forge with the browser's devtools.
FORGE_SWITCH_CHANGE = """(el) => {
  const key = Object.keys(el).find((name) => name.startsWith('__reactFiber$'));
  for (let fiber = el[key]; fiber; fiber = fiber.return) {
    const handler = fiber.memoizedProps && fiber.memoizedProps.onCheckedChange;
    if (typeof handler === 'function') { handler(false); return true; }
  }
  return false;
}"""


def test_a_viewer_cannot_flip_the_switch(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    log_in(page, e2e_app, VIEWER, "viewer")
    panel = open_panel(page, e2e_app, bot_id)
    switch = panel.switch()
    expect(switch).to_be_disabled()
    expect(switch).to_have_attribute("aria-checked", "true")
    # drawn on (green), not washed out as if off: a walkthrough's viewer read it as off
    track = switch.evaluate("(el) => getComputedStyle(el, '::before').backgroundColor")
    red, green, blue = (float(part) for part in re.findall(r"[\d.]+", track)[:3])
    assert green > red + 40 and green > blue, track
    page.locator("#topic-enabled-state").screenshot(path=str(screenshot_path("panel-viewer-switch-state.png")))
    switch.screenshot(path=str(screenshot_path("panel-viewer-switch.png")))
    switch.click(force=True)
    expect(switch).to_have_attribute("aria-checked", "true")

    # The server checks too: a forged change event (TopicPanelState.ask_topic_enabled, which calls
    # AuthState.require_admin_principal) is refused...
    assert switch.evaluate(FORGE_SWITCH_CHANGE)
    expect(page.get_by_text("Only admins can change this; your account can read only.")).to_be_visible()
    expect(switch).to_have_attribute("aria-checked", "true")
    expect(panel.delivery_off_banner()).to_have_count(0)
    assert _topic_enabled(e2e_app, bot_id)

    # ...and so is REST with a viewer's API token, while an admin's token may.
    with Session(e2e_app.engine) as session:
        viewer_token = accounts.create_api_token(session=session, name=unique("viewer-token"), role="viewer")
        admin_token = accounts.create_api_token(session=session, name=unique("admin-token"), role="admin")
    url = f"{e2e_app.backend_url}/api/bots/{bot_id}/topic-settings"
    refused = httpx.put(url, json={"topic_enabled": False}, headers={"Authorization": f"Bearer {viewer_token}"})
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"]["code"] == "forbidden"
    assert _topic_enabled(e2e_app, bot_id)
    allowed = httpx.put(url, json={"topic_enabled": False}, headers={"Authorization": f"Bearer {admin_token}"})
    assert allowed.status_code == 200, allowed.text
    assert not _topic_enabled(e2e_app, bot_id)
    # The viewer's open panel follows the admin's change.
    expect(panel.delivery_off_banner()).to_be_visible(timeout=LIVE_BOUND_MS)
    expect(switch).to_have_attribute("aria-checked", "false")
    expect(switch).to_be_disabled()
