"""Move to topic… in a real browser: an admin moves a published item to another topic with Teach the
rules on; the item is listed there, both rules learned from it (in the database and in the Rules page's
history), and the toast's Undo puts the item and both rules back. Viewers have no such control.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect
from pytest_playwright import CreateContextCallback
from sqlmodel import Session

from tests.e2e.accounts_support import PAGE_LOAD_MS
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.topic_panel_support import (
    ADMIN,
    VIEWER,
    choose_move_target,
    log_in,
    make_bot,
    mcp_publish,
    open_panel,
    row,
    rows,
    seed,
    toast_saying,
)
from tests.support.topics import CI_CONTENT, CI_RULE
from topic_dashboard.models import TopicItem
from topic_dashboard.routing.examples import example_text
from topic_dashboard.services.items import topic_counts
from topic_dashboard.services.topics import TopicUpdate, get_topic, update_topic

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

TITLE = "Build 42 failed"
EXAMPLE = example_text(TITLE, CI_CONTENT)
FROM, TO = "builds", "flaky_tests"  # shown as "Builds" and "Flaky Tests"


def _bot(app: E2EApp) -> tuple[str, str]:
    bot_id, token = make_bot(app, FROM, TO)
    with Session(app.engine) as session:
        update_topic(
            session=session, bot_id=bot_id, topic_key=FROM, data=TopicUpdate(routing_json=CI_RULE), actor="e2e"
        )
    return bot_id, token


def _rule(app: E2EApp, bot_id: str, topic_key: str) -> dict[str, Any]:
    with Session(app.engine) as session:
        return dict(get_topic(session=session, bot_id=bot_id, topic_key=topic_key).routing_json)


def _item_topic(app: E2EApp, item_id: int) -> str:
    with Session(app.engine) as session:
        item = session.get(TopicItem, item_id)
        assert item is not None
        return item.topic_key


def _total(app: E2EApp, bot_id: str, topic_key: str) -> int:
    with Session(app.engine) as session:
        return topic_counts(session=session, bot_id=bot_id).get(topic_key, (0, 0))[1]


def _latest_change(rules: Page, topic_key: str) -> Locator:
    rules.locator(f"#rule-row-{topic_key}").click()
    expect(rules.locator("#editor-key")).to_have_text(topic_key)
    return rules.locator("#rule-history details").first


def test_move_with_teaching_then_undo(page: Page, new_context: CreateContextCallback, e2e_app: E2EApp) -> None:
    bot_id, token = _bot(e2e_app)
    is_error, published = mcp_publish(
        e2e_app, token, topic_key=FROM, title=TITLE, content=CI_CONTENT, message_type="result"
    )
    assert not is_error, published
    item_id = int(published["item_id"])
    before = {key: _rule(e2e_app, bot_id, key) for key in (FROM, TO)}

    # A second tab on the Rules page, opened now so that its route is compiled before the toast runs.
    page.set_viewport_size({"width": 1400, "height": 900})
    log_in(page, e2e_app)
    rules = page.context.new_page()
    rules.goto(e2e_app.path(f"/rules?bot={bot_id}"))
    expect(rules.locator(f"#rule-row-{TO}")).to_be_visible(timeout=PAGE_LOAD_MS)

    # Someone else reads the old topic meanwhile: their panel follows through items_version.
    other = new_context(viewport={"width": 1400, "height": 900}).new_page()
    log_in(other, e2e_app, VIEWER, "viewer")
    open_panel(other, e2e_app, bot_id, f"&view=topic:{FROM}")
    expect(row(other, item_id)).to_be_visible()

    open_panel(page, e2e_app, bot_id)
    row(page, item_id).click()
    expect(page.locator("#detail-title")).to_have_text(TITLE)
    page.locator("#detail-move").click()
    expect(page.locator("#move-popover")).to_be_visible()
    expect(page.locator("#move-teach")).to_have_attribute("aria-checked", "true")  # on by default
    expect(page.locator("#move-confirm")).to_be_disabled()  # until a topic is chosen
    choose_move_target(page, "Flaky Tests")
    expect(page.locator("#move-teach-hint")).to_have_text(
        "Adds this item to the rules: an example for Flaky Tests, a counter-example for Builds."
    )
    page.screenshot(path=str(screenshot_path("topic-panel-move.png")))

    page.locator("#move-confirm").click()
    toast = toast_saying(page, "Moved to Flaky Tests")
    expect(toast).to_contain_text("The rules learned an example for Flaky Tests and a counter-example for Builds.")
    expect(page.locator("#move-popover")).to_have_count(0)

    # The item moved: the open item says so, the counts on screen are the database's.
    assert _item_topic(e2e_app, item_id) == TO
    expect(page.locator("#detail-topic")).to_have_text(TO)
    expect(page.locator(f"#topic-{TO}")).to_contain_text(str(_total(e2e_app, bot_id, TO)))
    expect(page.locator(f"#topic-{FROM}")).to_contain_text(str(_total(e2e_app, bot_id, FROM)))
    assert (_total(e2e_app, bot_id, TO), _total(e2e_app, bot_id, FROM)) == (1, 0)
    expect(row(other, item_id)).to_have_count(0)
    expect(other.locator(f"#topic-{TO}")).to_contain_text("1")
    toast.hover()  # a hovered toast stays (Sonner pauses its timer): Undo stays reachable while we check
    page.screenshot(path=str(screenshot_path("topic-panel-move-toast.png")))

    # Both rules learned from it, through the topic service: in the database and in the history.
    taught = {key: _rule(e2e_app, bot_id, key) for key in (FROM, TO)}
    assert taught[TO]["examples"]["positive"] == [EXAMPLE]
    assert taught[FROM]["examples"]["negative"] == [EXAMPLE]
    rules.reload()
    for key in (TO, FROM):
        latest = _latest_change(rules, key)
        expect(latest).to_contain_text("changed rule.examples")
        expect(latest).to_contain_text(f"by {ADMIN}")
        latest.locator("summary").click()
        expect(latest.locator("pre").nth(0)).not_to_contain_text(TITLE)
        expect(latest.locator("pre").nth(1)).to_contain_text(TITLE)
    rules.close()

    # The item is listed under its new topic.
    toast.get_by_role("button", name="Undo").wait_for()
    page.locator(f"#topic-{TO}").click()
    expect(rows(page)).to_have_count(_total(e2e_app, bot_id, TO))
    expect(row(page, item_id)).to_be_visible()

    # Undo: the item is back where it was, both rules exactly as before.
    toast.get_by_role("button", name="Undo").click()
    expect(toast_saying(page, "Moved back to Builds")).to_contain_text("The rules are as they were.")
    expect(row(page, item_id)).to_have_count(0)  # it left the shown topic
    assert _item_topic(e2e_app, item_id) == FROM
    assert {key: _rule(e2e_app, bot_id, key) for key in (FROM, TO)} == before
    expect(page.locator(f"#topic-{FROM}")).to_contain_text(str(_total(e2e_app, bot_id, FROM)))
    page.locator(f"#topic-{FROM}").click()
    expect(row(page, item_id)).to_be_visible()
    expect(other.locator(f"#topic-{FROM}")).to_contain_text("1")
    expect(other.locator(f"#topic-{TO}")).to_contain_text("0")


def test_the_move_key_and_the_control_are_for_admins_only(
    page: Page, new_context: CreateContextCallback, e2e_app: E2EApp
) -> None:
    bot_id, _ = _bot(e2e_app)
    item_id = seed(e2e_app, bot_id, topic_key=FROM, title="Nightly build 311", content="All green.")

    log_in(page, e2e_app)
    open_panel(page, e2e_app, bot_id, f"&item={item_id}")
    expect(page.locator("#detail-title")).to_have_text("Nightly build 311")
    page.keyboard.press("v")
    expect(page.locator("#move-popover")).to_be_visible()
    expect(page.locator("#move-teach")).to_have_attribute("aria-checked", "true")
    page.keyboard.press("Escape")
    expect(page.locator("#move-popover")).to_have_count(0)
    # Teaching off: only the item moves.
    page.locator("#detail-move").click()
    page.locator("#move-teach").click()
    expect(page.locator("#move-teach")).to_have_attribute("aria-checked", "false")
    expect(page.locator("#move-teach-hint")).to_have_text("Only the item moves; the rules stay as they are.")
    choose_move_target(page, "Inbox (fallback)")
    page.locator("#move-confirm").click()
    expect(toast_saying(page, "Moved to Inbox")).to_contain_text("The rules were not changed.")
    assert _item_topic(e2e_app, item_id) == "inbox"
    assert _rule(e2e_app, bot_id, "inbox")["examples"] == {"positive": [], "negative": []}

    viewer = new_context(viewport={"width": 1400, "height": 900}).new_page()
    log_in(viewer, e2e_app, VIEWER, "viewer")
    open_panel(viewer, e2e_app, bot_id, f"&item={item_id}")
    expect(viewer.locator("#detail-title")).to_have_text("Nightly build 311")
    expect(viewer.locator("#detail-toggle-read")).to_be_visible()  # their own reading state
    expect(viewer.locator("#detail-team")).to_have_count(0)
    expect(viewer.locator("#detail-move")).to_have_count(0)
    viewer.keyboard.press("v")
    expect(viewer.locator("#move-popover")).to_have_count(0)
    expect(viewer.locator("#key-hints")).not_to_contain_text("move to topic")


def test_undo_after_someone_changed_a_rule_only_moves_the_item_back(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = _bot(e2e_app)
    item_id = seed(e2e_app, bot_id, topic_key=FROM, title=TITLE, content=CI_CONTENT)
    log_in(page, e2e_app)
    open_panel(page, e2e_app, bot_id, f"&item={item_id}")
    expect(page.locator("#detail-title")).to_have_text(TITLE)
    page.locator("#detail-move").click()
    choose_move_target(page, "Flaky Tests")
    page.locator("#move-confirm").click()
    toast = toast_saying(page, "Moved to Flaky Tests")
    toast.hover()
    # Another admin edits the new topic's rule before Undo.
    edited = {**_rule(e2e_app, bot_id, TO), "priority": 70}
    with Session(e2e_app.engine) as session:
        update_topic(session=session, bot_id=bot_id, topic_key=TO, data=TopicUpdate(routing_json=edited), actor="bo")
    taught_from = _rule(e2e_app, bot_id, FROM)

    toast.get_by_role("button", name="Undo").click()
    expect(toast_saying(page, "Moved back to Builds")).to_contain_text(
        "The rules were left as they are: the rule of Flaky Tests changed since the move."
    )
    assert _item_topic(e2e_app, item_id) == FROM
    assert _rule(e2e_app, bot_id, TO) == edited
    assert _rule(e2e_app, bot_id, FROM) == taught_from
    expect(page.locator("#detail-topic")).to_have_text(FROM)
