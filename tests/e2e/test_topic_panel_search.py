"""Search in the Topic panel (#15): "/" jumps to the box; English and Chinese, short and long words;
hits marked; combined with the topic and filters; the address keeps the search; "Mark all read" marks
what the search shows; the tag filter ignores case and suggests the tags in use. What is on screen
is counted against the search service on the same database. Light, dark and phone size."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session, select

from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.topic_panel import TopicPanel
from tests.e2e.topic_panel_support import ADMIN, log_in, make_bot, open_panel, seed
from topic_dashboard.models import User
from topic_dashboard.services.items import ItemFilters, unread_in_view
from topic_dashboard.services.search import items_in_view, search_items

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

ITEMS = [
    ("ci", "Deploy finished", "orders service deployed to production in 3 minutes", ["release"]),
    ("ci", "部署完成", "订单服务已部署到生产环境", ["发布"]),
    ("ci", "Build 42 failed", "3 tests failing after the deploy of payments", ["nightly"]),
    ("alerts", "Deploy rolled back", "error rate 12% after deploy; rolled back", ["P1"]),
    ("alerts", "数据库延迟升高", "主库 p99 延迟 850ms", []),
]


def _shows(panel: TopicPanel, expected: list[int]) -> None:
    """Wait until the list is exactly these rows, in this order (a search answers after a pause)."""
    expect(panel.rows()).to_have_count(len(expected))
    for index, item_id in enumerate(expected):
        expect(panel.rows().nth(index)).to_have_id(f"item-{item_id}")


def _admin_id(app: E2EApp) -> int:
    with Session(app.engine) as session:
        user_id = session.exec(select(User.id).where(User.username == ADMIN)).one()
        assert user_id is not None
        return user_id


def _expected(app: E2EApp, bot_id: str, query: str, **filters: object) -> list[int]:
    with Session(app.engine) as session:
        page = search_items(
            session=session,
            bot_id=bot_id,
            query=query,
            filters=ItemFilters(**filters),  # type: ignore[arg-type]
            reader=_admin_id(app),
        )
        return [hit.item.id for hit in page.hits]


def test_search_finds_marks_and_combines_with_the_view_and_the_address_keeps_it(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci", "alerts")
    ids = {title: seed(e2e_app, bot_id, topic_key=t, title=title, content=c, tags=g) for t, title, c, g in ITEMS}
    log_in(page, e2e_app, ADMIN)
    page.set_viewport_size({"width": 1400, "height": 900})
    panel = open_panel(page, e2e_app, bot_id)
    search = panel.search_input()
    expect(panel.rows()).to_have_count(5)

    page.keyboard.press("/")
    expect(search).to_be_focused()
    page.keyboard.type("deploy")
    expect(panel.heading()).to_have_text("Search: deploy")
    _shows(panel, _expected(e2e_app, bot_id, "deploy"))
    # Title hits rank above a content-only hit.
    assert set(panel.shown_ids()[:2]) == {ids["Deploy finished"], ids["Deploy rolled back"]}
    assert panel.shown_ids()[2] == ids["Build 42 failed"]
    assert set(panel.shown_ids()) == {ids["Deploy finished"], ids["Build 42 failed"], ids["Deploy rolled back"]}
    expect(panel.row_search_hits(ids["Deploy finished"]).first).to_have_text("Deploy")
    expect(page).to_have_url(re.compile(r"[?&]q=deploy"))
    page.screenshot(path=str(screenshot_path("panel-search-light.png")))

    # The topic narrows the search; the address keeps both across a reload.
    panel.topic("alerts").click()
    assert _expected(e2e_app, bot_id, "deploy", topic_key="alerts") == [ids["Deploy rolled back"]]
    _shows(panel, [ids["Deploy rolled back"]])
    expect(panel.heading()).to_have_text("Search in Alerts: deploy")  # where it searches, said
    # The address follows a moment after the rows: wait for it before reloading (what the reload keeps).
    expect(page).to_have_url(re.compile(r"view=topic:alerts"))
    page.reload()
    expect(search).to_have_value("deploy")
    expect(panel.rows()).to_have_count(1)

    # Chinese, two characters (shorter than the index's unit) and four.
    panel.view("all")
    search.fill("部署")
    _shows(panel, [ids["部署完成"]])
    expect(panel.row_search_hits(ids["部署完成"]).first).to_have_text("部署")
    search.fill("延迟 850ms")
    _shows(panel, [ids["数据库延迟升高"]])
    search.fill("deploy kiwi")
    expect(panel.empty_state("No items match the search")).to_be_visible()

    # A result published while searching is found when the search runs again.
    late = seed(e2e_app, bot_id, topic_key="ci", title="Kiwi deploy canary", content="ok")
    search.fill("kiwi")
    _shows(panel, [late])

    # "Mark all read" while searching marks what the search shows, no more.
    search.fill("deploy")
    _shows(panel, _expected(e2e_app, bot_id, "deploy"))
    assert len(_expected(e2e_app, bot_id, "deploy")) == 4
    panel.mark_all_read(4)
    expect(page.get_by_text("Marked 4 items read")).to_be_visible()
    with Session(e2e_app.engine) as session:
        still_unread = set(unread_in_view(session=session, bot_id=bot_id, reader=_admin_id(e2e_app)))
    assert still_unread == {ids["部署完成"], ids["数据库延迟升高"]}

    panel.clear_search()
    expect(panel.heading()).to_have_text("All items")
    expect(panel.rows()).to_have_count(6)

    page.emulate_media(color_scheme="dark")
    search.fill("部署")
    _shows(panel, [ids["部署完成"]])
    page.screenshot(path=str(screenshot_path("panel-search-dark.png")))
    page.set_viewport_size({"width": 390, "height": 844})
    expect(search).to_be_visible()
    page.screenshot(path=str(screenshot_path("panel-search-phone.png")))


def test_the_tag_filter_ignores_case_and_suggests_tags_in_use(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    night = seed(e2e_app, bot_id, topic_key="ci", title="nightly run", tags=["Nightly"])
    seed(e2e_app, bot_id, topic_key="ci", title="release", tags=["Release"])
    log_in(page, e2e_app, ADMIN)
    panel = open_panel(page, e2e_app, bot_id)
    panel.tag_filter().fill("nightly")
    _shows(panel, [night])
    panel.tag_filter().fill("")
    expect(panel.rows()).to_have_count(2)
    panel.tag_filter().fill("re")
    expect(panel.tag_suggestions()).to_have_count(1)
    expect(panel.tag_suggestions()).to_have_attribute("value", "Release")


def test_export_downloads_exactly_what_the_view_shows(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci", "alerts")
    ids = {title: seed(e2e_app, bot_id, topic_key=t, title=title, content=c, tags=g) for t, title, c, g in ITEMS}
    log_in(page, e2e_app, ADMIN)
    panel = open_panel(page, e2e_app, bot_id)
    panel.search_input().fill("deploy")
    expected = _expected(e2e_app, bot_id, "deploy")
    _shows(panel, expected)
    panel.export_button("view").click()
    with page.expect_download() as download:
        panel.export_button("csv").click()
    path = download.value.path()
    assert download.value.suggested_filename.endswith(".csv")
    lines = Path(path).read_text(encoding="utf-8-sig").splitlines()
    assert lines[0].startswith("id,topic_key,title")
    assert [int(line.split(",")[0]) for line in lines[1:]] == expected == panel.shown_ids()
    panel.clear_search()
    panel.topic("alerts").click()
    _shows(panel, [ids["数据库延迟升高"], ids["Deploy rolled back"]])
    panel.export_button("view").click()
    with page.expect_download() as download:
        panel.export_button("json").click()
    exported = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert [row["id"] for row in exported] == panel.shown_ids()
    assert exported[0]["title"] == "数据库延迟升高"


def test_search_results_page_with_load_more_in_the_services_order_with_none_missing(
    page: Page, e2e_app: E2EApp
) -> None:
    """A search with more hits than a page (40): "Load more" brings the next pages, in the service's
    order (title hits first), until every hit is on screen once; then no more "Load more"."""
    bot_id, _ = make_bot(e2e_app, "ci", "alerts")
    for n in range(60):
        seed(e2e_app, bot_id, topic_key="ci", title=f"canary {n} deployed", content="ok")
    for n in range(35):
        seed(e2e_app, bot_id, topic_key="alerts", title=f"rollback {n}", content="after the canary went red")
    seed(e2e_app, bot_id, topic_key="ci", title="unrelated", content="nothing to see")
    log_in(page, e2e_app, ADMIN)
    reader = _admin_id(e2e_app)
    with Session(e2e_app.engine) as session:
        every_hit = [
            item.id
            for item in items_in_view(
                session=session, bot_id=bot_id, filters=ItemFilters(), query="canary", reader=reader
            )
        ]
    assert len(every_hit) == 95
    page.set_viewport_size({"width": 1400, "height": 900})
    panel = open_panel(page, e2e_app, bot_id)
    panel.search_input().fill("canary")
    _shows(panel, every_hit[:40])
    panel.load_more()
    _shows(panel, every_hit[:80])
    panel.load_more()
    _shows(panel, every_hit)
    assert len(set(panel.shown_ids())) == 95
    expect(panel.load_more_button()).to_have_count(0)
    # Title hits (the 60 canaries) come before content-only hits (the 35 rollbacks).
    titles = panel.title_in(panel.rows()).all_inner_texts()
    assert all("canary" in title for title in titles[:60])
    assert all(title.startswith("rollback") for title in titles[60:])


def test_search_finds_a_name_that_stands_only_in_an_items_table(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough searched for "Bauhaus", which stood only in a table cell of an item, and got nothing."""
    bot_id, _ = make_bot(e2e_app, "bills")
    table = {"type": "table", "columns": ["Supplier", "Total"], "rows": [["Bauhaus", "€412"], ["Obi", "€88"]]}
    found = seed(e2e_app, bot_id, topic_key="bills", title="Materials ordered", content="For the hall.", view=table)
    seed(e2e_app, bot_id, topic_key="bills", title="Paint dried", content="Second coat done.")
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    panel.search("Bauhaus")
    _shows(panel, [found])
    assert _expected(e2e_app, bot_id, "Bauhaus") == [found]
    expect(panel.search_hits().first).to_have_text(re.compile("bauhaus", re.IGNORECASE))
    page.screenshot(path=str(screenshot_path("panel-search-in-a-table.png")))
