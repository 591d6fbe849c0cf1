"""The Audit page in a real browser: what people, tokens and bots did is listed by name, filtered by
actor, action, outcome, error code and days (the rows shown are the database's), a row's detail opens as
plain text, and the filtered rows download as CSV."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session

from tests.e2e.accounts_support import unique
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.audit import AuditPage
from tests.e2e.pages.insights import InsightsPage
from tests.e2e.topic_panel_support import log_in, make_bot, mcp_publish
from topic_dashboard.models import Bot
from topic_dashboard.services import accounts
from topic_dashboard.services import audit as audit_service
from topic_dashboard.services.audit import Actor

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]


def test_an_admin_finds_who_did_what_filters_opens_a_detail_and_exports(page: Page, e2e_app: E2EApp) -> None:
    admin = unique("audit-admin")
    log_in(page, e2e_app, admin, role="admin")
    bot_id, token = make_bot(e2e_app, "builds")
    assert not mcp_publish(e2e_app, token, topic_key="builds", title="Build 7 passed", content="green")[0]
    assert mcp_publish(e2e_app, token, title="still going", content="...", message_type="progress")[0]  # refused
    with Session(e2e_app.engine) as session:  # an account change by this admin
        accounts.create_user(
            session=session,
            username=unique("audited"),
            password="long enough password",
            role="viewer",
            actor=Actor("user", admin),
        )

    page.set_viewport_size({"width": 1400, "height": 1000})
    audit = AuditPage(page, e2e_app.url).open()
    expect(audit.table()).to_be_visible()

    # By actor: exactly this admin's rows (their log-in is in the service's session; the account change).
    audit.filter_actor(admin)
    with Session(e2e_app.engine) as session:
        mine = audit_service.list_calls(session=session, actor=admin, limit=100)
    expect(audit.rows()).to_have_count(len(mine))
    expect(audit.table()).to_contain_text("user.create")
    expect(audit.table()).to_contain_text("person")

    # By error code: the bot's refused publish, named by the bot's name.
    audit.filter_actor("")
    audit.filter_error_code("filtered_progress")
    with Session(e2e_app.engine) as session:
        refused = audit_service.list_calls(session=session, error_code="filtered_progress", limit=100)
    expect(audit.rows()).to_have_count(len(refused))
    first = audit.rows().first
    expect(first).to_contain_text("topic_publish")
    expect(first).to_contain_text("refused")
    page.screenshot(path=str(screenshot_path("audit-filtered.png")), full_page=True)

    # A bot is shown by its name: typing the name finds its calls (they are stored by its id).
    with Session(e2e_app.engine) as session:
        bot_name = (session.get(Bot, bot_id) or Bot(name="?")).name
        calls = audit_service.list_calls(session=session, actor=bot_id, limit=100)
    audit.filter_error_code("")
    audit.filter_actor(bot_name)
    expect(audit.rows()).to_have_count(len(calls))
    audit.filter_actor("")

    # By outcome through its select, and a day range that excludes everything.
    audit.filter_error_code("")
    audit.filter_outcome("refused")
    with Session(e2e_app.engine) as session:
        all_refused = audit_service.list_calls(session=session, outcome="refused", limit=101)
    expect(audit.rows()).to_have_count(min(len(all_refused), 100))
    yesterday = (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%d")
    audit.filter_until(yesterday)
    expect(audit.nothing_recorded()).to_be_visible()
    audit.clear_filters()
    expect(audit.table()).to_be_visible()

    # A row's detail opens as plain text.
    audit.filter_actor(admin)
    row = audit.rows().filter(has_text="user.create").first
    detail = audit.open_detail(row)
    expect(detail).to_contain_text('"role": "viewer"')
    page.screenshot(path=str(screenshot_path("audit-detail.png")))
    audit.close_detail()

    # The filtered rows as CSV: the same rows, with a BOM.
    with page.expect_download() as download:
        audit.export_button().click()
    raw = Path(download.value.path()).read_text(encoding="utf-8")
    assert raw.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(raw.lstrip("\ufeff"))))
    assert len(rows) == audit.rows().count() and {r["actor"] for r in rows} == {admin}
    assert "user.create" in {r["action"] for r in rows}


def test_a_refused_bot_call_opens_to_say_what_was_refused_and_why_as_text(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough opened the Audit page after a bot's topic_publish was refused: the row had a code and no
    way to see more. Opened, it names the tool and the bot, the code, the message the bot was answered (when
    the row kept it) and what the code means; a message that quotes a bot's text shows that text, never markup."""
    bot_id, token = make_bot(e2e_app, "builds")
    assert mcp_publish(e2e_app, token, title="still going", content="...", message_type="progress")[0]  # refused
    crafted = "<img src=x onerror=window.__auditPwned=1>"
    with Session(e2e_app.engine) as session:  # a refusal kept with what the tool answered
        audit_service.record_call(
            session=session,
            bot_id=bot_id,
            tool="topic_publish",
            outcome="refused",
            error_code="topic_not_found",
            error={"code": "topic_not_found", "message": f"there is no topic '{crafted}'; call topic_list_topics"},
        )
        bot_name = (session.get(Bot, bot_id) or Bot(name="?")).name
    log_in(page, e2e_app, unique("audit-viewer"), role="viewer")
    page.set_viewport_size({"width": 1280, "height": 900})
    audit = AuditPage(page, e2e_app.url).open()
    audit.filter_actor(bot_name)
    expect(audit.rows()).to_have_count(2)

    progress = audit.rows().filter(has_text="filtered_progress")
    # progress kept out is the product doing its job: said so, not in a failure's red (as Insights counts it)
    expect(progress).to_contain_text("refused: filtered")
    expect(audit.rows().filter(has_text="topic_not_found")).not_to_contain_text("filtered")
    detail = audit.open_detail(progress)
    expect(page.get_by_role("dialog")).to_contain_text("topic_publish refused")
    expect(audit.detail_fact("tool")).to_contain_text("topic_publish")
    expect(audit.detail_fact("bot")).to_contain_text(f"{bot_name} ({bot_id})")
    expect(audit.detail_fact("outcome")).to_contain_text("refused")
    expect(audit.detail_fact("error_code")).to_contain_text("filtered_progress")
    expect(audit.detail_fact("meaning")).to_contain_text("Progress updates never go to a topic")
    expect(detail).to_be_visible()
    page.wait_for_function("document.getAnimations().every((a) => a.playState !== 'running')")  # opened
    page.screenshot(path=str(screenshot_path("audit-refused-detail.png")))
    audit.close_detail()

    missing = audit.rows().filter(has_text="topic_not_found")
    audit.open_detail(missing)
    message = audit.detail_fact("message")
    expect(message).to_contain_text(f"there is no topic '{crafted}'; call topic_list_topics")
    expect(audit.detail().locator("img")).to_have_count(0)
    assert page.evaluate("window.__auditPwned") is None
    expect(audit.detail_json()).to_have_count(0)  # the facts say all the row kept
    page.wait_for_function("document.getAnimations().every((a) => a.playState !== 'running')")  # opened
    page.screenshot(path=str(screenshot_path("audit-refused-message.png")))


def test_on_a_phone_each_row_is_a_card_with_every_column_in_view(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough at 390 px saw Time and Actor and nothing else: Bot, Action and Outcome were off screen,
    behind a sideways scroll with no sign of it. On a phone each row is a card, every value under its label."""
    bot_id, token = make_bot(e2e_app, "builds")
    assert mcp_publish(e2e_app, token, title="still going", content="...", message_type="progress")[0]  # refused
    with Session(e2e_app.engine) as session:
        bot_name = (session.get(Bot, bot_id) or Bot(name="?")).name
    log_in(page, e2e_app, unique("audit-viewer"), role="viewer")
    page.set_viewport_size({"width": 390, "height": 844})
    audit = AuditPage(page, e2e_app.url).open()
    audit.filter_actor(bot_name)
    expect(audit.rows()).to_have_count(1)
    row = audit.rows().first
    expect(row).to_contain_text("refused")
    assert audit.cells_out_of_view() == []
    for label, value in (("Bot", bot_name), ("Action", "topic_publish"), ("Outcome", "refused")):
        expect(row.locator(f"td[data-label='{label}']")).to_contain_text(value)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    row.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path("audit-phone.png")))


def test_a_viewer_reads_their_own_log_ins_and_no_one_elses(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough's viewer read the admins' log-ins and the addresses they came from. The viewer's trail
    leaves out others' log-ins, accounts and API tokens, and says so; the viewer's own log-in is there."""
    admin, viewer = unique("audit-ada"), unique("audit-vic")
    with Session(e2e_app.engine) as session:
        accounts.create_user(session=session, username=admin, password="a long pass phrase 1", role="admin")
        accounts.log_in(
            session=session, username=admin, password="a long pass phrase 1", ttl_hours=1, address="203.0.113.7"
        )
    log_in(page, e2e_app, viewer, role="viewer")
    page.set_viewport_size({"width": 1280, "height": 900})
    audit = AuditPage(page, e2e_app.url).open()
    expect(page.locator("#audit-viewer-note")).to_contain_text("Log-ins, accounts and API tokens are shown to admins")
    audit.filter_actor(admin)
    expect(audit.nothing_recorded()).to_be_visible()
    expect(audit.rows()).to_have_count(0)
    audit.filter_actor(viewer)
    expect(audit.rows().filter(has_text="auth.login")).not_to_have_count(0)


def test_an_address_that_names_a_bot_opens_on_its_rows(page: Page, e2e_app: E2EApp) -> None:
    """Insights' "Failure rate per bot" links each bot to its trail; it opened the whole trail (a walkthrough)."""
    bot_id, token = make_bot(e2e_app, "builds")
    other_id, other_token = make_bot(e2e_app, "builds")
    assert mcp_publish(e2e_app, token, title="still going", content="...", message_type="progress")[0]
    assert mcp_publish(e2e_app, other_token, title="still going", content="...", message_type="progress")[0]
    with Session(e2e_app.engine) as session:
        bot_name = (session.get(Bot, bot_id) or Bot(name="?")).name
    log_in(page, e2e_app, unique("audit-viewer"), role="viewer")
    audit = AuditPage(page, e2e_app.url).open(f"?bot={bot_id}")
    expect(audit.bot_select()).to_contain_text(bot_name)
    expect(audit.rows()).to_have_count(2)  # its topic's creation and its refused call; the other bot's are not
    for index in range(2):
        expect(audit.rows().nth(index)).to_contain_text(bot_name)
    expect(audit.rows().filter(has_text="filtered_progress")).to_have_count(1)
    assert other_id != bot_id
    # The chart's scale reads evenly: every tick labelled (a walkthrough read 0, 30, 60, 120: 90 was dropped)
    ticks = page.locator("#audit-chart .recharts-yAxis-tick-labels text")
    expect(ticks.first).to_be_visible()
    values = [int(text) for text in ticks.all_text_contents()]
    steps = {b - a for a, b in pairwise(values)}
    assert len(values) >= 3 and len(steps) == 1, values

    # Its failures, as Insights counts them: the link from "Failure rate per bot" opened all of the bot's rows
    _, answer = mcp_publish(e2e_app, token, title="Deploy finished", content="v2.4 is live", level="catastrophic")
    assert answer["error"]["code"] == "validation_error", answer  # a failure: a level that does not exist
    insights = InsightsPage(page, e2e_app.url).open(f"?bot={bot_id}")
    insights.page.locator("#failures-table").get_by_role("link", name=bot_name).click()
    page.wait_for_url(f"**/audit?bot={bot_id}&outcome=failed")
    expect(audit.outcome_select()).to_contain_text("failures (as Insights counts)")
    expect(audit.rows()).to_have_count(1)  # the refused publish; not the filtered progress nor the topic's creation
    expect(audit.rows().first).not_to_contain_text("filtered")
