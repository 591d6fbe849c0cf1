"""#17 target 3: the panel stays responsive while 100 items/s arrive. A bot's items are published at 100
per second for 8 s (800 items: more than the list's window of 500) while a person presses j/k in the
open panel. Checks: every press answered; the DOM stays bounded (at most LIST_WINDOW rows); no item is
missing (the rows shown are the newest ones, without a gap, and the "N new items" pill counts exactly
the rest). Prints the key-to-cursor latency during the ingest against the same keys before it, in the
same run (`pytest -s`; docs/PERFORMANCE.md); the figure is not asserted (no timed tests)."""

from __future__ import annotations

import statistics
import threading
import time

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session

from tests.e2e.conftest import E2EApp
from tests.e2e.pages.topic_panel import TopicPanel
from tests.e2e.topic_panel_support import ADMIN, CURSOR_LATENCY, item_ids, log_in, make_bot, open_panel, p95
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.topic_panel.state import LIST_WINDOW

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

RATE = 100  # items per second
SECONDS = 8


def _ingest(app: E2EApp, bot_id: str, done: threading.Event) -> None:
    started = time.monotonic()
    with Session(app.engine) as session:
        for n in range(RATE * SECONDS):
            publish_item(
                session=session,
                bot_id=bot_id,
                source="system",
                request=PublishRequest(topic_key="ci", title=f"row {n + 1}", content=f"item {n + 1}"),
            )
            time.sleep(max(0.0, started + (n + 1) / RATE - time.monotonic()))  # paced: RATE per second
    done.set()


def _press_until(panel: TopicPanel, done: threading.Event, at_least: int) -> list[float]:
    page = panel.page
    if not page.evaluate("document.documentElement.hasAttribute('data-td-keyboard')"):
        page.keyboard.press("j")  # the first j only shows the cursor where it is (nothing moves to time)
    page.evaluate("window.__lat = []")
    presses = 0
    while presses < at_least or not done.is_set():
        page.keyboard.press("j" if presses % 2 == 0 else "k")
        presses += 1
        page.wait_for_function(f"window.__lat.length >= {presses}", timeout=10_000)  # every press answers
    return list(page.evaluate("window.__lat"))


def test_the_panel_answers_keys_while_100_items_a_second_arrive_and_misses_none(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci", rate_per_minute=10_000)
    with Session(e2e_app.engine) as session:
        for n in range(20):
            publish_item(
                session=session,
                bot_id=bot_id,
                source="system",
                request=PublishRequest(topic_key="ci", title=f"earlier {n}", content="x"),
            )
    log_in(page, e2e_app, ADMIN)
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(20)
    page.evaluate(CURSOR_LATENCY, TopicPanel.ITEM_LIST)
    panel.focus_page()
    nothing = threading.Event()
    nothing.set()
    idle = _press_until(panel, nothing, at_least=40)  # the baseline: the same keys, nothing arriving

    done = threading.Event()
    ingest = threading.Thread(target=_ingest, args=(e2e_app, bot_id, done), daemon=True)
    ingest.start()
    busy = _press_until(panel, done, at_least=40)
    ingest.join()

    stored = item_ids(e2e_app, bot_id)  # newest first
    assert len(stored) == 20 + RATE * SECONDS
    pill = panel.new_items_pill()
    # The list is bounded, and what it shows plus what the pill counts is everything: no gap.
    expect(pill).to_be_visible(timeout=15_000)
    first_shown = panel.shown_ids()[0]
    newer = [item_id for item_id in stored if item_id > first_shown]
    expect(pill).to_have_text(f"{len(newer)} new items", timeout=15_000)
    shown = panel.shown_ids()
    assert len(shown) <= LIST_WINDOW
    assert shown == [item_id for item_id in stored if item_id <= first_shown][: len(shown)]
    pill.click()
    expect(panel.rows().first).to_have_id(f"item-{stored[0]}")
    print(
        f"\nj/k to cursor while {RATE} items/s arrive ({len(busy)} presses): p50 {statistics.median(busy):.0f} ms,"
        f" p95 {p95(busy):.0f} ms; with nothing arriving ({len(idle)} presses): p50 {statistics.median(idle):.0f} ms,"
        f" p95 {p95(idle):.0f} ms; ratio p95 {p95(busy) / max(p95(idle), 0.1):.1f}x; rows in the DOM {len(shown)}"
    )
