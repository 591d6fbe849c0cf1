"""Search over a bot's items: full text over titles, content and tags, Chinese and English, ranked,
highlighted, paged, combined with the panel's filters and each person's reading state.

- SQLite: an FTS5 table with the trigram tokenizer (migration 0007), kept by triggers on publishes,
  edits, moves and deletions. Terms of three characters or more are matched through it, read
  newest first; shorter terms ("CI", "部署") cannot use trigrams and are checked on the rows the
  index found (or on the bot's items, newest first, when every term is short).
- PostgreSQL: ILIKE on one expression that a pg_trgm GIN index covers (migration 0007).

Ranked in two tiers: items with every term in their title first, then the others; newest first
within each (a cursor names the tier and the last id, so pages never shift).

Every term must occur (AND); "quoted words" are one term. Case does not matter. The snippet is the
content's words without their markdown marks, and the highlight is computed here as plain text parts,
never HTML: the UI renders the parts, so a bot's text cannot smuggle markup through a search result.
"""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel
from sqlmodel import Session, col, select

from topic_dashboard.errors import AppError
from topic_dashboard.item_views.markdown import block_span, plain_text
from topic_dashboard.models import ItemState, TopicItem
from topic_dashboard.services.items import (
    MAX_PAGE,
    ItemFilters,
    ItemPublic,
    Scope,
    filtered,
    item_public,
    list_items,
    pack_cursor,
    scope_ok,
    unpack_cursor,
    with_own_state,
)
from topic_dashboard.text_policy import check_line

MAX_QUERY_CHARS = 200
MAX_TERMS = 8
MIN_INDEXED_CHARS = 3  # the trigram tokenizer's unit: shorter terms cannot use the index
SNIPPET_CHARS = 160
# The expression the PostgreSQL trigram index covers (migration 0007): must match it exactly.
PG_SEARCH_TEXT = (
    "(topic_item.title || ' ' || topic_item.content || ' ' || coalesce(topic_item.tags_json::text, '') || ' ' "
    "|| topic_item.view_text)"
)
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


CURSOR_MESSAGE = "cursor is not one this search gave out; search again without it"


def _encode(tier: int, last_id: int) -> str:
    return pack_cursor("s2", tier, last_id)


def _decode(cursor: str) -> tuple[int, int]:
    """(tier, last id shown). Raises invalid_cursor."""
    tier, last_id = unpack_cursor(cursor, "s2", 2, CURSOR_MESSAGE)
    if tier > 1:
        raise AppError("invalid_cursor", CURSOR_MESSAGE, field="cursor")
    return tier, last_id


def _like(term: str) -> str:
    return "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _fts_query(terms: list[str], *, in_title: bool = False) -> str:
    """An FTS5 query holding every term (as a phrase), anywhere or in the title column."""
    column = "title : " if in_title else ""
    return " AND ".join(column + '"' + term.replace('"', '""') + '"' for term in terms)


def search_items(
    *,
    session: Session,
    bot_id: Scope,
    query: str,
    filters: ItemFilters | None = None,
    cursor: str | None = None,
    limit: int = 40,
    reader: int | None = None,
) -> SearchPage:
    """A page of the bot's (or bots') items that hold every term, as `reader` sees them, best first: items with
    every term in their title, then the others, newest first within each. (bm25 over every match was
    measured at 28-58 ms for a common word at 100,000 items; these two tiers read the index newest
    first and stop at a page: docs/PERFORMANCE.md.) Raises validation_error, invalid_cursor."""
    terms = parse_query(query)
    if not 1 <= limit <= MAX_PAGE:
        raise AppError("validation_error", f"limit must be from 1 to {MAX_PAGE}", field="limit")
    tier, after = _decode(cursor) if cursor else (0, None)
    if not terms or not scope_ok(bot_id):
        return SearchPage(hits=[], next_cursor=None, terms=terms)
    postgres = session.get_bind().dialect.name == "postgresql"
    rows: list[tuple[int, TopicItem, ItemState | None]] = []
    after_id: int | None = after
    while tier < 2 and len(rows) <= limit:
        statement = _tier(postgres, tier, terms, bot_id, filters or ItemFilters(), reader, after_id)
        wanted = limit + 1 - len(rows)
        found = list(session.exec(statement.limit(wanted)))
        rows += [(tier, item, state) for item, state in found]
        if len(found) < wanted:  # this tier is exhausted: the next one from its newest
            tier, after_id = tier + 1, None
    page = rows[:limit]
    next_cursor = _encode(page[-1][0], page[-1][1].id or 0) if len(rows) > limit else None
    hits = [
        SearchHit(
            item=item_public(item, state),
            title_parts=highlight(item.title, terms),
            snippet_parts=highlight(snippet(_snippet_source(item, terms), terms), terms),
        )
        for _, item, state in page
    ]
    return SearchPage(hits=hits, next_cursor=next_cursor, terms=terms)


def _snippet_source(item: TopicItem, terms: list[str]) -> str:
    """The text a hit's snippet is cut from: its content, or its view's words when only they hold a term the
    title and content do not (a name in a table cell shows the cell's line, not an unrelated opening)."""
    known = (item.title + " " + item.content).lower()
    if item.view_text and any(term not in known for term in terms):
        return item.view_text.replace("\n", " · ")
    return item.content


def _tier(
    postgres: bool,
    tier: int,
    terms: list[str],
    bot_id: Scope,
    filters: ItemFilters,
    reader: int | None,
    after: int | None,
) -> Any:
    """The query of one tier, newest first, below id `after`: 0 = every term in the title, 1 = the
    other matches."""
    in_title = sa.and_(*(_contains(col(TopicItem.title), term, postgres) for term in terms))
    statement = select(TopicItem, ItemState).where(in_title if tier == 0 else sa.not_(in_title))
    if postgres:
        text: Any = sa.literal_column(PG_SEARCH_TEXT)
        statement = statement.where(*(text.ilike(_like(term), escape="\\") for term in terms))
        newest: Any = col(TopicItem.id)
    else:
        indexed = [term for term in terms if len(term) >= MIN_INDEXED_CHARS]
        if indexed:
            # Driven by the FTS index newest first (ORDER BY its rowid): it stops after a page. Tier 0
            # asks the index for title matches, so it reads only those postings.
            fts = sa.table("topic_item_fts", sa.column("rowid"))
            match = _fts_query(indexed, in_title=tier == 0)
            statement = statement.select_from(fts).join(TopicItem, col(TopicItem.id) == fts.c.rowid)
            statement = statement.where(sa.literal_column("topic_item_fts").op("MATCH")(match))
            newest = fts.c.rowid  # the index's own order and bound: read newest first, stop at a page
        else:
            newest = col(TopicItem.id)
        haystack = (
            col(TopicItem.title)
            + " "
            + col(TopicItem.content)
            + " "
            + sa.cast(TopicItem.tags_json, sa.Text)
            + " "
            + col(TopicItem.view_text)
        )
        statement = statement.where(
            *(_contains(haystack, term, postgres) for term in terms if len(term) < MIN_INDEXED_CHARS)
        )
    statement = filtered(with_own_state(statement, reader), bot_id, filters, reader)
    if after is not None:
        statement = statement.where(newest < after)
    return statement.order_by(newest.desc())


def _contains(column: Any, term: str, postgres: bool) -> Any:
    if postgres:
        return column.ilike(_like(term), escape="\\")
    return sa.func.instr(sa.func.lower(column), term) > 0


def snippet(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> str:
    """About `width` characters of markdown `text` as plain text (its words without the marks:
    `plain_text`), around its first hit, with … where cut. Only the blocks around the hit are read."""
    lowered = text.lower()
    first = min((i for i in (lowered.find(term) for term in terms) if i >= 0), default=0)
    begin, finish = block_span(text, first - width, first + width, reach=4 * width)
    flat = plain_text(text[begin:finish])
    flat_lowered = flat.lower()
    hit = min((i for i in (flat_lowered.find(term) for term in terms) if i >= 0), default=0)
    start = max(0, hit - width // 3)
    end = min(len(flat), start + width)
    cut_before = start > 0 or bool(text[:begin].strip())
    cut_after = end < len(flat) or bool(text[finish:].strip())
    return ("…" if cut_before else "") + flat[start:end] + ("…" if cut_after else "")


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


def items_in_view(
    *,
    session: Session,
    bot_id: Scope,
    filters: ItemFilters,
    query: str = "",
    reader: int | None = None,
    cap: int = 10_000,
) -> list[ItemPublic]:
    """Every item a view shows, as `reader` sees it, at most `cap`: its search's results, best
    first, when it searches; else its filtered list, newest first. What export and "Mark all read"
    while searching read. Raises validation_error, invalid_cursor."""
    shown: list[ItemPublic] = []
    cursor: str | None = None
    while len(shown) < cap:
        if query.strip():
            found = search_items(
                session=session,
                bot_id=bot_id,
                query=query,
                filters=filters,
                cursor=cursor,
                limit=MAX_PAGE,
                reader=reader,
            )
            shown += [hit.item for hit in found.hits]
            cursor = found.next_cursor
        else:
            listed = list_items(
                session=session, bot_id=bot_id, filters=filters, cursor=cursor, limit=MAX_PAGE, reader=reader
            )
            shown += listed.items
            cursor = listed.next_cursor
        if cursor is None:
            break
    return shown[:cap]
