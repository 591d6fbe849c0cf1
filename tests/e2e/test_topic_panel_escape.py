"""Escape closes the open item, also right after "Move to topic…" (found by a walkthrough: after a
move, Escape did nothing and the detail pane stayed open), and after Undo of that move."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import E2EApp
from tests.e2e.topic_panel_support import ADMIN, choose_move_target, log_in_to_panel, make_bot, row, seed, toast_saying

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]


def test_escape_closes_the_item_after_a_move_and_after_its_undo(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "builds", "alerts")
    item_id = seed(e2e_app, bot_id, topic_key="builds", title="Disk 95% on db-1", content="act now", level="error")
    log_in_to_panel(page, e2e_app, ADMIN, "admin", bot_id)

    row(page, item_id).click()
    expect(page.locator("#detail-title")).to_have_text("Disk 95% on db-1")
    page.keyboard.press("Escape")  # the plain case first
    expect(page.locator("#detail-title")).to_have_count(0)

    row(page, item_id).click()
    expect(page.locator("#detail-title")).to_have_text("Disk 95% on db-1")
    page.locator("#detail-move").click()
    expect(page.locator("#move-popover")).to_be_visible()
    choose_move_target(page, "Alerts")
    page.locator("#move-confirm").click()
    expect(toast_saying(page, "Moved to Alerts")).to_be_visible()
    expect(page.locator("#move-popover")).to_have_count(0)
    expect(page.locator("#detail-topic")).to_have_text("alerts")
    page.keyboard.press("Escape")
    expect(page.locator("#detail-title")).to_have_count(0)

    # Undo from the toast, then the item again: Escape still closes it.
    toast_saying(page, "Moved to Alerts").get_by_role("button", name="Undo").click()
    expect(toast_saying(page, "Moved back")).to_be_visible()
    row(page, item_id).click()
    expect(page.locator("#detail-topic")).to_have_text("builds")
    page.keyboard.press("Escape")
    expect(page.locator("#detail-title")).to_have_count(0)
