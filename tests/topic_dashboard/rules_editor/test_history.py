"""The change history the Rules page shows: who changed a topic, when, and what was before and after."""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session

from topic_dashboard.rules_editor.history import change_summary, history_row
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.topics import (
    RuleChangePublic,
    TopicCreate,
    TopicUpdate,
    create_topic,
    delete_topic,
    rule_history,
    update_topic,
)


def _topic(**changes: Any) -> dict[str, Any]:
    topic: dict[str, Any] = {
        "topic_key": "builds",
        "name": "Builds",
        "description": "CI results",
        "is_active": True,
        "is_default_fallback": False,
        "view_schema_json": {"allowed_types": []},
        "routing_json": {"purpose": "CI", "include_when": ["build results"], "priority": 50},
    }
    return {**topic, **changes}


def test_a_created_topic_and_a_deleted_one_say_so() -> None:
    assert change_summary(None, _topic()) == "created"
    assert change_summary(_topic(), None) == "deleted"


def test_unchanged_save_says_so() -> None:
    assert change_summary(_topic(), _topic()) == "saved without changes"


def test_topic_fields_are_named_by_their_labels() -> None:
    after = _topic(name="CI", is_active=False, view_schema_json={"allowed_types": ["card"]}, description="x")

    assert change_summary(_topic(), after) == "changed name, description, active, view types"


def test_rule_fields_are_named_as_rule_dot_field_in_key_order() -> None:
    routing = {"purpose": "CI", "include_when": ["build results", "deploy results"], "priority": 80, "keywords": ["ci"]}

    summary = change_summary(_topic(), _topic(routing_json=routing))

    assert summary == "changed rule.include_when, rule.keywords, rule.priority"


def test_a_change_of_examples_only_says_which_were_added_and_removed() -> None:
    """A "Move to topic…" teaches a rule one example: the history says which, not "changed rule.examples"."""
    before = {"examples": {"positive": ["Build #1 passed"], "negative": []}}
    moved = {"examples": {"positive": ["Build #1 passed", "Order #1102 shipped to Lisbon"], "negative": []}}
    assert change_summary(_topic(routing_json=before), _topic(routing_json=moved)) == (
        'added positive example "Order #1102 shipped to Lisbon"'
    )
    undone = {"examples": {"positive": [], "negative": ["x" * 80]}}
    assert change_summary(_topic(routing_json=before), _topic(routing_json=undone)) == (
        f'removed positive example "Build #1 passed"; added negative example "{"x" * 59}…"'
    )
    many = {"examples": {"positive": ["a", "b", "c", "d", "e"]}}
    assert change_summary(_topic(routing_json={}), _topic(routing_json=many)).endswith("; and 2 more")
    with_more = {**moved, "priority": 70}
    assert change_summary(_topic(routing_json=before), _topic(routing_json=with_more)) == (
        "changed rule.examples, rule.priority"
    )


def test_a_field_that_went_from_missing_to_empty_is_not_a_change() -> None:
    """A walkthrough's move to the inbox: its history said "changed rule.examples, rule.keywords" when the
    stored rule gained "keywords": [] and "negative": [] beside the one example the move taught."""
    before = {"purpose": "anything"}
    taught = {
        "purpose": "anything",
        "keywords": [],
        "exclude_when": [],
        "examples": {"positive": ["Cloud bill"], "negative": []},
    }
    assert (
        change_summary(_topic(routing_json=before), _topic(routing_json=taught))
        == 'added positive example "Cloud bill"'
    )
    assert change_summary(
        _topic(routing_json=before), _topic(routing_json={**before, "keywords": [], "purpose": "anything"})
    ) == ("saved without changes")
    assert change_summary(_topic(routing_json=before), _topic(routing_json={**before, "keywords": ["bill"]})) == (
        "changed rule.keywords"
    )


def test_topic_and_rule_changes_are_listed_together() -> None:
    routing = {"purpose": "Builds and deploys", "include_when": ["build results"], "priority": 50}

    assert change_summary(_topic(), _topic(name="CI", routing_json=routing)) == "changed name, rule.purpose"


def test_history_row_carries_who_when_and_both_versions_as_json() -> None:
    before, after = _topic(), _topic(name="CI")
    change = RuleChangePublic(
        id=7,
        topic_key="builds",
        actor="ada",
        action="update",
        before=before,
        after=after,
        created_at="2025-03-01T09:30:00+00:00",
    )

    row = history_row(change)

    assert (row.id, row.actor, row.action, row.summary) == (7, "ada", "update", "changed name")
    assert row.created_at == "2025-03-01T09:30:00+00:00"
    assert json.loads(row.before) == before and json.loads(row.after) == after


def test_history_row_of_a_creation_has_no_before() -> None:
    change = RuleChangePublic(
        id=1,
        topic_key="builds",
        actor="ada",
        action="create",
        before=None,
        after=_topic(),
        created_at="2025-03-01T00:00:00+00:00",
    )

    row = history_row(change)

    assert (row.summary, row.before) == ("created", "")
    assert json.loads(row.after)["name"] == "Builds"


def test_the_services_record_is_what_the_page_shows(session: Session) -> None:
    bot, _ = create_bot(session=session, name="history", write_config=False)
    create_topic(
        session=session,
        bot_id=bot.bot_id,
        actor="ada",
        data=TopicCreate(topic_key="builds", name="Builds", routing_json={"include_when": ["build results"]}),
    )
    update_topic(
        session=session,
        bot_id=bot.bot_id,
        topic_key="builds",
        actor="grace",
        data=TopicUpdate(routing_json={"include_when": ["build results", "deploy results"]}),
    )
    delete_topic(session=session, bot_id=bot.bot_id, topic_key="builds", actor="ada")

    rows = [history_row(change) for change in rule_history(session=session, bot_id=bot.bot_id, topic_key="builds")]

    assert [(row.action, row.actor, row.summary) for row in rows] == [
        ("delete", "ada", "deleted"),
        ("update", "grace", "changed rule.include_when"),
        ("create", "ada", "created"),
    ]
    update = rows[1]
    assert json.loads(update.before)["routing_json"]["include_when"] == ["build results"]
    assert json.loads(update.after)["routing_json"]["include_when"] == ["build results", "deploy results"]
    assert all(row.created_at.endswith("+00:00") for row in rows)


def test_change_lines_list_each_changed_field_as_it_read_before_and_after() -> None:
    from topic_dashboard.rules_editor.history import change_lines

    before = {
        "name": "Builds",
        "routing_json": {"purpose": "CI", "include_when": ["a"], "examples": {"positive": ["x"]}},
    }
    after = {
        "name": "Builds and deploys",
        "routing_json": {
            "purpose": "CI",
            "include_when": ["a", "b"],
            "examples": {"positive": ["x"], "negative": ["y"]},
        },
    }
    lines = [(line.field, line.before, line.after) for line in change_lines(before, after)]
    assert lines == [
        ("name", "Builds", "Builds and deploys"),
        ("rule.examples.negative", "", "+ y"),
        ("rule.include_when", "• a", "• a\n+ b"),
    ]


def test_change_lines_are_empty_for_a_creation_a_deletion_and_a_save_without_changes() -> None:
    from topic_dashboard.rules_editor.history import change_lines

    rule = {"name": "Builds", "routing_json": {"purpose": "CI", "keywords": []}}
    assert change_lines(None, rule) == [] and change_lines(rule, None) == []
    assert change_lines(rule, {"name": "Builds", "routing_json": {"purpose": "CI"}}) == []  # missing == empty


def test_a_list_marks_what_was_taken_out_and_what_was_added() -> None:
    from topic_dashboard.rules_editor.history import change_lines

    before = {"routing_json": {"exclude_when": ["chat", "progress"]}}
    after = {"routing_json": {"exclude_when": ["progress", "invoices"]}}
    [line] = change_lines(before, after)
    assert (line.field, line.before, line.after) == (
        "rule.exclude_when",
        "− chat\n• progress",
        "• progress\n+ invoices",
    )


def test_a_two_line_example_stays_one_entry_and_an_empty_view_setting_is_no_change() -> None:
    from topic_dashboard.rules_editor.history import change_lines

    before = {"view_schema_json": {}, "routing_json": {"examples": {"positive": ["a"]}}}
    after = {"view_schema_json": None, "routing_json": {"examples": {"positive": ["a", "Cloud bill\nAWS spend rose"]}}}
    [line] = change_lines(before, after)
    assert (line.field, line.after) == ("rule.examples.positive", "• a\n+ Cloud bill\n   AWS spend rose")
