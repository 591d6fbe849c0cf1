"""Reading topic items: pages newest first with an opaque cursor, unread counts, read/pin/archive.

Reading state is per person. Every function that reads or changes it takes `reader`: the user's
id, whose own state (`ItemState`, where they changed it) is laid over the team's (the item's own
flags); `reader=None` reads and changes the team's state itself (the REST API's tokens, and what an
admin does "for everyone"). An item archived for everyone is archived for every reader.

Reading functions take a `Scope`: one bot's id, or a tuple of bot ids (the panel's "All bots" view:
every bot the person can see). Functions that change one item act on the item's own bot.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Collection
from typing import Any, NamedTuple, cast

import sqlalchemy as sa
from pydantic import BaseModel
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from topic_dashboard.db import json_text
from topic_dashboard.errors import AppError
from topic_dashboard.models import ItemState, TopicCount, TopicItem, iso_utc, utcnow
from topic_dashboard.services.audit import Actor, as_actor, record
from topic_dashboard.services.versions import bump_items_version
from topic_dashboard.text_policy import check_line, is_lookup_key

MAX_PAGE = 200
DEFAULT_PAGE = 50
MAX_ITEM_ID = 2**63 - 1  # a larger id overflows the databases' integer binding (a 500 instead of a 400/404)
MAX_BULK = 5_000  # items one bulk action changes at most
# One bot's id, or several (the "All bots" view). A tuple, never a bare list: a str is one bot.
Scope = str | tuple[str, ...]


def scope_ok(scope: Scope) -> bool:
    """Whether the scope names at least one well-formed bot id (anything else matches no item)."""
    if isinstance(scope, str):
        return is_lookup_key(scope)
    return bool(scope) and all(isinstance(bot_id, str) and is_lookup_key(bot_id) for bot_id in scope)


def in_scope(column: Any, scope: Scope) -> Any:
    """`column` (a bot id column) limited to the scope's bots."""
    return column == scope if isinstance(scope, str) else column.in_(list(scope))


def holds(scope: Scope, bot_id: str) -> bool:
    return bot_id == scope if isinstance(scope, str) else bot_id in scope


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
    team_pinned: bool = False  # pinned for everyone (by an admin, or before reading state was per person)
    team_archived: bool = False  # archived for everyone: archived for every reader
    created_at: str | None
    updated_at: str | None = None  # rewritten in place by the bot (publish with `update`)
    update_count: int = 0
    resolved_at: str | None = None
    resolved_by: str | None = None


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


def item_public(item: TopicItem, state: ItemState | None = None) -> ItemPublic:
    """The item as `state`'s owner sees it (the team's view without one)."""
    own_read = state.is_read if state is not None else None
    own_pinned = state.is_pinned if state is not None else None
    own_archived = bool(state.is_archived) if state is not None else False
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
        is_read=item.is_read if own_read is None else own_read,
        is_pinned=item.is_pinned if own_pinned is None else own_pinned,
        is_archived=item.is_archived or own_archived,
        conversation_id=item.conversation_id,
        team_pinned=item.is_pinned,
        team_archived=item.is_archived,
        created_at=iso_utc(item.created_at),
        updated_at=iso_utc(item.updated_at),
        update_count=item.update_count or 0,
        resolved_at=iso_utc(item.resolved_at),
        resolved_by=item.resolved_by,
    )


def _own_state(reader: int | None) -> Any:
    """The reader's ItemState row joined to an item (nothing for the team's view)."""
    return sa.and_(col(ItemState.item_id) == col(TopicItem.id), col(ItemState.user_id) == (reader or 0))


def with_own_state(query: Any, reader: int | None) -> Any:
    """`query` with the reader's own state joined: a primary-key probe per item (user 0, the team's
    view, has no rows, so its state columns are NULL)."""
    return query.outerjoin(ItemState, _own_state(reader))


def _effective_read(reader: int | None) -> Any:
    if reader is None:
        return col(TopicItem.is_read)
    return sa.func.coalesce(col(ItemState.is_read), col(TopicItem.is_read), type_=sa.Boolean)


def _effective_pinned(reader: int | None) -> Any:
    if reader is None:
        return col(TopicItem.is_pinned)
    return sa.func.coalesce(col(ItemState.is_pinned), col(TopicItem.is_pinned), type_=sa.Boolean)


def _effective_archived(reader: int | None) -> Any:
    if reader is None:
        return col(TopicItem.is_archived)
    return sa.or_(col(TopicItem.is_archived), sa.func.coalesce(col(ItemState.is_archived), sa.false()))


def pack_cursor(version: str, *numbers: int) -> str:
    """An opaque cursor: a version tag and whole numbers (ids, a tier), base64url without padding."""
    return base64.urlsafe_b64encode(":".join([version, *map(str, numbers)]).encode()).decode().rstrip("=")


def unpack_cursor(cursor: str, version: str, count: int, message: str) -> list[int]:
    """The `count` numbers (each 0..MAX_ITEM_ID) a cursor of `version` holds. Raises invalid_cursor
    with `message` for anything else."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        tag, *values = raw.split(":")
        if tag != version or len(values) != count or not all(v.isdigit() and int(v) <= MAX_ITEM_ID for v in values):
            raise ValueError(raw)
        return [int(v) for v in values]
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise AppError("invalid_cursor", message, field="cursor") from None


def encode_cursor(item_id: int) -> str:
    return pack_cursor("v1", item_id)


def decode_cursor(cursor: str) -> int:
    """Raises invalid_cursor."""
    return unpack_cursor(cursor, "v1", 1, "cursor is not one this API gave out; start again without it")[0]


def list_items(
    *,
    session: Session,
    bot_id: Scope,
    filters: ItemFilters | None = None,
    cursor: str | None = None,
    limit: int = DEFAULT_PAGE,
    newer_than: int | None = None,
    reader: int | None = None,
) -> ItemPage:
    """One page of a bot's items (or several bots'), newest first, as `reader` sees them. Items inserted meanwhile never
    shift a page: the cursor is the last id seen and ids only grow. Raises invalid_cursor, validation_error."""
    filters = filters or ItemFilters()
    if not 1 <= limit <= MAX_PAGE:
        raise AppError("validation_error", f"limit must be from 1 to {MAX_PAGE}", field="limit")
    for name in ("topic_key", "level", "tag"):
        if (value := getattr(filters, name)) is not None:
            check_line(value, field=name)
    if newer_than is not None and not 0 <= newer_than <= MAX_ITEM_ID:
        raise AppError("validation_error", f"newer_than must be from 0 to {MAX_ITEM_ID}", field="newer_than")
    if not scope_ok(bot_id):
        return ItemPage(items=[], next_cursor=None)
    query = filtered(with_own_state(select(TopicItem, ItemState), reader), bot_id, filters, reader)
    if cursor:
        query = query.where(col(TopicItem.id) < decode_cursor(cursor))
    if newer_than is not None:
        query = query.where(col(TopicItem.id) > newer_than)
    if filters.tag:
        # The database narrowed the rows by the tag's quoted text (see `filtered`); the exact check
        # here drops the rare row where that text only appears inside a longer string.
        wanted = filters.tag.lower()
        rows: list[tuple[TopicItem, ItemState | None]] = []
        for item, state in session.exec(
            query.order_by(col(TopicItem.id).desc()).execution_options(yield_per=limit + 1)
        ):
            if wanted in (tag.lower() for tag in item.tags_json or []):
                rows.append((item, state))
                if len(rows) > limit:
                    break
    else:
        rows = [
            (item, state) for item, state in session.exec(query.order_by(col(TopicItem.id).desc()).limit(limit + 1))
        ]
    page = rows[:limit]
    next_cursor = encode_cursor(page[-1][0].id or 0) if len(rows) > limit and page else None
    return ItemPage(items=[item_public(item, state) for item, state in page], next_cursor=next_cursor)


def filtered(query: Any, bot_id: Scope, filters: ItemFilters, reader: int | None) -> Any:
    """`query` (over TopicItem, with the reader's own state joined: `with_own_state`) narrowed to the
    bot's items that the filters keep, as `reader` sees them. The tag is matched in any case; the
    database compares the tag's quoted JSON text (as stored: UTF-8, db.json_text), so a row whose
    tag only contains it within a longer string is left to the caller to drop."""
    query = query.where(in_scope(col(TopicItem.bot_id), bot_id))
    if filters.topic_key:
        query = query.where(TopicItem.topic_key == filters.topic_key)
    if filters.unread_only:
        query = query.where(sa.not_(_effective_read(reader)))
    if filters.level:
        query = query.where(TopicItem.level == filters.level)
    if not filters.include_archived:
        query = query.where(sa.not_(_effective_archived(reader)))
    if filters.pinned_only:
        query = query.where(_effective_pinned(reader))
    if filters.tag:
        quoted = json_text(filters.tag.lower()).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        query = query.where(sa.func.lower(sa.cast(TopicItem.tags_json, sa.Text)).like(f"%{quoted}%", escape="\\"))
    return query


def tag_suggestions(
    *, session: Session, bot_id: Scope, prefix: str = "", limit: int = 12, recent: int = 2000
) -> list[str]:
    """Tags of the bot's recent items that start with `prefix` (any case), most used first: what the
    tag filter offers as one types."""
    if not scope_ok(bot_id):
        return []
    rows = session.exec(
        select(TopicItem.tags_json)
        .where(in_scope(col(TopicItem.bot_id), bot_id))
        .order_by(col(TopicItem.id).desc())
        .limit(recent)
    )
    counts: dict[str, int] = {}
    shown: dict[str, str] = {}
    start = prefix.strip().lower()
    for tags in rows:
        for tag in tags or []:
            key = tag.lower()
            if key.startswith(start):
                counts[key] = counts.get(key, 0) + 1
                shown.setdefault(key, tag)
    return [shown[key] for key in sorted(counts, key=lambda k: (-counts[k], k))[:limit]]


def item_row(*, session: Session, bot_id: Scope, item_id: int) -> TopicItem:
    """The item's row (for the services). Raises item_not_found (also for an item of a bot outside
    the scope)."""
    item = session.get(TopicItem, item_id) if isinstance(item_id, int) and 0 < item_id <= MAX_ITEM_ID else None
    if item is None or not holds(bot_id, item.bot_id):
        raise AppError("item_not_found", f"bot {bot_id!r} has no item {item_id}")
    return item


def _state_of(session: Session, reader: int | None, item_id: int) -> ItemState | None:
    return session.get(ItemState, (reader, item_id)) if reader is not None else None


def get_item(*, session: Session, bot_id: Scope, item_id: int, reader: int | None = None) -> ItemPublic:
    """The item as `reader` sees it. Raises item_not_found (also for another bot's item)."""
    item = item_row(session=session, bot_id=bot_id, item_id=item_id)
    return item_public(item, _state_of(session, reader, item.id or 0))


def set_item_flags(
    *,
    session: Session,
    bot_id: Scope,
    item_id: int,
    is_read: bool | None = None,
    is_pinned: bool | None = None,
    is_archived: bool | None = None,
    reader: int | None = None,
    actor: Actor | None = None,
) -> ItemPublic:
    """Mark an item read/unread, pinned, archived: for `reader` alone, or for everyone (the team's
    state) when `reader` is None. A change for everyone is audited when `actor` is given; one
    person's reading of one item is theirs alone and never is. Raises item_not_found."""
    item = item_row(session=session, bot_id=bot_id, item_id=item_id)
    changes = {
        name: value
        for name, value in (("is_read", is_read), ("is_pinned", is_pinned), ("is_archived", is_archived))
        if value is not None
    }
    if changes:
        _apply_flags(session, {item.bot_id: [item.id or 0]}, changes, reader)
        if actor is not None and reader is None:
            record(
                session=session,
                by=actor,
                action=flag_action("item.", changes),
                target=f"item:{item.id}",
                bot_id=item.bot_id,
                topic_key=item.topic_key,
                item_id=item.id,
                detail={"for": "everyone", "flags": changes},
            )
    session.commit()
    session.expire_all()
    return get_item(session=session, bot_id=bot_id, item_id=item_id, reader=reader)


BULK_FLAGS = ("is_read", "is_pinned", "is_archived")
_FLAG_VERBS = {"is_read": ("read", "unread"), "is_pinned": ("pin", "unpin"), "is_archived": ("archive", "unarchive")}


def flag_action(prefix: str, flags: dict[str, bool]) -> str:
    """The audit action of setting `flags`: "item.pin", "item.bulk_read", "item.bulk_unread_unpin"."""
    return prefix + "_".join(_FLAG_VERBS[name][0 if value else 1] for name, value in flags.items())


def _audit_bulk(
    session: Session,
    actor: Actor | None,
    action: str,
    by_bot: dict[str, list[int]],
    reader: int | None,
    detail: dict[str, Any],
) -> None:
    """One audit row per bot whose items a bulk action changed, in the caller's transaction."""
    if actor is None:
        return
    for bot, ids in by_bot.items():
        if ids:
            everyone = {"for": "everyone" if reader is None else "self", "items": len(ids), "ids": ids}
            record(
                session=session, by=actor, action=action, target=f"bot:{bot}", bot_id=bot, detail={**everyone, **detail}
            )


def set_flags_many(
    *,
    session: Session,
    bot_id: Scope,
    item_ids: list[int],
    flags: dict[str, bool],
    reader: int | None = None,
    actor: Actor | None = None,
) -> list[int]:
    """Set read/pinned/archived on several items of the scope's bots at once, for `reader` (for
    everyone when None); returns the ids it set (ids of other bots' items are ignored). One
    transaction, with one audit row per bot when `actor` is given (`item.bulk_read`, …).
    Raises validation_error for a flag that is none of BULK_FLAGS."""
    if not flags or any(name not in BULK_FLAGS or not isinstance(value, bool) for name, value in flags.items()):
        raise AppError("validation_error", "choose read, pinned or archived", field="flags")
    by_bot = _bot_item_ids(session, bot_id, item_ids[:MAX_BULK], reader)
    _apply_flags(session, by_bot, flags, reader)
    _audit_bulk(session, actor, flag_action("item.bulk_", flags), by_bot, reader, {"flags": flags})
    session.commit()
    return [item_id for ids in by_bot.values() for item_id in ids]


def _bot_item_ids(
    session: Session, bot_id: Scope, item_ids: list[int], reader: int | None, *where: Any
) -> dict[str, list[int]]:
    """Of `item_ids`, those of the scope's items that meet `where` (as `reader` sees them), by bot,
    500 at a time."""
    wanted = [i for i in item_ids if isinstance(i, int) and 0 < i <= MAX_ITEM_ID]
    found: dict[str, list[int]] = {}
    if not scope_ok(bot_id):
        return found
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        rows = session.exec(
            with_own_state(select(TopicItem.id, TopicItem.bot_id), reader).where(
                in_scope(col(TopicItem.bot_id), bot_id), col(TopicItem.id).in_(chunk), *where
            )
        ).all()
        for item_id, owner in rows:
            if item_id is not None:
                found.setdefault(owner, []).append(int(item_id))
    return found


def _apply_flags(session: Session, by_bot: dict[str, list[int]], flags: dict[str, bool], reader: int | None) -> None:
    """Set `flags` on these items (by their bot): the reader's own state, or the team's when None."""
    for bot_id, ids in by_bot.items():
        if not ids:
            continue
        if reader is None:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                session.exec(sa.update(TopicItem).where(col(TopicItem.id).in_(chunk)).values(**flags))
        else:
            _upsert_states(session, reader, bot_id, ids, flags)
        bump_items_version(session, bot_id)


def set_resolved(*, session: Session, bot_id: Scope, item_id: int, resolved: bool, actor: Actor | str) -> ItemPublic:
    """Mark an item resolved (dealt with) by `actor`, or open again: shared state, for everyone;
    audited in the same transaction. Raises item_not_found."""
    who = as_actor(actor)
    item = item_row(session=session, bot_id=bot_id, item_id=item_id)
    was = item.resolved_by
    item.resolved_at, item.resolved_by = (utcnow(), who.name[:100]) if resolved else (None, None)
    session.add(item)
    bump_items_version(session, item.bot_id)
    record(
        session=session,
        by=who,
        action="item.resolve" if resolved else "item.reopen",
        target=f"item:{item.id}",
        bot_id=item.bot_id,
        topic_key=item.topic_key,
        item_id=item.id,
        detail={"resolved_by": {"before": was, "after": item.resolved_by}},
    )
    session.commit()
    return item_public(item)


def _upsert_states(session: Session, reader: int, bot_id: str, item_ids: list[int], changes: dict[str, bool]) -> None:
    """Set these flags of the reader's own state of these items (other flags untouched), in chunks."""
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    now = utcnow()
    for start in range(0, len(item_ids), 500):
        rows = [
            {"user_id": reader, "item_id": item_id, "bot_id": bot_id, "updated_at": now, **changes}
            for item_id in item_ids[start : start + 500]
        ]
        statement = insert(ItemState).values(rows)
        statement = statement.on_conflict_do_update(
            index_elements=["user_id", "item_id"],
            set_={name: statement.excluded[name] for name in (*changes, "updated_at")},
        )
        session.exec(statement)


def unread_in_view(
    *,
    session: Session,
    bot_id: Scope,
    filters: ItemFilters | None = None,
    up_to_id: int = MAX_ITEM_ID,
    reader: int | None = None,
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
            reader=reader,
        )
        ids += [item.id for item in page.items]
        if page.next_cursor is None:
            return ids
        cursor = page.next_cursor


def set_read(
    *,
    session: Session,
    bot_id: Scope,
    item_ids: list[int],
    is_read: bool,
    reader: int | None = None,
    actor: Actor | None = None,
    action: str | None = None,
) -> list[int]:
    """Mark these items of the scope's bots read (or unread) for `reader` (for everyone when None);
    returns the ids that changed for them. One transaction, with one audit row per bot when `actor`
    is given (`action`, by default `item.bulk_read` / `item.bulk_unread`)."""
    read = _effective_read(reader)
    by_bot = _bot_item_ids(session, bot_id, item_ids, reader, sa.not_(read) if is_read else read)
    _apply_flags(session, by_bot, {"is_read": is_read}, reader)
    _audit_bulk(session, actor, action or flag_action("item.bulk_", {"is_read": is_read}), by_bot, reader, {})
    session.commit()
    return [item_id for ids in by_bot.values() for item_id in ids]


def _own_rows(session: Session, reader: int, bot_id: str | None, *columns: Any) -> list[Any]:
    """`columns` grouped over the reader's own states (of one bot, or all) of items not archived for
    everyone, with a count: how the reader's view differs from the team's, in as many rows as they
    changed items (the team's counts come from the items' index)."""
    where = [col(ItemState.user_id) == reader, col(TopicItem.is_archived).is_(False)]
    if bot_id is not None:
        where.append(col(ItemState.bot_id) == bot_id)
    statement = (
        sa.select(
            *columns,
            col(TopicItem.is_read),
            col(TopicItem.is_pinned),
            col(ItemState.is_read),
            col(ItemState.is_pinned),
            col(ItemState.is_archived),
            sa.func.count(),
        )
        .select_from(ItemState)
        .join(TopicItem, col(TopicItem.id) == col(ItemState.item_id))
        .where(*where)
        .group_by(
            *columns,
            col(TopicItem.is_read),
            col(TopicItem.is_pinned),
            col(ItemState.is_read),
            col(ItemState.is_pinned),
            col(ItemState.is_archived),
        )
    )
    return list(session.connection().execute(statement).all())


class _Delta(NamedTuple):
    total: int  # items the reader does not see that the team does (negative), per group
    unread: int
    pinned: int


def _delta(
    team_read: bool,
    team_pinned: bool,
    own_read: bool | None,
    own_pinned: bool | None,
    own_archived: bool | None,
    count: int,
) -> _Delta:
    """How `count` items in this state count for their reader, less how they count for the team."""
    shown = not own_archived
    read = team_read if own_read is None else own_read
    pinned = team_pinned if own_pinned is None else own_pinned
    return _Delta(
        total=(int(shown) - 1) * count,
        unread=(int(shown and not read) - int(not team_read)) * count,
        pinned=(int(shown and pinned) - int(team_pinned)) * count,
    )


def unread_by_bot(*, session: Session, reader: int | None = None) -> dict[str, int]:
    """bot id -> its unread items that are not archived, for `reader` (for the bot selectors)."""
    rows = session.exec(  # topic_count: kept by the database (migration 0014), a few rows per bot
        select(TopicCount.bot_id, sa.func.sum(TopicCount.n))
        .where(col(TopicCount.is_read).is_(False), TopicCount.n > 0)
        .group_by(col(TopicCount.bot_id))
    ).all()
    counts = {bot_id: int(count) for bot_id, count in rows}
    if reader is not None:
        for bot_id, *state in _own_rows(session, reader, None, col(ItemState.bot_id)):
            counts[bot_id] = counts.get(bot_id, 0) + _delta(*state).unread
    return {bot_id: count for bot_id, count in counts.items() if count}


def topic_counts(*, session: Session, bot_id: str, reader: int | None = None) -> dict[str, tuple[int, int]]:
    """topic_key -> (unread, total) over items that are not archived, for `reader`: the team's from
    topic_count (kept by the database per topic and read state: a few rows, however many items),
    then the reader's own changes laid over them."""
    counts: dict[str, list[int]] = {}
    rows = session.exec(
        select(TopicCount.topic_key, TopicCount.is_read, TopicCount.n).where(
            TopicCount.bot_id == bot_id, TopicCount.n > 0
        )
    ).all()
    for key, is_read, count in rows:
        entry = counts.setdefault(key, [0, 0])
        entry[1] += int(count)
        if not is_read:
            entry[0] += int(count)
    if reader is not None:
        for key, *state in _own_rows(session, reader, bot_id, col(TopicItem.topic_key)):
            delta = _delta(*state)
            entry = counts.setdefault(key, [0, 0])
            entry[0] += delta.unread
            entry[1] += delta.total
    return {key: (unread, total) for key, (unread, total) in counts.items() if total > 0}


def pinned_count(*, session: Session, bot_id: str, reader: int | None = None) -> int:
    """Pinned items of a bot that are not archived, for `reader`."""
    team = int(
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
    if reader is None:
        return team
    return team + sum(_delta(*state).pinned for state in _own_rows(session, reader, bot_id))


class ItemFlags(NamedTuple):
    is_read: bool
    is_pinned: bool
    is_archived: bool
    topic_key: str
    title: str  # these three change when the bot updates the item in place
    level: str
    update_count: int
    is_resolved: bool


def item_flags(
    *, session: Session, bot_id: Scope, item_ids: list[int], reader: int | None = None
) -> dict[int, ItemFlags]:
    """id -> what may have changed since a panel loaded it (reading state as `reader` has it, topic)
    for the given items of a bot."""
    if not item_ids:
        return {}
    # SQLModel's select() is typed for up to four columns: SQLAlchemy's, in the session's transaction.
    rows = (
        session.connection()
        .execute(
            sa.select(
                col(TopicItem.id),
                _effective_read(reader),
                _effective_pinned(reader),
                _effective_archived(reader),
                col(TopicItem.topic_key),
                col(TopicItem.title),
                col(TopicItem.level),
                col(TopicItem.update_count),
                col(TopicItem.resolved_at),
            )
            .select_from(TopicItem)
            .outerjoin(ItemState, _own_state(reader))
            .where(in_scope(col(TopicItem.bot_id), bot_id), col(TopicItem.id).in_(item_ids))
        )
        .all()
    )
    # A stored row's id is never None (the model allows None only before the insert).
    return {
        cast(int, row[0]): ItemFlags(
            bool(row[1]),
            bool(row[2]),
            bool(row[3]),
            str(row[4]),
            str(row[5]),
            str(row[6]),
            int(row[7] or 0),
            row[8] is not None,
        )
        for row in rows
    }


def count_notifiable(
    *,
    session: Session,
    bot_id: Scope,
    newer_than: int,
    levels: Collection[str],
    muted: Collection[str],
    reader: int | None = None,
    cap: int = 100_000,
) -> int:
    """How many unread, unarchived items newer than `newer_than` (as `reader` sees them) are at one of
    `levels` in a topic not in `muted`: what a notification summary counts, however many arrived."""
    if not scope_ok(bot_id):
        return 0
    statement = filtered(
        with_own_state(select(TopicItem.id), reader), bot_id, ItemFilters(unread_only=True), reader
    ).where(col(TopicItem.id) > newer_than, col(TopicItem.level).in_(list(levels)))
    if muted:
        statement = statement.where(col(TopicItem.topic_key).not_in(list(muted)))
    return _count_rows(session, statement, cap)


def _count_rows(session: Session, statement: Any, cap: int) -> int:
    """How many rows `statement` (a select of item ids) yields, counting at most `cap`."""
    return int(session.exec(select(sa.func.count()).select_from(statement.limit(cap).subquery())).one())


def count_newer(
    *,
    session: Session,
    bot_id: Scope,
    filters: ItemFilters,
    newer_than: int,
    reader: int | None = None,
    cap: int = 10_000,
) -> int:
    """How many items of the view (its filters, as `reader` sees them) are newer than `newer_than`,
    counted up to `cap`: the panel's "N new items". A tag filter is counted by the database's
    match (see `filtered`), so in the rare case of a tag inside a longer one it may count one more."""
    if not scope_ok(bot_id):
        return 0
    newer = filtered(with_own_state(select(TopicItem.id), reader), bot_id, filters, reader).where(
        col(TopicItem.id) > newer_than
    )
    return _count_rows(session, newer, cap)
