"""The words of a view that search reads (item_views/search_text.py)."""

from __future__ import annotations

from topic_dashboard.item_views import validate_view
from topic_dashboard.item_views.search_text import view_search_text


def test_a_tables_cells_columns_and_caption_are_words() -> None:
    view = validate_view(
        {"type": "table", "columns": ["Supplier", "Amount"], "rows": [["Bauhaus", 120.5]], "caption": "Week 12"}
    )
    words = view_search_text(view)
    assert words.splitlines() == ["Supplier", "Amount", "Bauhaus", "120.5", "Week 12"]


def test_markdown_loses_its_marks_and_a_link_keeps_its_label_not_its_url() -> None:
    view = validate_view(
        {
            "type": "card",
            "title": "PR 128",
            "body": "**Merged** by `ada`",
            "fields": [{"label": "Repo", "value": "topic-dashboard"}],
            "link": {"label": "Open PR", "url": "https://example.com/pr/128"},
        }
    )
    words = view_search_text(view)
    assert "Merged by ada" in words and "Open PR" in words and "topic-dashboard" in words
    assert "example.com" not in words and "**" not in words and "card" not in words


def test_a_checklists_done_flags_and_a_timelines_levels_are_not_words() -> None:
    checklist = validate_view({"type": "checklist", "items": [{"text": "Paint the hall", "done": True}]})
    assert view_search_text(checklist) == "Paint the hall"
    timeline = validate_view(
        {"type": "timeline", "events": [{"time": "2026-12-01T09:00:00Z", "title": "Paged", "level": "error"}]}
    )
    assert "Paged" in view_search_text(timeline) and "error" not in view_search_text(timeline)


def test_no_view_has_no_words() -> None:
    assert view_search_text(None) == ""
