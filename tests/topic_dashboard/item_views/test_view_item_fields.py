"""Title, content, level, tags and total payload size of a published item."""

from __future__ import annotations

from typing import Any

import pytest

from topic_dashboard.errors import AppError
from topic_dashboard.item_views import LEVELS, LIMITS, check_payload_size, json_size, validate_item_fields


def fields(**overrides: Any) -> tuple[str, str, str, list[str]]:
    values: dict[str, Any] = {"title": "Build passed", "content": "All green.", "level": None, "tags": None}
    values.update(overrides)
    return validate_item_fields(**values)


def rejected(**overrides: Any) -> AppError:
    with pytest.raises(AppError) as caught:
        fields(**overrides)
    assert caught.value.code == "validation_error"
    return caught.value


def test_defaults_and_normalization() -> None:
    title, content, level, tags = validate_item_fields(
        title="  Deploy\n  finished\tok  ", content="\r\n line 1\r\nline 2\r ", level=None, tags=None
    )
    assert (title, content, level, tags) == ("Deploy finished ok", "line 1\nline 2", "info", [])


def test_content_may_be_empty_or_none() -> None:
    assert fields(content="")[1] == ""
    assert fields(content=None)[1] == ""


def test_html_is_kept_as_text() -> None:
    title, content, _, _ = fields(title="<b>bold</b> & co", content="<script>alert(1)</script>")
    assert title == "<b>bold</b> & co"
    assert content == "<script>alert(1)</script>"


def test_title_length_boundary() -> None:
    assert fields(title="t" * LIMITS.title_max_chars)[0] == "t" * LIMITS.title_max_chars
    error = rejected(title="t" * (LIMITS.title_max_chars + 1))
    assert error.field == "title"
    assert f"at most {LIMITS.title_max_chars}" in error.message


@pytest.mark.parametrize("title", ["", "   ", "\n\t", None, 12])
def test_title_is_required_text(title: Any) -> None:
    assert rejected(title=title).field == "title"


def test_content_length_boundary() -> None:
    assert len(fields(content="c" * LIMITS.content_max_chars)[1]) == LIMITS.content_max_chars
    error = rejected(content="c" * (LIMITS.content_max_chars + 1))
    assert error.field == "content"
    assert f"{LIMITS.content_max_chars + 1} characters" in error.message


@pytest.mark.parametrize(("name", "value"), [("title", "bad\x00title"), ("content", "esc \x1b[2J"), ("content", 5)])
def test_control_characters_and_wrong_types_are_refused(name: str, value: Any) -> None:
    error = rejected(**{name: value})
    assert error.field == name


@pytest.mark.parametrize(
    ("given", "expected"), [(None, "info"), ("", "info"), (" WARN ", "warn"), ("Success", "success")]
)
def test_level_defaults_and_is_case_insensitive(given: str | None, expected: str) -> None:
    assert fields(level=given)[2] == expected


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_is_accepted(level: str) -> None:
    assert fields(level=level)[2] == level


@pytest.mark.parametrize("level", ["warning", "critical", "debug", 3, ["info"]])
def test_unknown_level_is_refused_naming_the_levels(level: Any) -> None:
    error = rejected(level=level)
    assert error.field == "level"
    assert "info, warn, error, success" in error.message


def test_tags_are_trimmed_and_deduplicated_case_insensitively() -> None:
    tags = fields(tags=[" deploy ", "Prod", "prod", "deploy", "中文标签", "हिंदी", "a/b-c_d.e", "v2"])[3]
    assert tags == ["deploy", "Prod", "中文标签", "हिंदी", "a/b-c_d.e", "v2"]


def test_tag_count_boundary_counts_distinct_tags() -> None:
    ten = [f"t{i}" for i in range(LIMITS.tags_max_count)]
    assert fields(tags=ten)[3] == ten
    assert fields(tags=ten + ["T0", "t1"])[3] == ten
    error = rejected(tags=ten + ["extra"])
    assert error.field == "tags"
    assert f"at most {LIMITS.tags_max_count}" in error.message


def test_tag_length_boundary() -> None:
    longest = "x" * LIMITS.tag_max_chars
    assert fields(tags=[longest])[3] == [longest]
    assert rejected(tags=["ok", longest + "x"]).field == "tags[1]"


@pytest.mark.parametrize(
    ("tags", "field"),
    [
        ("deploy", "tags"),
        ({"a": 1}, "tags"),
        (["ok", "two words"], "tags[1]"),
        (["ok", "fine", "<script>"], "tags[2]"),
        (["#hash"], "tags[0]"),
        (["a,b"], "tags[0]"),
        (["  "], "tags[0]"),
        (["ok", 7], "tags[1]"),
        (["ok", None], "tags[1]"),
        (["tab\tin"], "tags[0]"),
    ],
)
def test_bad_tags_are_refused_with_their_index(tags: Any, field: str) -> None:
    assert rejected(tags=tags).field == field


def test_first_problem_wins_in_field_order() -> None:
    assert rejected(title="", level="nope", tags=["bad tag"]).field == "title"
    assert rejected(level="nope", tags=["bad tag"]).field == "level"


def _payload_of_size(size: int) -> dict[str, str]:
    empty = json_size({"content": ""})
    return {"content": "a" * (size - empty)}


def test_payload_size_boundary() -> None:
    limit = LIMITS.payload_max_bytes
    at_limit = _payload_of_size(limit)
    assert json_size(at_limit) == limit
    check_payload_size(at_limit)
    with pytest.raises(AppError) as caught:
        check_payload_size(_payload_of_size(limit + 1))
    assert caught.value.code == "payload_too_large"
    assert caught.value.status == 413
    assert caught.value.details == {"size_bytes": limit + 1, "limit_bytes": limit}


def test_payload_size_counts_utf8_bytes_not_characters() -> None:
    assert json_size({"t": "中"}) == json_size({"t": "a"}) + 2
    chars = LIMITS.payload_max_bytes // 3  # fits as characters, not as bytes
    with pytest.raises(AppError) as caught:
        check_payload_size({"content": "中" * chars})
    assert caught.value.code == "payload_too_large"


def test_an_item_within_every_field_limit_fits_the_payload_limit() -> None:
    worst = {
        "topic_key": "k" * 64,
        "title": "😀" * LIMITS.title_max_chars,
        "content": "😀" * LIMITS.content_max_chars,
        "level": "success",
        "tags": ["😀" * LIMITS.tag_max_chars] * LIMITS.tags_max_count,
        "view": {"type": "markdown", "text": "a" * (LIMITS.view_max_bytes - 40)},
        "dedupe_key": "d" * 128,
        "message_type": "m" * 64,
    }
    check_payload_size(worst)
