"""Export what a view shows (search.items_in_view: the panel's filters, or its search, as a person
sees them) as JSON or CSV. Cells a spreadsheet would run as a formula are defused."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from topic_dashboard.errors import AppError
from topic_dashboard.services import items as item_service

MAX_EXPORT = 10_000
COLUMNS = (
    "id",
    "topic_key",
    "title",
    "content",
    "level",
    "tags",
    "created_at",
    "updated_at",
    "is_read",
    "is_pinned",
    "is_archived",
    "resolved_at",
    "resolved_by",
    "source",
)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _row(item: item_service.ItemPublic) -> dict[str, Any]:
    data = item.model_dump()
    return {column: data.get(column) for column in COLUMNS}


def as_json(items: list[item_service.ItemPublic]) -> str:
    return json.dumps([_row(item) for item in items], ensure_ascii=False, indent=1)


def csv_cell(value: Any) -> str:
    """One CSV cell: lists joined, and text a spreadsheet would run as a formula kept text."""
    if value is None:
        return ""
    if isinstance(value, list):
        value = ", ".join(str(v) for v in value)
    text = str(value)
    # A bot's text starting with = + - @ would run as a formula in a spreadsheet: keep it text.
    return "'" + text if text.startswith(_FORMULA_START) else text


def csv_text(columns: tuple[str, ...], rows: list[dict[str, Any]]) -> str:
    """CSV with a header, every cell defused (`csv_cell`), after a BOM."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(columns)
    for row in rows:
        writer.writerow([csv_cell(row.get(column)) for column in columns])
    return "\ufeff" + buffer.getvalue()  # a BOM, so spreadsheets read the UTF-8 (Chinese) right


def as_csv(items: list[item_service.ItemPublic]) -> str:
    return csv_text(COLUMNS, [_row(item) for item in items])


def export(kind: str, items: list[item_service.ItemPublic]) -> tuple[str, str]:
    """(data, MIME type). Raises validation_error for an unknown kind."""
    if kind == "json":
        return as_json(items), "application/json"
    if kind == "csv":
        return as_csv(items), "text/csv"
    raise AppError("validation_error", "export as json or csv", field="format")
