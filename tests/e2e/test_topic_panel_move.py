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

from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.rules import RulesPage
from tests.e2e.topic_panel_support import ADMIN, VIEWER, log_in, make_bot, mcp_publish, open_panel, seed
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


def _latest_change(rules: RulesPage, topic_key: str) -> Locator:
    rules.select(topic_key)
    return rules.history_entries().first


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
    rules = RulesPage(page.context.new_page(), e2e_app.url).open(bot_id, until_topic=TO)

    # Someone else reads the old topic meanwhile: their panel follows through items_version.
    other_page = new_context(viewport={"width": 1400, "height": 900}).new_page()
    log_in(other_page, e2e_app, VIEWER, "viewer")
    other = open_panel(other_page, e2e_app, bot_id, f"&view=topic:{FROM}")
    expect(other.row(item_id)).to_be_visible()

    panel = open_panel(page, e2e_app, bot_id)
    panel.row(item_id).click()
    expect(panel.detail_title()).to_have_text(TITLE)
    panel.move_button().click()
    expect(panel.move_popover()).to_be_visible()
    expect(page.get_by_role("dialog", name="Move to topic")).to_be_visible()  # a screen reader names it
    expect(panel.move_teach()).to_have_attribute("aria-checked", "true")  # on by default
    expect(panel.move_confirm()).to_be_disabled()  # until a topic is chosen
    panel.choose_move_target("Flaky Tests")
    expect(panel.move_teach_hint()).to_have_text(
        "Adds this item to the rules: an example for Flaky Tests, a counter-example for Builds."
    )
    page.screenshot(path=str(screenshot_path("topic-panel-move.png")))

    panel.move_confirm().click()
    toast = panel.toast("Moved to Flaky Tests")
    expect(toast).to_contain_text("The rules learned an example for Flaky Tests and a counter-example for Builds.")
    expect(panel.move_popover()).to_have_count(0)

    # The item moved: the open item says so, the counts on screen are the database's.
    assert _item_topic(e2e_app, item_id) == TO
    expect(panel.detail_topic()).to_have_text(TO)
    expect(panel.topic(TO)).to_contain_text(str(_total(e2e_app, bot_id, TO)))
    expect(panel.topic(FROM)).to_contain_text(str(_total(e2e_app, bot_id, FROM)))
    assert (_total(e2e_app, bot_id, TO), _total(e2e_app, bot_id, FROM)) == (1, 0)
    expect(other.row(item_id)).to_have_count(0)
    expect(other.topic(TO)).to_contain_text("1")
    toast.hover()  # a hovered toast stays (Sonner pauses its timer): Undo stays reachable while we check
    page.screenshot(path=str(screenshot_path("topic-panel-move-toast.png")))

    # Both rules learned from it, through the topic service: in the database and in the history.
    taught = {key: _rule(e2e_app, bot_id, key) for key in (FROM, TO)}
    assert taught[TO]["examples"]["positive"] == [EXAMPLE]
    assert taught[FROM]["examples"]["negative"] == [EXAMPLE]
    rules.page.reload()
    for key in (TO, FROM):
        latest = _latest_change(rules, key)
        expect(latest).to_contain_text("move")  # what taught the rule, and what it learned
        kind = "positive" if key == TO else "negative"
        expect(latest).to_contain_text(f'added {kind} example "')
        expect(latest).to_contain_text(f"by {ADMIN}")
        before_json, after_json = rules.open_change(latest)
        expect(before_json).not_to_contain_text(TITLE)
        expect(after_json).to_contain_text(TITLE)
    rules.page.close()

    # The item is listed under its new topic.
    panel.undo_in(toast).wait_for()
    panel.topic(TO).click()
    expect(panel.rows()).to_have_count(_total(e2e_app, bot_id, TO))
    expect(panel.row(item_id)).to_be_visible()

    # Undo: the item is back where it was, both rules exactly as before.
    panel.undo_in(toast).click()
    expect(panel.toast("Moved back to Builds")).to_contain_text("The rules are as they were.")
    expect(panel.row(item_id)).to_have_count(0)  # it left the shown topic
    assert _item_topic(e2e_app, item_id) == FROM
    assert {key: _rule(e2e_app, bot_id, key) for key in (FROM, TO)} == before
    expect(panel.topic(FROM)).to_contain_text(str(_total(e2e_app, bot_id, FROM)))
    panel.topic(FROM).click()
    expect(panel.row(item_id)).to_be_visible()
    expect(other.topic(FROM)).to_contain_text("1")
    expect(other.topic(TO)).to_contain_text("0")


def test_the_move_key_and_the_control_are_for_admins_only(
    page: Page, new_context: CreateContextCallback, e2e_app: E2EApp
) -> None:
    bot_id, _ = _bot(e2e_app)
    item_id = seed(e2e_app, bot_id, topic_key=FROM, title="Nightly build 311", content="All green.")

    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    page.keyboard.press("v")  # nothing open, nothing ticked: said, not silent (a walkthrough's v did nothing)
    expect(panel.toast("Open an item (o) or tick rows (x) first")).to_be_visible()
    expect(panel.move_popover()).to_have_count(0)
    panel = open_panel(page, e2e_app, bot_id, f"&item={item_id}")
    expect(panel.detail_title()).to_have_text("Nightly build 311")
    page.keyboard.press("v")
    expect(panel.move_popover()).to_be_visible()
    expect(panel.move_teach()).to_have_attribute("aria-checked", "true")
    page.keyboard.press("Escape")
    expect(panel.move_popover()).to_have_count(0)
    # Teaching off: only the item moves.
    panel.move_button().click()
    panel.move_teach().click()
    expect(panel.move_teach()).to_have_attribute("aria-checked", "false")
    expect(panel.move_teach_hint()).to_have_text("Only the item moves; the rules stay as they are.")
    panel.choose_move_target("Inbox (fallback)")
    panel.move_confirm().click()
    expect(panel.toast("Moved to Inbox")).to_contain_text("The rules were not changed.")
    assert _item_topic(e2e_app, item_id) == "inbox"
    assert _rule(e2e_app, bot_id, "inbox")["examples"] == {"positive": [], "negative": []}

    viewer_page = new_context(viewport={"width": 1400, "height": 900}).new_page()
    log_in(viewer_page, e2e_app, VIEWER, "viewer")
    viewer = open_panel(viewer_page, e2e_app, bot_id, f"&item={item_id}")
    expect(viewer.detail_title()).to_have_text("Nightly build 311")
    expect(viewer.read_button()).to_be_visible()  # their own reading state
    expect(viewer.team_menu()).to_have_count(0)
    expect(viewer.move_button()).to_have_count(0)
    viewer_page.keyboard.press("v")
    expect(viewer.move_popover()).to_have_count(0)
    expect(viewer.key_hints()).not_to_contain_text("move to topic")


def test_undo_after_someone_changed_a_rule_only_moves_the_item_back(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = _bot(e2e_app)
    item_id = seed(e2e_app, bot_id, topic_key=FROM, title=TITLE, content=CI_CONTENT)
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id, f"&item={item_id}")
    expect(panel.detail_title()).to_have_text(TITLE)
    panel.move_button().click()
    panel.choose_move_target("Flaky Tests")
    panel.move_confirm().click()
    toast = panel.toast("Moved to Flaky Tests")
    toast.hover()
    # Another admin edits the new topic's rule before Undo.
    edited = {**_rule(e2e_app, bot_id, TO), "priority": 70}
    with Session(e2e_app.engine) as session:
        update_topic(session=session, bot_id=bot_id, topic_key=TO, data=TopicUpdate(routing_json=edited), actor="bo")
    taught_from = _rule(e2e_app, bot_id, FROM)

    panel.undo_in(toast).click()
    expect(panel.toast("Moved back to Builds")).to_contain_text(
        "The rules were left as they are: the rule of Flaky Tests changed since the move."
    )
    assert _item_topic(e2e_app, item_id) == FROM
    assert _rule(e2e_app, bot_id, TO) == edited
    assert _rule(e2e_app, bot_id, FROM) == taught_from
    expect(panel.detail_topic()).to_have_text(FROM)
