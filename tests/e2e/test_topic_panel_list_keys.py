"""The item list and the keyboard, as a new user's walkthrough found them: v and m with rows ticked acted on
the open item or the cursor's row instead of the ticked ones; the keyboard's cursor and the open item drew two
rows alike; Tab stopped at every row and then at its tick box. Now v and m act on the ticked rows as the bulk
bar does, one row reads as current, and the list is one Tab stop whose arrows (and j / k) move within it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session

from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.topic_panel_support import VIEWER, log_in, make_bot, open_panel, seed, team_unread, unread_of
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


def test_m_with_rows_ticked_marks_the_ticked_rows_not_the_cursors_row(page: Page, e2e_app: E2EApp) -> None:
    """m is the bulk bar's Read for the ticked rows (its Unread when every ticked row is read already), with or
    without an item open; with nothing ticked it toggles the cursor's row (or the open item) as before. What
    the reader's own reading state in the database says, the rows and the unread counts on screen say too."""
    bot_id, _ = make_bot(e2e_app, "ci")
    ids = [seed(e2e_app, bot_id, topic_key="ci", title=f"deploy {n}") for n in range(5)]
    newest_first = ids[::-1]
    log_in(page, e2e_app, VIEWER, role="viewer")  # a viewer: m changes their own reading state only
    page.set_viewport_size({"width": 1280, "height": 800})
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(5)
    expect(panel.topic_unread("ci")).to_have_text("5")

    def expect_unread(unread: set[int]) -> None:
        for item_id in ids:
            panel.expect_unread(item_id, item_id in unread)
        expect(panel.topic_unread("ci")).to_have_text(str(len(unread)))
        expect(panel.view_count("unread")).to_have_text(str(len(unread)))
        assert unread_of(e2e_app, bot_id, VIEWER) == unread

    # The cursor on the first row; two other rows ticked with the mouse: m marks those two read.
    panel.focus_page()
    page.keyboard.press("j")
    page.keyboard.press("k")
    expect(panel.cursor_row()).to_have_id(f"item-{newest_first[0]}")
    panel.row_checkbox(newest_first[1]).click()
    panel.row_checkbox(newest_first[2]).click()
    expect(panel.bulk_count()).to_have_text("2 selected")
    page.keyboard.press("m")
    expect(panel.toast("Marked 2 items read")).to_be_visible()
    expect(panel.bulk_bar()).to_have_count(0)  # done, as the bulk bar's Read is
    expect_unread({newest_first[0], newest_first[3], newest_first[4]})
    expect(panel.cursor_row()).to_have_id(f"item-{newest_first[0]}")

    # Mixed (one read, one unread), ticked with the keyboard (x): all read.
    page.keyboard.press("j")
    page.keyboard.press("x")
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("x")
    expect(panel.bulk_count()).to_have_text("2 selected")
    page.mouse.move(5, 5)  # the pointer off the list: its hover is not the question
    panel.expect_filled_rows([newest_first[3]])  # the cursor's row alone reads as current, not the ticked one
    page.screenshot(path=str(screenshot_path("panel-m-ticked-rows.png")))
    page.keyboard.press("m")
    expect(panel.toast("Marked 2 items read")).to_be_visible()
    expect_unread({newest_first[0], newest_first[4]})

    # Every ticked row read already: m marks them unread (it toggles, as it does for one row).
    panel.row_checkbox(newest_first[1]).click()
    panel.row_checkbox(newest_first[2]).click()
    page.keyboard.press("m")
    expect(panel.toast("Marked 2 items unread")).to_be_visible()
    expect_unread({newest_first[0], newest_first[1], newest_first[2], newest_first[4]})

    # An item open (opening reads it) and a row ticked: m marks the ticked row, not the open item.
    expect(panel.open_item(newest_first[4])).to_have_text("deploy 0")
    expect_unread({newest_first[0], newest_first[1], newest_first[2]})
    panel.row_checkbox(newest_first[0]).click()
    expect(panel.bulk_count()).to_have_text("1 selected")
    page.keyboard.press("m")
    expect(panel.toast("Marked 1 item read")).to_be_visible()
    expect_unread({newest_first[1], newest_first[2]})
    expect(panel.read_button()).to_have_text("Mark unread")  # the open item kept its state

    # Nothing ticked: m toggles the open item, as before.
    page.keyboard.press("m")
    expect(panel.read_button()).to_have_text("Mark read")
    expect_unread({newest_first[1], newest_first[2], newest_first[4]})

    # The open item among the ticked rows: its pane says what its row says.
    panel.row_checkbox(newest_first[4]).click()
    panel.row_checkbox(newest_first[2]).click()
    expect(panel.bulk_count()).to_have_text("2 selected")
    page.keyboard.press("m")
    expect(panel.read_button()).to_have_text("Mark unread")
    expect_unread({newest_first[1]})

    # Nothing ticked, nothing open: m toggles the cursor's row, as before.
    panel.close_item()
    expect(panel.cursor_row()).to_have_id(f"item-{newest_first[4]}")
    page.keyboard.press("k")
    page.keyboard.press("m")
    expect_unread({newest_first[1], newest_first[3]})
    assert team_unread(e2e_app, bot_id) == set(ids)  # the viewer's own reading, no one else's


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
