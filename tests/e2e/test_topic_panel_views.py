"""Each of the six view types renders its fields; screenshots of each (and of the whole panel in
light and dark) go to docs/screenshots/ for a person to look at."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect
from pytest_playwright import CreateContextCallback
from sqlmodel import Session, select

from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.topic_panel_support import log_in, make_bot, open_panel, row, rows, seed, unique
from topic_dashboard.demo import DEMO_ITEMS, seed_demo
from topic_dashboard.models import TopicItem

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

VIEWPORT = {"width": 1400, "height": 900}


def _demo_bot(app: E2EApp) -> tuple[str, dict[str, int]]:
    """The demo bot (one item per view type); returns its id and view type -> item id."""
    with Session(app.engine) as session:
        bot, _ = seed_demo(session=session, name=unique("demo-bot"))
        items = session.exec(select(TopicItem).where(TopicItem.bot_id == bot.bot_id)).all()
        by_type = {item.view_json["type"]: item.id or 0 for item in items if item.view_json}
    assert sorted(by_type) == sorted(entry["view"]["type"] for entry in DEMO_ITEMS if "view" in entry)
    return bot.bot_id, by_type


def _open(page: Page, item_id: int, kind: str) -> Locator:
    row(page, item_id).click()
    view = page.locator(f"#detail-view #view-{kind}")
    expect(view).to_be_visible()
    return view


def _shoot(page: Page, kind: str) -> None:
    page.locator("#item-detail").screenshot(path=screenshot_path(f"view-{kind}.png"), animations="disabled")


def test_each_view_type_renders_its_fields(page: Page, e2e_app: E2EApp) -> None:
    bot_id, by_type = _demo_bot(e2e_app)
    page.set_viewport_size(VIEWPORT)
    log_in(page, e2e_app)
    open_panel(page, e2e_app, bot_id)
    expect(rows(page)).to_have_count(len(DEMO_ITEMS))

    view = _open(page, by_type["markdown"], "markdown")
    expect(view.locator("h2")).to_have_text("Findings")
    expect(view.locator("li")).to_have_count(2)
    expect(view.locator("li code").first).to_have_text("synchronous=NORMAL")
    expect(view.locator("table th")).to_have_text(["mode", "rows/s"])
    expect(view.locator("table td")).to_have_text(["default", "1.5k", "WAL", "73k"])
    _shoot(page, "markdown")

    view = _open(page, by_type["card"], "card")
    expect(view.get_by_role("heading")).to_have_text("PR #128 merged")
    expect(view).to_contain_text("api: add rate limiting")
    expect(view.locator("em")).to_have_text("alice")
    expect(view.locator(".rt-DataListLabel")).to_have_text(["Files", "Branch"])
    expect(view.locator(".rt-DataListValue")).to_have_text(["12", "main"])
    link = view.locator("a", has_text="Open PR")
    expect(link).to_have_attribute("href", "https://example.com/pr/128")
    expect(link).to_have_attribute("target", "_blank")
    _shoot(page, "card")

    view = _open(page, by_type["table"], "table")
    expect(view.locator("th")).to_have_text(["Ticker", "Close", "Change %"])
    expect(view.locator("tbody tr")).to_have_count(3)
    expect(view.locator("tbody tr").first.locator("td")).to_have_text(["AAPL", "189.3", "-3.1"])
    expect(view).to_contain_text("NASDAQ close")
    expect(page.locator("#detail-title")).to_have_text("AAPL 财报超预期但指引下调")
    _shoot(page, "table")

    view = _open(page, by_type["checklist"], "checklist")
    expect(view.get_by_role("heading")).to_have_text("Pipeline #1423")
    expect(view).to_contain_text("1 / 3")
    for text, done in (("Lint", True), ("Unit tests", False), ("Deploy to staging", False)):
        entry = view.get_by_text(text, exact=True)
        expect(entry).to_have_css("text-decoration-line", "line-through" if done else "none")
    _shoot(page, "checklist")

    view = _open(page, by_type["metric"], "metric")
    expect(view).to_contain_text("Error rate")
    expect(view.locator("#metric-value")).to_have_text("0.4")
    expect(view).to_contain_text("%")
    expect(view).to_contain_text("-11.6")
    expect(view.locator("svg.lucide-trending-down")).to_be_visible()
    expect(view).to_contain_text("vs. peak")
    _shoot(page, "metric")

    view = _open(page, by_type["timeline"], "timeline")
    for text in (
        "14:03",
        "Alert fired",
        "p99 > 800 ms for 5 min",
        "14:09",
        "On-call paged",
        "14:20",
        "Rolled back to v1.3.2",
    ):
        expect(view.get_by_text(text, exact=True)).to_be_visible()
    _shoot(page, "timeline")

    # The panel itself, light (an item with a card open).
    row(page, by_type["card"]).click()
    expect(page.locator("html")).not_to_have_class(re.compile(r"\bdark\b"))
    page.screenshot(path=screenshot_path("panel-light.png"), animations="disabled")


def test_the_panel_in_dark_mode(new_context: CreateContextCallback, e2e_app: E2EApp) -> None:
    bot_id, by_type = _demo_bot(e2e_app)
    page = new_context(color_scheme="dark", viewport=VIEWPORT).new_page()
    log_in(page, e2e_app)
    open_panel(page, e2e_app, bot_id, f"&item={by_type['timeline']}")
    expect(page.locator("#view-timeline")).to_be_visible()
    expect(page.locator("html")).to_have_class(re.compile(r"\bdark\b"))
    page.screenshot(path=screenshot_path("panel-dark.png"), animations="disabled")


def test_long_content_folds_until_expanded(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app)
    lines = "\n".join(f"- line {index}" for index in range(60))
    item_id = seed(
        e2e_app, bot_id, topic_key="inbox", title="A long report", content=f"## Report\n\n{lines}\n\nThe end."
    )
    log_in(page, e2e_app)
    open_panel(page, e2e_app, bot_id, f"&item={item_id}")
    content = page.locator("#detail-content")
    expect(page.locator("#detail-expand")).to_have_text("Show more")
    folded = content.bounding_box()
    assert folded is not None
    page.locator("#detail-expand").click()
    expect(page.locator("#detail-expand")).to_have_text("Show less")
    expect(content.get_by_text("The end.")).to_be_visible()
    expanded = content.bounding_box()
    assert expanded is not None and expanded["height"] > folded["height"] * 2
