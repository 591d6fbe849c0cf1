"""The item list and the keyboard, as a new user's walkthrough found them: v with rows ticked moved the open
item (or nothing) instead of the ticked ones; the keyboard's cursor and the open item drew two rows alike;
Tab stopped at every row and then at its tick box. Now v acts on the ticked rows as the bulk bar does,
one row reads as current, and the list is one Tab stop whose arrows (and j / k) move within it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session

from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.topic_panel_support import log_in, make_bot, open_panel, seed
from topic_dashboard.models import TopicItem

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]


def _topic_of(app: E2EApp, item_id: int) -> str:
    with Session(app.engine) as session:
        item = session.get(TopicItem, item_id)
        assert item is not None
        return item.topic_key


def test_v_with_rows_ticked_moves_the_ticked_rows_not_the_open_item(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci", "alerts")
    first, second, opened = (seed(e2e_app, bot_id, topic_key="ci", title=f"Build {n} failed") for n in range(3))
    log_in(page, e2e_app)
    page.set_viewport_size({"width": 1280, "height": 800})
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.open_item(opened)).to_have_text("Build 2 failed")
    panel.row_checkbox(first).click()
    panel.row_checkbox(second).click()
    expect(panel.bulk_count()).to_have_text("2 selected")

    assert not panel.focus_in_list().startswith("select:")  # a tick box takes no focus from a click...
    page.keyboard.press("v")  # ...so the key right after the ticks reaches the shortcuts
    expect(panel.bulk_move_popover()).to_be_visible()
    expect(panel.bulk_move_popover()).to_contain_text("Move 2 items to")
    expect(panel.move_popover()).to_have_count(0)
    page.screenshot(path=str(screenshot_path("panel-v-moves-the-ticked-items.png")))
    panel.choose_bulk_move_target("Alerts")
    panel.bulk_move_confirm()
    expect(panel.toast("Moved 2 items to Alerts")).to_be_visible()
    assert [_topic_of(e2e_app, item_id) for item_id in (first, second, opened)] == ["alerts", "alerts", "ci"]

    # Nothing ticked: v moves the open item, as before.
    expect(panel.bulk_bar()).to_have_count(0)
    panel.focus_page()
    page.keyboard.press("v")
    expect(panel.move_popover()).to_be_visible()
    expect(panel.bulk_move_popover()).to_have_count(0)
    page.keyboard.press("Escape")
    expect(panel.move_popover()).to_have_count(0)

    # Ticked with the keyboard (x), the same: v is Move… for the ticked row.
    panel.focus_page()
    page.keyboard.press("x")
    expect(panel.bulk_count()).to_have_text("1 selected")
    page.keyboard.press("v")
    expect(panel.bulk_move_popover()).to_contain_text("Move 1 item to")
    expect(panel.move_popover()).to_have_count(0)


def test_one_row_reads_as_current_whether_the_mouse_or_the_keyboard_chose_it(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    ids = [seed(e2e_app, bot_id, topic_key="ci", title=f"result {n}") for n in range(4)]
    newest_first = ids[::-1]
    log_in(page, e2e_app)
    page.set_viewport_size({"width": 1280, "height": 800})
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(4)
    page.mouse.move(5, 5)  # the pointer off the list: its hover is not the question
    panel.expect_filled_rows([])  # nothing open, no key pressed: no row is current

    panel.row(newest_first[1]).click()
    expect(panel.detail_title()).to_have_text("result 2")
    page.mouse.move(5, 5)
    panel.expect_filled_rows([newest_first[1]])

    page.keyboard.press("j")  # the cursor leaves the open item: it is the current row now, alone
    expect(panel.cursor_row()).to_have_id(f"item-{newest_first[2]}")
    expect(panel.row(newest_first[1])).to_have_attribute("aria-current", "true")  # still the open one
    panel.expect_filled_rows([newest_first[2]])
    page.screenshot(path=str(screenshot_path("panel-one-current-row-keyboard.png")))
    page.keyboard.press("o")
    expect(panel.detail_title()).to_have_text("result 1")
    panel.expect_filled_rows([newest_first[2]])

    panel.row(newest_first[0]).click()  # the mouse again
    expect(panel.detail_title()).to_have_text("result 3")
    page.mouse.move(5, 5)
    panel.expect_filled_rows([newest_first[0]])
    page.screenshot(path=str(screenshot_path("panel-one-current-row-mouse.png")))


def test_the_list_is_one_tab_stop_and_the_arrows_move_within_it(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    ids = [seed(e2e_app, bot_id, topic_key="ci", title=f"report {n}", tags=["nightly", "db"]) for n in range(5)]
    newest_first = ids[::-1]
    log_in(page, e2e_app)
    page.set_viewport_size({"width": 1280, "height": 800})
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(5)

    # From the last filter, Tab: the list's current row, its tick box, then out of the list.
    panel.show_archived().focus()
    stops = []
    for _ in range(4):
        page.keyboard.press("Tab")
        stops.append(panel.focus_in_list())
    first = f"item-{newest_first[0]}"
    assert stops[:3] == [first, f"select:{first}", ""], stops
    page.screenshot(path=str(screenshot_path("panel-list-tab-stop.png")))

    # In the list: the arrows (and j / k) move the focus with the cursor; Enter opens, x ticks that row.
    panel.row(newest_first[0]).focus()
    page.keyboard.press("ArrowDown")
    expect(panel.row(newest_first[1])).to_be_focused()
    expect(panel.cursor_row()).to_have_id(f"item-{newest_first[1]}")
    page.keyboard.press("j")
    expect(panel.row(newest_first[2])).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(panel.row(newest_first[1])).to_be_focused()
    page.keyboard.press("x")
    expect(panel.bulk_count()).to_have_text("1 selected")
    expect(panel.row_checkbox(newest_first[1])).to_be_checked()
    page.keyboard.press("Enter")
    expect(panel.detail_title()).to_have_text("report 3")

    # The Tab stop went with the cursor: Shift+Tab from after the list comes back to that row and its box.
    panel.row(newest_first[1]).focus()
    page.keyboard.press("Tab")
    expect(panel.row_checkbox(newest_first[1])).to_be_focused()
    page.keyboard.press(" ")  # space unticks it, as on any tick box
    expect(panel.bulk_bar()).to_have_count(0)
    page.keyboard.press("ArrowDown")  # from the box too
    expect(panel.row(newest_first[2])).to_be_focused()
    page.keyboard.press("Tab")
    expect(panel.row_checkbox(newest_first[2])).to_be_focused()
    page.keyboard.press("Tab")
    assert panel.focus_in_list() == ""
    page.keyboard.press("Shift+Tab")
    expect(panel.row_checkbox(newest_first[2])).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(panel.row(newest_first[2])).to_be_focused()
    page.keyboard.press("Shift+Tab")
    assert panel.focus_in_list() == ""


def test_a_deep_link_puts_the_cursor_on_the_item_it_opens(page: Page, e2e_app: E2EApp) -> None:
    """j after a link to an item goes on from that item, not from the top of the list."""
    bot_id, _ = make_bot(e2e_app, "ci")
    ids = [seed(e2e_app, bot_id, topic_key="ci", title=f"nightly {n}") for n in range(5)]
    newest_first = ids[::-1]
    log_in(page, e2e_app)
    page.set_viewport_size({"width": 1280, "height": 800})
    panel = open_panel(page, e2e_app, bot_id, f"&item={newest_first[2]}")
    expect(panel.detail_title()).to_have_text("nightly 2")
    expect(panel.cursor_row()).to_have_id(f"item-{newest_first[2]}")
    panel.focus_page()
    page.keyboard.press("j")
    expect(panel.cursor_row()).to_have_id(f"item-{newest_first[3]}")
    page.keyboard.press("o")
    expect(panel.detail_title()).to_have_text("nightly 1")
