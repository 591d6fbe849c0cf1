"""validate_routing: every field of docs/DESIGN.md §4.1, defaults, and errors that name the field."""

from __future__ import annotations

import json
from typing import Any

import pytest

from topic_dashboard.errors import AppError
from topic_dashboard.routing import RoutingRules, validate_routing

FINANCE: dict[str, Any] = {
    "purpose": "沉淀与金融市场相关的关键结论和告警，便于用户集中查看。",
    "include_when": ["内容涉及股票/指数/外汇/利率/宏观数据/财报", "包含明确数值、时间点、事件影响判断"],
    "exclude_when": ["纯寒暄或无结论聊天", "与金融无关的任务进度"],
    "examples": {"positive": ["美联储议息后，10Y美债收益率上行20bp，成长股承压"], "negative": ["文件上传成功"]},
    "priority": 80,
    "fallback_topic_key": "inbox",
}


def invalid(obj: Any) -> AppError:
    with pytest.raises(AppError) as info:
        validate_routing(obj)
    assert info.value.code == "invalid_rule"
    assert info.value.status == 422
    return info.value


def test_design_example_validates_with_every_field_kept() -> None:
    rules = validate_routing(FINANCE)
    assert rules.purpose == FINANCE["purpose"]
    assert rules.include_when == FINANCE["include_when"]
    assert rules.exclude_when == FINANCE["exclude_when"]
    assert rules.examples.positive == FINANCE["examples"]["positive"]
    assert rules.examples.negative == ["文件上传成功"]
    assert rules.priority == 80
    assert rules.fallback_topic_key == "inbox"


def test_defaults_and_always_on_system_filters() -> None:
    rules = validate_routing({})
    assert rules == validate_routing(None) == RoutingRules()
    assert rules.priority == 50
    assert rules.include_when == [] and rules.keywords == []
    assert rules.system_filters == ["progress", "tool_hint"]
    # progress and tool-hint stay on even when a rule lists only one of them
    assert validate_routing({"system_filters": ["progress"]}).system_filters == ["progress", "tool_hint"]


def test_system_filter_aliases_and_unknown_filter() -> None:
    rules = validate_routing({"system_filters": ["tool-hint", "sendProgress"]})
    assert rules.system_filters == ["progress", "tool_hint"]
    assert invalid({"system_filters": ["progress", "emoji"]}).field == "system_filters[1]"


def test_json_text_and_rules_object_are_accepted() -> None:
    assert validate_routing(json.dumps(FINANCE, ensure_ascii=False)).priority == 80
    rules = validate_routing(FINANCE)
    assert validate_routing(rules) is rules
    assert invalid("{not json").field is None
    assert invalid(["a list"]).field is None


def test_a_single_condition_string_is_read_as_a_list() -> None:
    assert validate_routing({"include_when": "股票/指数"}).include_when == ["股票/指数"]


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"priority": 101}, "priority"),
        ({"priority": -1}, "priority"),
        ({"priority": "80"}, "priority"),
        ({"priority": True}, "priority"),
        ({"priority": 7.5}, "priority"),
        ({"include_when": ["股票", 3]}, "include_when[1]"),
        ({"include_when": ["股票", "外汇", "   "]}, "include_when[2]"),
        ({"include_when": ["的"]}, "include_when[0]"),
        ({"include_when": ["库存", "是的"]}, "include_when[1]"),
        ({"exclude_when": ["a"]}, "exclude_when[0]"),
        ({"include_when": {"a": 1}}, "include_when"),
        ({"exclude_when": ["x" * 501]}, "exclude_when[0]"),
        ({"examples": {"positive": [""]}}, "examples.positive[0]"),
        ({"examples": {"negative": ["ok", None]}}, "examples.negative[1]"),
        ({"examples": ["not", "an", "object"]}, "examples"),
        ({"examples": {"postive": ["typo"]}}, "examples.postive"),
        ({"fallback_topic_key": "not a key!"}, "fallback_topic_key"),
        ({"keywords": ["ok", ""]}, "keywords[1]"),
        ({"purpose": 42}, "purpose"),
        ({"include": ["typo of include_when"]}, "include"),
    ],
)
def test_errors_point_at_the_field(patch: dict[str, Any], field: str) -> None:
    error = invalid({**FINANCE, **patch})
    assert error.field == field
    assert error.to_dict()["field"] == field


@pytest.mark.parametrize("condition", ["断货", "催单", "OK", "5xx"])
def test_a_short_condition_the_word_matcher_cannot_split_is_still_a_condition(condition: str) -> None:
    """ "断货" (out of stock) and "催单" (chasing an order) segment into single characters the word
    matcher skips; they are words an owner writes, and the embedding model reads them (a blind set's
    owner wrote "断货", and the whole bot's rules were refused)."""
    assert validate_routing({"include_when": [condition]}).include_when == [condition]


def test_priority_accepts_whole_floats_and_null_means_default() -> None:
    assert validate_routing({"priority": 80.0}).priority == 80
    assert validate_routing({"priority": None}).priority == 50


def test_list_length_limit() -> None:
    assert invalid({"include_when": [f"股票{i}" for i in range(51)]}).field == "include_when"


def test_rules_are_immutable_and_serialise_to_json() -> None:
    rules = validate_routing(FINANCE)
    with pytest.raises(Exception):
        rules.priority = 1  # type: ignore[misc]
    assert json.loads(rules.model_dump_json())["examples"]["negative"] == ["文件上传成功"]
