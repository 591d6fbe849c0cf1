"""Corrections as examples: the text an item becomes, and how it enters a rule's example lists."""

from __future__ import annotations

from typing import Any

from topic_dashboard.routing import validate_routing
from topic_dashboard.routing.examples import example_text, with_example
from topic_dashboard.routing.rules import MAX_EXAMPLE_CHARS, MAX_LIST_ITEMS


def _rule(positive: list[str] | None = None, negative: list[str] | None = None) -> dict[str, Any]:
    examples = {"positive": positive or [], "negative": negative or []}
    return validate_routing({"include_when": ["CI build results"], "examples": examples}).model_dump(mode="json")


def test_an_item_reads_as_title_then_content_trimmed_to_the_rule_limit() -> None:
    assert example_text("  Build 42 failed ", "\n3 tests failing\n") == "Build 42 failed\n3 tests failing"
    assert example_text("Disk full", "") == "Disk full"
    long = example_text("Title", "x" * 5000)
    assert len(long) == MAX_EXAMPLE_CHARS and long.startswith("Title\nxxx")
    # A cut that ends in spaces would be stored trimmed: the text is trimmed as the rule stores it.
    assert example_text("T", "a" * (MAX_EXAMPLE_CHARS - 3) + "   tail") == "T\n" + "a" * (MAX_EXAMPLE_CHARS - 3)


def test_an_example_is_appended_once_and_the_rule_stays_valid() -> None:
    rule = _rule(positive=["an older example"])
    taught = with_example(rule, "Build 42 failed", "positive")
    assert taught["examples"]["positive"] == ["an older example", "Build 42 failed"]
    assert rule["examples"]["positive"] == ["an older example"]  # the input is left alone
    assert {k: v for k, v in taught.items() if k != "examples"} == {k: v for k, v in rule.items() if k != "examples"}
    assert with_example(taught, "Build 42 failed", "positive") == taught  # no duplicate
    assert validate_routing(taught).examples.positive == ["an older example", "Build 42 failed"]


def test_the_latest_correction_holds_a_text_is_never_for_and_against_one_topic() -> None:
    rule = _rule(positive=["keep me", "Build 42 failed"], negative=["other"])
    taught = with_example(rule, "Build 42 failed", "negative")
    assert taught["examples"] == {"positive": ["keep me"], "negative": ["other", "Build 42 failed"]}


def test_a_full_list_drops_its_oldest_examples() -> None:
    full = [f"example {n}" for n in range(MAX_LIST_ITEMS)]
    taught = with_example(_rule(negative=full), "the newest", "negative")
    assert taught["examples"]["negative"] == [*full[1:], "the newest"]
    assert len(validate_routing(taught).examples.negative) == MAX_LIST_ITEMS


def test_a_rule_without_examples_gets_them() -> None:
    assert with_example({}, "first", "positive") == {"examples": {"positive": ["first"]}}
    assert validate_routing(with_example({}, "first", "negative")).examples.negative == ["first"]
