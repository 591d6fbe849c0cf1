"""The journeys people make, one test each, named after the journey (docs/TESTING.md's catalogue).

Each drives the real dashboard through its page objects (tests/e2e/pages/) and checks what the
browser shows against what the dashboard stores, read back through its REST API. They create only
uniquely named bots and people and remove them at the end, so they are safe on a shared instance
and run with `E2E_BASE_URL=... make e2e` (except the first start, which needs a dashboard nobody
has used yet). CI also runs them on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect
from pytest_playwright import CreateContextCallback
from sqlmodel import Session

from tests.e2e.accounts_support import unique
from tests.e2e.conftest import E2EApp, app_database, screenshot_path, started_app
from tests.e2e.journeys.conftest import Dashboard
from tests.e2e.pages.accounts import AccountsPage
from tests.e2e.pages.bots import BotsPage
from tests.e2e.pages.rules import RulesPage
from tests.e2e.pages.shell import PAGE_LOAD_MS, Shell
from tests.e2e.pages.topic_panel import LIVE_MS, TopicPanel
from tests.e2e.topic_panel_support import RECORDER
from tests.support.mcp import mcp_client, result_json, run_async
from topic_dashboard.rule_templates import TEMPLATES
from topic_dashboard.rules_editor.preview import plain_labels
from topic_dashboard.services import accounts

pytestmark = [pytest.mark.e2e, pytest.mark.journey]

DESKTOP = {"width": 1400, "height": 900}
# No condition of the "CI / build results" template matches this message; the one the journey adds does.
MESSAGE = "Translation catalogue sync finished: 412 strings updated for the Japanese locale"
CONDITION = "translation catalogue sync"


def _signed_in(page: Page, board: Dashboard) -> Shell:
    shell = Shell(page, board.url)
    shell.log_in(board.admin_user, board.admin_password)
    shell.expect_signed_in(board.admin_user)
    return shell


def _items(board: Dashboard, bot_id: str, **params: str) -> list[dict[str, object]]:
    """The bot's items as the dashboard stores them (REST: the team's state), newest first."""
    with board.api() as api:
        answer = api.get(f"/bots/{bot_id}/topic-items", params={"limit": "200", **params})
        assert answer.status_code == 200, answer.text
        return list(answer.json()["items"])


# 1. First start ---------------------------------------------------------------------------------


@pytest.fixture
def fresh_app(tmp_path: Path) -> Iterator[E2EApp]:
    """A dashboard nobody has used yet: its own database and data dir, no account."""
    with app_database(tmp_path) as url, started_app(url, tmp_path / "data", purpose="fresh") as app:
        yield app


@pytest.mark.private_instance
def test_first_start_with_the_setup_token(page: Page, fresh_app: E2EApp) -> None:
    """What `make run` prints on a first start lets one person create the first admin, once."""
    with Session(fresh_app.engine) as session:
        token = accounts.issue_setup_token(session=session)
        session.commit()
    assert token
    shell = Shell(page, fresh_app.url)
    page.goto(fresh_app.path("/"))
    expect(page).to_have_url(f"{fresh_app.url}/login", timeout=PAGE_LOAD_MS)  # nobody is signed in
    expect(page.get_by_text("No account exists yet")).to_be_visible()
    shell.set_up_first_admin("tdsetup_not-the-token", "first-admin", "a long first password")
    expect(shell.login_error()).to_be_visible()
    shell.set_up_first_admin(token, "first-admin", "a long first password")
    shell.expect_signed_in("first-admin")
    accounts_page = AccountsPage(page, fresh_app.url).open()
    expect(accounts_page.person("first-admin")).to_contain_text("admin")
    expect(accounts_page.people_rows()).to_have_count(1)
    page.screenshot(path=str(screenshot_path("journey-first-start.png")))
    # The token is spent: the login page now asks for a password, not a setup token.
    accounts_page.log_out()
    expect(shell.setup_token_field()).to_have_count(0)
    shell.log_in("first-admin", "a long first password")
    shell.expect_signed_in("first-admin")


# 2. A bot, connected ------------------------------------------------------------------------------


def test_create_a_bot_and_connect_nanobot(page: Page, dashboard: Dashboard) -> None:
    """Bots page: the token is shown once with the nanobot config entry; the entry, as nanobot would
    use it, reaches topic_mcp and lists the bot's topics."""
    _signed_in(page, dashboard)
    page.set_viewport_size(DESKTOP)
    name = unique("e2e-connect")
    bots = BotsPage(page, dashboard.url).open()
    token, snippet = bots.create(name)
    bot_id = dashboard.bot_id_named(name)
    dashboard.adopt_bot(bot_id)
    entry = snippet["tools"]["mcpServers"]["topic_mcp"]
    assert entry["type"] == "streamableHttp" and entry["headers"] == {"x-topic-mcp-token": token}
    assert entry["url"].endswith("/api/mcp/topic")
    expect(bots.bot_row(bot_id)).to_contain_text(name)

    async def list_topics() -> dict[str, object]:
        # The URL the entry names is the dashboard's public one; from here the dashboard is at its URL.
        async with mcp_client(dashboard.url.rstrip("/") + "/api/mcp/topic", headers=entry["headers"]) as client:
            return result_json(await client.call_tool("topic_list_topics", {}))

    listed = run_async(list_topics)
    assert [topic["topic_key"] for topic in listed["topics"]] == ["inbox"]  # type: ignore[index]
    page.screenshot(path=str(screenshot_path("journey-bot-created.png")))


# 3. A rule, tested ---------------------------------------------------------------------------------


def test_write_a_rule_and_test_a_message(page: Page, dashboard: Dashboard) -> None:
    """Rules page: a topic from a template, a message tested live, a condition added until the
    message routes there, saved; the bot's own topic_route then decides the same."""
    bot = dashboard.create_bot("rules", {})
    _signed_in(page, dashboard)
    page.set_viewport_size(DESKTOP)
    rules = RulesPage(page, dashboard.url).open(bot.bot_id)
    rules.add_from_template(TEMPLATES["build_results"]["label"], "build_results")
    decision = rules.test_message(MESSAGE)
    expect(decision).to_have_text("→ inbox")
    rules.add_include_condition(CONDITION)
    expect(decision).to_have_text("→ build_results")
    rules.save()
    failed, routed = dashboard.call(bot.token, "topic_route", content=MESSAGE, message_type="result")
    assert not failed
    assert (routed["should_publish"], routed["topic_key"]) == (True, "build_results")
    # The page names rule texts as its sections do; otherwise the bot is told what the page showed.
    expect(rules.decision("reason")).to_have_text(plain_labels(routed["reason"]))
    page.screenshot(path=str(screenshot_path("journey-rule-tested.png")))


# 4. Publish, watched live --------------------------------------------------------------------------


def test_publish_and_watch_it_arrive_in_two_panels(new_context: CreateContextCallback, dashboard: Dashboard) -> None:
    """Two people's panels open on one bot; what the bot publishes over MCP appears in both, live,
    and each shows exactly what the dashboard stores, newest first."""
    bot = dashboard.create_bot("live", {"ci": "CI"})
    panels = []
    for _ in range(2):
        page = new_context(viewport=DESKTOP).new_page()
        _signed_in(page, dashboard)
        panels.append(TopicPanel(page, dashboard.url).open(bot.bot_id))
    expect(panels[0].page.get_by_text("Nothing published yet")).to_be_visible()
    published = [dashboard.publish(bot, topic_key="ci", title=f"Build {n} passed") for n in range(5)]
    for panel in panels:
        panel.expect_item(published[-1], "Build 4 passed")
        expect(panel.rows()).to_have_count(5, timeout=LIVE_MS)
        assert panel.shown_ids() == [item["id"] for item in _items(dashboard, bot.bot_id)] == published[::-1]
    panels[0].page.screenshot(path=str(screenshot_path("journey-two-panels.png")))


# 5. The switch -----------------------------------------------------------------------------------------


def test_flip_topic_enabled(new_context: CreateContextCallback, dashboard: Dashboard) -> None:
    """Off: the bot's publishes are refused with topic_disabled, open panels say so live, history
    stays readable. On again: publishing works and arrives."""
    bot = dashboard.create_bot("switch", {"ci": "CI"})
    kept = dashboard.publish(bot, topic_key="ci", title="Before the switch")
    admin, other = (TopicPanel(new_context(viewport=DESKTOP).new_page(), dashboard.url) for _ in range(2))
    for panel in (admin, other):
        _signed_in(panel.page, dashboard)
        panel.open(bot.bot_id)
        panel.expect_delivery(True)
    admin.turn_delivery_off()  # it asks first
    admin.expect_delivery(False)
    other.expect_delivery(False)
    failed, refused = dashboard.call(bot.token, "topic_publish", topic_key="ci", title="refused", content="x")
    assert failed and refused["error"]["code"] == "topic_disabled"
    expect(other.open_item(kept)).to_have_text("Before the switch")
    with dashboard.api() as api:
        assert api.get(f"/bots/{bot.bot_id}/topic-settings").json()["topic_enabled"] is False
    admin.switch().click()
    admin.expect_delivery(True)
    other.expect_delivery(True)
    after = dashboard.publish(bot, topic_key="ci", title="After switching back on")
    other.expect_item(after, "After switching back on")
    assert [item["title"] for item in _items(dashboard, bot.bot_id)] == ["After switching back on", "Before the switch"]


# 6. A viewer's day ------------------------------------------------------------------------------------------


def test_a_viewers_day(new_context: CreateContextCallback, dashboard: Dashboard) -> None:
    """An admin adds a viewer (one-time password); the viewer chooses a password, reads, searches,
    pins and marks all read for themselves, and can change nothing shared: no switch, no Accounts,
    no saving rules. The admin's unread count is untouched. The admin removes the viewer at the end."""
    bot = dashboard.create_bot("viewer", {"ci": "CI", "alerts": "Alerts"})
    ids = [
        dashboard.publish(bot, topic_key="ci", title="Nightly build passed"),
        dashboard.publish(bot, topic_key="alerts", title="Disk 91% on db-2", level="warn"),
        dashboard.publish(bot, topic_key="ci", title="Release 1.4 deployed"),
    ]
    admin_page = new_context(viewport=DESKTOP).new_page()
    _signed_in(admin_page, dashboard)
    people = AccountsPage(admin_page, dashboard.url).open()
    viewer = unique("e2e-viewer")
    one_time = people.add_person(viewer)
    try:
        page = new_context(viewport=DESKTOP).new_page()
        shell = Shell(page, dashboard.url)
        shell.log_in(viewer, one_time)
        shell.choose_password(one_time, "a viewer's own long passphrase")
        shell.expect_signed_in(viewer)
        expect(shell.nav_link("accounts")).to_have_count(0)

        panel = TopicPanel(page, dashboard.url).open(bot.bot_id)
        expect(panel.rows()).to_have_count(3)
        expect(panel.switch()).to_be_disabled()
        expect(panel.open_item(ids[1])).to_have_text("Disk 91% on db-2")
        panel.toggle_pin()
        expect(panel.pin_button()).to_have_text("Unpin")
        panel.close_item()
        panel.search("release")
        expect(panel.rows()).to_have_count(1)
        panel.clear_search()
        panel.mark_all_read(2)
        expect(panel.unread_rows()).to_have_count(0)
        page.screenshot(path=str(screenshot_path("journey-viewer.png")))

        rules = RulesPage(page, dashboard.url).open(bot.bot_id)
        rules.select("ci")
        expect(rules.save_button()).to_have_count(0)

        # Nothing shared moved: the team's state (REST) and the admin's own panel.
        stored = _items(dashboard, bot.bot_id)
        assert all(not item["is_read"] and not item["is_pinned"] for item in stored)
        admin_panel = TopicPanel(admin_page, dashboard.url).open(bot.bot_id)
        expect(admin_panel.unread_rows()).to_have_count(3)
        expect(admin_panel.row_pin(ids[1])).to_have_count(0)
    finally:
        AccountsPage(admin_page, dashboard.url).open().delete_person(viewer)


# 7. Search, retention, notifications ------------------------------------------------------------------------


def test_search_retention_and_notifications(new_context: CreateContextCallback, dashboard: Dashboard) -> None:
    """Search finds what was published (and nothing else); a notification arrives while the tab is in
    the background, never for a muted topic; a retention of the newest 2 purges the rest on request,
    and the panel and the REST API then agree on what is left."""
    bot = dashboard.create_bot("reader", {"ci": "CI", "alerts": "Alerts"})
    for n in range(4):
        dashboard.publish(bot, topic_key="ci", title=f"canary {n} deployed", content="rolled out to 5%")
    context = new_context(viewport=DESKTOP)
    context.add_init_script(RECORDER)
    page = context.new_page()
    _signed_in(page, dashboard)
    panel = TopicPanel(page, dashboard.url).open(bot.bot_id)
    panel.search("canary")
    expect(panel.rows()).to_have_count(4)
    panel.search("kiwi")
    expect(page.get_by_text("No items match the search")).to_be_visible()
    panel.clear_search()

    panel.turn_on_notifications(mute=("ci",))
    page.evaluate("window.__tdHidden = true")
    dashboard.publish(bot, topic_key="ci", title="muted")
    loud = dashboard.publish(bot, topic_key="alerts", title="Queue backlog 5k", level="warn")
    panel.expect_item(loud, "Queue backlog 5k")
    page.wait_for_function("window.__notes.length >= 1")
    assert [note["title"] for note in page.evaluate("window.__notes")] == ["Alerts: Queue backlog 5k"]
    page.evaluate("window.__tdHidden = false")

    rules = RulesPage(page, dashboard.url).open(bot.bot_id)
    rules.select("ci")
    dry_run = rules.set_retention(items="2")
    expect(dry_run).to_contain_text("3 items are outside the saved retention")
    rules.purge_now()
    expect(page.get_by_text("Purged 3 items of 'ci'")).to_be_visible()
    left = _items(dashboard, bot.bot_id, topic_key="ci")
    assert [item["title"] for item in left] == ["muted", "canary 3 deployed"]
    panel.open(bot.bot_id)
    expect(panel.rows()).to_have_count(3)
    assert panel.shown_ids() == [item["id"] for item in _items(dashboard, bot.bot_id)]


# A stranger --------------------------------------------------------------------------------------------------


@pytest.fixture
def anonymous(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    try:
        yield context.new_page()
    finally:
        context.close()


def test_a_stranger_reaches_nothing(anonymous: Page, dashboard: Dashboard) -> None:
    """Someone with no account is sent to the login page; the REST API and topic_mcp answer 401."""
    bot = dashboard.create_bot("stranger", {})
    anonymous.goto(dashboard.app.path(f"/?bot={bot.bot_id}"))
    expect(anonymous).to_have_url(f"{dashboard.url}/login", timeout=PAGE_LOAD_MS)
    expect(TopicPanel(anonymous, dashboard.url).item_list()).to_have_count(0)
    with httpx.Client(base_url=dashboard.url, timeout=30) as http:
        assert http.get(f"/api/bots/{bot.bot_id}/topic-items").status_code == 401
        mcp = http.post(
            "/api/mcp/topic",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"accept": "application/json, text/event-stream", "x-topic-mcp-token": "tdb_not-a-token"},
        )
        assert mcp.status_code == 401
