"""Reading topic items: pages newest first with an opaque cursor, unread counts, read/pin/archive."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, NamedTuple, cast

import sqlalchemy as sa
from pydantic import BaseModel
from sqlmodel import Session, col, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import TopicItem, iso_utc
from topic_dashboard.services.versions import bump_items_version
from topic_dashboard.text_policy import check_line, is_lookup_key

MAX_PAGE = 200
DEFAULT_PAGE = 50
MAX_ITEM_ID = 2**63 - 1  # a larger id overflows the databases' integer binding (a 500 instead of a 400/404)


class ItemPublic(BaseModel):
    id: int
    bot_id: str
    topic_key: str
    title: str
    content: str
    level: str
    tags: list[str]
    view: dict[str, Any] | None
    source: str
    dedupe_key: str | None
    is_read: bool
    is_pinned: bool
    is_archived: bool
    conversation_id: str | None = None  # the dashboard conversation the bot was answering
    created_at: str | None


class ItemPage(BaseModel):
    items: list[ItemPublic]
    next_cursor: str | None


class ItemFilters(BaseModel):
    topic_key: str | None = None
    unread_only: bool = False
    level: str | None = None
    tag: str | None = None
    include_archived: bool = False
    pinned_only: bool = False


def item_public(item: TopicItem) -> ItemPublic:
    return ItemPublic(
        id=item.id or 0,
        bot_id=item.bot_id,
        topic_key=item.topic_key,
        title=item.title,
        content=item.content,
        level=item.level,
        tags=list(item.tags_json or []),
        view=item.view_json,
        source=item.source,
        dedupe_key=item.dedupe_key,
        is_read=item.is_read,
        is_pinned=item.is_pinned,
        is_archived=item.is_archived,
        conversation_id=item.conversation_id,
        created_at=iso_utc(item.created_at),
    )


def encode_cursor(item_id: int) -> str:
    return base64.urlsafe_b64encode(f"v1:{item_id}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """Raises invalid_cursor."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        version, _, value = raw.partition(":")
        if version != "v1" or not value.isdigit() or int(value) > MAX_ITEM_ID:
            raise ValueError(raw)
        return int(value)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise AppError(
            "invalid_cursor", "cursor is not one this API gave out; start again without it", field="cursor"
        ) from None


def list_items(
    *,
    session: Session,
    bot_id: str,
    filters: ItemFilters | None = None,
    cursor: str | None = None,
    limit: int = DEFAULT_PAGE,
    newer_than: int | None = None,
) -> ItemPage:
    """One page of a bot's items, newest first. Items inserted meanwhile never shift a page: the
    cursor is the last id seen and ids only grow. Raises invalid_cursor, validation_error."""
    filters = filters or ItemFilters()
    if not 1 <= limit <= MAX_PAGE:
        raise AppError("validation_error", f"limit must be from 1 to {MAX_PAGE}", field="limit")
    for name in ("topic_key", "level", "tag"):
        if (value := getattr(filters, name)) is not None:
            check_line(value, field=name)
    if newer_than is not None and not 0 <= newer_than <= MAX_ITEM_ID:
        raise AppError("validation_error", f"newer_than must be from 0 to {MAX_ITEM_ID}", field="newer_than")
    if not is_lookup_key(bot_id):
        return ItemPage(items=[], next_cursor=None)
    query = select(TopicItem).where(TopicItem.bot_id == bot_id)
    if filters.topic_key:
        query = query.where(TopicItem.topic_key == filters.topic_key)
    if filters.unread_only:
        query = query.where(col(TopicItem.is_read).is_(False))
    if filters.level:
        query = query.where(TopicItem.level == filters.level)
    if not filters.include_archived:
        query = query.where(col(TopicItem.is_archived).is_(False))
    if filters.pinned_only:
        query = query.where(col(TopicItem.is_pinned).is_(True))
    if cursor:
        query = query.where(col(TopicItem.id) < decode_cursor(cursor))
    if newer_than is not None:
        query = query.where(col(TopicItem.id) > newer_than)
    if filters.tag:
        # Tags live in a JSON list. The database narrows the rows to those whose stored JSON text
        # holds the quoted tag (stored with json.dumps, as the pattern is); the exact check below
        # drops the rare row where that text only appears inside a longer string.
        quoted = json.dumps(filters.tag).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        query = query.where(sa.cast(TopicItem.tags_json, sa.Text).like(f"%{quoted}%", escape="\\"))
        rows: list[TopicItem] = []
        for row in session.exec(query.order_by(col(TopicItem.id).desc()).execution_options(yield_per=limit + 1)):
            if filters.tag in (row.tags_json or []):
                rows.append(row)
                if len(rows) > limit:
                    break
    else:
        rows = list(session.exec(query.order_by(col(TopicItem.id).desc()).limit(limit + 1)))
    page = rows[:limit]
    next_cursor = encode_cursor(page[-1].id or 0) if len(rows) > limit and page else None
    return ItemPage(items=[item_public(row) for row in page], next_cursor=next_cursor)


def item_row(*, session: Session, bot_id: str, item_id: int) -> TopicItem:
    """The item's row (for the services). Raises item_not_found (also for another bot's item)."""
    item = session.get(TopicItem, item_id) if isinstance(item_id, int) and 0 < item_id <= MAX_ITEM_ID else None
    if item is None or item.bot_id != bot_id:
        raise AppError("item_not_found", f"bot {bot_id!r} has no item {item_id}")
    return item


def get_item(*, session: Session, bot_id: str, item_id: int) -> ItemPublic:
    """Raises item_not_found (also for another bot's item)."""
    return item_public(item_row(session=session, bot_id=bot_id, item_id=item_id))


def set_item_flags(
    *,
    session: Session,
    bot_id: str,
    item_id: int,
    is_read: bool | None = None,
    is_pinned: bool | None = None,
    is_archived: bool | None = None,
) -> ItemPublic:
    """Mark an item read/unread, pinned, archived. Raises item_not_found."""
    item = item_row(session=session, bot_id=bot_id, item_id=item_id)
    if is_read is not None:
        item.is_read = is_read
    if is_pinned is not None:
        item.is_pinned = is_pinned
    if is_archived is not None:
        item.is_archived = is_archived
    session.add(item)
    bump_items_version(session, bot_id)
    session.commit()
    return item_public(item)


def unread_in_view(
    *, session: Session, bot_id: str, filters: ItemFilters | None = None, up_to_id: int = MAX_ITEM_ID
) -> list[int]:
    """The unread items a view shows (its filters, up to the newest item the person has seen),
    newest first: exactly what "Mark all read" in that view reads. Raises validation_error."""
    filters = filters or ItemFilters()
    ids: list[int] = []
    cursor: str | None = None
    while True:
        page = list_items(
            session=session,
            bot_id=bot_id,
            filters=filters.model_copy(update={"unread_only": True}),
            cursor=cursor or (encode_cursor(up_to_id + 1) if up_to_id < MAX_ITEM_ID else None),
            limit=MAX_PAGE,
        )
        ids += [item.id for item in page.items]
        if page.next_cursor is None:
            return ids
        cursor = page.next_cursor


def set_read(*, session: Session, bot_id: str, item_ids: list[int], is_read: bool) -> list[int]:
    """Mark these items of the bot read (or unread); returns the ids that changed. One transaction."""
    wanted = [i for i in item_ids if isinstance(i, int) and 0 < i <= MAX_ITEM_ID]
    changed: list[int] = []
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        rows = session.exec(
            select(TopicItem.id).where(
                TopicItem.bot_id == bot_id, col(TopicItem.id).in_(chunk), col(TopicItem.is_read).is_(not is_read)
            )
        ).all()
        ids = [int(item_id) for item_id in rows if item_id is not None]
        if ids:
            session.exec(sa.update(TopicItem).where(col(TopicItem.id).in_(ids)).values(is_read=is_read))
        changed += ids
    if changed:
        bump_items_version(session, bot_id)
    session.commit()
    return changed


def unread_by_bot(*, session: Session) -> dict[str, int]:
    """bot id -> its unread items that are not archived (for the bot selectors)."""
    rows = session.exec(
        select(TopicItem.bot_id, sa.func.count())
        .where(col(TopicItem.is_read).is_(False), col(TopicItem.is_archived).is_(False))
        .group_by(col(TopicItem.bot_id))
    ).all()
    return {bot_id: int(count) for bot_id, count in rows}


def topic_counts(*, session: Session, bot_id: str) -> dict[str, tuple[int, int]]:
    """topic_key -> (unread, total) over items that are not archived (answered from the index alone)."""
    counts: dict[str, list[int]] = {}
    rows = session.exec(
        select(TopicItem.topic_key, TopicItem.is_read, sa.func.count())
        .where(TopicItem.bot_id == bot_id, col(TopicItem.is_archived).is_(False))
        .group_by(col(TopicItem.topic_key), col(TopicItem.is_read))
    ).all()
    for key, is_read, count in rows:
        entry = counts.setdefault(key, [0, 0])
        entry[1] += int(count)
        if not is_read:
            entry[0] += int(count)
    return {key: (unread, total) for key, (unread, total) in counts.items()}


def pinned_count(*, session: Session, bot_id: str) -> int:
    """Pinned items of a bot that are not archived."""
    return int(
        session.exec(
            select(sa.func.count())
            .select_from(TopicItem)
            .where(
                TopicItem.bot_id == bot_id,
                col(TopicItem.is_pinned).is_(True),
                col(TopicItem.is_archived).is_(False),
            )
        ).one()
    )


class ItemFlags(NamedTuple):
    is_read: bool
    is_pinned: bool
    is_archived: bool
    topic_key: str


def item_flags(*, session: Session, bot_id: str, item_ids: list[int]) -> dict[int, ItemFlags]:
    """id -> what may have changed since a panel loaded it (reading state, topic) for the given items of a bot."""
    if not item_ids:
        return {}
    # SQLModel's select() is typed for up to four columns: SQLAlchemy's, in the session's transaction.
    rows = (
        session.connection()
        .execute(
            sa.select(
                col(TopicItem.id),
                col(TopicItem.is_read),
                col(TopicItem.is_pinned),
                col(TopicItem.is_archived),
                col(TopicItem.topic_key),
            ).where(col(TopicItem.bot_id) == bot_id, col(TopicItem.id).in_(item_ids))
        )
        .all()
    )
    # A stored row's id is never None (the model allows None only before the insert).
    return {cast(int, row[0]): ItemFlags(bool(row[1]), bool(row[2]), bool(row[3]), str(row[4])) for row in rows}
