"""Escape closes the open item, also right after "Move to topic…" (found by a walkthrough: after a
move, Escape did nothing and the detail pane stayed open), and after Undo of that move."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import E2EApp
from tests.e2e.pages.topic_panel import TopicPanel
from tests.e2e.topic_panel_support import ADMIN, log_in_to_panel, make_bot, seed

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]


def test_escape_closes_the_item_after_a_move_and_after_its_undo(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "builds", "alerts")
    item_id = seed(e2e_app, bot_id, topic_key="builds", title="Disk 95% on db-1", content="act now", level="error")
    panel = log_in_to_panel(page, e2e_app, ADMIN, "admin", bot_id)

    panel.row(item_id).click()
    expect(panel.detail_title()).to_have_text("Disk 95% on db-1")
    page.keyboard.press("Escape")  # the plain case first
    expect(panel.detail_title()).to_have_count(0)

    panel.row(item_id).click()
    expect(panel.detail_title()).to_have_text("Disk 95% on db-1")
    panel.move_button().click()
    expect(panel.move_popover()).to_be_visible()
    panel.choose_move_target("Alerts")
    panel.move_confirm().click()
    expect(panel.toast("Moved to Alerts")).to_be_visible()
    expect(panel.move_popover()).to_have_count(0)
    expect(panel.detail_topic()).to_have_text("alerts")
    page.keyboard.press("Escape")
    expect(panel.detail_title()).to_have_count(0)

    # Undo from the toast, then the item again: Escape still closes it.
    TopicPanel.undo_in(panel.toast("Moved to Alerts")).click()
    expect(panel.toast("Moved back")).to_be_visible()
    panel.row(item_id).click()
    expect(panel.detail_topic()).to_have_text("builds")
    page.keyboard.press("Escape")
    expect(panel.detail_title()).to_have_count(0)
