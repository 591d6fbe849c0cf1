"""The words a reader sees in a view, as one plain text: what search finds in a table's cells, a card's
facts, a checklist's steps or a timeline's events (a walkthrough searched for a name that stood only in a
table cell and found nothing).

Pure domain code: computed once when an item is stored or rewritten (`topic_item.view_text`, migration 0016).
"""

from __future__ import annotations

from typing import Any

from topic_dashboard.item_views.markdown import plain_text

# Keys whose values a reader does not read as words: the shape's name, a link's address, a done flag.
_NOT_WORDS = frozenset({"type", "url", "done", "level", "status"})
# Markdown fields: their words without the marks.
_MARKDOWN = frozenset({"text", "body"})


def view_search_text(view: Any) -> str:
    """The visible words of a validated view, one value a line ("" without a view). Numbers are words too
    (a metric's 98.5); markdown loses its marks; a link's label stays, its URL does not."""
    lines: list[str] = []
    _collect(view, None, lines)
    return "\n".join(line for line in lines if line)


def _collect(value: Any, key: str | None, lines: list[str]) -> None:
    if isinstance(value, dict):
        for child_key, child in value.items():
            if child_key not in _NOT_WORDS:
                _collect(child, child_key, lines)
    elif isinstance(value, list):
        for child in value:
            _collect(child, key, lines)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        lines.append(str(value))
    elif isinstance(value, str):
        lines.append(plain_text(value).strip() if key in _MARKDOWN else value.strip())
