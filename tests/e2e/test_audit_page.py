"""The Audit page in a real browser: what people, tokens and bots did is listed by name, filtered by
actor, action, outcome, error code and days (the rows shown are the database's), a row's detail opens as
plain text, and the filtered rows download as CSV."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session

from tests.e2e.accounts_support import PAGE_LOAD_MS, unique
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.topic_panel_support import log_in, make_bot, mcp_publish
from topic_dashboard.models import Bot
from topic_dashboard.services import accounts
from topic_dashboard.services import audit as audit_service
from topic_dashboard.services.audit import Actor

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]


def _shown(page: Page) -> int:
    return page.locator("#audit-table tbody tr").count()


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
    page.goto(e2e_app.path("/audit"))
    expect(page.locator("#page-title")).to_have_text("Audit", timeout=PAGE_LOAD_MS)
    expect(page.locator("#audit-table")).to_be_visible()

    # By actor: exactly this admin's rows (their log-in is in the service's session; the account change).
    page.locator("#audit-actor").fill(admin)
    with Session(e2e_app.engine) as session:
        mine = audit_service.list_calls(session=session, actor=admin, limit=100)
    expect(page.locator("#audit-table tbody tr")).to_have_count(len(mine))
    expect(page.locator("#audit-table")).to_contain_text("user.create")
    expect(page.locator("#audit-table")).to_contain_text("person")

    # By error code: the bot's refused publish, named by the bot's name.
    page.locator("#audit-actor").fill("")
    page.locator("#audit-error-code").fill("filtered_progress")
    with Session(e2e_app.engine) as session:
        refused = audit_service.list_calls(session=session, error_code="filtered_progress", limit=100)
    expect(page.locator("#audit-table tbody tr")).to_have_count(len(refused))
    first = page.locator("#audit-table tbody tr").first
    expect(first).to_contain_text("topic_publish")
    expect(first).to_contain_text("refused")
    page.screenshot(path=str(screenshot_path("audit-filtered.png")), full_page=True)

    # A bot is shown by its name: typing the name finds its calls (they are stored by its id).
    with Session(e2e_app.engine) as session:
        bot_name = (session.get(Bot, bot_id) or Bot(name="?")).name
        calls = audit_service.list_calls(session=session, actor=bot_id, limit=100)
    page.locator("#audit-error-code").fill("")
    page.locator("#audit-actor").fill(bot_name)
    expect(page.locator("#audit-table tbody tr")).to_have_count(len(calls))
    page.locator("#audit-actor").fill("")

    # By outcome through its select, and a day range that excludes everything.
    page.locator("#audit-error-code").fill("")
    page.get_by_role("combobox", name="All outcomes").click()
    page.get_by_role("option", name="refused", exact=True).click()
    with Session(e2e_app.engine) as session:
        all_refused = audit_service.list_calls(session=session, outcome="refused", limit=101)
    expect(page.locator("#audit-table tbody tr")).to_have_count(min(len(all_refused), 100))
    yesterday = (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%d")
    page.locator("#audit-until").fill(yesterday)
    expect(page.get_by_text("Nothing recorded")).to_be_visible()
    page.get_by_role("button", name="Clear").click()
    expect(page.locator("#audit-table")).to_be_visible()

    # A row's detail opens as plain text.
    page.locator("#audit-actor").fill(admin)
    row = page.locator("#audit-table tbody tr").filter(has_text="user.create").first
    row.get_by_role("button", name=re.compile("Detail of audit row")).click()
    detail = page.locator("#audit-detail-text")
    expect(detail).to_contain_text('"role": "viewer"')
    page.screenshot(path=str(screenshot_path("audit-detail.png")))
    page.keyboard.press("Escape")
    expect(detail).to_have_count(0)

    # The filtered rows as CSV: the same rows, with a BOM.
    with page.expect_download() as download:
        page.locator("#audit-export").click()
    raw = Path(download.value.path()).read_text(encoding="utf-8")
    assert raw.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(raw.lstrip("\ufeff"))))
    assert len(rows) == _shown(page) and {r["actor"] for r in rows} == {admin}
    assert "user.create" in {r["action"] for r in rows}
