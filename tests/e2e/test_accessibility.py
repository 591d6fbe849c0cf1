"""Accessibility (#15 target): axe-core (from the npm registry, installed by scripts/bootstrap.sh)
reports no serious or critical violation on every page (the Topic panel on one bot with an item
open and on All bots, Rules, Bots, Conversations, Audit, Insights, Accounts), in the light and the
dark theme, at desktop and phone size (docs/TESTING.md), and a bot select's placeholder as it shows while a page
loads."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import E2EApp
from tests.e2e.pages.shell import Shell
from tests.e2e.topic_panel_support import ADMIN, log_in, make_bot, seed

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

AXE = Path(__file__).resolve().parents[2] / ".tools/axe/node_modules/axe-core/axe.min.js"
PAGES = (
    "/?bot={bot}&item={item}",
    "/?bot=*",
    "/rules?bot={bot}",
    "/bots",
    "/conversations?bot={bot}",
    "/audit",
    "/insights",
    "/accounts",
)


def _violations(page: Page) -> list[str]:
    # Evaluated through the browser's debugging protocol, not as an inline <script>: the app's
    # Content-Security-Policy rightly refuses those.
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;true")
    result = page.evaluate("async () => await axe.run(document, { resultTypes: ['violations'] })")
    found = []
    for violation in result["violations"]:
        if violation["impact"] in ("serious", "critical"):
            targets = [" ".join(node["target"]) for node in violation["nodes"][:3]]
            found.append(f"{violation['id']} ({violation['impact']}): {violation['help']} at {targets}")
    return found


def _placeholder_violations(page: Page) -> list[str]:
    """A bot select as it looks while its page loads (and before a bot exists): a copy of the page's own
    trigger showing the placeholder, checked alone. The page has its bot by the time axe runs over it, so
    only this sees the placeholder's colour (CI once caught it mid-load, below 4.5:1 on the dark theme)."""
    page.evaluate(
        """() => {
            const copy = document.querySelector('#rules-bot-select').cloneNode(true);
            copy.id = 'placeholder-probe';
            copy.setAttribute('data-placeholder', '');
            copy.querySelector('.rt-SelectTriggerInner').replaceChildren(
                Object.assign(document.createElement('span'), { textContent: 'Choose a bot' }));
            document.querySelector('#rules-bot-select').after(copy);
        }"""
    )
    result = page.evaluate(
        "async () => await axe.run('#placeholder-probe', { runOnly: ['color-contrast'], resultTypes: ['violations'] })"
    )
    page.evaluate("() => document.querySelector('#placeholder-probe').remove()")
    return [f"{v['id']} ({v['impact']}) at the placeholder" for v in result["violations"]]


SIZES = {"desktop": {"width": 1400, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_has_no_serious_accessibility_violation(page: Page, e2e_app: E2EApp, scheme: str, size: str) -> None:
    bot_id, _ = make_bot(e2e_app, "ci")
    item = seed(
        e2e_app,
        bot_id,
        topic_key="ci",
        title="Build 42 failed",
        content="**3 tests** failing",
        level="error",
        tags=["nightly"],
    )
    seed(e2e_app, bot_id, topic_key="ci", title="Build 41 passed", level="success")
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size(SIZES[size])
    log_in(page, e2e_app, ADMIN)
    shell = Shell(page, e2e_app.url)
    problems = {}
    for path in PAGES:
        page.goto(e2e_app.path(path.format(bot=bot_id, item=item)))
        expect(shell.content()).to_be_visible()
        page.wait_for_load_state("networkidle")
        problems[path] = _violations(page)
        if path.startswith("/rules"):
            problems["a select's placeholder"] = _placeholder_violations(page)
    report = "\n".join(f"{path}: {problem}" for path, found in problems.items() for problem in found)
    assert not report, report


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_delivery_off_banner_reads_with_enough_contrast(page: Page, e2e_app: E2EApp, scheme: str) -> None:
    """The pages are checked as they open; the banner shows only while a bot's delivery is off. Amber text on an
    amber callout failed the contrast check on Conversations (session 44), so this state is checked too."""
    from sqlmodel import Session

    from topic_dashboard.services.topics import TopicSettingsUpdate, update_topic_settings

    bot_id, _ = make_bot(e2e_app, "ci")
    with Session(e2e_app.engine) as session:
        update_topic_settings(session=session, bot_id=bot_id, update=TopicSettingsUpdate(topic_enabled=False))
    page.emulate_media(color_scheme=scheme)
    log_in(page, e2e_app, ADMIN)
    page.goto(e2e_app.path(f"/?bot={bot_id}"))
    expect(page.locator("#delivery-off-banner")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert not _violations(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_audit_outcome_badge_reads_with_enough_contrast(page: Page, e2e_app: E2EApp, scheme: str) -> None:
    """The Audit page is checked as it opens, with whatever rows the suite left: an `updated` row's cyan badge
    failed the contrast check only when another flow had updated an item first. Here every outcome is there."""
    from sqlmodel import Session

    from topic_dashboard.models import AuditLog

    bot_id, _ = make_bot(e2e_app, "ci")
    with Session(e2e_app.engine) as session:
        for outcome, code in (
            ("ok", None),
            ("deduplicated", None),
            ("updated", None),
            ("refused", "validation_error"),
            ("refused", "filtered_progress"),
            ("error", "internal_error"),
            ("suppressed", None),
        ):
            session.add(AuditLog(bot_id=bot_id, tool="topic_publish", outcome=outcome, error_code=code))
        session.commit()
    page.emulate_media(color_scheme=scheme)
    log_in(page, e2e_app, ADMIN)
    page.goto(e2e_app.path(f"/audit?bot={bot_id}"))
    expect(page.locator("#audit-table td[data-label='Outcome']")).to_have_count(8)  # and the topic's creation
    page.wait_for_load_state("networkidle")
    assert not _violations(page)
