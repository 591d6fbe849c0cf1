"""Search over a bot's items: full text over titles, content and tags, Chinese and English, ranked,
highlighted, paged, combined with the panel's filters and each person's reading state.

- SQLite: an FTS5 table with the trigram tokenizer (migration 0007), kept by triggers on publishes,
  edits, moves and deletions. Terms of three characters or more are matched through it and ranked
  by bm25 (a title hit weighs 5, a tag 3, the content 1); shorter terms ("CI", "部署") cannot use
  trigrams and are checked on the rows the index found (or on the bot's items when every term is
  short).
- PostgreSQL: ILIKE on one expression that a pg_trgm GIN index covers (migration 0007), ranked by
  where the terms occur (title 3, tags 2, content 1), then newest first.

Every term must occur (AND); "quoted words" are one term. Case does not matter. The highlight is
computed here as plain text parts, never HTML: the UI renders the parts, so a bot's text cannot
smuggle markup through a search result.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel
from sqlmodel import Session, col, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import ItemState, TopicItem
from topic_dashboard.services.items import (
    MAX_PAGE,
    ItemFilters,
    ItemPublic,
    filtered,
    item_public,
    with_own_state,
)
from topic_dashboard.text_policy import check_line, is_lookup_key

MAX_QUERY_CHARS = 200
MAX_TERMS = 8
MIN_INDEXED_CHARS = 3  # the trigram tokenizer's unit: shorter terms cannot use the index
SNIPPET_CHARS = 160
# The expression the PostgreSQL trigram index covers (migration 0007): must match it exactly.
PG_SEARCH_TEXT = "(topic_item.title || ' ' || topic_item.content || ' ' || coalesce(topic_item.tags_json::text, ''))"
_TERM = re.compile(r'"([^"]+)"|(\S+)')


class TextPart(BaseModel):
    text: str
    hit: bool = False


class SearchHit(BaseModel):
    item: ItemPublic
    title_parts: list[TextPart]
    snippet_parts: list[TextPart]


class SearchPage(BaseModel):
    hits: list[SearchHit]
    next_cursor: str | None
    terms: list[str]


def parse_query(query: str) -> list[str]:
    """The terms of a search: words, or "quoted phrases", lower-cased, at most MAX_TERMS, no repeats.
    Raises validation_error."""
    if not isinstance(query, str) or len(query) > MAX_QUERY_CHARS:
        raise AppError("validation_error", f"a search is at most {MAX_QUERY_CHARS} characters", field="q")
    check_line(query, field="q")
    terms: list[str] = []
    for match in _TERM.finditer(query):
        term = " ".join((match.group(1) or match.group(2)).split()).lower()
        if term and term not in terms:
            terms.append(term)
    if len(terms) > MAX_TERMS:
        raise AppError("validation_error", f"a search has at most {MAX_TERMS} words", field="q")
    return terms


def _encode(offset: int) -> str:
    return base64.urlsafe_b64encode(f"s1:{offset}".encode()).decode().rstrip("=")


def _decode(cursor: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        version, _, value = raw.partition(":")
        if version != "s1" or not value.isdigit() or int(value) > 100_000:
            raise ValueError(raw)
        return int(value)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise AppError(
            "invalid_cursor", "cursor is not one this search gave out; search again without it", field="cursor"
        ) from None


def _like(term: str) -> str:
    return "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _fts_query(terms: list[str]) -> str:
    return " AND ".join('"' + term.replace('"', '""') + '"' for term in terms)


def search_items(
    *,
    session: Session,
    bot_id: str,
    query: str,
    filters: ItemFilters | None = None,
    cursor: str | None = None,
    limit: int = 40,
    reader: int | None = None,
) -> SearchPage:
    """A page of the bot's items that hold every term, best first, as `reader` sees them.
    Raises validation_error, invalid_cursor."""
    terms = parse_query(query)
    if not 1 <= limit <= MAX_PAGE:
        raise AppError("validation_error", f"limit must be from 1 to {MAX_PAGE}", field="limit")
    offset = _decode(cursor) if cursor else 0
    if not terms or not is_lookup_key(bot_id):
        return SearchPage(hits=[], next_cursor=None, terms=terms)
    statement = filtered(with_own_state(select(TopicItem, ItemState), reader), bot_id, filters or ItemFilters(), reader)
    order: list[Any]
    if session.get_bind().dialect.name == "postgresql":
        text: Any = sa.literal_column(PG_SEARCH_TEXT)
        for term in terms:
            statement = statement.where(text.ilike(_like(term), escape="\\"))
        rank = sum(
            (
                sa.case((col(TopicItem.title).ilike(_like(t), escape="\\"), 3), else_=0)
                + sa.case((sa.cast(TopicItem.tags_json, sa.Text).ilike(_like(t), escape="\\"), 2), else_=0)
                + sa.case((col(TopicItem.content).ilike(_like(t), escape="\\"), 1), else_=0)
                for t in terms
            ),
            sa.literal(0),
        )
        order = [rank.desc(), col(TopicItem.id).desc()]
    else:
        indexed = [t for t in terms if len(t) >= MIN_INDEXED_CHARS]
        short = [t for t in terms if len(t) < MIN_INDEXED_CHARS]
        order = [col(TopicItem.id).desc()]
        if indexed:
            fts = sa.table("topic_item_fts", sa.column("rowid"))
            statement = statement.join(fts, fts.c.rowid == col(TopicItem.id)).where(
                sa.literal_column("topic_item_fts").op("MATCH")(_fts_query(indexed))
            )
            order = [sa.literal_column("bm25(topic_item_fts, 5.0, 1.0, 3.0)"), col(TopicItem.id).desc()]
        for term in short:
            haystack = sa.func.lower(
                col(TopicItem.title) + " " + col(TopicItem.content) + " " + sa.cast(TopicItem.tags_json, sa.Text)
            )
            statement = statement.where(sa.func.instr(haystack, term) > 0)
    rows = list(session.exec(statement.order_by(*order).offset(offset).limit(limit + 1)))
    page = rows[:limit]
    hits = [
        SearchHit(
            item=item_public(item, state),
            title_parts=highlight(item.title, terms),
            snippet_parts=highlight(snippet(item.content, terms), terms),
        )
        for item, state in page
    ]
    return SearchPage(hits=hits, next_cursor=_encode(offset + limit) if len(rows) > limit else None, terms=terms)


def snippet(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> str:
    """About `width` characters of `text` (whitespace folded) around its first hit, with … where cut."""
    flat = " ".join(text.split())
    lowered = flat.lower()
    first = min((i for i in (lowered.find(term) for term in terms) if i >= 0), default=0)
    start = max(0, first - width // 3)
    end = min(len(flat), start + width)
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")


def highlight(text: str, terms: list[str]) -> list[TextPart]:
    """`text` cut into parts, the terms' occurrences (any case) marked as hits."""
    if not terms or not text:
        return [TextPart(text=text)] if text else []
    pattern = re.compile("|".join(re.escape(term) for term in sorted(terms, key=len, reverse=True)), re.IGNORECASE)
    parts: list[TextPart] = []
    at = 0
    for match in pattern.finditer(text):
        if match.start() > at:
            parts.append(TextPart(text=text[at : match.start()]))
        parts.append(TextPart(text=match.group(), hit=True))
        at = match.end()
    if at < len(text):
        parts.append(TextPart(text=text[at:]))
    return parts


def unread_in_search(
    *,
    session: Session,
    bot_id: str,
    query: str,
    filters: ItemFilters | None = None,
    up_to_id: int | None = None,
    reader: int | None = None,
    cap: int = 10_000,
) -> list[int]:
    """The unread items a search shows (with its filters, up to the newest the person has seen):
    what "Mark all read" marks while searching. Raises validation_error."""
    unread = (filters or ItemFilters()).model_copy(update={"unread_only": True})
    ids: list[int] = []
    cursor: str | None = None
    while len(ids) < cap:
        page = search_items(
            session=session, bot_id=bot_id, query=query, filters=unread, cursor=cursor, limit=MAX_PAGE, reader=reader
        )
        ids += [hit.item.id for hit in page.hits if up_to_id is None or hit.item.id <= up_to_id]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    return ids[:cap]
