"""Input latency of the panel in a session that sees many items (#15: p95 ≤ 100 ms with 5,000 rows
in the session; the list is windowed so that 10,000 keep it flat), against the same keys on a panel
of 40 rows in the same run. A benchmark, run by `make bench` (TD_BENCH_ROWS=10000); in `make test`
it runs small (540 items: one burst larger than the room left in the window) and checks that every burst reached
the list through the pill, the window holds at most LIST_WINDOW rows and every press answered."""

from __future__ import annotations

import os
import re
import statistics

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session

from tests.e2e.conftest import E2EApp
from tests.e2e.pages.topic_panel import TopicPanel
from tests.e2e.topic_panel_support import ADMIN, CURSOR_LATENCY, log_in, make_bot, open_panel, p95
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.topic_panel.state import LIST_WINDOW

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

ROWS = int(os.environ.get("TD_BENCH_ROWS", "540"))
PRESSES = 40

# True once the pill counts exactly the items newer than the list's first row: the poll after the
# last insert has been seen (the newest item is "row <newest>", a row's title says its number).
PILL_COUNTS_THE_REST = """([pill, firstTitle, newest]) => {
  const shown = Number((document.querySelector(firstTitle)?.textContent || "").replace("row ", ""));
  return (document.querySelector(pill)?.textContent || "") === `${newest - shown} new items`;
}"""


def _seed(app: E2EApp, bot_id: str, count: int, start: int) -> None:
    with Session(app.engine) as session:
        for index in range(start, start + count):
            publish_item(
                session=session,
                bot_id=bot_id,
                source="system",
                request=PublishRequest(topic_key="ci", title=f"row {index}", content=f"item {index} body"),
            )


def _latencies(panel: TopicPanel) -> list[float]:
    page = panel.page
    panel.focus_page()
    page.keyboard.press("j")  # the first j only shows the cursor where it is (nothing moves to time)
    expect(panel.cursor_row()).to_be_visible()
    page.evaluate(CURSOR_LATENCY, TopicPanel.ITEM_LIST)
    for press in range(PRESSES):
        page.keyboard.press("j" if press % 2 == 0 else "k")
        page.wait_for_function(f"window.__lat.length >= {press + 1}")
    return page.evaluate("window.__lat")


def _open_latencies(panel: TopicPanel, count: int = 10) -> list[float]:
    """From a click on a row to its title in the detail pane: a round trip through the server,
    which holds the loaded rows (Escape closes it again between clicks)."""
    page = panel.page
    samples = []
    for index in range(count):
        target = panel.rows().nth(index * 3 + 1)
        title = panel.title_in(target).inner_text()
        started = page.evaluate("performance.now()")
        target.click(position={"x": 200, "y": 12})
        page.wait_for_function(
            "([sel, t]) => document.querySelector(sel)?.textContent === t",
            arg=[TopicPanel.DETAIL_TITLE, title],
            timeout=60_000,
        )
        samples.append(page.evaluate("performance.now()") - started)
        panel.close_item()
    return samples


def test_a_session_that_sees_thousands_of_items_answers_as_fast_as_one_of_forty(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci", rate_per_minute=10_000)
    _seed(e2e_app, bot_id, 40, 0)
    log_in(page, e2e_app, ADMIN)
    page.set_viewport_size({"width": 1400, "height": 900})
    panel = open_panel(page, e2e_app, bot_id)
    rows = panel.rows()
    expect(rows).to_have_count(40)
    baseline = _latencies(panel)
    open_baseline = _open_latencies(panel)

    # The session sees items the way a busy day does: bursts of up to 1,000 arriving live. A burst
    # that does not fit the window waits behind the pill, counted; the pill shows the newest of them.
    loaded = 40
    while loaded < ROWS:
        burst = min(1000, ROWS - loaded)
        _seed(e2e_app, bot_id, burst, loaded)
        loaded += burst
        if burst + rows.count() > LIST_WINDOW:
            # A poll during the burst may have taken the part that fitted; the pill counts the rest.
            pill = panel.new_items_pill()
            expect(pill).to_have_text(re.compile(r"^\d+ new items$"), timeout=30_000)
            # The poll after the last insert: the pill then counts every item above the list's first row.
            page.wait_for_function(
                PILL_COUNTS_THE_REST,
                arg=[TopicPanel.NEW_ITEMS_PILL, f"{TopicPanel.ROWS} {TopicPanel.ROW_TITLE}", loaded - 1],
                timeout=30_000,
            )
            newest_shown = int(panel.title_in(rows.first).inner_text().removeprefix("row "))
            expect(pill).to_have_text(f"{loaded - 1 - newest_shown} new items")
            assert rows.count() <= LIST_WINDOW
            pill.click()
            expect(panel.new_items_pill()).to_have_count(0)
            expect(panel.title_in(rows.first)).to_have_text(f"row {loaded - 1}")
        else:
            expect(panel.title_in(rows.first)).to_have_text(f"row {loaded - 1}", timeout=30_000)
    # Reading down the list: "Load more" until the window is full and past it; the newest rows leave.
    for _ in range(LIST_WINDOW // 40 + 3):
        if panel.load_more_button().count() == 0:
            break
        oldest_shown = panel.title_in(rows.last).inner_text()
        panel.load_more()
        expect(panel.title_in(rows.last)).not_to_have_text(oldest_shown)  # older rows joined the bottom
    expect(rows).to_have_count(min(LIST_WINDOW, loaded))
    if loaded > LIST_WINDOW:
        expect(panel.back_to_newest()).to_be_visible()
    many = _latencies(panel)
    opened = _open_latencies(panel)
    assert len(many) == PRESSES and len(baseline) == PRESSES
    print(
        f"\npanel input latency (j/k to the cursor on its new row), {ROWS:,} items in the session, "
        f"{rows.count()} rows in the window: p50 {statistics.median(many):.1f} ms, p95 {p95(many):.1f} ms; "
        f"40 rows (baseline, same run): p50 {statistics.median(baseline):.1f} ms, p95 {p95(baseline):.1f} ms; "
        f"p95 ratio {p95(many) / p95(baseline):.1f}"
    )
    print(
        f"opening an item (click to its title in the detail pane): p50 {statistics.median(opened):.0f} ms, "
        f"max {max(opened):.0f} ms; 40 rows: p50 {statistics.median(open_baseline):.0f} ms, "
        f"max {max(open_baseline):.0f} ms; p50 ratio {statistics.median(opened) / statistics.median(open_baseline):.1f}"
    )
