"""The text policy: what free text, one-line values, numbers and JSON documents may hold."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topic_dashboard.errors import AppError
from topic_dashboard.text_policy import (
    INT64_MAX,
    INT64_MIN,
    MAX_JSON_DEPTH,
    check_int,
    check_json,
    check_line,
    check_number,
    check_parameters,
    check_text,
    forbidden_char,
    is_bounded_number,
    is_lookup_key,
    printable,
)

PROPERTY = settings(max_examples=100, deadline=None, database=None)

REFUSED_IN_TEXT = [
    "\x00",
    "\x01",
    "\x07",
    "\x08",
    "\x0b",
    "\x0c",
    "\x1b",
    "\x1f",
    "\x7f",
    "\x80",
    "\x85",
    "\x9f",
    "\ud800",
    "\udbff",
    "\udc00",
    "\udfff",
]
REFUSED_IN_A_LINE_ONLY = [
    "\t",
    "\n",
    "\r",
    "\u2028",
    "\u2029",
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
]
ALLOWED = ["plain", "中文 😀", "עברית ومرحبا", "<b>&amp;</b>", "a\u200db", "\u00a0nbsp", "\ufeffbom", ""]


def _refused(check: Any, value: Any, **kwargs: Any) -> AppError:
    with pytest.raises(AppError) as caught:
        check(value, field="name", **kwargs)
    return caught.value


@pytest.mark.parametrize("char", REFUSED_IN_TEXT, ids=lambda c: f"U+{ord(c):04X}")
def test_controls_and_lone_surrogates_are_refused_everywhere(char: str) -> None:
    for check in (check_text, check_line):
        error = _refused(check, f"a{char}b")
        assert (error.code, error.field) == ("validation_error", "name")
        assert f"U+{ord(char):04X}" in error.message
        assert char not in error.message  # named by code point, never echoed
        error.message.encode("utf-8")
    assert forbidden_char(f"a{char}b") == char
    assert not is_lookup_key(f"a{char}b")


@pytest.mark.parametrize("char", REFUSED_IN_A_LINE_ONLY, ids=lambda c: f"U+{ord(c):04X}")
def test_tab_line_breaks_and_bidi_controls_are_refused_in_one_line_only(char: str) -> None:
    assert check_text(f"a{char}b", field="description") == f"a{char}b"
    error = _refused(check_line, f"a{char}b")
    assert (error.code, error.field) == ("validation_error", "name")
    assert forbidden_char(f"a{char}b", single_line=True) == char
    assert not is_lookup_key(f"a{char}b")


@pytest.mark.parametrize("text", ALLOWED)
def test_ordinary_text_of_any_script_passes_unchanged(text: str) -> None:
    assert check_text(text, field="t") == text
    assert check_line(text, field="t") == text
    assert is_lookup_key(text)


@pytest.mark.parametrize("value", [None, 1, 1.5, True, b"bytes", ["a"], {"a": 1}])
def test_a_non_string_is_refused(value: Any) -> None:
    for check in (check_text, check_line):
        assert _refused(check, value).message == "name must be a string"
    assert not is_lookup_key(value)


def test_max_chars_and_the_error_code_can_be_chosen() -> None:
    assert check_line("x" * 10, field="key", max_chars=10) == "x" * 10
    error = _refused(check_line, "x" * 11, max_chars=10, code="invalid_view")
    assert (error.code, error.field) == ("invalid_view", "name")
    assert "11 characters" in error.message


@given(st.text())
@PROPERTY
def test_accepted_text_can_always_be_stored_and_answered(text: str) -> None:
    """Whatever passes can be encoded as UTF-8 and holds no NUL (what SQLite, PostgreSQL and JSON need)."""
    for single_line in (False, True):
        if forbidden_char(text, single_line=single_line) is None:
            text.encode("utf-8")
            assert "\x00" not in text
            if single_line:
                assert not any(char in text for char in "\n\r\t\u202e")


@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs"))))
@PROPERTY
def test_text_without_controls_is_free_text(text: str) -> None:
    assert check_text(text, field="t") == text


@given(st.text(), st.sampled_from(REFUSED_IN_TEXT), st.text())
@PROPERTY
def test_a_refused_character_anywhere_is_found(before: str, char: str, after: str) -> None:
    assert forbidden_char(before + char + after) is not None
    assert forbidden_char(before + char + after, single_line=True) is not None


def test_printable_replaces_lone_surrogates_only() -> None:
    assert printable("a\ud800b\udfff") == "a\ufffdb\ufffd"
    assert printable("中文 😀 \x00") == "中文 😀 \x00"
    printable("\ud800").encode("utf-8")


# --- numbers --------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, -1, INT64_MAX, INT64_MIN, 1.5, -2.5e300, 1e308])
def test_bounded_numbers_pass(value: Any) -> None:
    assert is_bounded_number(value)
    assert check_number(value, field="n") == value


@pytest.mark.parametrize(
    "value",
    [INT64_MAX + 1, INT64_MIN - 1, 10**400, -(10**400), math.inf, -math.inf, math.nan, True, False, "1", None, [1]],
)
def test_unbounded_numbers_and_non_numbers_are_refused(value: Any) -> None:
    assert not is_bounded_number(value)
    error = _refused(check_number, value)
    assert (error.code, error.field) == ("validation_error", "name")


def test_json_1e400_is_infinite_and_refused() -> None:
    assert not is_bounded_number(json.loads("1e400"))


def test_check_int_takes_bounds_and_refuses_bools_and_floats() -> None:
    assert check_int(0, field="after_seq", lo=0) == 0
    assert check_int(INT64_MAX, field="after_seq", lo=0) == INT64_MAX
    for value in (-1, INT64_MAX + 1, 99999999999999999999, True, 1.0, "1"):
        error = _refused(check_int, value, lo=0)
        assert (error.code, error.field) == ("validation_error", "name")


@given(st.integers())
@PROPERTY
def test_an_integer_is_bounded_exactly_when_it_fits_64_bits(value: int) -> None:
    assert is_bounded_number(value) == (-(2**63) <= value < 2**63)


# --- JSON documents and parameters ------------------------------------------------------------------


def test_check_json_passes_ordinary_documents_unchanged() -> None:
    document = {
        "purpose": "CI results\nand more",
        "include_when": ["build failed"],
        "priority": 70,
        "examples": {"positive": [], "negative": ["中文"]},
        "flag": True,
        "none": None,
        "ratio": 0.5,
    }
    assert check_json(document, field="routing_json") is document


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ({"purpose": "a\x00b"}, "routing_json.purpose"),
        ({"include_when": ["ok", "bad\ud800"]}, "routing_json.include_when[1]"),
        ({"examples": {"positive": ["\x1b[2J"]}}, "routing_json.examples.positive[0]"),
        ({"priority": 10**400}, "routing_json.priority"),
        ({"priority": math.inf}, "routing_json.priority"),
        ({"examples": {"bad\nkey": 1}}, "routing_json.examples"),
        ({"\ud800": 1}, "routing_json"),
        ([1, {"x": {1, 2}}], "routing_json[1].x"),
    ],
)
def test_check_json_names_the_path_of_the_first_problem(document: Any, field: str) -> None:
    error = _refused_json(document)
    assert (error.code, error.field) == ("invalid_rule", field)
    error.message.encode("utf-8")


def _refused_json(document: Any, **kwargs: Any) -> AppError:
    with pytest.raises(AppError) as caught:
        check_json(document, field="routing_json", code="invalid_rule", **kwargs)
    return caught.value


def test_check_json_relative_paths_start_at_the_first_key() -> None:
    assert _refused_json({"include_when": ["\x00"]}, relative=True).field == "include_when[0]"
    assert _refused_json("\x00", relative=True).field == "routing_json"


def test_check_json_refuses_deep_nesting_without_recursing() -> None:
    deep: Any = "leaf"
    for _ in range(100_000):
        deep = [deep]
    assert _refused_json(deep).field == "routing_json"
    shallow: Any = "leaf"
    for _ in range(MAX_JSON_DEPTH):
        shallow = {"k": shallow}
    check_json(shallow, field="routing_json")


def test_check_parameters_names_the_parameter() -> None:
    check_parameters([("bot_id", "abc123"), ("tag", "中文"), ("cursor", "djE6MTA" * 1000)])
    for parameters, field in (
        ([("bot_id", "a\x00")], "bot_id"),
        ([("tag", "a\u202eb")], "tag"),
        ([("a\nb", "x")], "parameter"),
    ):
        with pytest.raises(AppError) as caught:
            check_parameters(parameters)
        assert (caught.value.code, caught.value.field) == ("validation_error", field)
