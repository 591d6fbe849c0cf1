"""#15 done-when: every capability of the reader, walked in a real browser in the light theme, the
dark theme and at phone size (one walk each, the way a person goes through them), each step acting
and checked against the database, not only on screen: the live stream and a burst of more than a
page (every stored item listed, none missing), then one too big for the list's window (the "N new
items" pill counts exactly the rest); per-person reading (a viewer's read, pin and archive change
nothing the admin sees); an alert the bot updates and a person resolves; search with marked hits;
mark all read on exactly one topic's view, the count it names, Undo; notifications delivered with
their sound and opening their item on a click, none for a muted topic; bulk selection, `x` and
archive, Move to topic…; CSV and JSON export equal to the screen and the database; the All bots
view; a topic's retention saved, its dry-run count, the purge (what someone pinned is kept). Each
step leaves a screenshot (`TD_SCREENSHOTS=docs/screenshots` refreshes the docs' pictures)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Literal

import pytest
from playwright.sync_api import Page, ViewportSize, expect
from pytest_playwright import CreateContextCallback
from sqlmodel import Session, col, select

from tests.e2e.accounts_support import unique
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.rules import RulesPage
from tests.e2e.pages.topic_panel import TopicPanel
from tests.e2e.topic_panel_support import (
    RECORDER,
    item_ids,
    log_in_to_panel,
    make_bot,
    mcp_publish,
    pinned_of,
    seed,
    team_unread,
    unread_of,
    user_id,
)
from topic_dashboard.models import TopicItem
from topic_dashboard.services.items import get_item
from topic_dashboard.topic_panel.state import LIST_WINDOW, PAGE_SIZE

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

Scheme = Literal["light", "dark"]
WALKS: dict[str, tuple[ViewportSize, Scheme]] = {
    "light": ({"width": 1400, "height": 900}, "light"),
    "dark": ({"width": 1400, "height": 900}, "dark"),
    "phone": ({"width": 390, "height": 844}, "dark"),
}


def _shot(page: Page, walk: str, step: str) -> None:
    page.screenshot(path=str(screenshot_path(f"walk-{walk}-{step}.png")))


@pytest.mark.parametrize("walk", list(WALKS))
def test_every_reader_capability_in_both_themes_and_at_phone_size(
    page: Page, new_context: CreateContextCallback, e2e_app: E2EApp, walk: str
) -> None:
    viewport, scheme = WALKS[walk]
    phone = viewport["width"] < 600
    user, viewer_name = unique(f"walk-{walk}"), unique(f"walk-{walk}-viewer")
    bot_id, token = make_bot(e2e_app, "ci", "alerts", rate_per_minute=10_000)
    cert = seed(e2e_app, bot_id, topic_key="alerts", title="Certificate expires in 20 days", level="warn")
    older = [
        seed(e2e_app, bot_id, topic_key="ci", title=f"Nightly build {n} passed", tags=["nightly"]) for n in range(3)
    ]
    page.context.add_init_script(RECORDER)
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size(viewport)
    panel = log_in_to_panel(page, e2e_app, user, "admin", bot_id)
    expect(panel.rows()).to_have_count(4)
    if phone:
        expect(panel.phone_topic_picker()).to_be_in_viewport()
    else:
        expect(panel.topic("alerts")).to_be_in_viewport()

    # 1. The live stream: what the bot publishes arrives at the top.
    failed, published = mcp_publish(e2e_app, token, topic_key="ci", title="Build 43 failed", content="**red**")
    assert not failed
    live = published["item_id"]
    expect(panel.rows().first).to_have_id(f"item-{live}")
    expect(panel.rows().first).to_have_class(re.compile(r"\bitem-unread\b"))
    _shot(page, walk, "1-stream")

    # 2. Reading state is the person's own: open (read), pin for yourself.
    expect(panel.open_item(live)).to_have_text("Build 43 failed")
    expect(panel.pin_button()).to_be_in_viewport()
    panel.toggle_pin()
    expect(panel.pin_button()).to_have_text("Unpin")
    _shot(page, walk, "2-detail-pinned")
    panel.close_item()
    expect(panel.row(live)).to_have_class(re.compile(r"\bitem-read\b"))
    expect(panel.row_pin(live)).to_have_count(1)
    # ...and a viewer's, in the same theme and size: reading, pinning and archiving change nothing the
    # admin sees (checked once the admin's panel has polled again, in step 3).
    viewer = _viewer_reads_pins_and_archives(new_context, e2e_app, walk, viewer_name, bot_id, cert, older[1])

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
    expect(panel.row(alert["item_id"])).to_be_visible()  # the admin's panel polled after the viewer's changes
    expect(panel.row(cert)).to_have_class(re.compile(r"\bitem-unread\b"))
    expect(panel.row_pin(cert)).to_have_count(0)
    expect(panel.row(older[1])).to_be_visible()
    assert unread_of(e2e_app, bot_id, user) == {cert, *older, alert["item_id"]}
    assert unread_of(e2e_app, bot_id, viewer_name) == {*older, live, alert["item_id"]} - {older[1]}
    assert pinned_of(e2e_app, bot_id, item_ids(e2e_app, bot_id), user) == {live}
    assert pinned_of(e2e_app, bot_id, item_ids(e2e_app, bot_id), viewer_name) == {cert}
    viewer.context.close()
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
    expect(panel.row_title(alert["item_id"])).to_have_text("Disk 97% on db-2")
    expect(panel.row_updated(alert["item_id"])).to_be_visible()
    panel.open_item(alert["item_id"])
    panel.resolve_button().click()
    expect(panel.resolved_mark()).to_be_visible()
    _shot(page, walk, "3-alert-resolved")
    panel.close_item()
    expect(panel.row_resolved(alert["item_id"])).to_be_visible()

    # 4. Search, hits marked.
    panel.search_input().fill("nightly")
    expect(panel.rows()).to_have_count(3)
    expect(panel.search_hits().first).to_be_visible()
    _shot(page, walk, "4-search")
    panel.clear_search()
    expect(panel.rows()).to_have_count(6)

    # 5. Mark all read in one topic's view: it names that view's unread count, marks exactly those for
    # this person (the unread alert in another topic stays unread), and Undo restores them.
    _show_view(panel, phone, "topic:ci", "Ci")
    expect(panel.rows()).to_have_count(4)
    expect(panel.ask_mark_all_read()).to_contain_text("Mark 3 items read?")
    expect(panel.mark_read_ok_button()).to_be_in_viewport()
    _shot(page, walk, "5-mark-all-read")
    panel.confirm_mark_all_read()
    expect(page.get_by_text("Marked 3 items read")).to_be_visible()
    expect(panel.unread_rows()).to_have_count(0)
    assert unread_of(e2e_app, bot_id, user) == {cert}
    panel.undo()
    expect(panel.unread_rows()).to_have_count(3)
    assert unread_of(e2e_app, bot_id, user) == {cert, *older}
    assert team_unread(e2e_app, bot_id) == {cert, *older, live, alert["item_id"]}  # nobody else's reading moved
    _show_view(panel, phone, "all", "All items")
    expect(panel.rows()).to_have_count(6)

    # 6. Notifications: this person's, this browser's; delivered in the background with the chime
    # switched on, a muted topic not; a click on one opens its item.
    panel.open_notifications()
    expect(panel.notify_enabled()).to_be_in_viewport()
    expect(panel.notify_topic("alerts")).to_be_visible()
    panel.notify_enabled().click()
    expect(panel.notify_enabled()).to_have_attribute("aria-checked", "true")
    panel.notify_sound().click()
    expect(panel.notify_sound()).to_have_attribute("aria-checked", "true")
    panel.notify_topic("ci").click()
    expect(panel.notify_topic("ci")).to_have_attribute("aria-checked", "false")
    _shot(page, walk, "6-notifications")
    page.keyboard.press("Escape")
    page.evaluate("window.__tdHidden = true")
    failed, muted = mcp_publish(e2e_app, token, topic_key="ci", title="muted build", content="x")
    assert not failed
    failed, loud = mcp_publish(e2e_app, token, topic_key="alerts", title="Queue backlog 5k", content="x", level="warn")
    assert not failed
    expect(panel.row(loud["item_id"])).to_be_visible()
    page.wait_for_function("window.__notes.length >= 1")
    assert [note["title"] for note in page.evaluate("window.__notes")] == ["Alerts: Queue backlog 5k"]
    assert page.evaluate("[window.__batches, window.__tones]") == [[1], 1]  # one chime for the one poll
    page.evaluate("window.__tdHidden = false")
    page.evaluate("window.__shown[0].onclick()")
    expect(panel.detail_title()).to_have_text("Queue backlog 5k")
    panel.close_item()
    expect(panel.row(loud["item_id"])).to_have_class(re.compile(r"\bitem-read\b"))

    # Move to topic…: the muted build belongs with the alerts (read by opening it, as before).
    expect(panel.open_item(muted["item_id"])).to_have_text("muted build")
    panel.move_button().click()
    expect(panel.move_popover()).to_be_in_viewport()
    panel.choose_move_target("Alerts")
    panel.move_confirm().click()
    expect(panel.toast("Moved to Alerts")).to_be_visible()
    expect(panel.detail_topic()).to_have_text("alerts")
    assert _topics_of(e2e_app, [muted["item_id"]]) == {muted["item_id"]: "alerts"}
    _shot(page, walk, "6-moved")
    panel.detail_close_button().click()
    expect(panel.detail_title()).to_have_count(0)

    # 7. Bulk: tick rows, the bar offers what to do, Move… among it.
    panel.row_checkbox(older[2]).click()
    panel.row_checkbox(older[0]).click(modifiers=["Shift"])
    expect(panel.bulk_count()).to_have_text("3 selected")
    expect(panel.bulk_move_button()).to_be_in_viewport()
    _shot(page, walk, "7-bulk")
    panel.bulk_read().click()
    expect(panel.bulk_bar()).to_have_count(0)
    expect(panel.unread_rows()).to_have_count(1)
    assert unread_of(e2e_app, bot_id, user) == {cert}
    # x ticks the cursor's row; archived for this person, it leaves their list only.
    panel.heading().click()
    page.keyboard.press("j")
    marked = panel.cursor_row()
    archived = int((marked.get_attribute("id") or "").removeprefix("item-"))
    page.keyboard.press("x")
    expect(panel.bulk_count()).to_have_text("1 selected")
    panel.bulk_archive().click()
    expect(panel.row(archived)).to_have_count(0)
    reader = user_id(e2e_app, user)
    with Session(e2e_app.engine) as session:
        team = session.get(TopicItem, archived)
        assert team is not None and not team.is_archived
        assert get_item(session=session, bot_id=bot_id, item_id=archived, reader=reader).is_archived

    # 8. Export what the view shows: the rows on screen, each as the database stores it.
    panel.export_button("view").click()
    with page.expect_download() as download:
        panel.export_button("csv").click()
    text = Path(download.value.path()).read_text(encoding="utf-8-sig")
    exported = list(csv.DictReader(io.StringIO(text)))
    shown = panel.shown_ids()
    assert [int(row["id"]) for row in exported] == shown
    assert archived not in shown and len(shown) == 7
    if panel.export_button("csv").count():
        page.keyboard.press("Escape")  # the menu may stay open after a download
    expect(panel.export_button("csv")).to_have_count(0)
    panel.export_button("view").click()
    with page.expect_download() as download:
        panel.export_button("json").click()
    as_json = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert [row["id"] for row in as_json] == shown
    assert {row["id"]: row["topic_key"] for row in as_json} == _topics_of(e2e_app, shown)
    assert {row["id"]: row["title"] for row in as_json}[muted["item_id"]] == "muted build"

    # 9. All bots: every bot's items, each row naming its bot.
    page.goto(e2e_app.path("/?bot=*"))
    expect(panel.heading()).to_have_text("All bots")
    expect(panel.row_bot(shown[0])).to_be_visible()
    _shot(page, walk, "8-all-bots")

    # 10. A topic's retention, on the Rules page.
    page.goto(e2e_app.path(f"/rules?bot={bot_id}"))
    rules = RulesPage(page, e2e_app.url)
    rules.rule_row("alerts").click()
    rules.open_retention()
    expect(rules.retention_dry_run()).to_contain_text("This topic keeps everything.")
    expect(rules.save_retention_button()).to_be_in_viewport()
    _shot(page, walk, "9-retention")
    # Keep the newest 1 of alerts: of the three older ones, the viewer's pinned certificate is kept, the
    # other two are counted by the dry run and purged on request.
    rules.keep_items().fill("1")
    rules.save_retention()
    expect(page.get_by_text("Retention of 'alerts' saved")).to_be_visible()
    expect(rules.retention_dry_run()).to_contain_text("2 items are outside the saved retention")
    assert len(_topics_of(e2e_app, [cert, alert["item_id"], muted["item_id"]])) == 3  # saving deleted nothing
    expect(rules.purge_button()).to_be_in_viewport()
    rules.purge_now()
    expect(page.get_by_text("Purged 2 items of 'alerts'")).to_be_visible()
    with Session(e2e_app.engine) as session:
        left = session.exec(select(TopicItem.id).where(TopicItem.bot_id == bot_id, TopicItem.topic_key == "alerts"))
        assert set(left) == {cert, loud["item_id"]}
    expect(rules.retention_dry_run()).to_contain_text("Nothing is outside the saved retention now.")
    _shot(page, walk, "9-retention-purged")

    # 11. Bursts while the panel is open: more than a page joins the list whole; one too big for the
    # list's window leaves the list as it was and the pill counts exactly the rest, which it then shows.
    panel.open(bot_id)
    _burst_reaches_the_list_and_the_pill_counts_the_rest(panel, e2e_app, bot_id, walk, hidden={archived})


def _topics_of(app: E2EApp, item_ids: list[int]) -> dict[int, str]:
    """The stored topic of each of the items that still exist."""
    with Session(app.engine) as session:
        found = session.exec(select(TopicItem.id, TopicItem.topic_key).where(col(TopicItem.id).in_(item_ids)))
        return {item_id: topic_key for item_id, topic_key in found if item_id is not None}


def _show_view(panel: TopicPanel, phone: bool, view: str, name: str) -> None:
    """Choose a view as a person does at this size: the sidebar (a view or a topic), or on a phone the
    topic menu."""
    if phone:
        panel.choose_phone_view(name)
    else:
        panel.view(view)
    expect(panel.heading()).to_have_text(name)


def _viewer_reads_pins_and_archives(
    new_context: CreateContextCallback, app: E2EApp, walk: str, username: str, bot_id: str, pin: int, archive: int
) -> Page:
    """A viewer, in the walk's theme and size, opens (reads) and pins `pin` and archives `archive`."""
    viewport, scheme = WALKS[walk]
    viewer = new_context(viewport=viewport, color_scheme=scheme).new_page()
    panel = log_in_to_panel(viewer, app, username, "viewer", bot_id)
    expect(panel.open_item(pin)).to_have_text("Certificate expires in 20 days")
    panel.toggle_pin()
    expect(panel.pin_button()).to_have_text("Unpin")
    expect(panel.team_menu()).to_have_count(0)  # "for everyone" is an admin's
    panel.close_item()
    expect(panel.row(pin)).to_have_class(re.compile(r"\bitem-read\b"))
    expect(panel.row_pin(pin)).to_have_count(1)
    expect(panel.open_item(archive)).to_have_text("Nightly build 1 passed")
    panel.archive_button().click()
    expect(panel.row(archive)).to_have_count(0)
    _shot(viewer, walk, "2-viewer-own-state")
    return viewer


def _burst_reaches_the_list_and_the_pill_counts_the_rest(
    panel: TopicPanel, app: E2EApp, bot_id: str, walk: str, hidden: set[int]
) -> None:
    """More than a page (PAGE_SIZE) published at once reaches the open list whole: the list is the
    database's items, newest first. Then more than the window has room for: the list keeps what it
    took (no hole: every stored item up to its first row), the pill counts every newer one, and a
    click on it shows the newest page, then Load more the next."""

    def stored() -> list[int]:
        return [item_id for item_id in item_ids(app, bot_id) if item_id not in hidden]

    expect(panel.rows()).to_have_count(len(stored()))
    for n in range(PAGE_SIZE + 5):
        seed(app, bot_id, topic_key="inbox", title=f"burst {n}")
    expected = stored()
    expect(panel.rows()).to_have_count(len(expected))
    assert panel.shown_ids() == expected
    for n in range(LIST_WINDOW - len(expected) + 10):
        seed(app, bot_id, topic_key="inbox", title=f"flood {n}")
    expected = stored()
    pill = panel.new_items_pill()
    # A flood of ~470 items, shown as it arrives: each step redraws the whole list (up to 500 rows). The pill
    # shows 0.6-1.3 s after the last item with two busy processes beside the suite, but CI once took over 15 s
    # when another suite and a PyTorch training shared the two cores; this checks that the pill comes and
    # counts right, not how fast (that is bench/'s: docs/PERFORMANCE.md).
    expect(pill).to_be_visible(timeout=60_000)
    first_shown = panel.shown_ids()[0]
    newer = [item_id for item_id in expected if item_id > first_shown]
    expect(pill).to_have_text(f"{len(newer)} new items")  # after the poll that followed the last item
    assert newer and panel.shown_ids() == [item_id for item_id in expected if item_id <= first_shown]
    _shot(panel.page, walk, "10-new-items-pill")
    pill.click()
    expect(pill).to_have_count(0)
    expect(panel.rows()).to_have_count(PAGE_SIZE)
    expect(panel.rows().first).to_have_id(f"item-{expected[0]}")
    assert panel.shown_ids() == expected[:PAGE_SIZE]
    panel.load_more()
    expect(panel.rows()).to_have_count(2 * PAGE_SIZE)
    assert panel.shown_ids() == expected[: 2 * PAGE_SIZE]
