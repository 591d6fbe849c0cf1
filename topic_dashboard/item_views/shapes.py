"""The six declarative view shapes, each with the description and example a bot sees.

A shape lists exactly the fields the panel renders; nothing else is accepted. Normalized
views always carry their required fields, plus `checklist.items[].done` (default false) and
`card.link.label` (default: the URL), so the panel can read those without guessing.
"""

from __future__ import annotations

from typing import Any

from topic_dashboard.item_views.limits import LEVELS, LIMITS
from topic_dashboard.item_views.nodes import (
    Array,
    Boolean,
    Choice,
    Const,
    Field,
    Number,
    Object,
    Scalar,
    Text,
    Url,
    fail,
)

_L = LIMITS


def _type(name: str) -> Field:
    return Field(name="type", node=Const(value=name, description=f'Always "{name}".'), required=True)


def _text(name: str, max_chars: int, description: str, *, required: bool = False) -> Field:
    node = Text(max_chars=max_chars, description=description, min_chars=1 if required else 0)
    return Field(name=name, node=node, required=required)


def _table_rows_match_columns(table: dict[str, Any], path: str) -> dict[str, Any]:
    width = len(table["columns"])
    for index, row in enumerate(table["rows"]):
        if len(row) != width:
            fail(
                f"{path}.rows[{index}]",
                f"{path}.rows[{index}] has {len(row)} cells but {path}.columns has {width}; "
                "give every row one cell per column (use null for an empty cell)",
            )
    return table


def _link_label_defaults_to_url(link: dict[str, Any], path: str) -> dict[str, Any]:
    return {"label": link.get("label", link["url"]), "url": link["url"]}


MARKDOWN = Object(
    what="a markdown view",
    description=(
        "Free-form Markdown (CommonMark with tables). Use it only when no other type fits. "
        "Raw HTML is shown as literal text; links must be http(s) or mailto."
    ),
    fields=(
        _type("markdown"),
        _text("text", _L.markdown_max_chars, "The Markdown source.", required=True),
    ),
)

_CARD_FIELD = Object(
    what="a card field",
    description='A labelled fact, e.g. {"label": "Status", "value": "merged"}.',
    fields=(
        _text("label", _L.label_max_chars, "Short name of the fact.", required=True),
        Field(
            name="value",
            node=Scalar(types=("string", "number"), max_chars=_L.text_max_chars, description="Text or number."),
            required=True,
        ),
    ),
)

_LINK = Object(
    what="a link",
    description="One link, shown as a button.",
    finish=_link_label_defaults_to_url,
    fields=(
        Field(
            name="url",
            node=Url(max_chars=_L.url_max_chars, description="Absolute http://, https:// or mailto: URL."),
            required=True,
        ),
        _text("label", _L.label_max_chars, "Button text; defaults to the URL."),
    ),
)

CARD = Object(
    what="a card view",
    description=(
        "One thing at a glance: a title, optional subtitle and body, a few labelled fields "
        "and one link. Good for a pull request, an order, a deployment, a person."
    ),
    fields=(
        _type("card"),
        _text("title", _L.heading_max_chars, "Headline of the card.", required=True),
        _text("subtitle", _L.heading_max_chars, "Short secondary line under the title."),
        _text("body", _L.card_body_max_chars, "Markdown paragraph(s) under the title."),
        Field(
            name="fields",
            node=Array(
                item=_CARD_FIELD,
                max_items=_L.card_max_fields,
                noun="fields",
                description="Labelled facts shown as a two-column list, in this order.",
            ),
        ),
        Field(name="link", node=_LINK),
    ),
)

TABLE = Object(
    what="a table view",
    finish=_table_rows_match_columns,
    description=(
        "Rows and columns of data. columns are the headers; every row is a list with exactly "
        "one cell per column, in the same order."
    ),
    fields=(
        _type("table"),
        Field(
            name="columns",
            required=True,
            node=Array(
                item=Text(max_chars=_L.label_max_chars, min_chars=0, description="A column header."),
                min_items=1,
                max_items=_L.table_max_columns,
                noun="columns",
                description="Column headers, left to right.",
                too_many_hint="drop the least useful columns or split the table",
            ),
        ),
        Field(
            name="rows",
            required=True,
            node=Array(
                item=Array(
                    item=Scalar(
                        types=("string", "number", "boolean", "null"),
                        max_chars=_L.table_cell_max_chars,
                        description="A cell: string, number, boolean, or null for an empty cell.",
                    ),
                    max_items=_L.table_max_columns,
                    noun="cells",
                    description="One row: exactly one cell per column.",
                ),
                max_items=_L.table_max_rows,
                noun="rows",
                description="Data rows, top to bottom; each has as many cells as there are columns.",
                too_many_hint="show the top rows and summarize the rest, or split into several items",
            ),
        ),
        _text("caption", _L.text_max_chars, "One line under the table: source, unit or time."),
    ),
)

_CHECKLIST_ITEM = Object(
    what="a checklist item",
    description='One to-do or step, e.g. {"text": "Run migrations", "done": true}.',
    fields=(
        _text("text", _L.text_max_chars, "What to do.", required=True),
        Field(name="done", node=Boolean(description="Whether it is done."), default=False),
    ),
)

CHECKLIST = Object(
    what="a checklist view",
    description="To-dos or steps, each done or not done, in this order.",
    fields=(
        _type("checklist"),
        _text("title", _L.heading_max_chars, "Optional heading above the list."),
        Field(
            name="items",
            required=True,
            node=Array(
                item=_CHECKLIST_ITEM,
                min_items=1,
                max_items=_L.checklist_max_items,
                noun="items",
                description="The items, in display order.",
            ),
        ),
    ),
)

METRIC = Object(
    what="a metric view",
    description="One key number with optional unit, change and trend, e.g. Error rate 2.4 % ▼ -0.3.",
    fields=(
        _type("metric"),
        _text("label", _L.label_max_chars, 'What is measured, e.g. "Error rate".', required=True),
        Field(
            name="value",
            required=True,
            node=Scalar(
                types=("number", "string"),
                max_chars=_L.metric_value_max_chars,
                min_chars=1,
                description='The current value: a number (preferred, e.g. 2.4) or a short text (e.g. "1.2k").',
            ),
        ),
        _text("unit", _L.unit_max_chars, 'Unit shown after the value, e.g. "%", "ms", "USD".'),
        Field(
            name="delta",
            node=Number(description="Signed change since the previous value, in the same unit, e.g. -0.3."),
        ),
        Field(
            name="trend",
            node=Choice(values=("up", "down", "flat"), description="Direction of the change."),
        ),
        _text("caption", _L.text_max_chars, 'Context line, e.g. "vs. yesterday".'),
    ),
)

_EVENT = Object(
    what="a timeline event",
    description="Something that happened at a point in time.",
    fields=(
        _text(
            "time",
            _L.time_max_chars,
            'When: ISO 8601 preferred ("2024-05-01T14:03:00Z"), free text allowed ("yesterday 14:03").',
            required=True,
        ),
        _text("title", _L.heading_max_chars, "What happened, in one line.", required=True),
        _text("detail", _L.detail_max_chars, "More about it (plain text)."),
        Field(name="level", node=Choice(values=LEVELS, description="Colour of the event's marker.")),
    ),
)

TIMELINE = Object(
    what="a timeline view",
    description="Events in time order (oldest first), e.g. an incident or a release.",
    fields=(
        _type("timeline"),
        Field(
            name="events",
            required=True,
            node=Array(
                item=_EVENT,
                min_items=1,
                max_items=_L.timeline_max_events,
                noun="events",
                description="The events, in display order.",
            ),
        ),
    ),
)

SHAPES: dict[str, Object] = {
    "markdown": MARKDOWN,
    "card": CARD,
    "table": TABLE,
    "checklist": CHECKLIST,
    "metric": METRIC,
    "timeline": TIMELINE,
}

EXAMPLES: dict[str, dict[str, Any]] = {
    "markdown": {"type": "markdown", "text": "**Backup finished.** See [the report](https://example.com/r/42)."},
    "card": {
        "type": "card",
        "title": "PR #128 merged",
        "subtitle": "api: add rate limiting",
        "body": "Merged by *alice* after 2 reviews.",
        "fields": [{"label": "Files", "value": 12}, {"label": "Branch", "value": "main"}],
        "link": {"label": "Open PR", "url": "https://example.com/pr/128"},
    },
    "table": {
        "type": "table",
        "columns": ["Ticker", "Close", "Change %"],
        "rows": [["AAPL", 189.3, -1.2], ["MSFT", 411.1, 0.8]],
        "caption": "NASDAQ close, 2024-05-01",
    },
    "checklist": {
        "type": "checklist",
        "title": "Release 1.4",
        "items": [{"text": "Tag the release", "done": True}, {"text": "Publish notes", "done": False}],
    },
    "metric": {
        "type": "metric",
        "label": "Error rate",
        "value": 2.4,
        "unit": "%",
        "delta": -0.3,
        "trend": "down",
        "caption": "vs. yesterday",
    },
    "timeline": {
        "type": "timeline",
        "events": [
            {"time": "2024-05-01T14:03:00Z", "title": "Alert fired", "level": "error"},
            {"time": "2024-05-01T14:20:00Z", "title": "Rolled back", "detail": "to v1.3.2", "level": "success"},
        ],
    },
}
