"""The Topic panel's address keeps the level, tag, unread-only and archived filters, as it keeps the view and
the search: a reload and a shared link show the same list, Back from an opened item returns to it, and a value
the panel does not know is ignored (the filter's default), never an error."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.topic_panel_support import log_in, make_bot, open_panel, seed

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]


def test_the_level_and_unread_only_filters_survive_a_reload_a_shared_link_and_back(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    read_error = seed(e2e_app, bot_id, topic_key="ci", title="Disk alarm, seen", level="error")
    unread_error = seed(e2e_app, bot_id, topic_key="ci", title="Disk full on db-2", level="error")
    seed(e2e_app, bot_id, topic_key="ci", title="Build 42 passed", level="success")
    log_in(page, e2e_app)
    page.set_viewport_size({"width": 1280, "height": 800})
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(3)
    panel.open_item(read_error)
    panel.close_item()

    panel.choose_level("Error")
    expect(panel.rows()).to_have_count(2)
    expect(page).to_have_url(re.compile(r"[?&]level=error(&|$)"))
    panel.unread_only().click()
    expect(panel.rows()).to_have_count(1)
    expect(page).to_have_url(re.compile(r"[?&]unread=1(&|$)"))
    shared = page.url

    page.reload()
    panel.expect_loaded()
    expect(panel.level_filter()).to_have_text("Error")
    expect(panel.unread_only()).to_have_attribute("aria-checked", "true")
    expect(panel.rows()).to_have_count(1)
    assert panel.shown_ids() == [unread_error]
    page.screenshot(path=str(screenshot_path("panel-filters-in-the-address.png")))

    # Opening an item adds a history entry that keeps the filters; Back closes it and the list stays filtered.
    panel.open_item(unread_error)
    expect(page).to_have_url(re.compile(rf"[?&]item={unread_error}(&|$)"))
    expect(page).to_have_url(re.compile(r"[?&]level=error&unread=1"))
    page.go_back()
    expect(panel.detail_title()).to_have_count(0)
    expect(page).to_have_url(re.compile(r"[?&]level=error&unread=1$"))
    expect(panel.level_filter()).to_have_text("Error")
    expect(panel.unread_only()).to_have_attribute("aria-checked", "true")

    # The link shared, opened afresh: the same list. Clearing the filters clears the address too.
    panel.open(bot_id)  # the plain address: no filters
    expect(panel.level_filter()).to_have_text("Any level")
    expect(panel.rows()).to_have_count(3)
    page.goto(shared)
    panel.expect_loaded()
    expect(panel.level_filter()).to_have_text("Error")
    expect(panel.unread_only()).to_have_attribute("aria-checked", "true")
    expect(panel.empty_state("All caught up")).to_be_visible()  # both errors are read by now
    panel.choose_level("Any level")
    panel.unread_only().click()
    expect(panel.rows()).to_have_count(3)
    expect(page).not_to_have_url(re.compile(r"level=|unread="))


def test_filter_values_the_panel_does_not_know_are_ignored(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    seed(e2e_app, bot_id, topic_key="ci", title="Disk full on db-2", level="error")
    seed(e2e_app, bot_id, topic_key="ci", title="Build 42 passed", level="success")
    log_in(page, e2e_app)
    for query in ("&level=loud&unread=maybe", "&level=ERROR&unread=true", "&level=&unread=", "&level=%00&unread=1%27"):
        panel = open_panel(page, e2e_app, bot_id, query)
        expect(panel.rows()).to_have_count(2)
        expect(panel.level_filter()).to_have_text("Any level")
        expect(panel.unread_only()).to_have_attribute("aria-checked", "false")
        expect(page.locator("[data-sonner-toast]")).to_have_count(0)


def test_the_tag_filter_and_the_archived_switch_survive_a_reload(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    shown = seed(e2e_app, bot_id, topic_key="ci", title="Deploy 12 to prod", tags=["prod"])
    archived = seed(e2e_app, bot_id, topic_key="ci", title="Deploy 11 to prod", tags=["prod"])
    seed(e2e_app, bot_id, topic_key="ci", title="Flaky test quarantined", tags=["flaky"])
    log_in(page, e2e_app)
    page.set_viewport_size({"width": 1280, "height": 800})
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(3)
    panel.row(archived).click()
    expect(panel.detail_title()).to_have_text("Deploy 11 to prod")
    panel.archive_button().click()
    expect(panel.rows()).to_have_count(2)

    panel.tag_filter().fill("prod")
    expect(panel.rows()).to_have_count(1)
    expect(page).to_have_url(re.compile(r"[?&]tag=prod(&|$)"))
    panel.show_archived().click()
    expect(panel.rows()).to_have_count(2)
    expect(page).to_have_url(re.compile(r"[?&]archived=1(&|$)"))

    page.reload()
    panel.expect_loaded()
    expect(panel.tag_filter()).to_have_value("prod")
    expect(panel.show_archived()).to_have_attribute("aria-checked", "true")
    expect(panel.rows()).to_have_count(2)
    assert sorted(panel.shown_ids()) == sorted([shown, archived])

    # A tag no item can have (too long, two lines) is ignored, like any value the panel does not know.
    panel = open_panel(page, e2e_app, bot_id, "&tag=" + "x" * 40 + "&archived=yes")
    expect(panel.tag_filter()).to_have_value("")
    expect(panel.show_archived()).to_have_attribute("aria-checked", "false")
    expect(panel.rows()).to_have_count(2)


def test_a_filter_switch_flips_from_its_words_too(page: Page, e2e_app: E2EApp) -> None:
    # A walkthrough on a phone could only flip the small switch itself; its words did nothing.
    bot_id, _ = make_bot(e2e_app, "ci")
    seed(e2e_app, bot_id, topic_key="ci", title="Build 43 passed", level="success")
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    page.get_by_text("Unread only", exact=True).click()
    expect(panel.unread_only()).to_have_attribute("aria-checked", "true")
    expect(page).to_have_url(re.compile(r"[?&]unread=1(&|$)"))
    page.get_by_text("Show archived", exact=True).click()
    expect(page.locator("#show-archived")).to_have_attribute("aria-checked", "true")
    expect(page).to_have_url(re.compile(r"[?&]archived=1(&|$)"))
    page.get_by_text("Unread only", exact=True).click()
    expect(panel.unread_only()).to_have_attribute("aria-checked", "false")
