"""The rule form names a bad field as the form does, not by its routing_json name."""

from __future__ import annotations

import pytest

from topic_dashboard.errors import AppError
from topic_dashboard.rules_editor.draft import RuleDraft, form_label, form_message, validate_draft


@pytest.mark.parametrize(
    ("field", "label"),
    [
        ("include_when[0]", "Include when #1"),
        ("exclude_when[11]", "Exclude when #12"),
        ("examples.positive[2]", "Positive example #3"),
        ("examples.negative[0]", "Negative example #1"),
        ("keywords[4]", "Keyword #5"),
        ("purpose", "Purpose"),
        ("priority", "Priority"),
        ("fallback_topic_key", "Fallback topic"),
        ("something_else", "something_else"),  # not in the form: the name stays
        ("include_when[x]", "include_when[x]"),
    ],
)
def test_form_label(field: str, label: str) -> None:
    assert form_label(field) == label


def _error(draft: RuleDraft) -> AppError:
    with pytest.raises(AppError) as caught:
        validate_draft(draft)
    return caught.value


def test_a_too_long_condition_is_named_by_its_row() -> None:
    error = _error(RuleDraft(purpose="Builds", include_when=["build results", "x" * 501]))
    assert error.field == "include_when[1]"
    assert form_message(error.message, error.field) == "Include when #2 is 501 characters long; the limit is 500"


def test_a_condition_with_no_words_is_named_by_its_row() -> None:
    error = _error(RuleDraft(purpose="Builds", exclude_when=["!!!"]))
    assert form_message(error.message, error.field or "") == "Exclude when #1 '!!!' has no words to match on"


def test_a_message_not_led_by_its_field_is_unchanged() -> None:
    assert (
        form_message("unknown field 'foo'; known fields: purpose", "foo")
        == "unknown field 'foo'; known fields: purpose"
    )
    assert form_message("something", "") == "something"
