"""Plain rows the Topic panel shows (UI vars use these, never table rows)."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class TopicRow:
    key: str = ""
    bot_id: str = ""  # the bot whose topic it is (the "All bots" view holds every bot's)
    name: str = ""
    unread: int = 0
    total: int = 0
    is_active: bool = True
    is_fallback: bool = False


@dataclasses.dataclass
class NotifyPrefs:
    """A person's browser notifications, kept in that browser (localStorage): the permission is per
    browser too."""

    enabled: bool = False
    level: str = "all"  # all | warn (warnings and errors) | error
    sound: bool = False
    muted: list[str] = dataclasses.field(default_factory=list)  # topic keys


@dataclasses.dataclass
class TextPart:
    """A piece of a search result's text; `hit` marks where a search term occurs (shown as <mark>)."""

    text: str = ""
    hit: bool = False


@dataclasses.dataclass
class ItemRow:
    id: int = 0
    bot_id: str = ""
    bot_name: str = ""  # shown on the row in the "All bots" view
    title: str = ""
    topic_key: str = ""
    topic_name: str = ""
    level: str = "info"
    created_at: str = ""
    tags: list[str] = dataclasses.field(default_factory=list)
    tags_text: str = ""  # the tags joined by "\x1f" (page.py TAG_SEPARATOR): one string for the row's memo
    preview: str = ""
    is_read: bool = False
    is_pinned: bool = False
    is_archived: bool = False
    update_count: int = 0  # rewritten in place by the bot this many times
    is_resolved: bool = False
    # In a search's results: the title and a snippet around the first hit, cut at the hits.
    title_parts: list[TextPart] = dataclasses.field(default_factory=list)
    snippet_parts: list[TextPart] = dataclasses.field(default_factory=list)


def read_key_action(ticked: list[int], rows: list[ItemRow]) -> str:
    """What m does to the ticked rows, as one of the bulk bar's actions: "read", or "unread" when every
    ticked row is read already (a toggle, as m is for one row). A ticked id not among `rows` counts as
    unread: m then marks read, which never hides anything from the reader."""
    read = {row.id: row.is_read for row in rows}
    return "unread" if ticked and all(read.get(item_id, False) for item_id in ticked) else "read"


_BULK_DONE = {
    "read": "Marked {} read",
    "unread": "Marked {} unread",
    "pin": "Pinned {}",
    "unpin": "Unpinned {}",
    "archive": "Archived {}",
    "unarchive": "Unarchived {}",
}


def bulk_done_text(action: str, count: int) -> str:
    """What the bulk bar (and m on ticked rows) says it did: "Archived 2 items", not "2 items: archive"."""
    return _BULK_DONE.get(action, action.capitalize() + " {}").format(f"{count} item{'s' if count != 1 else ''}")


@dataclasses.dataclass
class LabelValue:
    label: str = ""
    value: str = ""


@dataclasses.dataclass
class CheckItem:
    text: str = ""
    done: bool = False


@dataclasses.dataclass
class TimelineEvent:
    time: str = ""  # as the bot wrote it, shown when it is not a date and time
    time_iso: str = ""  # an ISO 8601 date-time (with zone, UTC when none), shown in the reader's time
    title: str = ""
    detail: str = ""
    level: str = ""


@dataclasses.dataclass
class ItemDetail:
    """The opened item, with its `view` flattened into fields each renderer reads."""

    id: int = 0
    bot_id: str = ""
    title: str = ""
    topic_key: str = ""
    level: str = "info"
    tags: list[str] = dataclasses.field(default_factory=list)
    source: str = ""
    conversation_href: str = ""  # the dashboard conversation that produced it, when there is one
    created_at: str = ""
    content_html: str = ""
    content_is_long: bool = False
    is_read: bool = False
    is_pinned: bool = False
    is_archived: bool = False
    team_pinned: bool = False  # pinned for everyone
    team_archived: bool = False  # archived for everyone
    updated_at: str = ""
    update_count: int = 0
    resolved_at: str = ""
    resolved_by: str = ""
    view_type: str = ""
    view_title: str = ""
    view_subtitle: str = ""
    view_html: str = ""
    view_fields: list[LabelValue] = dataclasses.field(default_factory=list)
    view_link_url: str = ""
    view_link_label: str = ""
    view_columns: list[str] = dataclasses.field(default_factory=list)
    view_rows: list[list[str]] = dataclasses.field(default_factory=list)
    view_caption: str = ""
    view_checks: list[CheckItem] = dataclasses.field(default_factory=list)
    view_checks_done: int = 0
    metric_value: str = ""
    metric_unit: str = ""
    metric_delta: str = ""
    metric_trend: str = ""
    view_events: list[TimelineEvent] = dataclasses.field(default_factory=list)
