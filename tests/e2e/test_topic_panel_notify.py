"""Browser notifications (#15): opt-in (the browser asks), per person and browser (kept across a
reload), by level and per topic, shown only while the tab is in the background; a click opens the
item. The browser's Notification is replaced by a recorder (headless Chromium shows none), and the
tab's hidden state is driven by the test."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from pytest_playwright import CreateContextCallback

from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.topic_panel_support import ADMIN, log_in, make_bot, open_panel, rows, seed

pytestmark = pytest.mark.e2e

RECORDER = """
window.__notes = [];
window.__permission = "default";
class RecordingNotification {
  constructor(title, options) { window.__notes.push({ title, body: options && options.body }); }
  static get permission() { return window.__permission; }
  static requestPermission() { window.__permission = window.__answer || "granted"; return Promise.resolve(window.__permission); }
}
window.Notification = RecordingNotification;
Object.defineProperty(document, "hidden", { configurable: true, get: () => Boolean(window.__tdHidden) });
"""


def _notes(page: Page) -> list[dict[str, str]]:
    return page.evaluate("window.__notes")


def test_notifications_are_opt_in_by_level_and_topic_and_only_in_the_background(
    new_context: CreateContextCallback, e2e_app: E2EApp
) -> None:
    bot_id, _ = make_bot(e2e_app, "ci", "alerts")
    context = new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script(RECORDER)
    page = context.new_page()
    log_in(page, e2e_app, ADMIN)
    open_panel(page, e2e_app, bot_id)

    # Off by default: nothing is shown.
    page.evaluate("window.__tdHidden = true")
    seed(e2e_app, bot_id, topic_key="alerts", title="before opting in", level="error")
    expect(rows(page)).to_have_count(1)
    assert _notes(page) == []

    # Opting in asks the browser; a refusal says what to do and leaves it off.
    page.evaluate("window.__answer = 'denied'")
    page.locator("#notify-button").click()
    page.locator("#notify-enabled").click()
    expect(page.get_by_text("blocks notifications")).to_be_visible()
    expect(page.locator("#notify-enabled")).to_have_attribute("aria-checked", "false")
    page.evaluate("window.__answer = 'granted'")
    page.locator("#notify-enabled").click()
    expect(page.locator("#notify-enabled")).to_have_attribute("aria-checked", "true")
    page.locator("#notify-level").click()
    page.get_by_role("option", name="Warnings and errors").click()
    page.locator("#notify-topic-ci").click()  # mute ci
    expect(page.locator("#notify-topic-ci")).to_have_attribute("aria-checked", "false")
    page.screenshot(path=str(screenshot_path("panel-notifications.png")))
    page.keyboard.press("Escape")

    seed(e2e_app, bot_id, topic_key="alerts", title="Disk 97% on db-2", content="**act now**", level="error")
    seed(e2e_app, bot_id, topic_key="alerts", title="nightly summary", level="info")  # below the level
    seed(e2e_app, bot_id, topic_key="ci", title="Build 42 failed", level="error")  # muted topic
    expect(rows(page)).to_have_count(4)
    page.wait_for_function("window.__notes.length >= 1")
    assert _notes(page) == [{"title": "Alerts: Disk 97% on db-2", "body": "act now"}]

    # In front, the list shows it: no notification.
    page.evaluate("window.__tdHidden = false")
    seed(e2e_app, bot_id, topic_key="alerts", title="visible tab", level="error")
    expect(rows(page)).to_have_count(5)
    assert len(_notes(page)) == 1

    # The choice is this browser's: kept across a reload.
    page.reload()
    expect(page.locator("#stream-heading")).to_be_visible()
    page.locator("#notify-button").click()
    expect(page.locator("#notify-enabled")).to_have_attribute("aria-checked", "true")
    expect(page.locator("#notify-topic-ci")).to_have_attribute("aria-checked", "false")
