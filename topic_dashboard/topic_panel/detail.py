"""Flatten an item and its `view` into what the detail pane renders. Pure: no Reflex, no database.

Only a view's declared fields are read; text fields that are markdown (`content`, markdown
`text`, card `body`) become sanitized HTML, everything else stays plain text.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from topic_dashboard.item_views import safe_url
from topic_dashboard.item_views.markdown import block_span, plain_text, render_markdown
from topic_dashboard.services.items import ItemPublic
from topic_dashboard.services.search import SearchHit
from topic_dashboard.topic_panel.rows import CheckItem, ItemDetail, ItemRow, LabelValue, TextPart, TimelineEvent

LONG_CONTENT_CHARS = 1200
PREVIEW_CHARS = 140


def cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def plain_preview(markdown: str, limit: int = PREVIEW_CHARS) -> str:
    """A one-line plain-text preview of markdown (`plain_text`: the words without the marks), read
    from its opening blocks only, as many as fill `limit`: a long item costs what its opening costs."""
    wanted = 2 * limit
    while True:
        _, end = block_span(markdown, 0, wanted, reach=2 * wanted)
        preview = plain_text(markdown[:end])
        if len(preview) >= limit or end >= len(markdown):
            return preview[:limit]
        wanted *= 4  # dense marks (links, tables) say little per character: read further


def item_row(item: ItemPublic) -> ItemRow:
    preview = plain_preview(item.content)
    return ItemRow(
        id=item.id,
        bot_id=item.bot_id,
        title=item.title,
        topic_key=item.topic_key,
        level=item.level,
        created_at=item.created_at or "",
        tags=list(item.tags),
        tags_text="\x1f".join(item.tags),
        preview=preview,
        is_read=item.is_read,
        is_pinned=item.is_pinned,
        is_archived=item.is_archived,
        update_count=item.update_count,
        is_resolved=item.resolved_at is not None,
    )


def search_row(hit: SearchHit) -> ItemRow:
    """A search result as a list row: its title and snippet in parts, the hits marked."""
    row = item_row(hit.item)
    row.title_parts = [TextPart(text=part.text, hit=part.hit) for part in hit.title_parts]
    row.snippet_parts = [TextPart(text=part.text, hit=part.hit) for part in hit.snippet_parts]
    return row


def iso_time(text: str) -> str:
    """`text` as an ISO 8601 date-time with a zone (UTC when it has none), or "" when it is not one
    ("09:30", "yesterday" stay as the bot wrote them)."""
    candidate = text.strip()
    if len(candidate) < 16 or not candidate[:4].isdigit() or candidate[4] != "-":
        return ""
    try:
        moment = datetime.fromisoformat(candidate)  # Python 3.11 reads "Z" too
    except ValueError:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()


def item_detail(item: ItemPublic, *, allow_images: bool = False) -> ItemDetail:
    detail = ItemDetail(
        id=item.id,
        bot_id=item.bot_id,
        title=item.title,
        topic_key=item.topic_key,
        level=item.level,
        tags=list(item.tags),
        source=item.source,
        conversation_href=(
            "/conversations?" + urlencode({"bot": item.bot_id, "conversation": item.conversation_id})
            if item.conversation_id
            else ""
        ),
        created_at=item.created_at or "",
        content_html=render_markdown(item.content, allow_images=allow_images),
        content_is_long=len(item.content) > LONG_CONTENT_CHARS or item.content.count("\n") > 24,
        is_read=item.is_read,
        is_pinned=item.is_pinned,
        is_archived=item.is_archived,
        team_pinned=item.team_pinned,
        team_archived=item.team_archived,
        updated_at=item.updated_at or "",
        update_count=item.update_count,
        resolved_at=item.resolved_at or "",
        resolved_by=item.resolved_by or "",
    )
    view = item.view if isinstance(item.view, dict) else None
    if view is None:
        return detail
    kind = view.get("type")
    detail.view_type = kind if isinstance(kind, str) else ""
    if kind == "markdown":
        detail.view_html = render_markdown(str(view.get("text", "")), allow_images=allow_images)
    elif kind == "card":
        detail.view_title = cell_text(view.get("title"))
        detail.view_subtitle = cell_text(view.get("subtitle"))
        detail.view_html = (
            render_markdown(str(view.get("body", "")), allow_images=allow_images) if view.get("body") else ""
        )
        detail.view_fields = [
            LabelValue(label=cell_text(field.get("label")), value=cell_text(field.get("value")))
            for field in view.get("fields", [])
            if isinstance(field, dict)
        ]
        link = view.get("link") if isinstance(view.get("link"), dict) else {}
        url = safe_url(str(link.get("url", ""))) if link else None
        detail.view_link_url = url or ""
        detail.view_link_label = cell_text(link.get("label")) or (url or "")
    elif kind == "table":
        detail.view_columns = [cell_text(column) for column in view.get("columns", [])]
        detail.view_rows = [[cell_text(cell) for cell in row] for row in view.get("rows", []) if isinstance(row, list)]
        detail.view_caption = cell_text(view.get("caption"))
    elif kind == "checklist":
        detail.view_title = cell_text(view.get("title"))
        detail.view_checks = [
            CheckItem(text=cell_text(entry.get("text")), done=bool(entry.get("done")))
            for entry in view.get("items", [])
            if isinstance(entry, dict)
        ]
        detail.view_checks_done = sum(1 for check in detail.view_checks if check.done)
    elif kind == "metric":
        detail.view_title = cell_text(view.get("label"))
        detail.metric_value = cell_text(view.get("value"))
        detail.metric_unit = cell_text(view.get("unit"))
        delta = view.get("delta")
        detail.metric_delta = f"{delta:+g}" if isinstance(delta, (int, float)) and not isinstance(delta, bool) else ""
        trend = view.get("trend")
        detail.metric_trend = trend if trend in ("up", "down", "flat") else ""
        detail.view_caption = cell_text(view.get("caption"))
    elif kind == "timeline":
        detail.view_events = [
            TimelineEvent(
                time=cell_text(event.get("time")),
                time_iso=iso_time(cell_text(event.get("time"))),
                title=cell_text(event.get("title")),
                detail=cell_text(event.get("detail")),
                level=cell_text(event.get("level")),
            )
            for event in view.get("events", [])
            if isinstance(event, dict)
        ]
    return detail
