"""Browser notifications (#15): opt-in (the browser asks), per person and browser (kept across a
reload), by level and per topic, shown only while the tab is in the background; a click opens the
item. The browser's Notification is replaced by a recorder (headless Chromium shows none), and the
tab's hidden state is driven by the test."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from pytest_playwright import CreateContextCallback
from sqlmodel import Session

from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.topic_panel_support import ADMIN, RECORDER, log_in, make_bot, open_panel, seed
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.topic_panel.state import NOTIFY_AT_ONCE

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]


def _notes(page: Page) -> list[dict[str, str]]:
    return page.evaluate("window.__notes")


def test_notifications_are_opt_in_by_level_and_topic_and_only_in_the_background(
    new_context: CreateContextCallback, e2e_app: E2EApp
) -> None:
    bot_id, _ = make_bot(e2e_app, "ci", "alerts")
    context = new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script(RECORDER)
    page = context.new_page()
    log_in(page, e2e_app, ADMIN)
    panel = open_panel(page, e2e_app, bot_id)
    rows = panel.rows()

    # Off by default: nothing is shown.
    page.evaluate("window.__tdHidden = true")
    seed(e2e_app, bot_id, topic_key="alerts", title="before opting in", level="error")
    expect(rows).to_have_count(1)
    assert _notes(page) == []

    # Opting in asks the browser; a refusal says what to do and leaves it off.
    page.evaluate("window.__answer = 'denied'")
    panel.open_notifications()
    panel.notify_enabled().click()
    expect(page.get_by_text("blocks notifications")).to_be_visible()
    expect(panel.notify_enabled()).to_have_attribute("aria-checked", "false")
    page.evaluate("window.__answer = 'granted'")
    panel.notify_enabled().click()
    expect(panel.notify_enabled()).to_have_attribute("aria-checked", "true")
    panel.choose_notify_level("Warnings and errors")
    panel.notify_topic("ci").click()  # mute ci
    expect(panel.notify_topic("ci")).to_have_attribute("aria-checked", "false")
    page.screenshot(path=str(screenshot_path("panel-notifications.png")))
    page.keyboard.press("Escape")

    seed(e2e_app, bot_id, topic_key="alerts", title="Disk 97% on db-2", content="**act now**", level="error")
    seed(e2e_app, bot_id, topic_key="alerts", title="nightly summary", level="info")  # below the level
    seed(e2e_app, bot_id, topic_key="ci", title="Build 42 failed", level="error")  # muted topic
    expect(rows).to_have_count(4)
    page.wait_for_function("window.__notes.length >= 1")
    assert _notes(page) == [{"title": "Alerts: Disk 97% on db-2", "body": "act now"}]

    # In front, the list shows it: no notification.
    page.evaluate("window.__tdHidden = false")
    seed(e2e_app, bot_id, topic_key="alerts", title="visible tab", level="error")
    expect(rows).to_have_count(5)
    assert len(_notes(page)) == 1

    # The choice is this browser's: kept across a reload.
    page.reload()
    expect(panel.heading()).to_be_visible()
    panel.open_notifications()
    expect(panel.notify_enabled()).to_have_attribute("aria-checked", "true")
    expect(panel.notify_topic("ci")).to_have_attribute("aria-checked", "false")


def test_a_burst_notifies_at_most_five_plus_a_summary_the_sound_is_opt_in_and_a_click_opens_the_item(
    new_context: CreateContextCallback, e2e_app: E2EApp
) -> None:
    """20 items at once in the background: no poll shows more than five single notifications, the
    rest arrive as "N more new items", and together they account for all 20. The chime plays only
    once the person switches the sound on. Clicking a notification opens its item in the panel."""
    bot_id, _ = make_bot(e2e_app, "ci")
    context = new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script(RECORDER)
    page = context.new_page()
    log_in(page, e2e_app, ADMIN)
    panel = open_panel(page, e2e_app, bot_id)
    rows = panel.rows()
    panel.open_notifications()
    panel.notify_enabled().click()
    expect(panel.notify_enabled()).to_have_attribute("aria-checked", "true")
    expect(panel.notify_sound()).to_have_attribute("aria-checked", "false")
    page.keyboard.press("Escape")
    page.evaluate("window.__tdHidden = true")

    first = seed(e2e_app, bot_id, topic_key="ci", title="one quiet item")
    page.wait_for_function("window.__notes.length >= 1")
    assert page.evaluate("window.__tones") == 0  # no sound unless switched on

    panel.open_notifications()
    panel.notify_sound().click()
    expect(panel.notify_sound()).to_have_attribute("aria-checked", "true")
    page.keyboard.press("Escape")
    page.evaluate("window.__notes = []; window.__shown = []; window.__batches = []")
    burst = [seed(e2e_app, bot_id, topic_key="ci", title=f"burst {n}") for n in range(20)]
    expect(rows).to_have_count(21)
    page.wait_for_function(
        """() => window.__notes.reduce((sum, n) => {
             const more = /^(\\d+) more new items$/.exec(n.title);
             return sum + (more ? Number(more[1]) : 1);
           }, 0) >= 20"""
    )
    notes = page.evaluate("window.__notes")
    batches = page.evaluate("window.__batches")
    summaries = [note for note in notes if note["title"].endswith("more new items")]
    singles = [note for note in notes if note not in summaries]
    assert summaries, notes  # 20 items in at most a few polls: at least one poll had more than five
    assert all(size <= NOTIFY_AT_ONCE + 1 for size in batches), batches
    assert len(singles) + sum(int(note["title"].split()[0]) for note in summaries) == 20
    assert {note["title"] for note in singles} <= {f"Ci: burst {n}" for n in range(20)}
    assert page.evaluate("window.__tones") == len(batches)  # one chime per poll that notified

    # A click on a single notification opens its item.
    index = next(i for i, note in enumerate(notes) if note in singles)
    title = notes[index]["title"].removeprefix("Ci: ")
    page.evaluate(f"window.__shown[{index}].onclick()")
    expect(panel.detail_title()).to_have_text(title)
    assert burst[int(title.split()[1])] > first


def _publish_at_once(app: E2EApp, bot_id: str, titles: list[str]) -> None:
    """Publish through the publishing service, every item in one outer transaction: they become visible
    together, as a burst between two refreshes of an open panel does (each publish's own commit only
    releases a savepoint; SQLAlchemy's "join an external transaction")."""
    with app.engine.connect() as connection:
        outer = connection.begin()
        with Session(bind=connection, join_transaction_mode="create_savepoint") as session:
            for title in titles:
                publish_item(
                    session=session,
                    bot_id=bot_id,
                    source="system",
                    request=PublishRequest(topic_key="ci", title=title, content=""),
                )
        outer.commit()


def test_a_burst_between_two_polls_is_counted_whole_by_the_summary(
    new_context: CreateContextCallback, e2e_app: E2EApp
) -> None:
    """120 items between two refreshes of the panel (committed together, so exactly one refresh sees
    them): five single notifications of the newest and "115 more new items", accounting for all 120
    (the summary once counted only the 50 items a refresh reads for the single ones: "45 more")."""
    bot_id, _ = make_bot(e2e_app, "ci", rate_per_minute=10_000)
    context = new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script(RECORDER)
    page = context.new_page()
    log_in(page, e2e_app, ADMIN)
    panel = open_panel(page, e2e_app, bot_id)
    rows = panel.rows()
    panel.open_notifications()
    panel.notify_enabled().click()
    expect(panel.notify_enabled()).to_have_attribute("aria-checked", "true")
    page.keyboard.press("Escape")
    seed(e2e_app, bot_id, topic_key="ci", title="armed")  # the first refresh after opting in arms the notifier
    expect(rows).to_have_count(1)
    page.evaluate("window.__tdHidden = true")
    # One refresh seen through to its notification: none is on its way when the burst is published.
    seed(e2e_app, bot_id, topic_key="ci", title="before the burst")
    expect(rows).to_have_count(2)
    page.wait_for_function("window.__batches.length >= 1")
    page.evaluate("window.__notes = []; window.__batches = []")
    _publish_at_once(e2e_app, bot_id, [f"burst {n}" for n in range(120)])
    expect(rows).to_have_count(122)  # the refresh that lists them notifies of them
    page.wait_for_function("window.__batches.length >= 1")
    notes = _notes(page)
    assert page.evaluate("window.__batches") == [NOTIFY_AT_ONCE + 1]
    assert [note["title"] for note in notes[:NOTIFY_AT_ONCE]] == [f"Ci: burst {n}" for n in range(119, 114, -1)]
    assert notes[-1]["title"] == f"{120 - NOTIFY_AT_ONCE} more new items"
