"""The panel as a reader people trust (#15): the live stream never skips an item, and "Mark all
read" acts on exactly what the view shows, says how many, asks first and can be undone.
Each test reproduced its defect in a browser before the fix (the stream left 60 of 120 items out;
mark-all-read in Pinned marked every unread item of the bot)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from pytest_playwright import CreateContextCallback
from sqlmodel import Session, select

from tests.e2e.accounts_support import ensure_user
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.topic_panel import TopicPanel
from tests.e2e.topic_panel_support import (
    ADMIN,
    VIEWER,
    item_ids,
    log_in,
    make_bot,
    mcp_publish,
    open_panel,
    pinned_of,
    seed,
    team_unread,
    unread_of,
)
from topic_dashboard.models import TopicItem
from topic_dashboard.services.bots import get_bot
from topic_dashboard.services.items import set_item_flags

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]


def test_a_burst_larger_than_a_page_reaches_every_open_panel_without_gaps(
    new_context: CreateContextCallback, e2e_app: E2EApp
) -> None:
    bot_id, _ = make_bot(e2e_app, "ci", rate_per_minute=10_000)
    for index in range(10):
        seed(e2e_app, bot_id, topic_key="ci", title=f"before {index}")
    panels = []
    for _ in range(2):
        page = new_context().new_page()
        log_in(page, e2e_app)
        panel = open_panel(page, e2e_app, bot_id)
        expect(panel.rows()).to_have_count(10)
        panels.append(panel)

    for index in range(120):  # three pages' worth between two polls
        seed(e2e_app, bot_id, topic_key="ci", title=f"burst {index}")

    expected = item_ids(e2e_app, bot_id)
    assert len(expected) == 130
    for panel in panels:
        expect(panel.rows()).to_have_count(130, timeout=15_000)
        assert panel.shown_ids() == expected  # every item, newest first, no gap


def test_mark_all_read_acts_on_exactly_the_view_asks_first_and_can_be_undone(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci", "alerts")
    ci = [seed(e2e_app, bot_id, topic_key="ci", title=f"ci {index}") for index in range(9)]
    tagged = [seed(e2e_app, bot_id, topic_key="alerts", title=f"nightly {i}", tags=["nightly"]) for i in range(3)]
    other = seed(e2e_app, bot_id, topic_key="alerts", title="daytime", tags=["day"])
    pinned = ci[:2]
    with Session(e2e_app.engine) as session:
        for item_id in pinned:
            set_item_flags(session=session, bot_id=bot_id, item_id=item_id, is_pinned=True)
    everything = {*ci, *tagged, other}
    log_in(page, e2e_app, ADMIN)
    assert unread_of(e2e_app, bot_id) == everything

    # Pinned shows 2 items: it marks those 2, after saying so, and Undo puts them back.
    panel = open_panel(page, e2e_app, bot_id, "&view=pinned")
    expect(panel.rows()).to_have_count(2)
    expect(panel.ask_mark_all_read()).to_contain_text("Mark 2 items read")
    panel.cancel_mark_all_read()
    assert unread_of(e2e_app, bot_id) == everything  # cancelled: nothing changed
    panel.ask_mark_all_read()
    panel.confirm_mark_all_read()
    expect(page.get_by_text("Marked 2 items read")).to_be_visible()
    assert unread_of(e2e_app, bot_id) == everything - set(pinned)
    panel.undo()
    expect(page.get_by_text("2 items are unread again")).to_be_visible()
    assert unread_of(e2e_app, bot_id) == everything
    expect(panel.unread_rows()).to_have_count(2)

    # A tag filter showing 3 rows marks those 3 only.
    open_panel(page, e2e_app, bot_id)
    panel.tag_filter().fill("nightly")
    expect(panel.rows()).to_have_count(3)
    panel.mark_all_read(3)
    expect(page.get_by_text("Marked 3 items read")).to_be_visible()
    assert unread_of(e2e_app, bot_id) == everything - set(tagged)

    # An item that arrives after the person looked is not marked with the rest.
    panel.tag_filter().fill("")
    expect(panel.rows()).to_have_count(13)
    expect(panel.ask_mark_all_read()).to_contain_text("Mark 10 items read")
    late = seed(e2e_app, bot_id, topic_key="ci", title="arrived while the dialog was open")
    panel.confirm_mark_all_read()
    expect(page.get_by_text("Marked 10 items read")).to_be_visible()
    assert unread_of(e2e_app, bot_id) == {late}
    assert team_unread(e2e_app, bot_id) == everything | {late}  # the admin's own reading, no one else's


def test_links_to_a_missing_bot_or_topic_say_so_rows_name_their_topic_and_blocked_images_show(
    page: Page, e2e_app: E2EApp
) -> None:
    bot_id, _ = make_bot(e2e_app, "night_ops")
    item = seed(
        e2e_app,
        bot_id,
        topic_key="night_ops",
        title="latency",
        content="p99 ![p99 chart](https://grafana.example/p.png)",
    )
    log_in(page, e2e_app, ADMIN)

    page.goto(e2e_app.path("/?bot=no-such-bot"))
    expect(page.get_by_text("There is no bot 'no-such-bot'")).to_be_visible(timeout=30_000)

    panel = open_panel(page, e2e_app, bot_id, "&view=topic:gone")
    expect(page.get_by_text("This bot has no topic 'gone': showing all items")).to_be_visible()
    expect(panel.heading()).to_have_text("All items")

    row = panel.row(item)
    expect(row).to_contain_text("Night Ops")  # the sidebar's name, not the key "night_ops"
    row.click()
    expect(panel.detail_content()).to_contain_text("[image: p99 chart - not shown]")
    expect(panel.detail_content().locator("img")).to_have_count(0)


def test_the_keyboard_reader_scrolls_with_the_cursor_closes_with_escape_and_explains_itself(
    page: Page, e2e_app: E2EApp
) -> None:
    bot_id, _ = make_bot(e2e_app, "ci", rate_per_minute=10_000)
    ids = [
        seed(e2e_app, bot_id, topic_key="ci", title=f"result {i}", level="error" if i == 0 else "info")
        for i in range(40)
    ]
    log_in(page, e2e_app, ADMIN)
    page.set_viewport_size({"width": 1280, "height": 720})
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(40)

    page.keyboard.press("j")  # the first j shows the cursor on the first row (it is not drawn before a key)
    for _ in range(30):  # the cursor walks far below the fold; the list follows it
        page.keyboard.press("j")
    cursor_row = panel.row(ids[-31])
    expect(cursor_row).to_be_in_viewport()
    # The list's header (search, filters, mark all read) stays in view while the rows scroll under it,
    # and a row the cursor walks back up to stops below it, not hidden under it.
    header = page.locator("#stream-header")
    expect(header).to_be_in_viewport()
    expect(page.locator("#search-input")).to_be_in_viewport()
    for _ in range(20):
        page.keyboard.press("k")
    walked_back = panel.row(ids[-11]).bounding_box()
    header_box = header.bounding_box()
    assert walked_back is not None and header_box is not None
    assert walked_back["y"] >= header_box["y"] + header_box["height"] - 1, (walked_back, header_box)
    page.screenshot(path=str(screenshot_path("panel-list-scrolled.png")))
    for _ in range(20):
        page.keyboard.press("j")
    page.keyboard.press("o")
    expect(panel.detail_title()).to_have_text("result 9")
    page.keyboard.press("Escape")
    expect(page.get_by_text("Open an item")).to_be_visible()

    page.keyboard.press("?")
    expect(panel.shortcut_help()).to_contain_text("close the item")
    page.keyboard.press("Escape")
    expect(panel.shortcut_help()).to_have_count(0)

    # Rows are links a keyboard can reach: focus one, Enter opens that one (not the cursor's).
    first = panel.row(ids[-1])
    expect(first).to_have_attribute("role", "link")
    expect(panel.row_link(ids[-1])).to_have_attribute("href", f"/?bot={bot_id}&item={ids[-1]}")
    first.focus()
    page.keyboard.press("Enter")
    expect(panel.detail_title()).to_have_text("result 39")
    # The level is a shape with a name, not only a colour.
    expect(panel.row_error_mark(ids[0])).to_have_count(1)


def test_on_a_phone_back_closes_the_item_and_stays_in_the_app(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    first = seed(e2e_app, bot_id, topic_key="ci", title="first result")
    seed(e2e_app, bot_id, topic_key="ci", title="second result")
    log_in(page, e2e_app, ADMIN)
    page.set_viewport_size({"width": 390, "height": 844})
    panel = open_panel(page, e2e_app, bot_id)
    panel.row(first).click()
    expect(panel.detail_title()).to_have_text("first result")
    expect(page).to_have_url(re.compile(rf"item={first}"))

    page.go_back()
    expect(page).to_have_url(re.compile(rf"/\?bot={bot_id}$"))
    expect(panel.detail_title()).to_have_count(0)
    expect(panel.rows()).to_have_count(2)  # the list again, still in the app

    # The way back is said on the page too (a walkthrough found only a small ×), and only on a phone.
    panel.row(first).click()
    back = page.locator("#detail-back")
    expect(back).to_have_text("Back to All items")
    expect(back).to_be_in_viewport()
    page.screenshot(path=screenshot_path("phone-detail-back.png"))
    back.click()
    expect(panel.detail_title()).to_have_count(0)
    expect(panel.rows()).to_have_count(2)
    page.set_viewport_size({"width": 1280, "height": 800})
    panel.row(first).click()
    expect(panel.detail_title()).to_have_text("first result")
    expect(back).to_be_hidden()  # beside the list, the list is there already


def test_timeline_times_are_shown_as_times_not_iso_strings(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ops")
    view = {
        "type": "timeline",
        "events": [
            {"time": "2026-11-30T09:30:00Z", "title": "Deploy started"},
            {"time": "yesterday", "title": "Freeze lifted"},
        ],
    }
    item = seed(e2e_app, bot_id, topic_key="ops", title="deploy log", view=view)
    log_in(page, e2e_app, ADMIN)
    page.emulate_media(color_scheme="light")
    panel = open_panel(page, e2e_app, bot_id, f"&item={item}")
    timeline = panel.detail_view("timeline")
    expect(timeline).to_contain_text("Nov 30, 09:30")  # the browser here runs in UTC
    expect(timeline).not_to_contain_text("T09:30:00")
    expect(timeline).to_contain_text("yesterday")  # not a date: as the bot wrote it


def test_the_tab_title_counts_unread_and_an_empty_detail_pane_leaves_the_list_room(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    first = seed(e2e_app, bot_id, topic_key="ci", title="one")
    seed(e2e_app, bot_id, topic_key="ci", title="two")
    log_in(page, e2e_app, ADMIN)
    page.set_viewport_size({"width": 1440, "height": 900})
    panel = open_panel(page, e2e_app, bot_id)
    expect(page).to_have_title("(2) Topics · Topic Dashboard", timeout=5_000)
    seed(e2e_app, bot_id, topic_key="ci", title="three")
    expect(page).to_have_title("(3) Topics · Topic Dashboard", timeout=5_000)
    panel.row(first).click()  # an admin reads it
    expect(page).to_have_title("(2) Topics · Topic Dashboard", timeout=5_000)

    page.keyboard.press("Escape")
    # The closed detail gives its room back on the next render: wait for that layout (or time out), then measure.
    page.wait_for_function(
        """([listSelector, paneSelector]) => {
            const list = document.querySelector(listSelector), pane = document.querySelector(paneSelector);
            return list && pane && list.getBoundingClientRect().width > 1.5 * pane.getBoundingClientRect().width;
        }""",
        arg=[TopicPanel.ITEM_LIST, TopicPanel.DETAIL_COLUMN],
        timeout=5_000,
    )
    list_width = panel.item_list().bounding_box()
    pane_width = panel.detail_column().bounding_box()
    assert list_width and pane_width and list_width["width"] > 1.5 * pane_width["width"]
    page.screenshot(path=str(screenshot_path("panel-no-item-open.png")))


def test_the_bot_selector_shows_each_bots_unread_count(page: Page, e2e_app: E2EApp) -> None:
    quiet, _ = make_bot(e2e_app, "ci")
    busy, _ = make_bot(e2e_app, "ci")
    for index in range(2):
        seed(e2e_app, busy, topic_key="ci", title=f"news {index}")
    log_in(page, e2e_app, ADMIN)
    panel = open_panel(page, e2e_app, quiet)
    with Session(e2e_app.engine) as session:
        busy_name = get_bot(session=session, bot_id=busy).name
        quiet_name = get_bot(session=session, bot_id=quiet).name
    panel.bot_select().click()
    expect(page.get_by_role("option", name=f"{busy_name} · 2 unread", exact=True)).to_have_count(1)
    expect(page.get_by_role("option", name=quiet_name, exact=True)).to_have_count(1)  # nothing unread: no count
    page.keyboard.press("Escape")


def test_reading_state_is_each_persons_own_a_viewers_reading_changes_nothing_for_the_admin(
    new_context: CreateContextCallback, e2e_app: E2EApp
) -> None:
    """Defect 3: a viewer's read, pin, archive and mark-all-read changed what the admin saw (then,
    after the security fix, viewers could not read for themselves at all)."""
    bot_id, _ = make_bot(e2e_app, "ci")
    ids = [seed(e2e_app, bot_id, topic_key="ci", title=f"build {index}") for index in range(5)]
    panels = {}
    for username, role in ((ADMIN, "admin"), (VIEWER, "viewer")):
        page = new_context(viewport={"width": 1400, "height": 900}).new_page()
        log_in(page, e2e_app, username, role)
        panels[username] = open_panel(page, e2e_app, bot_id)
        expect(panels[username].topic_unread("ci")).to_have_text("5")
    admin, viewer = panels[ADMIN], panels[VIEWER]

    # The viewer reads one (opening it), pins it, archives another: all their own.
    viewer.row(ids[4]).click()
    expect(viewer.detail_title()).to_have_text("build 4")
    expect(viewer.topic_unread("ci")).to_have_text("4")
    viewer.toggle_pin()
    expect(viewer.row_pin(ids[4])).to_be_visible()
    expect(viewer.team_menu()).to_have_count(0)  # "for everyone" is an admin's
    viewer.row(ids[3]).click()
    expect(viewer.detail_title()).to_have_text("build 3")
    viewer.archive_button().click()
    expect(viewer.row(ids[3])).to_have_count(0)
    viewer.page.screenshot(path=str(screenshot_path("panel-viewer-own-reading-state.png")))
    # ...and marks the rest read.
    viewer.mark_all_read(3)
    expect(viewer.page.get_by_text("Marked 3 items read")).to_be_visible()
    expect(viewer.topic_unread("ci")).to_have_count(0)
    expect(viewer.bot_select()).not_to_contain_text("unread")  # the selector's count follows
    assert unread_of(e2e_app, bot_id, VIEWER) == set()

    # The admin's panel, counts and database state: unchanged.
    admin.page.reload()
    expect(admin.topic_unread("ci")).to_have_text("5")
    expect(admin.bot_select()).to_contain_text("5 unread")
    expect(admin.unread_rows()).to_have_count(5)
    expect(admin.row(ids[3])).to_be_visible()
    expect(admin.row_pin(ids[4])).to_have_count(0)
    assert unread_of(e2e_app, bot_id, ADMIN) == set(ids)
    assert team_unread(e2e_app, bot_id) == set(ids)
    with Session(e2e_app.engine) as session:
        flags = session.exec(select(TopicItem.is_pinned, TopicItem.is_archived).where(TopicItem.bot_id == bot_id))
        assert not any(pinned or archived for pinned, archived in flags)

    # The admin pins one for everyone: the viewer sees the team's pin live, and may unpin it for themselves.
    admin.row(ids[0]).click()
    expect(admin.detail_title()).to_have_text("build 0")
    admin.pin_for_everyone()
    expect(viewer.row_pin(ids[0])).to_be_visible(timeout=3_000)
    admin.page.screenshot(path=str(screenshot_path("panel-admin-pinned-for-everyone.png")))
    viewer.row(ids[0]).click()
    expect(viewer.detail_title()).to_have_text("build 0")
    viewer.toggle_pin()
    expect(viewer.row_pin(ids[0])).to_have_count(0)
    expect(admin.row_pin(ids[0])).to_be_visible()


def test_an_alert_the_bot_updates_changes_in_place_live_and_a_person_resolves_it(
    new_context: CreateContextCallback, e2e_app: E2EApp
) -> None:
    """#15 alert lifecycle: the bot publishes, then updates the same dedupe_key; open panels show the
    new title, an "updated" mark and the item unread again; an admin resolves it, the viewer sees it."""
    bot_id, token = make_bot(e2e_app, "alerts")
    first = {
        "topic_key": "alerts",
        "content": "p99 over the threshold",
        "dedupe_key": "latency",
        "message_type": "result",
    }
    is_error, body = mcp_publish(e2e_app, token, title="Latency 850 ms", level="warn", **first)
    assert not is_error, body
    item_id = body["item_id"]
    panels = {}
    for username, role in ((ADMIN, "admin"), (VIEWER, "viewer")):
        page = new_context(viewport={"width": 1400, "height": 900}).new_page()
        log_in(page, e2e_app, username, role)
        panels[username] = open_panel(page, e2e_app, bot_id, f"&item={item_id}")
        expect(panels[username].detail_title()).to_have_text("Latency 850 ms")
    admin, viewer = panels[ADMIN], panels[VIEWER]
    expect(admin.row(item_id)).to_have_class(re.compile(r"\bitem-read\b"))  # opened: read

    is_error, body = mcp_publish(e2e_app, token, title="Latency 2.4 s", level="error", update=True, **first)
    assert not is_error and body["updated"] and body["item_id"] == item_id, body
    for panel in (admin, viewer):
        expect(panel.row_updated(item_id)).to_be_visible(timeout=3_000)
        expect(panel.row(item_id)).to_contain_text("Latency 2.4 s")
        expect(panel.row(item_id)).to_have_class(re.compile(r"\bitem-unread\b"))
        expect(panel.detail_title()).to_have_text("Latency 2.4 s")  # the open item follows
        expect(panel.detail_updated()).to_contain_text("Updated by the bot 1×")
    assert admin.rows().count() == 1

    expect(viewer.resolve_button()).to_have_count(0)  # shared state: an admin's
    admin.resolve_button().click()
    expect(admin.resolved_mark()).to_contain_text(f"Resolved by {ADMIN}")
    expect(viewer.row_resolved(item_id)).to_be_visible(timeout=3_000)
    expect(viewer.resolved_mark()).to_be_visible(timeout=3_000)
    admin.page.screenshot(path=str(screenshot_path("panel-alert-updated-and-resolved.png")))
    admin.resolve_button().click()
    expect(admin.resolved_mark()).to_have_count(0)
    expect(viewer.row_resolved(item_id)).to_have_count(0, timeout=3_000)


def test_resolve_is_offered_on_warnings_and_errors_and_kept_in_the_team_menu_for_the_rest(
    new_context: CreateContextCallback, e2e_app: E2EApp
) -> None:
    """A walkthrough found "Resolve" on every item, a research note's too: it is a button on what asks for
    action (warn, error) and on what is resolved (to reopen); anything else is resolved from "For everyone"."""
    bot_id, _ = make_bot(e2e_app, "notes")
    note = seed(e2e_app, bot_id, topic_key="notes", title="Four papers compared", level="info")
    warning = seed(e2e_app, bot_id, topic_key="notes", title="Quota at 91%", level="warn")
    page = new_context(viewport={"width": 1400, "height": 900}).new_page()
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id, f"&item={note}")
    expect(panel.detail_title()).to_have_text("Four papers compared")
    expect(panel.resolve_button()).to_have_count(0)
    panel.resolve_from_team_menu()
    expect(panel.resolved_mark()).to_contain_text(f"Resolved by {ADMIN}")
    expect(panel.resolve_button()).to_have_text("Reopen")  # what is resolved can be reopened in one click
    panel.team_menu().click()
    expect(page.locator("#detail-team-resolve")).to_have_count(0)  # no second way to the same thing
    page.screenshot(path=str(screenshot_path("panel-resolved-note-menu.png")))
    page.keyboard.press("Escape")
    panel.open_item(warning)
    expect(panel.resolve_button()).to_have_text("Resolve")


def test_500_items_in_5_seconds_reach_two_open_panels_with_none_missing(
    new_context: CreateContextCallback, e2e_app: E2EApp
) -> None:
    """#15 target: publish 500 items in 5 s while two panels are open; compare each DOM with the database."""
    import time

    bot_id, _ = make_bot(e2e_app, "ci", rate_per_minute=10_000)
    panels = []
    for _ in range(2):
        page = new_context(viewport={"width": 1400, "height": 900}).new_page()
        log_in(page, e2e_app)
        panels.append(open_panel(page, e2e_app, bot_id))
    started = time.monotonic()
    for second in range(5):
        for index in range(100):
            seed(e2e_app, bot_id, topic_key="ci", title=f"burst {second}-{index}")
        time.sleep(max(0.0, started + second + 1 - time.monotonic()))  # pace: 100 items per second
    expected = item_ids(e2e_app, bot_id)
    assert len(expected) == 500
    for panel in panels:
        expect(panel.rows()).to_have_count(500, timeout=30_000)
        assert panel.shown_ids() == expected  # every item, newest first, none missing or repeated


def test_bulk_select_with_shift_click_and_x_then_read_pin_archive_for_yourself(page: Page, e2e_app: E2EApp) -> None:
    """#15 bulk: tick rows (shift-click ticks a range, x ticks the cursor's), then act on all of them."""
    bot_id, _ = make_bot(e2e_app, "ci")
    ids = [seed(e2e_app, bot_id, topic_key="ci", title=f"build {index}") for index in range(6)]
    newest_first = ids[::-1]
    log_in(page, e2e_app, ADMIN)
    page.set_viewport_size({"width": 1400, "height": 900})
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(6)
    panel.row_checkbox(newest_first[0]).click()
    panel.row_checkbox(newest_first[3]).click(modifiers=["Shift"])
    expect(panel.bulk_count()).to_have_text("4 selected")
    expect(panel.detail()).to_have_count(0)  # ticking never opens the row
    page.screenshot(path=str(screenshot_path("panel-bulk-selection.png")))
    panel.bulk_read().click()
    expect(page.get_by_text("Marked 4 items read")).to_be_visible()
    expect(panel.bulk_bar()).to_have_count(0)
    assert unread_of(e2e_app, bot_id) == set(newest_first[4:])
    assert team_unread(e2e_app, bot_id) == set(ids)  # the admin's own reading, no one else's

    panel.focus_page()
    page.keyboard.press("j")  # ticking moved no cursor, and none is drawn: the first j shows it on the first row
    page.keyboard.press("j")  # and the next goes on to the second
    page.keyboard.press("x")
    expect(panel.bulk_count()).to_have_text("1 selected")
    panel.bulk_archive().click()
    expect(page.get_by_text("Archived 1 item")).to_be_visible()
    expect(panel.rows()).to_have_count(5)
    expect(panel.row(newest_first[1])).to_have_count(0)
    # m toggles the read state of the row the cursor marks, o opens that row. The archived row left; the
    # cursor, placed on the first row again while the mouse was in use, is shown by the first j.
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("j")  # first, second (was third), third (was fourth) of the five left
    marked = panel.cursor_row()
    expect(marked).to_have_id(f"item-{newest_first[3]}")
    page.keyboard.press("m")
    expect(marked).to_have_class(re.compile(r"\bitem-unread\b"))
    page.keyboard.press("o")
    expect(panel.detail_title()).to_have_text(f"build {ids.index(newest_first[3])}")


def test_bulk_pin_unpin_and_unread_act_on_the_ticked_rows_for_this_person_only(page: Page, e2e_app: E2EApp) -> None:
    """#15 bulk, the other actions: pin three, the Pinned view shows exactly them; unpin two of them;
    mark two read, then one of them unread again. Each change is this person's: the team's flags and
    another person's reading stay as they were."""
    bot_id, _ = make_bot(e2e_app, "ci")
    ids = [seed(e2e_app, bot_id, topic_key="ci", title=f"report {index}") for index in range(5)]
    newest_first = ids[::-1]
    log_in(page, e2e_app, VIEWER, role="viewer")  # a viewer: bulk acts on their own reading state
    page.set_viewport_size({"width": 1400, "height": 900})
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(5)

    panel.row_checkbox(newest_first[0]).click()
    panel.row_checkbox(newest_first[2]).click(modifiers=["Shift"])
    expect(panel.bulk_count()).to_have_text("3 selected")
    panel.bulk_pin().click()
    expect(page.get_by_text("Pinned 3 items")).to_be_visible()
    assert pinned_of(e2e_app, bot_id, ids, VIEWER) == set(newest_first[:3])
    expect(panel.pin_marks()).to_have_count(3)
    panel.view("pinned")
    expect(panel.heading()).to_have_text("Pinned")
    assert set(panel.shown_ids()) == set(newest_first[:3])

    panel.row_checkbox(newest_first[0]).click()
    panel.row_checkbox(newest_first[1]).click()
    expect(panel.bulk_count()).to_have_text("2 selected")
    panel.bulk_unpin().click()
    expect(page.get_by_text("Unpinned 2 items")).to_be_visible()
    expect(panel.rows()).to_have_count(1)  # the Pinned view follows
    expect(panel.rows().first).to_have_id(f"item-{newest_first[2]}")
    assert pinned_of(e2e_app, bot_id, ids, VIEWER) == {newest_first[2]}

    panel.view("all")
    expect(panel.rows()).to_have_count(5)
    panel.row_checkbox(newest_first[3]).click()
    panel.row_checkbox(newest_first[4]).click()
    panel.bulk_read().click()
    expect(panel.bulk_bar()).to_have_count(0)
    assert unread_of(e2e_app, bot_id, VIEWER) == set(newest_first[:3])
    panel.row_checkbox(newest_first[4]).click()
    panel.bulk_unread().click()
    expect(page.get_by_text("Marked 1 item unread")).to_be_visible()
    expect(panel.row(newest_first[4])).to_have_class(re.compile(r"\bitem-unread\b"))
    expect(panel.row(newest_first[3])).to_have_class(re.compile(r"\bitem-read\b"))
    assert unread_of(e2e_app, bot_id, VIEWER) == {*newest_first[:3], newest_first[4]}

    # Nobody else's state moved: the team's flags, and the admin's own view of the same items.
    assert team_unread(e2e_app, bot_id) == set(ids)
    with Session(e2e_app.engine) as session:
        query = select(TopicItem.is_pinned).where(TopicItem.bot_id == bot_id)
        assert not any(session.exec(query))
    ensure_user(e2e_app, ADMIN, "admin")  # made here when this test runs alone
    assert pinned_of(e2e_app, bot_id, ids, ADMIN) == set()
    assert unread_of(e2e_app, bot_id, ADMIN) == set(ids)
