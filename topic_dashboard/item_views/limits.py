"""The vocabulary and size limits of a topic item, in one place.

`topic_get_schema` publishes these numbers to bots, `topic_publish` enforces them, and the
panel relies on them to lay items out, so every limit lives here and nowhere else.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

VIEW_TYPES: tuple[str, ...] = ("markdown", "card", "table", "checklist", "metric", "timeline")
LEVELS: tuple[str, ...] = ("info", "warn", "error", "success")
DEFAULT_LEVEL = "info"

TAG_SYMBOLS = "-_./"
TAG_RULE = "letters of any script (e.g. 中文), digits, marks and the symbols - _ . / ; no spaces, no other punctuation"


@dataclass(frozen=True)
class ItemLimits:
    """Maximum sizes of a published item. Characters are Unicode code points.

    Bytes are those of the UTF-8 JSON encoding (`json_size`), so a Chinese character counts
    3 bytes. The byte limits are chosen so that an item within every other limit always
    fits: 20 000 four-byte characters of content (80 000 B) + a full view (32 KiB) + title
    and tags stay under the 128 KiB payload limit, which only stops oversized extras.
    """

    # item fields
    title_max_chars: int = 200  # one line in the item list
    content_max_chars: int = 20_000  # a long report; longer belongs in a linked document
    tags_max_count: int = 10
    tag_max_chars: int = 32
    # view as a whole and the whole publish call
    view_max_bytes: int = 32 * 1024
    payload_max_bytes: int = 128 * 1024
    # per view type
    markdown_max_chars: int = 10_000  # 10 000 CJK characters = 30 000 B, inside view_max_bytes
    card_body_max_chars: int = 5_000
    card_max_fields: int = 20
    table_max_columns: int = 20  # wider tables do not fit the detail column
    table_max_rows: int = 200
    table_cell_max_chars: int = 500
    checklist_max_items: int = 100
    timeline_max_events: int = 100
    # text inside views
    heading_max_chars: int = 200  # card/checklist/event titles, card subtitle
    label_max_chars: int = 100  # column headers, field and metric labels, link labels
    text_max_chars: int = 500  # card field values, checklist item text, captions
    detail_max_chars: int = 2_000  # timeline event detail
    time_max_chars: int = 64
    metric_value_max_chars: int = 64
    unit_max_chars: int = 32
    url_max_chars: int = 2_048


LIMITS = ItemLimits()


def limits_document(limits: ItemLimits = LIMITS) -> dict[str, Any]:
    """The limits as `topic_get_schema` shows them: every number plus how sizes are counted."""
    return {
        **asdict(limits),
        "tag_characters": TAG_RULE,
        "size_unit": "chars are Unicode characters; bytes are UTF-8 bytes of the JSON encoding",
    }


def json_size(value: Any) -> int:
    """Bytes of `value` encoded as compact UTF-8 JSON; values JSON cannot encode count as text."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return len(text.encode("utf-8", errors="surrogatepass"))
