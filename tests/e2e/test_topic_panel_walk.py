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
from tests.e2e.topic_panel_support import (
    RECORDER,
    choose_move_target,
    item_ids,
    log_in_to_panel,
    make_bot,
    mcp_publish,
    open_panel,
    pinned_of,
    rows,
    seed,
    shown_ids,
    team_unread,
    toast_saying,
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


def _close_detail(page: Page) -> None:
    page.keyboard.press("Escape")
    expect(page.locator("#detail-title")).to_have_count(0)


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
    log_in_to_panel(page, e2e_app, user, "admin", bot_id)
    expect(rows(page)).to_have_count(4)
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
    alert_row = page.locator(f"#item-{alert['item_id']}")
    expect(alert_row).to_be_visible()  # the admin's panel polled after the viewer's changes
    expect(page.locator(f"#item-{cert}")).to_have_class(re.compile(r"\bitem-unread\b"))
    expect(page.locator(f"#item-{cert} svg.lucide-pin")).to_have_count(0)
    expect(page.locator(f"#item-{older[1]}")).to_be_visible()
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
    expect(rows(page)).to_have_count(6)

    # 5. Mark all read in one topic's view: it names that view's unread count, marks exactly those for
    # this person (the unread alert in another topic stays unread), and Undo restores them.
    _show_view(page, phone, "topic:ci", "Ci")
    expect(rows(page)).to_have_count(4)
    page.locator("#mark-all-read").click()
    expect(page.locator("#mark-read-confirm")).to_contain_text("Mark 3 items read?")
    expect(page.locator("#mark-read-ok")).to_be_in_viewport()
    _shot(page, walk, "5-mark-all-read")
    page.locator("#mark-read-ok").click()
    expect(page.get_by_text("Marked 3 items read")).to_be_visible()
    expect(page.locator("#item-list .item-unread")).to_have_count(0)
    assert unread_of(e2e_app, bot_id, user) == {cert}
    page.get_by_role("button", name="Undo").click()
    expect(page.locator("#item-list .item-unread")).to_have_count(3)
    assert unread_of(e2e_app, bot_id, user) == {cert, *older}
    assert team_unread(e2e_app, bot_id) == {cert, *older, live, alert["item_id"]}  # nobody else's reading moved
    _show_view(page, phone, "all", "All items")
    expect(rows(page)).to_have_count(6)

    # 6. Notifications: this person's, this browser's; delivered in the background with the chime
    # switched on, a muted topic not; a click on one opens its item.
    page.locator("#notify-button").click()
    expect(page.locator("#notify-enabled")).to_be_in_viewport()
    expect(page.locator("#notify-topic-alerts")).to_be_visible()
    page.locator("#notify-enabled").click()
    expect(page.locator("#notify-enabled")).to_have_attribute("aria-checked", "true")
    page.locator("#notify-sound").click()
    expect(page.locator("#notify-sound")).to_have_attribute("aria-checked", "true")
    page.locator("#notify-topic-ci").click()
    expect(page.locator("#notify-topic-ci")).to_have_attribute("aria-checked", "false")
    _shot(page, walk, "6-notifications")
    page.keyboard.press("Escape")
    page.evaluate("window.__tdHidden = true")
    failed, muted = mcp_publish(e2e_app, token, topic_key="ci", title="muted build", content="x")
    assert not failed
    failed, loud = mcp_publish(e2e_app, token, topic_key="alerts", title="Queue backlog 5k", content="x", level="warn")
    assert not failed
    expect(page.locator(f"#item-{loud['item_id']}")).to_be_visible()
    page.wait_for_function("window.__notes.length >= 1")
    assert [note["title"] for note in page.evaluate("window.__notes")] == ["Alerts: Queue backlog 5k"]
    assert page.evaluate("[window.__batches, window.__tones]") == [[1], 1]  # one chime for the one poll
    page.evaluate("window.__tdHidden = false")
    page.evaluate("window.__shown[0].onclick()")
    expect(page.locator("#detail-title")).to_have_text("Queue backlog 5k")
    _close_detail(page)
    expect(page.locator(f"#item-{loud['item_id']}")).to_have_class(re.compile(r"\bitem-read\b"))

    # Move to topic…: the muted build belongs with the alerts (read by opening it, as before).
    page.locator(f"#item-{muted['item_id']} .item-title").click()
    expect(page.locator("#detail-title")).to_have_text("muted build")
    page.locator("#detail-move").click()
    expect(page.locator("#move-popover")).to_be_in_viewport()
    choose_move_target(page, "Alerts")
    page.locator("#move-confirm").click()
    expect(toast_saying(page, "Moved to Alerts")).to_be_visible()
    expect(page.locator("#detail-topic")).to_have_text("alerts")
    assert _topics_of(e2e_app, [muted["item_id"]]) == {muted["item_id"]: "alerts"}
    _shot(page, walk, "6-moved")
    page.locator("#detail-column").get_by_role("button", name="Close", exact=True).click()
    expect(page.locator("#detail-title")).to_have_count(0)

    # 7. Bulk: tick rows, the bar offers what to do, Move… among it.
    page.locator(f"#item-{older[2]} .row-select").click()
    page.locator(f"#item-{older[0]} .row-select").click(modifiers=["Shift"])
    expect(page.locator("#bulk-count")).to_have_text("3 selected")
    expect(page.locator("#bulk-move")).to_be_in_viewport()
    _shot(page, walk, "7-bulk")
    page.locator("#bulk-read").click()
    expect(page.locator("#bulk-bar")).to_have_count(0)
    expect(page.locator("#item-list .item-unread")).to_have_count(1)
    assert unread_of(e2e_app, bot_id, user) == {cert}
    # x ticks the cursor's row; archived for this person, it leaves their list only.
    page.locator("#stream-heading").click()
    page.keyboard.press("j")
    marked = page.locator("#item-list [data-td-cursor]")
    archived = int((marked.get_attribute("id") or "").removeprefix("item-"))
    page.keyboard.press("x")
    expect(page.locator("#bulk-count")).to_have_text("1 selected")
    page.locator("#bulk-archive").click()
    expect(page.locator(f"#item-{archived}")).to_have_count(0)
    reader = user_id(e2e_app, user)
    with Session(e2e_app.engine) as session:
        team = session.get(TopicItem, archived)
        assert team is not None and not team.is_archived
        assert get_item(session=session, bot_id=bot_id, item_id=archived, reader=reader).is_archived

    # 8. Export what the view shows: the rows on screen, each as the database stores it.
    page.locator("#export-view").click()
    with page.expect_download() as download:
        page.locator("#export-csv").click()
    text = Path(download.value.path()).read_text(encoding="utf-8-sig")
    exported = list(csv.DictReader(io.StringIO(text)))
    shown = shown_ids(page)
    assert [int(row["id"]) for row in exported] == shown
    assert archived not in shown and len(shown) == 7
    if page.locator("#export-csv").count():
        page.keyboard.press("Escape")  # the menu may stay open after a download
    expect(page.locator("#export-csv")).to_have_count(0)
    page.locator("#export-view").click()
    with page.expect_download() as download:
        page.locator("#export-json").click()
    as_json = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert [row["id"] for row in as_json] == shown
    assert {row["id"]: row["topic_key"] for row in as_json} == _topics_of(e2e_app, shown)
    assert {row["id"]: row["title"] for row in as_json}[muted["item_id"]] == "muted build"

    # 9. All bots: every bot's items, each row naming its bot.
    page.goto(e2e_app.path("/?bot=*"))
    expect(page.locator("#stream-heading")).to_have_text("All bots")
    expect(page.locator(f"#item-{shown[0]} .row-bot")).to_be_visible()
    _shot(page, walk, "8-all-bots")

    # 10. A topic's retention, on the Rules page.
    page.goto(e2e_app.path(f"/rules?bot={bot_id}"))
    page.locator("#rule-row-alerts").click()
    page.locator("#rule-retention").click()
    expect(page.locator("#retention-dry-run")).to_contain_text("This topic keeps everything.")
    expect(page.locator("#retention-save")).to_be_in_viewport()
    _shot(page, walk, "9-retention")
    # Keep the newest 1 of alerts: of the three older ones, the viewer's pinned certificate is kept, the
    # other two are counted by the dry run and purged on request.
    page.locator("#keep-items").fill("1")
    page.locator("#retention-save").click()
    expect(page.get_by_text("Retention of 'alerts' saved")).to_be_visible()
    expect(page.locator("#retention-dry-run")).to_contain_text("2 items are outside the saved retention")
    assert len(_topics_of(e2e_app, [cert, alert["item_id"], muted["item_id"]])) == 3  # saving deleted nothing
    expect(page.locator("#retention-purge")).to_be_in_viewport()
    page.locator("#retention-purge").click()
    expect(page.get_by_text("Purged 2 items of 'alerts'")).to_be_visible()
    with Session(e2e_app.engine) as session:
        left = session.exec(select(TopicItem.id).where(TopicItem.bot_id == bot_id, TopicItem.topic_key == "alerts"))
        assert set(left) == {cert, loud["item_id"]}
    expect(page.locator("#retention-dry-run")).to_contain_text("Nothing is outside the saved retention now.")
    _shot(page, walk, "9-retention-purged")

    # 11. Bursts while the panel is open: more than a page joins the list whole; one too big for the
    # list's window leaves the list as it was and the pill counts exactly the rest, which it then shows.
    open_panel(page, e2e_app, bot_id)
    _burst_reaches_the_list_and_the_pill_counts_the_rest(page, e2e_app, bot_id, walk, hidden={archived})


def _topics_of(app: E2EApp, item_ids: list[int]) -> dict[int, str]:
    """The stored topic of each of the items that still exist."""
    with Session(app.engine) as session:
        found = session.exec(select(TopicItem.id, TopicItem.topic_key).where(col(TopicItem.id).in_(item_ids)))
        return {item_id: topic_key for item_id, topic_key in found if item_id is not None}


def _show_view(page: Page, phone: bool, view: str, name: str) -> None:
    """Choose a view as a person does at this size: the sidebar, or on a phone the topic menu."""
    if phone:
        page.locator("#mobile-topic-picker").click()
        page.get_by_role("option", name=name, exact=True).click()
    elif view.startswith("topic:"):
        page.locator(f"#topic-{view.removeprefix('topic:')}").click()
    else:
        page.locator(f"#view-{view}").click()
    expect(page.locator("#stream-heading")).to_have_text(name)


def _viewer_reads_pins_and_archives(
    new_context: CreateContextCallback, app: E2EApp, walk: str, username: str, bot_id: str, pin: int, archive: int
) -> Page:
    """A viewer, in the walk's theme and size, opens (reads) and pins `pin` and archives `archive`."""
    viewport, scheme = WALKS[walk]
    viewer = new_context(viewport=viewport, color_scheme=scheme).new_page()
    log_in_to_panel(viewer, app, username, "viewer", bot_id)
    viewer.locator(f"#item-{pin} .item-title").click()
    expect(viewer.locator("#detail-title")).to_have_text("Certificate expires in 20 days")
    viewer.locator("#detail-toggle-pin").click()
    expect(viewer.locator("#detail-toggle-pin")).to_have_text("Unpin")
    expect(viewer.locator("#detail-team")).to_have_count(0)  # "for everyone" is an admin's
    _close_detail(viewer)
    expect(viewer.locator(f"#item-{pin}")).to_have_class(re.compile(r"\bitem-read\b"))
    expect(viewer.locator(f"#item-{pin} svg.lucide-pin")).to_have_count(1)
    viewer.locator(f"#item-{archive} .item-title").click()
    expect(viewer.locator("#detail-title")).to_have_text("Nightly build 1 passed")
    viewer.locator("#detail-toggle-archive").click()
    expect(viewer.locator(f"#item-{archive}")).to_have_count(0)
    _shot(viewer, walk, "2-viewer-own-state")
    return viewer


def _burst_reaches_the_list_and_the_pill_counts_the_rest(
    page: Page, app: E2EApp, bot_id: str, walk: str, hidden: set[int]
) -> None:
    """More than a page (PAGE_SIZE) published at once reaches the open list whole: the list is the
    database's items, newest first. Then more than the window has room for: the list keeps what it
    took (no hole: every stored item up to its first row), the pill counts every newer one, and a
    click on it shows the newest page, then Load more the next."""

    def stored() -> list[int]:
        return [item_id for item_id in item_ids(app, bot_id) if item_id not in hidden]

    expect(rows(page)).to_have_count(len(stored()))
    for n in range(PAGE_SIZE + 5):
        seed(app, bot_id, topic_key="inbox", title=f"burst {n}")
    expected = stored()
    expect(rows(page)).to_have_count(len(expected))
    assert shown_ids(page) == expected
    for n in range(LIST_WINDOW - len(expected) + 10):
        seed(app, bot_id, topic_key="inbox", title=f"flood {n}")
    expected = stored()
    pill = page.locator("#new-items-pill")
    expect(pill).to_be_visible(timeout=15_000)  # a flood of ~470 items, shown as it arrives
    first_shown = shown_ids(page)[0]
    newer = [item_id for item_id in expected if item_id > first_shown]
    expect(pill).to_have_text(f"{len(newer)} new items")  # after the poll that followed the last item
    assert newer and shown_ids(page) == [item_id for item_id in expected if item_id <= first_shown]
    _shot(page, walk, "10-new-items-pill")
    pill.click()
    expect(pill).to_have_count(0)
    expect(rows(page)).to_have_count(PAGE_SIZE)
    expect(rows(page).first).to_have_id(f"item-{expected[0]}")
    assert shown_ids(page) == expected[:PAGE_SIZE]
    page.locator("#load-more").click()
    expect(rows(page)).to_have_count(2 * PAGE_SIZE)
    assert shown_ids(page) == expected[: 2 * PAGE_SIZE]
