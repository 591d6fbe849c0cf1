"""The rule editor's draft: form fields and JSON convert both ways; bad JSON and bad fields say where."""

from __future__ import annotations

import json

import pytest

from topic_dashboard.errors import AppError
from topic_dashboard.item_views import VIEW_TYPES
from topic_dashboard.rule_templates import TEMPLATES
from topic_dashboard.rules_editor.draft import (
    RuleDraft,
    draft_from_json,
    draft_from_routing_json,
    draft_to_json,
    routing_json_of,
    validate_draft,
    view_schema_json_of,
)


def _full_draft() -> RuleDraft:
    return RuleDraft(
        purpose="Results of CI builds",
        include_when=["build / test results", "构建、测试、部署的结果"],
        exclude_when=["chat about builds without a result"],
        positive=["Build #1423 failed on main"],
        negative=["Running the test suite now…"],
        priority=70,
        keywords=["jenkins"],
        fallback_topic_key="inbox",
        allowed_types=["card", "table"],
    )


def test_form_to_json_and_back_loses_nothing() -> None:
    draft = _full_draft()

    assert draft_from_json(draft_to_json(draft)) == draft


def test_json_view_is_the_routing_rule_plus_the_view_types() -> None:
    body = json.loads(draft_to_json(_full_draft()))

    assert body == {
        "purpose": "Results of CI builds",
        "include_when": ["build / test results", "构建、测试、部署的结果"],
        "exclude_when": ["chat about builds without a result"],
        "examples": {"positive": ["Build #1423 failed on main"], "negative": ["Running the test suite now…"]},
        "priority": 70,
        "system_filters": ["progress", "tool_hint"],
        "keywords": ["jenkins"],
        "fallback_topic_key": "inbox",
        "allowed_view_types": ["card", "table"],
    }


@pytest.mark.parametrize("key", sorted(TEMPLATES))
def test_every_template_survives_stored_rule_to_form_to_json_to_form(key: str) -> None:
    template = TEMPLATES[key]
    stored = draft_from_routing_json(template["routing"], {"allowed_types": template["view_types"]})

    again = draft_from_json(draft_to_json(stored))

    assert again == stored
    assert validate_draft(again) == validate_draft(stored)
    assert view_schema_json_of(again) == view_schema_json_of(stored)


def test_all_view_types_are_stored_as_the_empty_list_that_means_all() -> None:
    draft = RuleDraft()

    assert draft.allowed_types == list(VIEW_TYPES)
    assert view_schema_json_of(draft) == {"allowed_types": []}
    assert draft_from_routing_json({}, {"allowed_types": []}).allowed_types == list(VIEW_TYPES)


def test_the_forms_blank_rows_are_not_saved_but_shown_in_the_json_view() -> None:
    draft = RuleDraft(include_when=["deploy results", ""], positive=["  "])

    assert routing_json_of(draft)["include_when"] == ["deploy results"]
    assert routing_json_of(draft)["examples"]["positive"] == []
    assert json.loads(draft_to_json(draft))["include_when"] == ["deploy results", ""]


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("{ purpose: 1 }", 1, 3),
        ('{\n  "purpose": "x",\n  "priority": 50,\n}', 4, 1),
        ('{"include_when": ["a"', 1, 22),
    ],
)
def test_invalid_json_says_line_and_column(text: str, line: int, column: int) -> None:
    with pytest.raises(AppError) as raised:
        draft_from_json(text)

    assert raised.value.code == "invalid_json"
    assert f"line {line}, column {column}" in raised.value.message


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"priority": 500}, "priority"),
        ({"priority": "high"}, "priority"),
        ({"include_when": ["deploy results", 7]}, "include_when[1]"),
        ({"include_when": ["ok words", "   "]}, "include_when[1]"),
        ({"examples": {"positive": ["fine"], "negative": [None]}}, "examples.negative[0]"),
        ({"examples": {"maybe": []}}, "examples.maybe"),
        ({"colour": "red"}, "colour"),
        ({"fallback_topic_key": "not a key"}, "fallback_topic_key"),
        ({"system_filters": ["chatter"]}, "system_filters[0]"),
        ({"allowed_view_types": ["hologram"]}, "allowed_view_types"),
        ({"allowed_view_types": "card"}, "allowed_view_types"),
    ],
)
def test_an_invalid_field_is_named_by_its_json_path(body: dict[str, object], field: str) -> None:
    with pytest.raises(AppError) as raised:
        draft_from_json(json.dumps(body))

    assert (raised.value.code, raised.value.field) == ("invalid_rule", field)


@pytest.mark.parametrize("text", ["[]", '"a rule"', "42"])
def test_json_that_is_not_an_object_is_refused_at_the_root(text: str) -> None:
    with pytest.raises(AppError) as raised:
        draft_from_json(text)

    assert (raised.value.code, raised.value.field) == ("invalid_rule", "$")


def test_validate_draft_names_the_forms_bad_row() -> None:
    with pytest.raises(AppError) as raised:
        validate_draft(RuleDraft(include_when=["deploy results", "!!!"]))

    assert (raised.value.code, raised.value.field) == ("invalid_rule", "include_when[1]")


def test_validate_draft_returns_the_rule_that_is_stored() -> None:
    stored = validate_draft(_full_draft())

    assert stored["include_when"] == ["build / test results", "构建、测试、部署的结果"]
    assert stored["examples"] == {
        "positive": ["Build #1423 failed on main"],
        "negative": ["Running the test suite now…"],
    }
    assert stored["priority"] == 70
    assert "allowed_view_types" not in stored
