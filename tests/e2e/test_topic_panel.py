"""The Topic panel as a reader uses it: open → read, deep links, mark all read, pin and archive,
filters, paging, the keyboard and the empty states.

Live updates and the delivery switch: test_topic_panel_live.py; XSS: test_topic_panel_safety.py;
the six view types and the screenshots: test_topic_panel_views.py.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from pytest_playwright import CreateContextCallback
from sqlmodel import Session

from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.topic_panel import TopicPanel
from tests.e2e.topic_panel_support import VIEWER, item_ids, item_is_read, log_in, make_bot, open_panel, seed
from topic_dashboard.services.bots import delete_bot, list_bots
from topic_dashboard.topic_panel.state import PAGE_SIZE

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]


def _count(panel: TopicPanel, entry: str, label: str, count: int) -> None:
    """The All / Pinned entries show their count as plain text beside the label."""
    expect(panel.view_link(entry)).to_have_text(re.compile(rf"^{label}\s*{count}$"))


def test_open_an_item_reads_it_and_its_deep_link_reloads_it(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    older = seed(e2e_app, bot_id, topic_key="ci", title="Build 41 passed", content="All green.")
    newer = seed(
        e2e_app,
        bot_id,
        topic_key="ci",
        title="Build 42 failed",
        content="3 tests **failed** in `test_api.py`.",
        level="error",
        tags=["main"],
    )
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)

    expect(panel.rows()).to_have_count(2)
    expect(panel.rows().first).to_have_id(f"item-{newer}")  # newest first
    expect(panel.unread_rows()).to_have_count(2)
    expect(panel.topic_unread("ci")).to_have_text("2")
    expect(panel.view_count("unread")).to_have_text("2")

    panel.row(newer).click()
    expect(panel.detail_title()).to_have_text("Build 42 failed")
    expect(panel.detail_level()).to_have_text("error")
    expect(panel.detail_content().locator("strong")).to_have_text("failed")
    expect(panel.detail_content().locator("code")).to_have_text("test_api.py")
    expect(panel.row(newer)).to_have_class(re.compile(r"\bitem-read\b"))
    expect(panel.row(older)).to_have_class(re.compile(r"\bitem-unread\b"))
    expect(panel.topic_unread("ci")).to_have_text("1")
    expect(panel.read_button()).to_have_text("Mark unread")
    assert item_is_read(e2e_app, newer)
    expect(page).to_have_url(re.compile(rf"/\?bot={bot_id}&item={newer}$"))

    # The URL is a deep link: a reload (and a fresh tab) opens the same item.
    page.reload()
    expect(panel.detail_title()).to_have_text("Build 42 failed")
    fresh = TopicPanel(page.context.new_page(), e2e_app.url)
    fresh.page.goto(e2e_app.path(f"/?bot={bot_id}&item={older}"))
    expect(fresh.detail_title()).to_have_text("Build 41 passed")
    expect(fresh.row(older)).to_have_class(re.compile(r"\bitem-read\b"))
    fresh.page.goto(e2e_app.path(f"/?bot={bot_id}&item=999999"))  # a stale link: say so, show the list
    expect(fresh.page.get_by_text("has no item 999999")).to_be_visible()
    expect(fresh.rows()).to_have_count(2)
    expect(fresh.detail()).to_have_count(0)
    fresh.page.close()

    # Mark unread again from the detail pane; counts follow.
    panel.read_button().click()
    expect(panel.read_button()).to_have_text("Mark read")
    expect(panel.row(newer)).to_have_class(re.compile(r"\bitem-unread\b"))
    expect(panel.topic_unread("ci")).to_have_text("1")  # the older one was read by the fresh tab
    assert not item_is_read(e2e_app, newer)

    panel.close_button().click()
    expect(panel.detail()).to_have_count(0)
    expect(page.get_by_text("Open an item")).to_be_visible()
    expect(page).to_have_url(re.compile(rf"/\?bot={bot_id}$"))


def test_mark_all_read_then_unread_views_say_all_caught_up(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci", "alerts")
    for index in range(3):
        seed(e2e_app, bot_id, topic_key="ci", title=f"ci result {index}")
    seed(e2e_app, bot_id, topic_key="alerts", title="disk almost full", level="warn")
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.topic_unread("ci")).to_have_text("3")
    expect(panel.topic_unread("alerts")).to_have_text("1")

    # In a topic, "mark all read" reads that topic only.
    panel.view("topic:ci")
    expect(panel.heading()).to_have_text("Ci")
    expect(panel.rows()).to_have_count(3)
    panel.mark_all_read(3)
    expect(page.get_by_text("Marked 3 items read")).to_be_visible()
    expect(panel.unread_rows()).to_have_count(0)
    expect(panel.topic_unread("ci")).to_have_count(0)
    expect(panel.topic_unread("alerts")).to_have_text("1")

    panel.view("all")
    expect(panel.rows()).to_have_count(4)
    panel.mark_all_read(1)
    expect(page.get_by_text("Marked 1 item read")).to_be_visible()
    expect(panel.read_rows()).to_have_count(4)
    expect(panel.topic_unread("alerts")).to_have_count(0)
    expect(panel.view_count("unread")).to_have_count(0)

    panel.view("unread")
    expect(panel.heading()).to_have_text("Unread")
    expect(page.get_by_text("All caught up")).to_be_visible()
    expect(page).to_have_url(re.compile(r"view=unread"))

    panel.view("all")
    expect(panel.rows()).to_have_count(4)
    panel.unread_only().click()
    expect(panel.unread_only()).to_have_attribute("aria-checked", "true")
    expect(page.get_by_text("All caught up")).to_be_visible()


def test_pin_and_archive(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    keep = seed(e2e_app, bot_id, topic_key="ci", title="Release notes 1.4")
    old = seed(e2e_app, bot_id, topic_key="ci", title="Nightly build 311")
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    _count(panel, "all", "All", 2)

    panel.row(keep).click()
    panel.toggle_pin()
    expect(panel.pin_button()).to_have_text("Unpin")
    expect(panel.row_pin(keep)).to_be_visible()
    _count(panel, "pinned", "Pinned", 1)
    panel.view("pinned")
    expect(panel.heading()).to_have_text("Pinned")
    expect(panel.rows()).to_have_count(1)
    expect(panel.row(keep)).to_be_visible()

    panel.view("all")
    panel.row(old).click()
    # The detail's buttons act on the item they show; until this click is answered, that can be `keep`.
    expect(panel.detail_title()).to_have_text("Nightly build 311")
    panel.archive_button().click()
    expect(panel.archive_button()).to_have_text("Unarchive")
    expect(panel.row(old)).to_have_count(0)  # archived items leave the stream...
    _count(panel, "all", "All", 1)  # ...and the counts
    panel.show_archived().click()
    expect(panel.show_archived()).to_have_attribute("aria-checked", "true")
    expect(panel.row(old)).to_be_visible()  # ...until you ask for them
    panel.row(old).click()
    panel.archive_button().click()
    expect(panel.archive_button()).to_have_text("Archive")
    _count(panel, "all", "All", 2)

    # Unpin: the pinned view empties.
    panel.row(keep).click()
    expect(panel.detail_title()).to_have_text("Release notes 1.4")
    panel.toggle_pin()
    expect(panel.pin_button()).to_have_text("Pin")
    _count(panel, "pinned", "Pinned", 0)
    panel.view("pinned")
    expect(panel.rows()).to_have_count(0)
    expect(page.get_by_text("No items match")).to_be_visible()


def test_filters_by_level_tag_topic_and_topic_name(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci", "alerts")
    failed = seed(e2e_app, bot_id, topic_key="ci", title="Build failed", level="error", tags=["main", "flaky"])
    passed = seed(e2e_app, bot_id, topic_key="ci", title="Build passed", level="success", tags=["main"])
    alert = seed(e2e_app, bot_id, topic_key="alerts", title="Disk full", level="error", tags=["prod"])
    note = seed(e2e_app, bot_id, topic_key="alerts", title="Disk cleaned", level="info", tags=["prod"])
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(4)

    def shown(*ids: int) -> None:
        expect(panel.rows()).to_have_count(len(ids))
        for item_id in ids:
            expect(panel.row(item_id)).to_be_visible()

    panel.choose_level("Error")
    shown(failed, alert)
    panel.choose_level("Any level")
    shown(failed, passed, alert, note)

    panel.tag_filter().fill("prod")
    shown(alert, note)
    panel.tag_filter().fill("")
    shown(failed, passed, alert, note)
    panel.row(failed).get_by_text("flaky", exact=True).click()  # a tag badge filters by that tag
    expect(panel.tag_filter()).to_have_value("flaky")
    shown(failed)
    expect(panel.detail()).to_have_count(0)  # the click filtered; it did not open the item
    panel.tag_filter().fill("")
    shown(failed, passed, alert, note)

    panel.view("topic:alerts")
    expect(panel.heading()).to_have_text("Alerts")
    shown(alert, note)
    expect(page).to_have_url(re.compile(r"view=topic:alerts"))
    panel.choose_level("Info")
    shown(note)
    panel.choose_level("Any level")

    panel.row(alert).click()  # read one (as a person would, seen to turn read), then ask for unread only
    panel.expect_unread(alert, unread=False)
    panel.unread_only().click()
    shown(note)
    panel.unread_only().click()
    shown(alert, note)

    # Filters that leave nothing: the empty list's Clear filters brings the topic's items back (a walkthrough
    # was told to "clear the filters" with no control to do it).
    panel.choose_level("Error")
    panel.tag_filter().fill("nope")
    shown()
    page.screenshot(path=str(screenshot_path("panel-clear-filters.png")))
    page.locator("#clear-filters").click()
    shown(alert, note)
    expect(panel.heading()).to_have_text("Alerts")  # the topic stays
    expect(panel.tag_filter()).to_have_value("")

    panel.topic_filter().fill("ale")
    expect(panel.topic("alerts")).to_be_visible()
    expect(panel.topic("ci")).to_have_count(0)
    expect(panel.topic("inbox")).to_have_count(0)
    panel.topic_filter().fill("")
    expect(panel.topic("ci")).to_be_visible()


def test_paging_loads_the_rest_without_duplicates(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    total = PAGE_SIZE + 7
    for index in range(total):
        seed(e2e_app, bot_id, topic_key="ci", title=f"Result {index:02d}")
    expected = [f"item-{item_id}" for item_id in item_ids(e2e_app, bot_id)]  # newest first
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)

    expect(panel.rows()).to_have_count(PAGE_SIZE)
    _count(panel, "all", "All", total)
    panel.load_more()
    expect(panel.rows()).to_have_count(total)
    expect(panel.load_more_button()).to_have_count(0)
    shown = [panel.rows().nth(index).get_attribute("id") for index in range(total)]
    assert shown == expected  # every item once, newest first


def test_keyboard_moves_opens_and_toggles_read(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    third = seed(e2e_app, bot_id, topic_key="ci", title="Third newest")
    second = seed(e2e_app, bot_id, topic_key="ci", title="Second newest")
    first = seed(e2e_app, bot_id, topic_key="ci", title="Newest")
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(3)

    hints = panel.key_hints()
    expect(hints).to_be_visible()
    for key, label in (("j / k", "move"), ("o", "open"), ("m", "read / unread")):
        expect(hints.locator("code", has_text=key).first).to_be_visible()
        expect(hints).to_contain_text(label)

    # The first j shows the cursor on the first row (a walkthrough's first j landed on the second).
    page.keyboard.press("j")
    expect(panel.cursor_row()).to_have_id(f"item-{first}")
    page.keyboard.press("j")
    page.keyboard.press("o")
    expect(panel.detail_title()).to_have_text("Second newest")
    page.keyboard.press("j")
    page.keyboard.press("Enter")
    expect(panel.detail_title()).to_have_text("Third newest")
    page.keyboard.press("k")
    page.keyboard.press("k")
    page.keyboard.press("k")  # stops at the top
    page.keyboard.press("o")
    expect(panel.detail_title()).to_have_text("Newest")
    expect(panel.read_rows()).to_have_count(3)

    page.keyboard.press("m")
    expect(panel.row(first)).to_have_class(re.compile(r"\bitem-unread\b"))
    expect(panel.read_button()).to_have_text("Mark read")
    page.keyboard.press("m")
    expect(panel.row(first)).to_have_class(re.compile(r"\bitem-read\b"))
    assert all(item_is_read(e2e_app, item_id) for item_id in (first, second, third))

    # Enter on a focused button presses that button; it does not open the item under the cursor.
    page.keyboard.press("j")
    panel.pin_button().focus()
    page.keyboard.press("Enter")
    expect(panel.pin_button()).to_have_text("Unpin")
    expect(panel.detail_title()).to_have_text("Newest")

    # Keys typed into a field are text, not shortcuts.
    panel.topic_filter().press_sequentially("mo")
    expect(panel.topic_filter()).to_have_value("mo")
    expect(panel.detail_title()).to_have_text("Newest")
    expect(panel.row(first)).to_have_class(re.compile(r"\bitem-read\b"))


def test_views_and_topics_are_chosen_with_the_keyboard(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough found Tab going from "Filter topics" straight to Export: the sidebar's views and topics
    were not in the Tab order. They are buttons now (pressed when shown); Enter or space chooses one."""
    bot_id, _ = make_bot(e2e_app, "ci", "alerts")
    seed(e2e_app, bot_id, topic_key="ci", title="Build 42 failed")
    seed(e2e_app, bot_id, topic_key="alerts", title="Disk 91% on db-1")
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(2)

    panel.topic_filter().focus()
    reached: list[str] = []
    for _ in range(8):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.id"))
    assert [r for r in reached if r.startswith(("view-", "topic-"))][:6] == [
        "view-all",
        "view-unread",
        "view-pinned",
        "topic-inbox",
        "topic-alerts",
        "topic-ci",
    ], reached
    for entry in ("view-all", "topic-alerts", "topic-ci"):
        expect(page.locator(f"#{entry}")).to_have_attribute("role", "button")

    panel.topic("alerts").focus()
    page.keyboard.press("Enter")
    expect(panel.rows()).to_have_count(1)
    expect(panel.rows().first).to_contain_text("Disk 91% on db-1")
    expect(panel.topic("alerts")).to_have_attribute("aria-pressed", "true")
    expect(panel.topic("ci")).to_have_attribute("aria-pressed", "false")
    expect(panel.topic("alerts")).to_be_focused()  # the focus stays where the person is
    page.screenshot(path=str(screenshot_path("panel-keyboard-topic.png")))  # the focus ring, for a person to see

    panel.topic("ci").focus()
    page.keyboard.press(" ")
    expect(panel.rows()).to_have_count(1)
    expect(panel.rows().first).to_contain_text("Build 42 failed")
    page.locator("#view-all").focus()
    page.keyboard.press("Enter")
    expect(panel.rows()).to_have_count(2)
    expect(page.locator("#view-all")).to_have_attribute("aria-pressed", "true")


def test_a_bot_without_items_says_nothing_published_yet(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    expect(page.get_by_text("Nothing published yet")).to_be_visible()
    expect(panel.item_list()).to_have_count(0)
    expect(panel.topic("ci")).to_be_visible()
    _count(panel, "all", "All", 0)


def test_without_bots_the_panel_points_to_the_bots_page(
    page: Page, new_context: CreateContextCallback, e2e_app: E2EApp
) -> None:
    # The e2e database is shared; "no bots" needs every bot gone. Each test makes its own bots,
    # so none depends on another's.
    with Session(e2e_app.engine) as session:
        for bot in list_bots(session=session):
            delete_bot(session=session, bot_id=bot.bot_id)
    log_in(page, e2e_app)
    panel = TopicPanel(page, e2e_app.url)
    page.goto(e2e_app.path("/"))
    expect(page.get_by_text("No bots yet")).to_be_visible()
    expect(panel.create_bot_link()).to_have_attribute("href", "/bots")
    expect(panel.bot_select()).to_have_count(0)

    viewer = TopicPanel(new_context().new_page(), e2e_app.url)
    log_in(viewer.page, e2e_app, VIEWER, "viewer")
    viewer.page.goto(e2e_app.path("/"))
    expect(viewer.page.get_by_text("No bots yet")).to_be_visible()
    expect(viewer.page.get_by_text("Ask an admin to create one.")).to_be_visible()
    expect(viewer.create_bot_link()).to_have_count(0)


def test_the_bot_select_switches_bots(page: Page, e2e_app: E2EApp) -> None:
    first_id, _ = make_bot(e2e_app, "ci")
    second_id, _ = make_bot(e2e_app, "alerts")
    seed(e2e_app, first_id, topic_key="ci", title="First bot's result")
    theirs = seed(e2e_app, second_id, topic_key="alerts", title="Second bot's result")
    with Session(e2e_app.engine) as session:
        second_name = next(bot.name for bot in list_bots(session=session) if bot.bot_id == second_id)
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, first_id)
    expect(panel.rows()).to_have_count(1)
    expect(panel.topic("alerts")).to_have_count(0)

    panel.bot_select().click()
    page.get_by_role("option", name=f"{second_name} · 1 unread", exact=True).click()  # with its unread count
    expect(panel.bot_select()).to_contain_text(second_name)
    expect(panel.row(theirs)).to_be_visible()
    expect(panel.rows()).to_have_count(1)
    expect(panel.topic("alerts")).to_be_visible()
    expect(panel.topic("ci")).to_have_count(0)
    expect(page).to_have_url(re.compile(rf"bot={second_id}"))


def test_on_a_phone_the_open_item_takes_the_screen_and_topics_are_a_menu(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    item = seed(e2e_app, bot_id, topic_key="ci", title="Build 7 passed")
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.phone_topic_picker()).to_be_visible()
    expect(panel.row(item)).to_be_visible()
    # The menu says what is unread, as the sidebar's badges do, and stays on the screen (a walkthrough's ran off)
    panel.phone_topic_picker().click()
    menu = page.get_by_role("listbox")
    expect(menu.get_by_role("option", name="Ci (1)", exact=True)).to_be_visible()
    expect(menu.get_by_role("option", name="Unread (1)", exact=True)).to_be_visible()
    box = menu.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    page.screenshot(path=str(screenshot_path("panel-phone-topic-menu.png")))
    page.keyboard.press("Escape")
    panel.row(item).click()
    expect(panel.detail_title()).to_have_text("Build 7 passed")
    expect(panel.item_list()).to_be_hidden()
    panel.close_button().click()
    expect(panel.row(item)).to_be_visible()


def test_a_row_tells_its_time_as_people_read_it(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough with a screen reader heard each row's raw timestamp ("2026-12-05T09:14:03.123456+00:00"):
    the row shows "just now" and reads it so; the machine form stays in the datetime attribute."""
    bot_id, _ = make_bot(e2e_app, "ci")
    item_id = seed(e2e_app, bot_id, topic_key="ci", title="Build 77 passed")
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    time = panel.row(item_id).locator("time")
    expect(time).to_have_attribute("data-td-text", "just now")
    stamp = time.get_attribute("datetime") or ""
    assert re.match(r"\d{4}-\d{2}-\d{2}T", stamp), stamp
    expect(panel.row(item_id)).to_have_accessible_name(re.compile(r"Build 77 passed.*just now"))
    expect(panel.row(item_id)).not_to_have_accessible_name(re.compile(re.escape(stamp[:10])))


def test_a_rows_snippet_reads_as_plain_text_in_the_list_and_in_a_search(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough saw **bold**, # headings, [links](url), backticks and list markers raw in the line
    under a row's title; a search result's line kept every mark. Both read as the words alone."""
    bot_id, _ = make_bot(e2e_app, "ci")
    markdown = (
        "## Nightly *summary*\n\n"
        "1. **guava** build [passed](https://ci.example/runs/7)\n"
        "2. `make test` green\n"
        "   - [x] lint\n\n"
        "> see the [runbook][rb]\n\n"
        "[rb]: https://ci.example/runbook"
    )
    item = seed(e2e_app, bot_id, topic_key="ci", title="Nightly report", content=markdown)
    plain = "Nightly summary guava build passed make test green lint see the runbook"
    page.set_viewport_size({"width": 1280, "height": 800})
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.row_snippet(item)).to_have_text(plain)
    page.screenshot(path=str(screenshot_path("row-snippet-plain.png")))

    panel.search("guava")
    expect(panel.row_search_hits(item)).to_have_text(["guava"])
    expect(panel.row_snippet(item)).to_have_text(plain)
    page.screenshot(path=str(screenshot_path("row-snippet-plain-search.png")))


def test_the_key_legend_shows_with_a_keyboard_but_not_on_a_touch_screen(
    e2e_app: E2EApp, new_context: CreateContextCallback
) -> None:
    """A walkthrough on a phone found the keyboard legend under the list, where there is no keyboard.
    A touch screen (no hover, a coarse pointer) shows neither the legend nor the detail pane's
    "? all shortcuts" and says only "Click an item."; a desktop with a mouse shows them all."""
    bot_id, _ = make_bot(e2e_app, "ci")
    item = seed(e2e_app, bot_id, topic_key="ci", title="Build 8 passed")
    for name, viewport in (("phone", {"width": 390, "height": 844}), ("tablet", {"width": 1024, "height": 768})):
        touch = TopicPanel(new_context(viewport=viewport, is_mobile=True, has_touch=True).new_page(), e2e_app.url)
        assert touch.page.evaluate("matchMedia('(hover: none) and (pointer: coarse)').matches")
        log_in(touch.page, e2e_app)
        touch.open(bot_id)
        expect(touch.row(item)).to_be_visible()
        expect(touch.key_hints()).to_be_hidden()
        expect(touch.all_shortcuts_hint()).to_be_hidden()
        if name == "tablet":  # a phone shows the detail pane only with an item open
            expect(touch.open_an_item_hint()).to_have_text("Click an item.", use_inner_text=True)
        touch.page.screenshot(path=str(screenshot_path(f"key-legend-touch-{name}.png")))

    desktop = TopicPanel(new_context(viewport={"width": 1280, "height": 800}).new_page(), e2e_app.url)
    log_in(desktop.page, e2e_app)
    desktop.open(bot_id)
    expect(desktop.row(item)).to_be_visible()
    expect(desktop.key_hints()).to_be_visible()
    expect(desktop.all_shortcuts_hint()).to_be_visible()
    expect(desktop.open_an_item_hint()).to_have_text(
        "Click an item, or move with j / k and open it with o.", use_inner_text=True
    )
    desktop.page.screenshot(path=str(screenshot_path("key-legend-desktop.png")))


def test_a_topic_with_nothing_unread_says_its_count_is_read(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough took a topic's grey total ("11") for 11 unread: a badge counts what is unread; once all is
    read the entry says so ("2 read"); an empty topic says 0."""
    bot_id, _ = make_bot(e2e_app, "ci", "deploys")
    for n in range(2):
        seed(e2e_app, bot_id, topic_key="ci", title=f"Build {n} passed")
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.topic_unread("ci")).to_have_text("2")
    panel.mark_all_read(2)
    expect(panel.topic_unread("ci")).to_have_count(0)
    expect(panel.topic("ci")).to_contain_text("2 read")
    expect(panel.topic("deploys")).to_contain_text("0")
    expect(panel.topic("deploys")).not_to_contain_text("read")


def test_a_link_to_an_item_shows_its_row_too(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough's ?item= link opened the item while its row stayed below the fold: the row is scrolled into
    view, marked as the open one."""
    bot_id, _ = make_bot(e2e_app, "ci")
    oldest = seed(e2e_app, bot_id, topic_key="ci", title="Build 0 passed")
    for n in range(1, 30):
        seed(e2e_app, bot_id, topic_key="ci", title=f"Build {n} passed")
    page.set_viewport_size({"width": 1280, "height": 640})
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id, f"&item={oldest}")
    expect(panel.detail_title()).to_have_text("Build 0 passed")
    expect(panel.row(oldest)).to_be_in_viewport()
