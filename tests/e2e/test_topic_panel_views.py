"""Each of the six view types renders its fields; screenshots of each (and of the whole panel in
light and dark) go to docs/screenshots/ for a person to look at."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect
from pytest_playwright import CreateContextCallback
from sqlmodel import Session, select

from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.topic_panel import TopicPanel
from tests.e2e.topic_panel_support import log_in, make_bot, open_panel, seed, unique
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


def _open(panel: TopicPanel, item_id: int, kind: str) -> Locator:
    panel.row(item_id).click()
    view = panel.detail_view_in_pane(kind)
    expect(view).to_be_visible()
    return view


def _shoot(panel: TopicPanel, kind: str) -> None:
    panel.detail().screenshot(path=screenshot_path(f"view-{kind}.png"), animations="disabled")


def test_each_view_type_renders_its_fields(page: Page, e2e_app: E2EApp) -> None:
    bot_id, by_type = _demo_bot(e2e_app)
    page.set_viewport_size(VIEWPORT)
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(len(DEMO_ITEMS))

    view = _open(panel, by_type["markdown"], "markdown")
    expect(view.locator("h2")).to_have_text("Findings")
    expect(view.locator("li")).to_have_count(2)
    expect(view.locator("li code").first).to_have_text("synchronous=NORMAL")
    expect(view.locator("table th")).to_have_text(["mode", "rows/s"])
    expect(view.locator("table td")).to_have_text(["default", "1.5k", "WAL", "73k"])
    _shoot(panel, "markdown")

    view = _open(panel, by_type["card"], "card")
    expect(view.get_by_role("heading")).to_have_text("PR #128 merged")
    expect(view).to_contain_text("api: add rate limiting")
    expect(view.locator("em")).to_have_text("alice")
    expect(panel.card_field_labels(view)).to_have_text(["Files", "Branch"])
    expect(panel.card_field_values(view)).to_have_text(["12", "main"])
    link = view.locator("a", has_text="Open PR")
    expect(link).to_have_attribute("href", "https://example.com/pr/128")
    expect(link).to_have_attribute("target", "_blank")
    _shoot(panel, "card")

    view = _open(panel, by_type["table"], "table")
    expect(view.locator("th")).to_have_text(["Ticker", "Close", "Change %"])
    expect(view.locator("tbody tr")).to_have_count(3)
    expect(view.locator("tbody tr").first.locator("td")).to_have_text(["AAPL", "189.3", "-3.1"])
    expect(view).to_contain_text("NASDAQ close")
    expect(panel.detail_title()).to_have_text("AAPL 财报超预期但指引下调")
    _shoot(panel, "table")

    view = _open(panel, by_type["checklist"], "checklist")
    expect(view.get_by_role("heading")).to_have_text("Pipeline #1423")
    expect(view).to_contain_text("1 / 3")
    for text, done in (("Lint", True), ("Unit tests", False), ("Deploy to staging", False)):
        entry = view.get_by_text(text, exact=True)
        expect(entry).to_have_css("text-decoration-line", "line-through" if done else "none")
    _shoot(panel, "checklist")

    view = _open(panel, by_type["metric"], "metric")
    expect(view).to_contain_text("Error rate")
    expect(panel.metric_value()).to_have_text("0.4")
    expect(view).to_contain_text("%")
    expect(view).to_contain_text("-11.6")
    expect(panel.metric_trend_down(view)).to_be_visible()
    expect(view).to_contain_text("vs. peak")
    _shoot(panel, "metric")

    view = _open(panel, by_type["timeline"], "timeline")
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
    _shoot(panel, "timeline")

    # The panel itself, light (an item with a card open).
    panel.row(by_type["card"]).click()
    expect(panel.document_root()).not_to_have_class(re.compile(r"\bdark\b"))
    page.screenshot(path=screenshot_path("panel-light.png"), animations="disabled")


def test_the_panel_in_dark_mode(new_context: CreateContextCallback, e2e_app: E2EApp) -> None:
    bot_id, by_type = _demo_bot(e2e_app)
    page = new_context(color_scheme="dark", viewport=VIEWPORT).new_page()
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id, f"&item={by_type['timeline']}")
    expect(panel.detail_view("timeline")).to_be_visible()
    expect(panel.document_root()).to_have_class(re.compile(r"\bdark\b"))
    page.screenshot(path=screenshot_path("panel-dark.png"), animations="disabled")


def test_long_content_folds_until_expanded(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app)
    lines = "\n".join(f"- line {index}" for index in range(60))
    item_id = seed(
        e2e_app, bot_id, topic_key="inbox", title="A long report", content=f"## Report\n\n{lines}\n\nThe end."
    )
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id, f"&item={item_id}")
    content = panel.detail_content()
    expect(panel.detail_expand()).to_have_text("Show more")
    folded = content.bounding_box()
    assert folded is not None
    panel.detail_expand().click()
    expect(panel.detail_expand()).to_have_text("Show less")
    expect(content.get_by_text("The end.")).to_be_visible()
    expanded = content.bounding_box()
    assert expanded is not None and expanded["height"] > folded["height"] * 2
