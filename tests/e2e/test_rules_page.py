"""The Rules page in a real browser: create a topic from a template, edit its rule with a live preview,
save and get the same decision from `topic_route` over MCP; the fallback topic is protected; errors
show where they are; deleting a topic does what was chosen with its items; viewers only read."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session, select

from tests.e2e.accounts_support import log_in, unique
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.rules import CELLS_OUT_OF_VIEW, PAST_THE_WINDOW, WORDS_BROKEN, RulesPage
from tests.support.mcp import mcp_client, result_json, run_async
from topic_dashboard.errors import AppError
from topic_dashboard.models import TopicItem
from topic_dashboard.rule_templates import TEMPLATE_FAMILIES, TEMPLATES, family_template_keys
from topic_dashboard.rules_editor.preview import plain_labels
from topic_dashboard.services import accounts
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicCreate, create_topic, get_topic

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

ADMIN = "rules-admin"
VIEWER = "rules-viewer"
SCREENSHOT = screenshot_path("rules.png")
BUILDS = TEMPLATES["build_results"]
# No condition of the "CI / build results" template matches this; the one the test adds does.
MESSAGE = "Translation catalogue sync finished: 412 strings updated for the Japanese locale"
NEW_CONDITION = "translation catalogue sync"


# A save embeds the rule's new texts and their glosses in the other language before it answers
# (seconds on a loaded machine), as the first preview does.
SAVE_WAIT_MS = 20_000


def _bot(app: E2EApp, *templates: str) -> tuple[str, str]:
    """A fresh bot (with its `inbox`) and a topic per template key; returns (bot_id, token)."""
    with Session(app.engine) as session:
        bot, token = create_bot(session=session, name=unique("rules-bot"))
        for key in templates:
            template = TEMPLATES[key]
            create_topic(
                session=session,
                bot_id=bot.bot_id,
                actor="e2e",
                data=TopicCreate(
                    topic_key=key,
                    name=template["name"],
                    routing_json=template["routing"],
                    view_schema_json={"allowed_types": template["view_types"]},
                ),
            )
        return bot.bot_id, token


def _rule(app: E2EApp, bot_id: str, topic_key: str) -> dict[str, Any]:
    with Session(app.engine) as session:
        return dict(get_topic(session=session, bot_id=bot_id, topic_key=topic_key).routing_json)


def _bills_topic(app: E2EApp, bot_id: str, routing_json: dict[str, Any]) -> None:
    """A "bills" topic with these rules, made by the service (not through the page under test)."""
    with Session(app.engine) as session:
        create_topic(
            session=session,
            bot_id=bot_id,
            actor="e2e",
            data=TopicCreate(topic_key="bills", name="Bills", routing_json=routing_json),
        )


def _topic_exists(app: E2EApp, bot_id: str, topic_key: str) -> bool:
    with Session(app.engine) as session:
        try:
            get_topic(session=session, bot_id=bot_id, topic_key=topic_key)
        except AppError:
            return False
        return True


def _item_topics(app: E2EApp, item_ids: list[int]) -> dict[int, str]:
    with Session(app.engine) as session:
        query = select(TopicItem.id, TopicItem.topic_key).where(TopicItem.id.in_(item_ids))  # type: ignore[union-attr]
        rows = session.exec(query)
        return {int(item_id): key for item_id, key in rows}


def _open_rules(page: Page, app: E2EApp, username: str, role: str, bot_id: str) -> RulesPage:
    log_in(page, app, username, role)
    return RulesPage(page, app.url).open(bot_id)


def _screenshot(page: Page, path: Path) -> None:
    """The whole page in one tall viewport (a full-page capture would move the fixed sidebar)."""
    height = page.evaluate("document.documentElement.scrollHeight")
    page.set_viewport_size({"width": 1440, "height": max(900, min(int(height), 2400))})
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))


def _topic_route(app: E2EApp, token: str, content: str, title: str | None = None) -> dict[str, Any]:
    arguments = {"content": content, "message_type": "result"} | ({"title": title} if title else {})

    async def body() -> dict[str, Any]:
        async with mcp_client(app.backend_url + "/api/mcp/topic", token) as client:
            result = await client.call_tool("topic_route", arguments)
            assert not result.is_error, result
            return result_json(result)

    return run_async(body)


def test_create_from_template_edit_preview_save_and_topic_route_agrees(page: Page, e2e_app: E2EApp) -> None:
    bot_id, token = _bot(e2e_app)
    rules = _open_rules(page, e2e_app, ADMIN, "admin", bot_id)

    rules.choose_template(BUILDS["label"])
    expect(rules.new_key()).to_have_value("build_results")
    expect(rules.new_name()).to_have_value(BUILDS["name"])
    rules.create_new()
    expect(rules.editor_key()).to_have_text("build_results")
    expect(rules.rule_row("build_results")).to_contain_text(BUILDS["name"])
    for index, condition in enumerate(BUILDS["routing"]["include_when"]):
        expect(rules.condition("include_when", index)).to_have_value(condition)
    expect(rules.purpose()).to_have_value(BUILDS["routing"]["purpose"])

    # Test the message against the template's rule: nothing matches, so it goes to the fallback.
    rules.test_message(MESSAGE)
    # The first preview embeds the draft's rule texts (about 1 ms a token per core): seconds on a busy machine.
    expect(rules.decision("topic")).to_have_text("→ inbox", timeout=20_000)
    expect(rules.decision("reason")).to_contain_text("no topic fits clearly")
    # The explanation shows meaning beside the rule words: the closest rule text and how close.
    # Named as the editor's own sections are ("Include when #1", "positive example #2"), not routing_json's paths.
    expect(rules.decision("scores")).to_contain_text(
        re.compile(r"meaning: (Include when #\d|purpose|name|positive example #\d)")
    )
    expect(rules.decision("scores")).not_to_contain_text(re.compile(r"include_when\[|examples\.|translated"))

    # Add an include condition: the preview changes at once, and nothing is saved yet.
    rules.add_button("include_when").click()
    rules.condition("include_when", 3).fill(NEW_CONDITION)
    expect(rules.decision("topic")).to_have_text("→ build_results")
    expect(rules.decision("reason")).to_contain_text(f'"{NEW_CONDITION}"')
    expect(rules.decision("scores")).to_contain_text("build_results")
    assert NEW_CONDITION not in _rule(e2e_app, bot_id, "build_results")["include_when"]

    # The tested message becomes a positive example.
    rules.add_button("positive").click()
    positives = len(BUILDS["routing"]["examples"]["positive"])
    expect(rules.example("positive", positives)).to_have_value(MESSAGE)

    rules.save_button().click()
    expect(page.get_by_text("Saved: bots route by this rule")).to_be_visible(timeout=SAVE_WAIT_MS)
    expect(rules.save_button()).to_be_disabled(timeout=SAVE_WAIT_MS)
    saved = _rule(e2e_app, bot_id, "build_results")
    assert saved["include_when"] == [*BUILDS["routing"]["include_when"], NEW_CONDITION]
    assert saved["examples"]["positive"] == [*BUILDS["routing"]["examples"]["positive"], MESSAGE]

    # The bot, over MCP, gets the decision the page showed.
    expect(rules.decision("topic")).to_have_text("→ build_results")
    decision = _topic_route(e2e_app, token, MESSAGE)
    assert (decision["should_publish"], decision["topic_key"]) == (True, "build_results")
    expect(rules.decision("publish")).to_have_text("publish")
    expect(rules.decision("reason")).to_have_text(plain_labels(decision["reason"]))
    expect(rules.decision("confidence")).to_have_text(f"confidence {round(decision['confidence'] * 100)}%")

    # The history says who changed what, when, and shows before and after.
    entries = rules.history_entries()
    expect(entries).to_have_count(2)
    latest = entries.nth(0)
    expect(latest).to_contain_text("update")
    expect(latest).to_contain_text("changed rule.examples, rule.include_when")
    expect(latest).to_contain_text(f"by {ADMIN}")
    expect(latest).to_contain_text(re.compile(r"seconds? ago"))
    expect(entries.nth(1)).to_contain_text("created")
    before, after = rules.open_change(latest)
    # What changed, field by field, before the full JSON: the new condition in the After column only.
    fields = rules.changed_fields(latest)
    expect(fields).to_have_count(2)
    include = fields.filter(has_text="rule.include_when")
    expect(include.locator("td").nth(2)).to_contain_text(NEW_CONDITION)
    expect(include.locator("td").nth(1)).not_to_contain_text(NEW_CONDITION)
    expect(include.locator("td").nth(1)).to_contain_text(BUILDS["routing"]["include_when"][0])
    expect(fields.filter(has_text="rule.examples.positive").locator("td").nth(2)).to_contain_text(MESSAGE)
    expect(after).to_contain_text(NEW_CONDITION)
    expect(after).to_contain_text(MESSAGE)
    expect(before).to_contain_text(BUILDS["routing"]["include_when"][0])
    expect(before).not_to_contain_text(NEW_CONDITION)

    # Side by side (a laptop's 1400x900), the topics stay in view while the editor scrolls to its history.
    page.set_viewport_size({"width": 1400, "height": 900})
    page.locator("#rule-history").scroll_into_view_if_needed()
    expect(page.locator("#rule-history")).to_be_in_viewport()
    expect(rules.rule_row("build_results")).to_be_in_viewport()
    page.screenshot(path=str(screenshot_path("rules-scrolled.png")))

    _screenshot(page, SCREENSHOT)


def test_a_shop_template_is_chosen_from_its_family_with_the_keyboard_and_created(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough by a shop owner found no template for a shop among four; with the shop and personal
    families there are 42, so the select lists them under a heading per family after "Blank rule", and the
    keyboard still reaches every one (arrows pass the headings; typing a label's start jumps to it)."""
    bot_id, _ = _bot(e2e_app)
    rules = _open_rules(page, e2e_app, ADMIN, "admin", bot_id)
    refunds = TEMPLATES["refunds"]

    rules.new_topic_button().click()
    page.locator("#new-template").focus()
    page.keyboard.press("Enter")
    listbox = page.get_by_role("listbox")
    expect(listbox.get_by_role("option").first).to_have_text("Blank rule")
    groups = listbox.get_by_role("group")
    expect(groups).to_have_count(len(TEMPLATE_FAMILIES))
    for index, family in enumerate(TEMPLATE_FAMILIES):
        expect(groups.nth(index)).to_contain_text(family)
        expect(groups.nth(index).get_by_role("option")).to_have_count(len(family_template_keys(family)))
    page.screenshot(path=str(screenshot_path("rules-new-topic-templates.png")))

    page.keyboard.press("ArrowDown")  # from "Blank rule" past the first heading to its first template
    first = TEMPLATES[family_template_keys(next(iter(TEMPLATE_FAMILIES)))[0]]["label"]
    expect(listbox.get_by_role("option", name=first, exact=True)).to_be_focused()
    page.keyboard.type("Refunds")  # a label's first word (a space would scroll the list: Radix's type-ahead)
    refunds_option = groups.nth(list(TEMPLATE_FAMILIES).index("Shop")).get_by_role(
        "option", name=refunds["label"], exact=True
    )
    expect(refunds_option).to_be_focused()
    expect(refunds_option).to_be_in_viewport()
    page.screenshot(path=str(screenshot_path("rules-new-topic-templates-shop.png")))
    page.keyboard.press("Enter")
    expect(listbox).to_be_hidden()
    expect(page.locator("#new-template")).to_have_text(refunds["label"])
    expect(rules.new_key()).to_have_value("refunds")
    expect(rules.new_name()).to_have_value(refunds["name"])
    rules.new_name().press("Enter")  # creates, as Create does (a walkthrough's Enter did nothing)

    expect(rules.editor_key()).to_have_text("refunds")
    for index, condition in enumerate(refunds["routing"]["include_when"]):
        expect(rules.condition("include_when", index)).to_have_value(condition)
    stored = _rule(e2e_app, bot_id, "refunds")
    for field in ("purpose", "include_when", "exclude_when", "examples", "priority"):
        assert stored[field] == refunds["routing"][field], field


def test_switching_form_json_form_loses_nothing(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = _bot(e2e_app, "alerts")
    alerts = TEMPLATES["alerts"]["routing"]
    rules = _open_rules(page, e2e_app, ADMIN, "admin", bot_id)
    rules.rule_row("alerts").click()
    expect(rules.editor_key()).to_have_text("alerts")

    rules.condition("include_when", 0).fill("service down or unreachable")
    rules.condition("exclude_when", 1).fill("alerts from the staging cluster")
    expect(rules.save_button()).to_be_enabled()
    rules.mode("JSON")
    editor = rules.json_editor()
    expect(editor).to_have_value(re.compile("service down or unreachable"))
    body = json.loads(editor.input_value())
    assert body["include_when"][0] == "service down or unreachable"
    assert body["exclude_when"] == [
        alerts["exclude_when"][0],
        "alerts from the staging cluster",
        *alerts["exclude_when"][2:],
    ]
    assert sorted(body["allowed_view_types"]) == sorted(TEMPLATES["alerts"]["view_types"])

    body["purpose"] = "Incidents someone must act on now"
    body["priority"] = 95
    body["allowed_view_types"] = ["card", "timeline"]
    editor.fill(json.dumps(body, ensure_ascii=False, indent=2))
    expect(rules.rule_error()).to_have_count(0)
    rules.mode("Form")
    expect(rules.purpose()).to_have_value("Incidents someone must act on now")
    expect(rules.condition("include_when", 0)).to_have_value("service down or unreachable")
    for index, condition in enumerate(alerts["include_when"][1:], start=1):
        expect(rules.condition("include_when", index)).to_have_value(condition)
    expect(rules.condition("exclude_when", 1)).to_have_value("alerts from the staging cluster")
    for index, example in enumerate(alerts["examples"]["positive"]):
        expect(rules.example("positive", index)).to_have_value(example)
    for index, example in enumerate(alerts["examples"]["negative"]):
        expect(rules.example("negative", index)).to_have_value(example)
    expect(rules.priority_value()).to_have_text("95")

    # Back in JSON the text is what was typed (same rule), and saving stores all of it.
    rules.mode("JSON")
    assert json.loads(editor.input_value()) == body
    rules.save_button().click()
    expect(rules.save_button()).to_be_disabled(timeout=SAVE_WAIT_MS)
    saved = _rule(e2e_app, bot_id, "alerts")
    assert saved["purpose"] == "Incidents someone must act on now"
    assert saved["priority"] == 95
    assert saved["include_when"][0] == "service down or unreachable"
    assert saved["exclude_when"] == [
        alerts["exclude_when"][0],
        "alerts from the staging cluster",
        *alerts["exclude_when"][2:],
    ]
    assert saved["examples"] == alerts["examples"]
    with Session(e2e_app.engine) as session:
        topic = get_topic(session=session, bot_id=bot_id, topic_key="alerts")
        assert topic.view_schema_json == {"allowed_types": ["card", "timeline"]}


def test_invalid_json_and_invalid_fields_show_their_errors(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = _bot(e2e_app, "build_results")
    rules = _open_rules(page, e2e_app, ADMIN, "admin", bot_id)
    rules.rule_row("build_results").click()
    expect(rules.editor_key()).to_have_text("build_results")
    error = rules.rule_error()

    # A form row that cannot match anything is named as the form names it (a walkthrough read the JSON
    # path "include_when[1]" there), and saving is blocked.
    rules.condition("include_when", 1).fill("!!!")
    expect(error).to_have_text("Include when #2 '!!!' has no words to match on")
    expect(rules.save_button()).to_be_disabled()
    rules.condition("include_when", 1).fill(BUILDS["routing"]["include_when"][1])  # as stored again
    expect(rules.save_button()).to_be_disabled()
    expect(error).to_have_count(0)

    rules.mode("JSON")
    editor = rules.json_editor()
    valid = editor.input_value()
    editor.fill('{\n  "purpose": "x",\n  "priority": 50,\n}')
    expect(error).to_contain_text("not valid JSON at line 4, column 1")
    expect(rules.save_button()).to_be_disabled()
    rules.mode("Form")  # refused: switching would lose what was typed
    expect(editor).to_be_visible()
    expect(editor).to_have_value(re.compile(r'"priority": 50,\n}$'))

    editor.fill(json.dumps({"priority": 500}))
    expect(error).to_contain_text("priority")
    expect(error).to_contain_text("it must be from 0 to 100")
    editor.fill(json.dumps({"include_when": ["deploy results", 7]}))
    expect(error).to_contain_text("include_when[1]")
    editor.fill(json.dumps({"colour": "red"}))
    expect(error).to_contain_text("unknown field 'colour'")
    editor.fill(json.dumps({"allowed_view_types": ["hologram"]}))
    expect(error).to_contain_text("allowed_view_types")
    expect(rules.save_button()).to_be_disabled()

    editor.fill(valid)
    expect(error).to_have_count(0)
    # The rule as stored, typed again: nothing to save (a walkthrough was offered Save, and saving it added
    # "saved without changes" to the history). A real change is offered; back again, it is not.
    expect(rules.save_button()).to_be_disabled()
    editor.fill(valid.replace('"priority": 60', '"priority": 61'))
    expect(rules.save_button()).to_be_enabled()
    editor.fill(valid)
    expect(rules.save_button()).to_be_disabled()
    editor.fill(valid.replace('"priority": 60', '"priority": 61'))  # left unsaved for what follows
    expect(rules.save_button()).to_be_enabled()
    # nothing was saved
    assert _rule(e2e_app, bot_id, "build_results")["include_when"] == BUILDS["routing"]["include_when"]
    assert _rule(e2e_app, bot_id, "build_results")["priority"] == 60

    # A bad key for a new topic, and a key that exists. The edit above is not saved: New topic asks first,
    # and Discard changes goes on to the New topic dialog.
    rules.new_topic_button().click()
    expect(page.locator("#rules-unsaved-dialog")).to_be_visible()
    page.locator("#rules-discard").click()
    rules.new_key().fill("Bad Key")
    rules.new_name().fill("Bad")
    rules.create_new()
    expect(rules.new_error()).to_contain_text(
        "the key 'Bad Key' cannot be used: a topic key is lower-case letters, digits and underscores"
    )
    rules.new_key().fill("inbox")
    rules.new_key().press("Enter")
    expect(rules.new_error()).to_contain_text("topic 'inbox' exists already")
    assert not _topic_exists(e2e_app, bot_id, "Bad Key")

    # The dialog closed without a topic made: the discarded topic is open again, as saved (it was closed,
    # leaving an empty page behind the dialog).
    page.keyboard.press("Escape")
    expect(rules.new_key()).to_have_count(0)
    expect(rules.editor_key()).to_have_text("build_results")
    rules.mode("Form")
    expect(rules.condition("include_when", 0)).to_have_value(BUILDS["routing"]["include_when"][0])
    expect(rules.save_button()).to_be_disabled()


def test_the_fallback_topic_cannot_be_deleted_or_deactivated(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = _bot(e2e_app, "alerts")
    rules = _open_rules(page, e2e_app, ADMIN, "admin", bot_id)

    rules.rule_row("inbox").click()
    expect(rules.editor_key()).to_have_text("inbox")
    switch = rules.active_switch()
    expect(switch).to_have_attribute("aria-checked", "true")
    expect(switch).to_be_disabled()
    expect(page.locator("#rule-active-label")).to_have_text("Always active")  # a grey switch read as off
    rules.rule_row("alerts").click()
    expect(page.locator("#rule-active-label")).to_have_text("Active")
    rules.rule_row("inbox").click()
    expect(rules.editor_key()).to_have_text("inbox")
    rules.delete_button().click()
    expect(page.get_by_text("The fallback topic cannot be deleted: unrouted results go there")).to_be_visible()
    expect(rules.confirm_delete_button()).to_have_count(0)

    # The server refuses too, whatever a client sends.
    with Session(e2e_app.engine) as session:
        admin_token = accounts.create_api_token(session=session, name=unique("rules-admin-token"), role="admin")
    headers = {"Authorization": f"Bearer {admin_token}"}
    topics_url = f"{e2e_app.backend_url}/api/bots/{bot_id}/topics"
    with httpx.Client(headers=headers, timeout=30) as http:
        deleted = http.delete(f"{topics_url}/inbox", params={"items": "delete"})
        deactivated = http.put(f"{topics_url}/inbox", json={"is_active": False})
    assert (deleted.status_code, deleted.json()["error"]["code"]) == (409, "fallback_protected")
    assert (deactivated.status_code, deactivated.json()["error"]["code"]) == (409, "fallback_protected")
    with Session(e2e_app.engine) as session:
        assert get_topic(session=session, bot_id=bot_id, topic_key="inbox").is_active

    # An ordinary topic can be switched off (and is, at once) and back on.
    rules.rule_row("alerts").click()
    expect(rules.editor_key()).to_have_text("alerts")
    expect(switch).to_be_enabled()
    expect(rules.active_state()).to_have_count(0)  # the admin's switch says it
    switch.click()
    expect(switch).to_have_attribute("aria-checked", "false")
    expect(rules.rule_row("alerts")).to_contain_text("inactive")
    with Session(e2e_app.engine) as session:
        assert not get_topic(session=session, bot_id=bot_id, topic_key="alerts").is_active
    switch.click()
    expect(switch).to_have_attribute("aria-checked", "true")
    expect(rules.rule_row("alerts")).not_to_contain_text("inactive")


def test_deleting_a_topic_with_items_moves_or_deletes_them_as_chosen(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = _bot(e2e_app, "alerts", "build_results")
    with Session(e2e_app.engine) as session:

        def seed(topic_key: str, title: str) -> int:
            return publish_item(
                session=session,
                bot_id=bot_id,
                source="system",
                request=PublishRequest(topic_key=topic_key, title=title, content=f"{title}: details"),
            ).item_id

        alerts = [seed("alerts", "p99 latency alert"), seed("alerts", "disk full on db-2")]
        builds = [seed("build_results", "Build #7 failed")]
        kept = [seed("inbox", "an unrelated note")]
        archived = session.get(TopicItem, alerts[1])
        assert archived is not None
        archived.is_archived = True  # archived for everyone: not in the panel, still the topic's
        session.add(archived)
        session.commit()
    rules = _open_rules(page, e2e_app, ADMIN, "admin", bot_id)
    # The count is what the panel lists (a walkthrough read 2 here and 1 in the panel), the archived one apart.
    expect(rules.rule_row("alerts").get_by_role("cell").last).to_contain_text(re.compile(r"^1\s*1 archived"))
    page.screenshot(path=str(screenshot_path("rules-items-archived.png")))

    rules.rule_row("alerts").click()
    expect(rules.editor_key()).to_have_text("alerts")
    rules.delete_button().click()
    dialog = rules.dialog()
    expect(dialog).to_contain_text("Delete topic alerts?")
    expect(dialog).to_contain_text("It has 2 items. What should happen to them?")
    choice = rules.delete_items_choice()
    expect(choice.get_by_role("radio", name="Move them to the fallback topic")).to_be_checked()
    rules.confirm_delete_button().click()
    expect(page.get_by_text("Deleted topic 'alerts'; 2 items moved to the fallback topic")).to_be_visible()
    expect(rules.rule_row("alerts")).to_have_count(0)
    assert not _topic_exists(e2e_app, bot_id, "alerts")
    assert _item_topics(e2e_app, alerts + builds + kept) == {
        alerts[0]: "inbox",
        alerts[1]: "inbox",
        builds[0]: "build_results",
        kept[0]: "inbox",
    }

    rules.rule_row("build_results").click()
    expect(rules.editor_key()).to_have_text("build_results")
    rules.delete_button().click()
    expect(dialog).to_contain_text("It has 1 items")
    choice.get_by_role("radio", name="Delete them").click()
    expect(choice.get_by_role("radio", name="Delete them")).to_be_checked()
    rules.confirm_delete_button().click()
    expect(page.get_by_text("Deleted topic 'build_results'; 1 items deleted")).to_be_visible()
    expect(rules.rule_row("build_results")).to_have_count(0)
    assert _item_topics(e2e_app, alerts + builds + kept) == {alerts[0]: "inbox", alerts[1]: "inbox", kept[0]: "inbox"}
    expect(rules.rule_row("inbox").get_by_role("cell").last).to_contain_text(re.compile(r"^2\s*1 archived"))


def test_a_viewer_sees_no_edit_controls_and_the_server_refuses_their_writes(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = _bot(e2e_app, "alerts")
    with Session(e2e_app.engine) as session:
        create_topic(
            session=session,
            bot_id=bot_id,
            actor="e2e",
            data=TopicCreate(topic_key="paused", name="Paused", is_active=False),
        )
    rules = _open_rules(page, e2e_app, VIEWER, "viewer", bot_id)
    rules.select("paused")
    expect(rules.active_state()).to_have_text("Off (admins change it)")

    expect(rules.read_only_note()).to_be_visible()
    expect(rules.new_topic_button()).to_have_count(0)
    rules.rule_row("alerts").click()
    expect(rules.editor_key()).to_have_text("alerts")
    for control in (
        rules.save_button(),
        rules.delete_button(),
        rules.add_button("include_when"),
        rules.add_button("positive"),
    ):
        expect(control).to_have_count(0)
    for field in (
        rules.name_field(),
        rules.purpose(),
        rules.condition("include_when", 0),
        rules.condition("exclude_when", 0),
        rules.example("positive", 0),
        rules.example("negative", 0),
    ):
        expect(field).to_have_attribute("readonly", "")
    expect(rules.active_switch()).to_be_disabled()
    # said in words too: the greyed switch read as off to a viewer (a walkthrough)
    expect(rules.active_state()).to_have_text("On (admins change it)")
    rules.mode("JSON")
    expect(rules.json_editor()).to_have_attribute("readonly", "")
    # A viewer may still try a message against the rules.
    rules.test_message(TEMPLATES["alerts"]["routing"]["examples"]["positive"][0])
    expect(rules.decision("topic")).to_have_text("→ alerts", timeout=20_000)  # the first preview embeds the rule texts
    expect(rules.add_button("positive")).to_have_count(0)

    with Session(e2e_app.engine) as session:
        viewer_token = accounts.create_api_token(session=session, name=unique("rules-viewer-token"), role="viewer")
    topics_url = f"{e2e_app.backend_url}/api/bots/{bot_id}/topics"
    with httpx.Client(headers={"Authorization": f"Bearer {viewer_token}"}, timeout=30) as http:
        assert http.get(topics_url).status_code == 200
        refused = [
            http.post(topics_url, json={"topic_key": "sneaky", "name": "Sneaky"}),
            http.put(f"{topics_url}/alerts", json={"name": "Renamed"}),
            http.delete(f"{topics_url}/alerts", params={"items": "delete"}),
        ]
    assert [(r.status_code, r.json()["error"]["code"]) for r in refused] == [(403, "forbidden")] * 3
    assert not _topic_exists(e2e_app, bot_id, "sneaky")
    with Session(e2e_app.engine) as session:
        assert get_topic(session=session, bot_id=bot_id, topic_key="alerts").name == TEMPLATES["alerts"]["name"]


def test_retention_is_set_in_its_dialog_shows_what_a_purge_would_delete_and_purges_on_request(
    page: Page, e2e_app: E2EApp
) -> None:
    """#15 retention: keep the newest N items; the dialog says how many are outside it; pinned items
    are kept; "Delete N now" deletes exactly those; a bad number is refused where it was typed."""
    from topic_dashboard.services.items import set_item_flags

    bot_id, _ = _bot(e2e_app, "alerts")
    with Session(e2e_app.engine) as session:
        ids = [
            publish_item(
                session=session,
                bot_id=bot_id,
                source="system",
                request=PublishRequest(topic_key="alerts", title=f"alert {n}", content="details"),
            ).item_id
            for n in range(6)
        ]
        set_item_flags(session=session, bot_id=bot_id, item_id=ids[0], is_pinned=True)  # the oldest, pinned
    rules = _open_rules(page, e2e_app, ADMIN, "admin", bot_id)
    rules.rule_row("alerts").click()
    expect(rules.editor_key()).to_have_text("alerts")
    rules.open_retention()
    expect(rules.retention_dry_run()).to_contain_text("This topic keeps everything.")

    rules.keep_items().fill("-2")
    rules.save_retention()
    expect(rules.retention_error()).to_contain_text("whole number")
    rules.keep_items().fill("2")
    rules.save_retention()
    expect(page.get_by_text("Retention of 'alerts' saved")).to_be_visible()
    # The newest 2 are kept, the oldest is pinned: 3 are outside.
    expect(rules.retention_dry_run()).to_contain_text("3 items are outside the saved retention")
    with Session(e2e_app.engine) as session:
        assert get_topic(session=session, bot_id=bot_id, topic_key="alerts").retention_items == 2
    assert len(_item_topics(e2e_app, ids)) == 6  # saving deletes nothing by itself
    page.screenshot(path=str(screenshot_path("rules-retention.png")))
    rules.purge_button().click()
    expect(page.get_by_text("Purged 3 items of 'alerts'")).to_be_visible()
    assert set(_item_topics(e2e_app, ids)) == {ids[0], ids[4], ids[5]}
    expect(rules.retention_dry_run()).to_contain_text("Nothing is outside the saved retention now.")
    expect(rules.purge_button()).to_be_disabled()


def test_retention_by_days_purges_what_is_older_and_keeps_the_pinned_and_the_recent(
    page: Page, e2e_app: E2EApp
) -> None:
    """#15 retention by age: keep 7 days; items published 10 and 30 days ago are outside it, a pinned
    one of 20 days is kept, today's are kept; the dialog counts, "Delete N now" deletes exactly those."""
    from datetime import timedelta

    from topic_dashboard.models._common import utcnow
    from topic_dashboard.services.items import set_item_flags

    bot_id, _ = _bot(e2e_app, "alerts")
    ages = {"30 days": 30, "20 days, pinned": 20, "10 days": 10, "today a": 0, "today b": 0}
    with Session(e2e_app.engine) as session:
        ids = {
            title: publish_item(
                session=session,
                bot_id=bot_id,
                source="system",
                request=PublishRequest(topic_key="alerts", title=title, content="details"),
            ).item_id
            for title in ages
        }
        set_item_flags(session=session, bot_id=bot_id, item_id=ids["20 days, pinned"], is_pinned=True)
        for title, days in ages.items():
            item = session.get(TopicItem, ids[title])
            assert item is not None
            item.created_at = utcnow() - timedelta(days=days, minutes=1)
            session.add(item)
        session.commit()
    rules = _open_rules(page, e2e_app, ADMIN, "admin", bot_id)
    rules.rule_row("alerts").click()
    rules.open_retention()
    rules.keep_days().fill("7")
    rules.save_retention()
    expect(page.get_by_text("Retention of 'alerts' saved")).to_be_visible()
    expect(rules.retention_dry_run()).to_contain_text("2 items are outside the saved retention")
    with Session(e2e_app.engine) as session:
        topic = get_topic(session=session, bot_id=bot_id, topic_key="alerts")
        assert (topic.retention_days, topic.retention_items) == (7, None)
    assert len(_item_topics(e2e_app, list(ids.values()))) == 5
    rules.purge_button().click()
    expect(page.get_by_text("Purged 2 items of 'alerts'")).to_be_visible()
    kept = set(_item_topics(e2e_app, list(ids.values())))
    assert kept == {ids["20 days, pinned"], ids["today a"], ids["today b"]}
    # Reopened, the dialog shows the saved days.
    rules.close_retention()
    rules.open_retention()
    expect(rules.keep_days()).to_have_value("7")
    expect(rules.retention_dry_run()).to_contain_text("Nothing is outside the saved retention now.")


# A finished result the hand-written patterns take for a progress report; the stream model reads a result.
OVERRULED = "Looking at the March bills, electricity came to $142, down 8% from February."


def test_the_preview_says_when_the_patterns_were_overruled_and_keeps_pleasantries_out(
    page: Page, e2e_app: E2EApp
) -> None:
    """ "Test this message" shows the overrule in the reason: an owner whose topic excludes "progress updates"
    sees the bill land in it and why, and a pleasantry a bot would type as a result still stays out."""
    bot_id, token = _bot(e2e_app)
    _bills_topic(
        e2e_app,
        bot_id,
        {
            "purpose": "Household and cloud bills: how much, and why it changed",
            "include_when": ["a bill arrived or was paid"],
            "exclude_when": ["progress updates"],
            "keywords": ["bill", "账单"],
        },
    )
    rules = _open_rules(page, e2e_app, ADMIN, "admin", bot_id)
    rules.select("bills")
    rules.test_message(OVERRULED)
    expect(rules.decision("topic")).to_have_text("→ bills", timeout=20_000)
    expect(rules.decision("reason")).to_contain_text(
        "it looked like a progress report at first, but read as a whole it is a finished result (the work-in-progress check)"
    )
    page.screenshot(path=str(screenshot_path("rules-overruled.png")))
    decision = _topic_route(e2e_app, token, OVERRULED)  # the bot gets what the page showed
    assert (decision["should_publish"], decision["topic_key"]) == (True, "bills")
    expect(rules.decision("reason")).to_have_text(plain_labels(decision["reason"]))
    # A result after a lead-in naming the work, and one followed by an offer (session 38): each read without it.
    rules.test_message("Checking the bank feed, the electricity bill of $182 was paid this morning.")
    expect(rules.decision("reason")).to_contain_text(
        "it looked like a progress report at first, but read as a whole it is a finished result (the work-in-progress check)"
    )
    expect(rules.decision("topic")).to_have_text("→ bills")
    rules.test_message("Received $3,200 from Henderson. Want me to send a receipt?")
    expect(rules.decision("reason")).to_contain_text(
        "it looked like a greeting at first, but read as a whole it is a finished result (the conversation check)"
    )
    expect(rules.decision("publish")).not_to_have_text("don't publish")
    page.screenshot(path=str(screenshot_path("rules-offer-kept.png")))
    rules.test_message("Happy to help with the trip! Want me to look at hotels?")
    expect(rules.decision("publish")).to_have_text("don't publish")

    rules.test_message("Got it.")
    expect(rules.decision("publish")).to_have_text("don't publish")
    expect(rules.decision("reason")).to_contain_text("acknowledgement")


def test_the_test_panel_reads_on_a_phone_and_says_what_beliefs_mean_when_nothing_is_published(
    page: Page, e2e_app: E2EApp
) -> None:
    """A walkthrough at 390 px found the "Why" column squeezed to a letter's width (the reasons wrapped letter
    by letter) and "Add as negative example" cut off; and a progress note showed builds at 95% belief beside
    "don't publish" with nothing saying what that belief is."""
    bot_id, _ = _bot(e2e_app, "build_results_en")
    page.set_viewport_size({"width": 390, "height": 844})
    rules = _open_rules(page, e2e_app, ADMIN, "admin", bot_id)
    rules.select("build_results_en")
    rules.test_message("CI build #512 on main passed: all 1,204 tests green in 11 minutes.")
    expect(rules.decision("topic")).to_have_text("→ build_results_en", timeout=20_000)
    why = rules.decision("scores").locator("tbody tr").first.locator("td").last
    box = why.bounding_box()
    assert box is not None and box["width"] >= 200, box
    # each score a card on a phone: the reasons were cut off behind a sideways scroll (a walkthrough)
    assert rules.decision("scores").evaluate(CELLS_OUT_OF_VIEW) == []
    assert page.evaluate(PAST_THE_WINDOW) == []
    for button in ("#add-positive", "#add-negative"):
        edge = page.locator(button).bounding_box()
        assert edge is not None and edge["x"] >= 0 and edge["x"] + edge["width"] <= 390, (button, edge)
    expect(page.locator("#decision-scores-note")).to_have_count(0)
    page.locator("#add-negative").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path("rules-test-phone.png")))

    rules.test_message("Still working on it, 40% done")
    expect(rules.decision("publish")).to_have_text("don't publish")
    expect(page.locator("#decision-scores-note")).to_contain_text("which topic it would suit if it were a result")


def test_an_example_of_two_lines_shows_both_and_an_edit_keeps_them_apart(page: Page, e2e_app: E2EApp) -> None:
    """What Move to topic… teaches is the item's title and content on two lines. A walkthrough saw them run
    together in the one-line field ("Cloud bill for NovemberAWS spend…"); an edit there would have saved them so."""
    bot_id, _ = _bot(e2e_app)
    taught = "Cloud bill for November\nAWS spend rose 14% to $48,200 in November."
    _bills_topic(e2e_app, bot_id, {"purpose": "bills", "examples": {"positive": [taught]}})
    rules = _open_rules(page, e2e_app, ADMIN, "admin", bot_id)
    rules.select("bills")
    example = rules.example("positive", 0)
    expect(example).to_have_value(taught)  # both lines, the break kept
    expect(example).to_have_attribute("aria-label", "Positive example #1")
    expect(page.get_by_role("button", name="Remove positive example #1")).to_be_visible()
    example.press("Control+End")
    example.press_sequentially(" (cloud)")
    rules.save_button().click()
    expect(page.get_by_text("Saved: bots route by this rule")).to_be_visible(timeout=SAVE_WAIT_MS)
    assert _rule(e2e_app, bot_id, "bills")["examples"]["positive"] == [taught + " (cloud)"]


def test_a_title_is_tested_with_the_message_and_taught_with_it(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough saw a titled publish route elsewhere than "Test this message" showed, which had no title
    field. The title is routed with the content (as topic_route reads it), and "Add as positive example" keeps
    both on two lines, as Move to topic… teaches an item."""
    bot_id, token = _bot(e2e_app, "build_results")
    rules = _open_rules(page, e2e_app, ADMIN, "admin", bot_id)
    rules.select("build_results")
    content, title = "See the log for details.", "Nightly build on main failed"
    rules.test_message(content)
    expect(rules.decision("publish")).to_have_text("don't publish", timeout=20_000)  # alone it says nothing
    expect(page.get_by_label("Test message title")).to_be_visible()
    rules.test_title(title)
    expect(rules.decision("topic")).to_have_text("→ build_results", timeout=20_000)
    decision = _topic_route(e2e_app, token, content, title)  # the bot gets what the page showed
    assert (decision["should_publish"], decision["topic_key"]) == (True, "build_results")
    assert _topic_route(e2e_app, token, content)["should_publish"] is False
    page.screenshot(path=str(screenshot_path("rules-test-title.png")))

    count = len(TEMPLATES["build_results"]["routing"]["examples"]["positive"])
    page.locator("#add-positive").click()
    expect(rules.example("positive", count)).to_have_value(f"{title}\n{content}")


def test_a_topic_opens_from_the_keyboard_and_the_table_fits_beside_the_editor(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough could not open a topic without a mouse (the rows took clicks only), and at 1280 px the
    "Last item" column sat behind a sideways scroll. Each topic's name is a button; the last item's time is
    under the count, and the table's every column is in view beside the open editor."""
    bot_id, _ = _bot(e2e_app, "build_results")
    page.set_viewport_size({"width": 1280, "height": 800})
    rules = _open_rules(page, e2e_app, ADMIN, "admin", bot_id)
    opener = page.get_by_role("button", name="Builds", exact=True)
    opener.focus()
    page.keyboard.press("Enter")
    expect(rules.editor_key()).to_have_text("build_results")
    expect(opener).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name="Inbox", exact=True).focus()
    page.keyboard.press(" ")
    expect(rules.editor_key()).to_have_text("inbox")
    table = page.locator("#rules-table")
    items = table.get_by_role("columnheader", name="Items")
    box, edge = table.bounding_box(), items.bounding_box()
    assert box is not None and edge is not None
    assert edge["x"] + edge["width"] <= box["x"] + box["width"] + 1, (edge, box)  # no column behind a scroll
    page.screenshot(path=str(screenshot_path("rules-keyboard.png")))


def test_the_open_topic_is_in_the_address_so_reload_a_link_and_back_reopen_it(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough opened a topic's rules, reloaded and found none open: the address kept only the bot, so
    neither a reload, nor a link sent to a colleague, nor Back came back to the topic. A link to a topic the
    bot has not (or to something that cannot be a topic key) opens nothing and says why, never an error page."""
    bot_id, _ = _bot(e2e_app, "build_results")
    rules = _open_rules(page, e2e_app, VIEWER, "viewer", bot_id)
    rules.select("build_results")
    expect(page).to_have_url(re.compile(rf"/rules\?bot={bot_id}&topic=build_results$"))

    page.reload()
    expect(rules.editor_key()).to_have_text("build_results", timeout=30_000)

    rules.select("inbox")
    expect(page).to_have_url(re.compile(r"&topic=inbox$"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"&topic=build_results$"))
    expect(rules.editor_key()).to_have_text("build_results")
    page.go_forward()
    expect(rules.editor_key()).to_have_text("inbox")

    # A link shared with someone else opens the same topic for them.
    other = page.context.new_page()
    shared = RulesPage(other, e2e_app.url).open_link(f"bot={bot_id}&topic=build_results", until_topic="build_results")
    expect(shared.editor_key()).to_have_text("build_results")
    expect(shared.link_note()).to_have_count(0)
    other.close()

    # A topic the bot has not: the page opens, nothing is opened, a note says why; the address drops it.
    rules.open_link(f"bot={bot_id}&topic=payroll")
    expect(rules.link_note()).to_contain_text("has no topic 'payroll' (deleted, or a mistyped link)")
    expect(rules.editor_key()).to_have_count(0)
    expect(page.get_by_text("Choose a topic")).to_be_visible()
    expect(page).to_have_url(re.compile(rf"/rules\?bot={bot_id}$"))
    rules.select("inbox")  # opening one puts the note away
    expect(rules.link_note()).to_have_count(0)

    # Something that cannot be a topic key is quoted back as text, not run or rendered.
    crafted = "<img src=x onerror=window.__rulesPwned=1>"
    rules.open_link(f"bot={bot_id}&topic={quote(crafted)}")
    expect(rules.link_note()).to_contain_text(f"The link names '{crafted}', which is not a topic key")
    expect(rules.link_note().locator("img")).to_have_count(0)
    assert page.evaluate("window.__rulesPwned") is None
    page.set_viewport_size({"width": 1280, "height": 800})
    page.screenshot(path=str(screenshot_path("rules-link-note.png")))

    # A link to a bot that is gone: the first bot shows and the link's topic is not opened on it.
    rules.open_link("bot=no-such-bot&topic=inbox", until_topic="inbox")
    expect(rules.link_note()).to_contain_text("There is no bot 'no-such-bot'")
    expect(rules.link_note()).to_contain_text("its topic 'inbox' is not opened")
    expect(rules.editor_key()).to_have_count(0)


def test_unsaved_edits_are_not_lost_to_another_topic_new_topic_another_bot_or_back(page: Page, e2e_app: E2EApp) -> None:
    """Typed rule edits were dropped without a word when the admin opened another topic, pressed Back or chose
    another bot. Now the page asks: Keep editing leaves everything as it was (the edits, the topic, the
    address); Discard changes goes where the admin was going and stores nothing."""
    bot_id, _ = _bot(e2e_app, "build_results")
    other_bot, _ = _bot(e2e_app)
    saved = _rule(e2e_app, bot_id, "build_results")
    rules = _open_rules(page, e2e_app, ADMIN, "admin", bot_id)
    rules.select("inbox")
    rules.select("build_results")
    rules.add_include_condition(NEW_CONDITION)
    expect(rules.save_button()).to_be_enabled()
    dialog = page.locator("#rules-unsaved-dialog")

    # Another topic: asked; Keep editing keeps the edit, the topic and the address.
    rules.rule_row("inbox").click()
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text(f"Your changes to {BUILDS['name']} are not saved")
    page.screenshot(path=str(screenshot_path("rules-unsaved-asks.png")))
    page.locator("#rules-keep-editing").click()
    expect(dialog).to_have_count(0)
    expect(rules.editor_key()).to_have_text("build_results")
    expect(rules.condition("include_when", len(saved["include_when"]))).to_have_value(NEW_CONDITION)
    expect(page).to_have_url(re.compile(r"&topic=build_results$"))

    # New topic, and Escape: the same.
    rules.new_topic_button().click()
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(rules.new_key()).to_have_count(0)
    expect(rules.condition("include_when", len(saved["include_when"]))).to_have_value(NEW_CONDITION)

    # Back (to the inbox opened before): asked, and the address stays on the edited topic meanwhile.
    page.go_back()
    expect(dialog).to_be_visible()
    expect(page).to_have_url(re.compile(r"&topic=build_results$"))
    page.locator("#rules-keep-editing").click()
    expect(rules.condition("include_when", len(saved["include_when"]))).to_have_value(NEW_CONDITION)

    # Another bot: asked; the bot stays until the admin chooses.
    page.locator(RulesPage.BOT_SELECT).click()
    page.get_by_role("option", selected=False).first.click()
    expect(dialog).to_be_visible()
    page.locator("#rules-keep-editing").click()
    expect(rules.editor_key()).to_have_text("build_results")

    # Away by the navigation and back by it (an address naming nothing): the edit is there, unasked.
    page.get_by_role("link", name="Topics", exact=True).click()
    expect(page.locator("#page-title")).to_have_text("Topics")
    page.get_by_role("link", name="Rules", exact=True).click()
    expect(page.get_by_text(f"Your unsaved changes to {BUILDS['name']} are still here")).to_be_visible()
    expect(dialog).to_have_count(0)
    expect(rules.editor_key()).to_have_text("build_results")
    expect(rules.condition("include_when", len(saved["include_when"]))).to_have_value(NEW_CONDITION)
    expect(page).to_have_url(re.compile(r"&topic=build_results$"))

    # Discard changes: the other topic opens and nothing was stored.
    rules.rule_row("inbox").click()
    page.locator("#rules-discard").click()
    expect(rules.editor_key()).to_have_text("inbox")
    expect(page).to_have_url(re.compile(r"&topic=inbox$"))
    assert _rule(e2e_app, bot_id, "build_results") == saved
    rules.select("build_results")  # opens without asking: nothing is unsaved any more
    expect(dialog).to_have_count(0)
    expect(page).to_have_url(re.compile(rf"/rules\?bot={bot_id}&topic=build_results$"))
    assert other_bot != bot_id


# A shop's topics as a walkthrough named them, and a key as long as a key may be (64 characters).
SHOP_TOPICS = {
    "feedback": "Customer feedback",
    "orders": "Orders & deliveries",
    "refunds": "Refunds & returns",
    "quarterly_inventory_reconciliation_for_every_warehouse_and_store": "Stock",
}


def _assert_topics_table_reads(rules: RulesPage, width: int) -> None:
    for key, name in SHOP_TOPICS.items():
        opener = rules.rule_row(key).get_by_role("button", name=name, exact=True)
        assert opener.evaluate(WORDS_BROKEN) == [], (width, key)
    assert rules.table().evaluate(CELLS_OUT_OF_VIEW) == [], width
    assert rules.page.evaluate(PAST_THE_WINDOW) == [], width


def test_topic_names_break_between_words_and_every_column_reads_at_1280_and_on_a_phone(
    page: Page, e2e_app: E2EApp
) -> None:
    """A walkthrough at 1280 px saw the topics' names broken mid-word ("Custo/mer feedba/ck") beside an empty
    editor, and for a viewer the last item's time cut off ("last 10 m"); at 390 px the Items column was off
    screen. Names wrap between words only (a key too long for its column may still wrap), every column is in
    view at both widths, and the page never scrolls sideways."""
    bot_id, _ = _bot(e2e_app)
    with Session(e2e_app.engine) as session:
        for key, name in SHOP_TOPICS.items():
            create_topic(session=session, bot_id=bot_id, actor="e2e", data=TopicCreate(topic_key=key, name=name))
            publish_item(
                session=session,
                bot_id=bot_id,
                source="system",
                request=PublishRequest(topic_key=key, title=f"{name}: first", content="details"),
            )
    page.set_viewport_size({"width": 1280, "height": 800})
    rules = _open_rules(page, e2e_app, VIEWER, "viewer", bot_id)
    for key in SHOP_TOPICS:
        expect(rules.rule_row(key)).to_contain_text("ago")  # the last item's time, written in the browser
    _assert_topics_table_reads(rules, 1280)
    page.screenshot(path=str(screenshot_path("rules-topics-1280.png")))

    rules.select("orders")
    _assert_topics_table_reads(rules, 1280)
    page.screenshot(path=str(screenshot_path("rules-topics-viewer-1280.png")))

    page.set_viewport_size({"width": 390, "height": 844})
    _assert_topics_table_reads(rules, 390)
    rules.table().scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path("rules-topics-phone.png")))
