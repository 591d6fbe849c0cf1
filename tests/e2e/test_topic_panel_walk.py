"""#15 done-when: every capability of the reader, walked in a real browser in the light theme, the
dark theme and at phone size (one walk each, the way a person goes through them): the live stream,
per-person pin, an alert the bot updates and a person resolves, search with marked hits, mark all
read's question, notifications, bulk selection with Move…, export, the All bots view and a topic's
retention. Each step's controls must be on screen and work; each step leaves a screenshot
(`TD_SCREENSHOTS=docs/screenshots` refreshes the docs' pictures)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.accounts_support import unique
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.topic_panel_support import log_in, make_bot, mcp_publish, open_panel, rows, seed

pytestmark = pytest.mark.e2e

WALKS = {
    "light": ({"width": 1400, "height": 900}, "light"),
    "dark": ({"width": 1400, "height": 900}, "dark"),
    "phone": ({"width": 390, "height": 844}, "dark"),
}


def _shot(page: Page, walk: str, step: str) -> None:
    page.screenshot(path=str(screenshot_path(f"walk-{walk}-{step}.png")))


def _close_detail(page: Page) -> None:
    page.keyboard.press("Escape")
    expect(page.locator("#detail-title")).to_have_count(0)


@pytest.mark.parametrize("walk", list(WALKS))
def test_every_reader_capability_in_both_themes_and_at_phone_size(page: Page, e2e_app: E2EApp, walk: str) -> None:
    viewport, scheme = WALKS[walk]
    phone = viewport["width"] < 600
    user = unique(f"walk-{walk}")
    bot_id, token = make_bot(e2e_app, "ci", "alerts")
    older = [
        seed(e2e_app, bot_id, topic_key="ci", title=f"Nightly build {n} passed", tags=["nightly"]) for n in range(3)
    ]
    log_in(page, e2e_app, user, role="admin")
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.set_viewport_size(viewport)
    open_panel(page, e2e_app, bot_id)
    expect(rows(page)).to_have_count(3)
    if phone:
        expect(page.locator("#mobile-topic-picker")).to_be_in_viewport()
    else:
        expect(page.locator("#topic-alerts")).to_be_in_viewport()

    # 1. The live stream: what the bot publishes arrives at the top.
    failed, published = mcp_publish(e2e_app, token, topic_key="ci", title="Build 43 failed", content="**red**")
    assert not failed
    live = published["item_id"]
    expect(rows(page).first).to_have_id(f"item-{live}")
    expect(rows(page).first).to_have_class(re.compile(r"\bitem-unread\b"))
    _shot(page, walk, "1-stream")

    # 2. Reading state is the person's own: open (read), pin for yourself.
    page.locator(f"#item-{live} .item-title").click()
    expect(page.locator("#detail-title")).to_have_text("Build 43 failed")
    expect(page.locator("#detail-toggle-pin")).to_be_in_viewport()
    page.locator("#detail-toggle-pin").click()
    expect(page.locator("#detail-toggle-pin")).to_have_text("Unpin")
    _shot(page, walk, "2-detail-pinned")
    _close_detail(page)
    expect(page.locator(f"#item-{live}")).to_have_class(re.compile(r"\bitem-read\b"))
    expect(page.locator(f"#item-{live} svg.lucide-pin")).to_have_count(1)

    # 3. An alert the bot updates in place, then a person resolves.
    failed, alert = mcp_publish(
        e2e_app,
        token,
        topic_key="alerts",
        title="Disk 91% on db-2",
        content="/var at 91%",
        level="warn",
        dedupe_key="disk-db-2",
        message_type="result",
    )
    assert not failed, alert
    failed, _ = mcp_publish(
        e2e_app,
        token,
        topic_key="alerts",
        title="Disk 97% on db-2",
        content="/var at 97%",
        level="error",
        dedupe_key="disk-db-2",
        message_type="result",
        update=True,
    )
    assert not failed
    alert_row = page.locator(f"#item-{alert['item_id']}")
    expect(alert_row.locator(".item-title")).to_have_text("Disk 97% on db-2")
    expect(alert_row.locator(".row-updated")).to_be_visible()
    alert_row.locator(".item-title").click()
    page.locator("#detail-resolve").click()
    expect(page.locator("#detail-resolved")).to_be_visible()
    _shot(page, walk, "3-alert-resolved")
    _close_detail(page)
    expect(alert_row.locator(".row-resolved")).to_be_visible()

    # 4. Search, hits marked.
    page.locator("#search-input").fill("nightly")
    expect(rows(page)).to_have_count(3)
    expect(page.locator("#item-list mark.search-hit").first).to_be_visible()
    _shot(page, walk, "4-search")
    page.locator("#search-clear").click()
    expect(rows(page)).to_have_count(5)

    # 5. Mark all read asks first, naming how many.
    page.locator("#mark-all-read").click()
    expect(page.locator("#mark-read-confirm")).to_contain_text("Mark 3 items read?")
    expect(page.locator("#mark-read-ok")).to_be_in_viewport()
    _shot(page, walk, "5-mark-all-read")
    page.locator("#mark-read-cancel").click()

    # 6. Notifications: this person's, this browser's.
    page.locator("#notify-button").click()
    expect(page.locator("#notify-enabled")).to_be_in_viewport()
    expect(page.locator("#notify-topic-alerts")).to_be_visible()
    _shot(page, walk, "6-notifications")
    page.keyboard.press("Escape")

    # 7. Bulk: tick rows, the bar offers what to do, Move… among it.
    page.locator(f"#item-{older[2]} .row-select").click()
    page.locator(f"#item-{older[0]} .row-select").click(modifiers=["Shift"])
    expect(page.locator("#bulk-count")).to_have_text("3 selected")
    expect(page.locator("#bulk-move")).to_be_in_viewport()
    _shot(page, walk, "7-bulk")
    page.locator("#bulk-read").click()
    expect(page.locator("#bulk-bar")).to_have_count(0)
    expect(page.locator("#item-list .item-unread")).to_have_count(0)

    # 8. Export what the view shows.
    page.locator("#export-view").click()
    with page.expect_download() as download:
        page.locator("#export-csv").click()
    text = Path(download.value.path()).read_text(encoding="utf-8-sig")
    exported = list(csv.DictReader(io.StringIO(text)))
    assert {row["title"] for row in exported} == {
        "Nightly build 0 passed",
        "Nightly build 1 passed",
        "Nightly build 2 passed",
        "Build 43 failed",
        "Disk 97% on db-2",
    }

    # 9. All bots: every bot's items, each row naming its bot.
    page.goto(e2e_app.path("/?bot=*"))
    expect(page.locator("#stream-heading")).to_have_text("All bots")
    expect(page.locator(f"#item-{alert['item_id']} .row-bot")).to_be_visible()
    _shot(page, walk, "8-all-bots")

    # 10. A topic's retention, on the Rules page.
    page.goto(e2e_app.path(f"/rules?bot={bot_id}"))
    page.locator("#rule-row-alerts").click()
    page.locator("#rule-retention").click()
    expect(page.locator("#retention-dry-run")).to_contain_text("This topic keeps everything.")
    expect(page.locator("#retention-save")).to_be_in_viewport()
    _shot(page, walk, "9-retention")
