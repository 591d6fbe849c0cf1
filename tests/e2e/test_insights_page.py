"""The Insights page in a real browser: what a bot did over MCP shows in the charts and figures, which
agree with the service's numbers; one bot or all; 24 hours, 7 days, 12 weeks; the fallback share links to
the rules; light, dark and phone size."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session

from tests.e2e.accounts_support import PAGE_LOAD_MS, unique
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.insights import InsightsPage
from tests.e2e.pages.topic_panel import TopicPanel
from tests.e2e.topic_panel_support import log_in, make_bot, mcp_publish
from topic_dashboard.models import AlertSchedule, Bot
from topic_dashboard.services import insights

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

LOOKS = {
    "light": ({"width": 1400, "height": 1100}, "light"),
    "dark": ({"width": 1400, "height": 1100}, "dark"),
    "phone": ({"width": 390, "height": 844}, "light"),
}


def _wait_until(predicate: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def _last_run(app: E2EApp) -> datetime:
    with Session(app.engine) as session:
        schedule = session.get(AlertSchedule, 1)
        return (
            schedule.last_run_at if schedule is not None and schedule.last_run_at else datetime.min.replace(tzinfo=UTC)
        )


def _open(page: Page, app: E2EApp, query: str = "") -> InsightsPage:
    return InsightsPage(page, app.url).open(query)


@pytest.mark.parametrize("look", list(LOOKS))
def test_what_a_bot_did_shows_in_the_charts_and_agrees_with_the_numbers(page: Page, e2e_app: E2EApp, look: str) -> None:
    viewport, scheme = LOOKS[look]
    bot_id, token = make_bot(e2e_app, "builds")
    for n in range(3):
        failed, _ = mcp_publish(e2e_app, token, topic_key="builds", title=f"Build {n} passed", content="green")
        assert not failed
    assert not mcp_publish(
        e2e_app,
        token,
        topic_key="inbox",
        title="Dentist moved",
        content="The dentist moved Tuesday's check-up to 3 pm.",
    )[0]
    refused, _ = mcp_publish(e2e_app, token, title="Working on it", content="still running", message_type="progress")
    assert refused  # isError: a refusal is a decision too

    log_in(page, e2e_app, unique(f"insights-{look}"), role="viewer")  # viewers read Insights too
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.set_viewport_size(viewport)
    board = _open(page, e2e_app, f"?bot={bot_id}")

    # The figures are the service's, for this bot.
    with Session(e2e_app.engine) as session:
        seen = insights.insights(session=session, bot_ids=[bot_id], range_key="24h")
    assert seen.published == 4 and seen.fallback == 1
    expect(board.kpi("published")).to_have_text("4")
    expect(board.kpi("fallback-share")).to_have_text("25%")
    # the one refusal kept progress out of the topics: the product doing its job, not a failure
    expect(board.kpi("failure-rate")).to_have_text("0.0%")
    expect(board.fallback_rules_link()).to_have_attribute("href", f"/rules?bot={bot_id}")
    # The charts are drawn: one bar group per topic in the publishes chart, the decisions chart.
    expect(board.chart_drawing("publishes").first).to_be_visible()
    expect(board.chart_legend("publishes")).to_have_count(2)  # builds, inbox
    expect(board.chart_legend("publishes").first).to_have_text("Builds")  # by name, as the panel says it
    expect(board.chart_drawing("decisions").first).to_be_visible()
    expect(board.hottest_rows().first).to_contain_text("Builds")  # by name too, as the legend (it said "builds")
    expect(board.latency_table()).to_contain_text("topic_publish")
    page.screenshot(path=str(screenshot_path(f"insights-{look}.png")), full_page=True)

    # Another range: days instead of hours, the same total.
    board.choose_range("7 days")
    expect(board.kpi("published")).to_have_text("4")
    if look != "phone":  # a narrow chart leaves out some of its axis labels
        expect(board.chart_x_ticks("publishes")).to_have_count(7)


def test_all_bots_adds_up_every_bots_numbers(page: Page, e2e_app: E2EApp) -> None:
    first, first_token = make_bot(e2e_app, "builds")
    second, second_token = make_bot(e2e_app, "alerts")
    assert not mcp_publish(e2e_app, first_token, topic_key="builds", title="B", content="x")[0]
    assert not mcp_publish(e2e_app, second_token, topic_key="alerts", title="A", content="x")[0]
    log_in(page, e2e_app, unique("insights-all"), role="admin")
    board = _open(page, e2e_app)
    with Session(e2e_app.engine) as session:
        everyone = insights.insights(session=session, bot_ids=None, range_key="24h")
    expect(board.kpi("published")).to_have_text(str(everyone.published))
    board.choose_bot(re.compile("panel-bot"))
    expect(board.kpi("published")).not_to_have_text(str(everyone.published))


def test_an_alert_an_admin_sets_fires_once_shows_a_banner_and_clears(page: Page, e2e_app: E2EApp) -> None:
    """The backend checks on its own schedule (every 2 s in the browser suite): the admin sets a failure
    rate for one bot, the bot fails, the banner shows on every page and one alert item lands in the
    bot's inbox; the alert is removed and the banner goes."""
    from sqlmodel import col, select

    from topic_dashboard.models import AlertEpisode, TopicItem

    bot_id, token = make_bot(e2e_app, "builds")
    log_in(page, e2e_app, unique("insights-alerts"), role="admin")
    page.set_viewport_size({"width": 1400, "height": 1100})
    board = _open(page, e2e_app, f"?bot={bot_id}")
    with Session(e2e_app.engine) as session:
        name = (session.get(Bot, bot_id) or Bot(name="?")).name
    board.add_failure_alert(name, threshold="30", window="15")
    expect(board.alerts_table()).to_contain_text("failure rate over 30% in 15 minutes")

    # The panel is open before anything fails: the banner must come to it without a reload.
    panel = TopicPanel(page, e2e_app.url)
    page.goto(e2e_app.path(f"/?bot={bot_id}"))
    banner = panel.alert_banner()
    expect(panel.heading()).to_be_visible(timeout=PAGE_LOAD_MS)
    expect(banner).to_have_count(0)
    # 6 of 7 calls fail: refused as malformed (progress kept out would not count: the product doing its job)
    for n in range(6):
        assert mcp_publish(e2e_app, token, title=f"Build {n}", content="done", message_type="gossip")[0]
    assert not mcp_publish(e2e_app, token, topic_key="builds", title="Build 8 passed", content="green")[0]

    def episodes() -> list[AlertEpisode]:
        with Session(e2e_app.engine) as session:
            return list(session.exec(select(AlertEpisode).where(AlertEpisode.bot_id == bot_id)))

    _wait_until(lambda: bool(episodes()), "the schedule to open an episode")
    expect(banner).to_contain_text("failure rate over 30% in 15 minutes", timeout=PAGE_LOAD_MS)
    page.screenshot(path=str(screenshot_path("alert-banner.png")))
    first_runs = _last_run(e2e_app)
    _wait_until(lambda: _last_run(e2e_app) > first_runs, "another check")  # checked again: still one episode
    (episode,) = episodes()
    with Session(e2e_app.engine) as session:
        items = session.exec(
            select(TopicItem).where(TopicItem.bot_id == bot_id, col(TopicItem.title).startswith("Alert:"))
        ).all()
    assert len(items) == 1 and items[0].topic_key == "inbox" and episode.item_id == items[0].id
    banner.get_by_role("link", name="Open the alert").click()
    expect(panel.detail_title()).to_contain_text("Alert: failure rate over 30%")

    board = _open(page, e2e_app, f"?bot={bot_id}")
    page.screenshot(path=str(screenshot_path("insights-alerts.png")), full_page=True)
    board.remove_first_alert()
    expect(board.no_alerts()).to_be_visible()
    page.reload()
    board.expect_title("Insights")
    expect(banner).to_have_count(0)
