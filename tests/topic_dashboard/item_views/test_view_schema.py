"""The view contract: six declarative shapes, their JSON Schema, and the validator."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest

from topic_dashboard.errors import AppError
from topic_dashboard.item_views import (
    LEVELS,
    LIMITS,
    VIEW_TYPES,
    json_size,
    parse_allowed_view_types,
    schema_document,
    validate_view,
    validate_view_schema_json,
    view_json_schema,
)
from topic_dashboard.item_views.shapes import EXAMPLES

# Written out here rather than taken from the module, so a change of shape breaks a test.
VALID: dict[str, dict[str, Any]] = {
    "markdown": {"type": "markdown", "text": "# Done\n\n| a | b |\n|---|---|\n| 1 | 2 |"},
    "card": {
        "type": "card",
        "title": "Order 1042 shipped",
        "subtitle": "DHL express",
        "body": "Arrives **Friday**.",
        "fields": [{"label": "Items", "value": 3}, {"label": "Total", "value": "42.00 EUR"}],
        "link": {"label": "Track", "url": "https://example.com/track/1042"},
    },
    "table": {
        "type": "table",
        "columns": ["Host", "CPU %", "Up", "Note"],
        "rows": [["web-1", 71.5, True, None], ["web-2", 12, False, "drained"]],
        "caption": "as of 14:00 UTC",
    },
    "checklist": {
        "type": "checklist",
        "title": "On-call handover",
        "items": [{"text": "Read incident log", "done": True}, {"text": "Check alerts", "done": False}],
    },
    "metric": {
        "type": "metric",
        "label": "p95 latency",
        "value": 182,
        "unit": "ms",
        "delta": 12.5,
        "trend": "up",
        "caption": "vs. last hour",
    },
    "timeline": {
        "type": "timeline",
        "events": [
            {"time": "2024-05-01T09:00:00Z", "title": "Deploy started", "detail": "v2.3.0", "level": "info"},
            {"time": "09:12", "title": "Deploy finished", "level": "success"},
        ],
    },
}

MINIMAL: dict[str, dict[str, Any]] = {
    "markdown": {"type": "markdown", "text": "x"},
    "card": {"type": "card", "title": "x"},
    "table": {"type": "table", "columns": ["x"], "rows": []},
    "checklist": {"type": "checklist", "items": [{"text": "x", "done": False}]},
    "metric": {"type": "metric", "label": "x", "value": "n/a"},
    "timeline": {"type": "timeline", "events": [{"time": "now", "title": "x"}]},
}


def invalid_view(view: Any, **kwargs: Any) -> AppError:
    with pytest.raises(AppError) as caught:
        validate_view(view, **kwargs)
    assert caught.value.code == "invalid_view"
    assert caught.value.status == 422
    return caught.value


def test_view_types_and_levels() -> None:
    assert VIEW_TYPES == ("markdown", "card", "table", "checklist", "metric", "timeline")
    assert LEVELS == ("info", "warn", "error", "success")


@pytest.mark.parametrize("kind", VIEW_TYPES)
def test_valid_views_pass_unchanged(kind: str) -> None:
    for view in (VALID[kind], MINIMAL[kind], EXAMPLES[kind]):
        original = copy.deepcopy(view)
        assert validate_view(view) == original
        assert view == original  # the input is not mutated


def test_no_view_is_fine_even_where_no_view_type_is_allowed() -> None:
    assert validate_view(None) is None
    assert validate_view(None, allowed_types=[]) is None


def test_normalization_trims_drops_empty_and_null_optionals_and_fills_defaults() -> None:
    view = {
        "type": "card",
        "title": "  Title \r\n",
        "subtitle": "   ",
        "body": None,
        "fields": [{"label": " L ", "value": " v "}],
        "link": {"url": " https://example.com/x "},
    }
    assert validate_view(view) == {
        "type": "card",
        "title": "Title",
        "fields": [{"label": "L", "value": "v"}],
        "link": {"label": "https://example.com/x", "url": "https://example.com/x"},
    }
    checklist = {"type": "checklist", "title": None, "items": [{"text": "a"}, {"text": "b", "done": None}]}
    assert validate_view(checklist) == {
        "type": "checklist",
        "items": [{"text": "a", "done": False}, {"text": "b", "done": False}],
    }
    markdown = validate_view({"type": "markdown", "text": "line 1\r\nline 2\rline 3"})
    assert markdown == {"type": "markdown", "text": "line 1\nline 2\nline 3"}


def test_html_in_text_is_allowed_because_it_is_rendered_as_text() -> None:
    text = "<script>alert(1)</script> <img src=x onerror=alert(1)> a < b & c"
    assert validate_view({"type": "markdown", "text": text}) == {"type": "markdown", "text": text}
    table = {"type": "table", "columns": ["<b>h</b>"], "rows": [["<i>c</i>"]]}
    assert validate_view(table) == table


def v(kind: str, **fields: Any) -> dict[str, Any]:
    """A view of `kind` with `fields`, to keep the tables below readable."""
    return {"type": kind, **fields}


CARD_T = {"type": "card", "title": "t"}
FIELD_A = {"label": "a", "value": 1}
TABLE_A = {"type": "table", "columns": ["a"]}
TABLE_AB = {"type": "table", "columns": ["a", "b"]}
METRIC_X = {"type": "metric", "label": "x", "value": 1}
EVENT = {"time": "t", "title": "a"}

INVALID = [
    # (view, field, words the message must contain)
    ("markdown", "view", "must be an object"),
    ('{"type": "markdown", "text": "x"}', "view", "not a string of JSON"),
    ([{"type": "markdown"}], "view", "got array"),
    ({}, "view.type", "view.type is missing; set it to one of: markdown, card, table, checklist, metric, timeline"),
    ({"text": "x"}, "view.type", "missing"),
    (v("chart"), "view.type", "'chart' is not a view type"),
    (v("Table", columns=["a"], rows=[]), "view.type", "not a view type"),
    ({"type": ["table"]}, "view.type", "not a view type"),
    (
        v("markdown", text="x", html="<b>"),
        "view.html",
        "view.html is not a field of a markdown view; its fields are: type, text",
    ),
    ({"type": "markdown", "text": "x", "a b": 1}, 'view["a b"]', "not a field"),
    (v("table", colums=["a"], rows=[]), "view.colums", "did you mean 'columns'"),
    (v("markdown"), "view.text", "view.text is missing"),
    (v("markdown", text=None), "view.text", "missing"),
    (v("markdown", text="  \n "), "view.text", "empty"),
    (v("markdown", text=12), "view.text", "must be a string, got number"),
    (v("markdown", text="bell \x07"), "view.text", "control character U+0007"),
    (v("markdown", text="bad \ud800"), "view.text", "U+D800"),
    (v("card"), "view.title", "missing"),
    ({**CARD_T, "fields": FIELD_A}, "view.fields", "must be an array"),
    ({**CARD_T, "fields": [{"value": 1}]}, "view.fields[0].label", "missing"),
    ({**CARD_T, "fields": [FIELD_A, {**FIELD_A, "color": "red"}]}, "view.fields[1].color", "not a field of a card"),
    ({**CARD_T, "fields": [{"label": "a", "value": True}]}, "view.fields[0].value", "string or number, got boolean"),
    ({**CARD_T, "fields": [{"label": "a", "value": {"x": 1}}]}, "view.fields[0].value", "got object"),
    ({**CARD_T, "link": "https://example.com"}, "view.link", "must be an object"),
    ({**CARD_T, "link": {"label": "x"}}, "view.link.url", "missing"),
    (
        {**CARD_T, "link": {"url": "javascript:alert(1)"}},
        "view.link.url",
        "http:// or https:// URL with a host (and no user@ part) or a mailto: URL",
    ),
    ({**CARD_T, "link": {"url": "JaVaScRiPt:alert(1)"}}, "view.link.url", "not allowed"),
    ({**CARD_T, "link": {"url": "java\tscript:alert(1)"}}, "view.link.url", "not allowed"),
    ({**CARD_T, "link": {"url": "data:text/html,x"}}, "view.link.url", "not allowed"),
    ({**CARD_T, "link": {"url": "/relative"}}, "view.link.url", "not allowed"),
    ({**CARD_T, "link": {"url": "https://e.com", "target": "_blank"}}, "view.link.target", "not a field of a link"),
    (v("table", rows=[]), "view.columns", "missing"),
    (v("table", columns=[], rows=[]), "view.columns", "give at least 1"),
    (v("table", columns="a,b", rows=[]), "view.columns", "must be an array"),
    (v("table", columns=["a", 1], rows=[]), "view.columns[1]", "must be a string"),
    (TABLE_A, "view.rows", "missing"),
    ({**TABLE_A, "rows": {"0": ["x"]}}, "view.rows", "must be an array"),
    ({**TABLE_A, "rows": [["x"], "y"]}, "view.rows[1]", "must be an array"),
    ({**TABLE_AB, "rows": [["x", {"v": 1}]]}, "view.rows[0][1]", "string or number or boolean or null, got object"),
    ({**TABLE_AB, "rows": [["x", ["nested"]]]}, "view.rows[0][1]", "got array"),
    ({**TABLE_AB, "rows": [["x", float("nan")]]}, "view.rows[0][1]", "non-finite"),
    ({**TABLE_AB, "rows": [["x", float("inf")]]}, "view.rows[0][1]", "non-finite"),
    ({**TABLE_A, "rows": [["esc \x1b[31m"]]}, "view.rows[0][0]", "U+001B"),
    ({**TABLE_A, "rows": [["x"]], "caption": 5}, "view.caption", "must be a string"),
    (v("checklist"), "view.items", "missing"),
    (v("checklist", items=[]), "view.items", "give at least 1"),
    (v("checklist", items=["buy milk"]), "view.items[0]", "must be an object"),
    (v("checklist", items=[{"text": "a"}, {"text": "b", "done": "yes"}]), "view.items[1].done", "true or false"),
    (v("checklist", items=[{"text": "a", "checked": True}]), "view.items[0].checked", "not a field of a checklist"),
    (v("checklist", items=[{"done": True}]), "view.items[0].text", "missing"),
    (v("metric", value=1), "view.label", "missing"),
    (v("metric", label="x"), "view.value", "missing"),
    (v("metric", label="x", value=""), "view.value", "empty"),
    (v("metric", label="x", value=True), "view.value", "number or string, got boolean"),
    (v("metric", label="x", value=[1]), "view.value", "got array"),
    ({**METRIC_X, "delta": "+5"}, "view.delta", "must be a number"),
    ({**METRIC_X, "delta": float("nan")}, "view.delta", "must be a number"),
    ({**METRIC_X, "trend": "sideways"}, "view.trend", "up, down, flat"),
    ({**METRIC_X, "sparkline": [1, 2]}, "view.sparkline", "not a field of a metric view"),
    (v("timeline"), "view.events", "missing"),
    (v("timeline", events=[]), "view.events", "give at least 1"),
    (v("timeline", events=[EVENT, {"title": "b"}]), "view.events[1].time", "missing"),
    (v("timeline", events=[{"time": "t"}]), "view.events[0].title", "missing"),
    (v("timeline", events=[{**EVENT, "level": "critical"}]), "view.events[0].level", "info, warn, error, success"),
    (v("timeline", events=[{**EVENT, "icon": "x"}]), "view.events[0].icon", "not a field of a timeline event"),
]


@pytest.mark.parametrize(("view", "field", "words"), INVALID)
def test_invalid_views_name_the_json_path_of_the_problem(view: Any, field: str, words: str) -> None:
    error = invalid_view(view)
    assert error.field == field
    assert words in error.message


def test_row_width_mismatch_message_tells_how_to_fix() -> None:
    view = {"type": "table", "columns": ["a", "b", "c"], "rows": [[1, 2, 3], [1, 2, 3], [1, 2, 3, 4]]}
    error = invalid_view(view)
    assert error.field == "view.rows[2]"
    assert error.message.startswith(
        "view.rows[2] has 4 cells but view.columns has 3; give every row one cell per column"
    )
    assert invalid_view({"type": "table", "columns": ["a", "b"], "rows": [["only one"]]}).field == "view.rows[0]"


def test_first_problem_in_declaration_order_is_reported() -> None:
    view = {"type": "metric", "label": "", "value": None, "trend": "no"}
    assert invalid_view(view).field == "view.label"
    # an unknown key is reported before missing fields: it is usually a misnamed field
    assert invalid_view({"type": "table", "headers": ["a"], "data": []}).field == "view.headers"


# --- allowed types per topic ---------------------------------------------------------


def test_allowed_types_restrict_the_view_type() -> None:
    assert validate_view(VALID["table"], allowed_types=["table", "markdown"]) == VALID["table"]
    error = invalid_view(VALID["table"], allowed_types=["metric", "markdown"])
    assert error.field == "view.type"
    assert "'table' is not allowed in this topic; use one of: markdown, metric" in error.message
    assert error.details == {"allowed_types": ["markdown", "metric"]}


def test_allowed_types_none_allows_all_and_empty_allows_none() -> None:
    for kind in VIEW_TYPES:
        assert validate_view(MINIMAL[kind], allowed_types=None) == MINIMAL[kind]
        assert validate_view(MINIMAL[kind], allowed_types=list(VIEW_TYPES)) == MINIMAL[kind]
    error = invalid_view(MINIMAL["markdown"], allowed_types=[])
    assert "accepts no view" in error.message


def test_unknown_allowed_types_are_ignored() -> None:
    error = invalid_view(MINIMAL["card"], allowed_types=["chart", "markdown"])
    assert error.details == {"allowed_types": ["markdown"]}


def test_type_is_checked_before_the_shape() -> None:
    # a disallowed type is reported even when its shape is also wrong
    assert invalid_view({"type": "table"}, allowed_types=["markdown"]).field == "view.type"


# --- limits ----------------------------------------------------------------------------


def _rows(count: int) -> dict[str, Any]:
    return {"type": "table", "columns": ["n"], "rows": [[i] for i in range(count)]}


def _columns(count: int) -> dict[str, Any]:
    return {"type": "table", "columns": [f"c{i}" for i in range(count)], "rows": [list(range(count))]}


BOUNDARIES = [
    # (build(n), limit, field when over)
    (lambda n: v("markdown", text="m" * n), LIMITS.markdown_max_chars, "view.text"),
    (_rows, LIMITS.table_max_rows, "view.rows"),
    (_columns, LIMITS.table_max_columns, "view.columns"),
    (lambda n: {**TABLE_A, "rows": [["c" * n]]}, LIMITS.table_cell_max_chars, "view.rows[0][0]"),
    (lambda n: v("table", columns=["h" * n], rows=[]), LIMITS.label_max_chars, "view.columns[0]"),
    (lambda n: v("checklist", items=[{"text": "i"}] * n), LIMITS.checklist_max_items, "view.items"),
    (lambda n: v("checklist", items=[{"text": "t" * n}]), LIMITS.text_max_chars, "view.items[0].text"),
    (lambda n: v("timeline", events=[EVENT] * n), LIMITS.timeline_max_events, "view.events"),
    (lambda n: v("timeline", events=[{**EVENT, "time": "t" * n}]), LIMITS.time_max_chars, "view.events[0].time"),
    (lambda n: v("timeline", events=[{**EVENT, "detail": "d" * n}]), LIMITS.detail_max_chars, "view.events[0].detail"),
    (lambda n: {**CARD_T, "fields": [FIELD_A] * n}, LIMITS.card_max_fields, "view.fields"),
    (lambda n: v("card", title="t" * n), LIMITS.heading_max_chars, "view.title"),
    (lambda n: {**CARD_T, "body": "b" * n}, LIMITS.card_body_max_chars, "view.body"),
    (lambda n: {**CARD_T, "link": {"url": "https://e.com/" + "p" * (n - 14)}}, LIMITS.url_max_chars, "view.link.url"),
    (lambda n: v("metric", label="m", value="v" * n), LIMITS.metric_value_max_chars, "view.value"),
    (lambda n: {**METRIC_X, "unit": "u" * n}, LIMITS.unit_max_chars, "view.unit"),
]


@pytest.mark.parametrize(("build", "limit", "field"), BOUNDARIES)
def test_limits_at_and_over_the_boundary(build: Any, limit: int, field: str) -> None:
    assert validate_view(build(limit)) is not None
    error = invalid_view(build(limit + 1))
    assert error.field == field
    assert f"at most {limit}" in error.message


def _markdown_of_bytes(size: int) -> dict[str, Any]:
    # 4-byte characters get past the byte limit while staying under markdown_max_chars
    overhead = json_size({"type": "markdown", "text": ""})
    emoji = (size - overhead) // 4 - 10
    text = "😀" * emoji + "a" * (size - overhead - 4 * emoji)
    assert len(text) <= LIMITS.markdown_max_chars
    return {"type": "markdown", "text": text}


def test_view_byte_size_boundary() -> None:
    at_limit = _markdown_of_bytes(LIMITS.view_max_bytes)
    assert json_size(at_limit) == LIMITS.view_max_bytes
    assert validate_view(at_limit) == at_limit
    error = invalid_view(_markdown_of_bytes(LIMITS.view_max_bytes + 1))
    assert error.field == "view"
    assert error.details == {"size_bytes": LIMITS.view_max_bytes + 1, "limit_bytes": LIMITS.view_max_bytes}


def test_a_table_within_counts_can_still_be_too_many_bytes() -> None:
    cell = "c" * LIMITS.table_cell_max_chars
    view = {"type": "table", "columns": ["a", "b"], "rows": [[cell, cell]] * 40}
    assert invalid_view(view).field == "view"


# --- JSON Schema -------------------------------------------------------------------------


def _schema_validator() -> Any:
    jsonschema = pytest.importorskip(
        "jsonschema", reason="jsonschema is not installed in this venv; the schema cannot be checked"
    )
    schema = view_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_view_json_schema_shape() -> None:
    schema = view_json_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    branches = schema["oneOf"]
    assert [branch["properties"]["type"]["const"] for branch in branches] == list(VIEW_TYPES)
    for branch in branches:
        assert branch["additionalProperties"] is False
        assert "type" in branch["required"]
        assert branch["description"]
        assert all(prop.get("description") for prop in branch["properties"].values())
    json.dumps(schema)  # plain JSON, ready for an MCP tool result
    assert view_json_schema() is not schema  # a fresh copy every call, safe to mutate


def test_view_json_schema_is_valid_and_accepts_every_valid_example() -> None:
    validator = _schema_validator()
    for kind in VIEW_TYPES:
        for view in (VALID[kind], MINIMAL[kind], EXAMPLES[kind]):
            errors = list(validator.iter_errors(view))
            assert errors == [], (kind, [e.message for e in errors])
    for branch in view_json_schema()["oneOf"]:
        for example in branch["examples"]:
            validator.validate(example)
            assert validate_view(example) == example


def _schema_blind_spot(value: Any) -> bool:
    """Rules JSON Schema cannot state here: no control characters, no blank required text,
    finite numbers. Row width and the byte limit are not in INVALID or BOUNDARIES at all."""
    if isinstance(value, dict):
        return any(_schema_blind_spot(item) for item in value.values())
    if isinstance(value, list):
        return any(_schema_blind_spot(item) for item in value)
    if isinstance(value, str):
        return value.strip() == "" or any(ord(c) < 32 and c not in "\t\n" or 0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, float):
        return not math.isfinite(value)
    return False


def test_blind_spot_detector_sees_each_kind() -> None:
    assert [_schema_blind_spot(v) for v in ("  ", "a\x07", "\ud800", float("nan"), "ok\n\tok", 1.5)] == [
        True,
        True,
        True,
        True,
        False,
        False,
    ]


def test_view_json_schema_rejects_what_the_validator_rejects() -> None:
    validator = _schema_validator()
    invalid = [view for view, _, _ in INVALID] + [build(limit + 1) for build, limit, _ in BOUNDARIES]
    checked = 0
    for view in invalid:
        if _schema_blind_spot(view):
            continue
        assert not validator.is_valid(view), view
        checked += 1
    assert checked > 60


def test_what_the_schema_cannot_say_is_in_its_descriptions() -> None:
    schema = view_json_schema()
    table = schema["oneOf"][VIEW_TYPES.index("table")]
    assert "exactly one cell per column" in table["description"]
    assert f"{LIMITS.view_max_bytes} bytes" in schema["description"]
    card = schema["oneOf"][VIEW_TYPES.index("card")]
    assert "http" in card["properties"]["link"]["properties"]["url"]["description"]


# --- topic settings and the schema document ---------------------------------------------


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        (None, list(VIEW_TYPES)),
        ({}, list(VIEW_TYPES)),
        ({"allowed_types": []}, list(VIEW_TYPES)),
        ({"allowed_types": None}, list(VIEW_TYPES)),
        ({"allowed_types": ["table"]}, ["table"]),
        ({"allowed_types": ["timeline", "markdown", "timeline"]}, ["markdown", "timeline"]),
        ({"allowed_types": ["bogus", "metric"]}, ["metric"]),
        ({"allowed_types": ["bogus"]}, list(VIEW_TYPES)),
        ({"allowed_types": "table"}, list(VIEW_TYPES)),
        ('{"allowed_types": ["card"]}', ["card"]),
        ("not json", list(VIEW_TYPES)),
        ([1, 2], list(VIEW_TYPES)),
    ],
)
def test_parse_allowed_view_types(stored: Any, expected: list[str]) -> None:
    assert parse_allowed_view_types(stored) == expected


def test_validate_view_schema_json_normalizes() -> None:
    assert validate_view_schema_json(None) == {"allowed_types": []}
    assert validate_view_schema_json({}) == {"allowed_types": []}
    assert validate_view_schema_json({"allowed_types": ["table", "markdown", "table"]}) == {
        "allowed_types": ["markdown", "table"]
    }


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        (["table"], "view_schema_json"),
        ("table", "view_schema_json"),
        ({"allowed": ["table"]}, "view_schema_json.allowed"),
        ({"allowed_types": "table"}, "view_schema_json.allowed_types"),
        ({"allowed_types": ["table", "chart"]}, "view_schema_json.allowed_types[1]"),
        ({"allowed_types": ["table", "markdown", 3]}, "view_schema_json.allowed_types[2]"),
        ({"allowed_types": ["Table"]}, "view_schema_json.allowed_types[0]"),
    ],
)
def test_validate_view_schema_json_rejects(obj: Any, field: str) -> None:
    with pytest.raises(AppError) as caught:
        validate_view_schema_json(obj)
    assert caught.value.code == "validation_error"
    assert caught.value.field == field


def test_schema_document() -> None:
    document = schema_document([("inbox", None), ("finance_market", ["table", "metric", "chart"])])
    assert set(document) == {"view_schema", "view_types", "levels", "limits", "topics", "notes"}
    assert document["view_schema"] == view_json_schema()
    assert document["view_types"] == list(VIEW_TYPES)
    assert document["levels"] == list(LEVELS)
    assert document["topics"] == [
        {"topic_key": "inbox", "allowed_view_types": list(VIEW_TYPES)},
        {"topic_key": "finance_market", "allowed_view_types": ["table", "metric"]},
    ]
    limits = document["limits"]
    assert limits["title_max_chars"] == LIMITS.title_max_chars
    assert limits["content_max_chars"] == LIMITS.content_max_chars
    assert limits["tags_max_count"] == LIMITS.tags_max_count
    assert limits["tag_max_chars"] == LIMITS.tag_max_chars
    assert limits["view_max_bytes"] == LIMITS.view_max_bytes
    assert limits["payload_max_bytes"] == LIMITS.payload_max_bytes
    notes = " ".join(document["notes"])
    for words in ("No HTML", "http://", "mailto:", "table", "metric"):
        assert words in notes
    json.loads(json.dumps(document))


def test_limits_are_frozen() -> None:
    with pytest.raises(AttributeError):
        LIMITS.title_max_chars = 1  # type: ignore[misc]
