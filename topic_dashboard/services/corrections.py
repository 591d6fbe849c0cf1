"""Learning from corrections: an admin moves an item to another topic, and may teach the rules with it
(docs/DESIGN.md §4.4). Undo moves it back and restores the rules it changed, if nobody changed them since.

The item moves and the rules change in one transaction, through the topic service's own update (so
each rule change has its history row and bumps `rules_version`; the next route uses it).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import BaseModel
from sqlmodel import Session

from topic_dashboard.errors import AppError
from topic_dashboard.item_views import parse_allowed_view_types
from topic_dashboard.models import Topic, TopicItem
from topic_dashboard.routing.examples import ExampleKind, example_text, with_example
from topic_dashboard.services.audit import Actor, as_actor, record
from topic_dashboard.services.items import item_row
from topic_dashboard.services.topics import TopicUpdate, apply_topic_update, load_settings, topic_row
from topic_dashboard.services.versions import bump_items_version


class RuleRevision(BaseModel):
    """One topic's rule as a move found it and as the move left it."""

    topic_key: str
    before: dict[str, Any]
    after: dict[str, Any]


class ItemMovePublic(BaseModel):
    """What a move did, and all that undoing it needs."""

    bot_id: str
    item_id: int
    from_topic_key: str
    to_topic_key: str
    taught: bool  # the caller asked to teach the rules
    positive_added: bool  # the item became an example of `to_topic_key`
    negative_added: bool  # ... and a counter-example of `from_topic_key`
    rule_revisions: list[RuleRevision]


class MoveUndonePublic(BaseModel):
    item_id: int
    topic_key: str  # where the item is again
    rules_restored: bool
    rules_changed_since: list[str]  # topics whose rule someone changed after the move: left as they are


def move_item(
    *, session: Session, bot_id: str, item_id: int, to_topic_key: str, teach: bool, actor: Actor | str
) -> ItemMovePublic:
    """Move an item to another active topic of its bot; with `teach`, it also becomes a positive example
    of that topic and (unless it comes from the fallback topic) a negative example of the one it left.
    The move is audited (`item.move`; each rule it teaches as `topic.update`) in the same transaction.

    Raises bot_not_found, item_not_found, topic_not_found, invalid_argument (the item is in that
    topic already, or the topic is inactive), invalid_rule and validation_error (from the rule update).
    """
    load_settings(session=session, bot_id=bot_id, for_update=True)
    item = item_row(session=session, bot_id=bot_id, item_id=item_id)
    target = topic_row(session=session, bot_id=bot_id, topic_key=to_topic_key)
    source_key = item.topic_key
    if target.topic_key == source_key:
        raise AppError("invalid_argument", f"the item is in topic {source_key!r} already", field="to_topic_key")
    if not target.is_active:
        raise AppError(
            "invalid_argument", f"topic {to_topic_key!r} is inactive: activate it first", field="to_topic_key"
        )
    _check_view_fits(target, [item])
    source = topic_row(session=session, bot_id=bot_id, topic_key=source_key)
    lessons: list[tuple[str, ExampleKind]] = []
    if teach:
        lessons.append((target.topic_key, "positive"))
        if not source.is_default_fallback:  # "not the inbox" says nothing about a topic
            lessons.append((source_key, "negative"))
    text = example_text(item.title, item.content)
    revisions: list[RuleRevision] = []
    who = as_actor(actor)
    with _all_or_nothing(session):
        item.topic_key = target.topic_key
        session.add(item)
        bump_items_version(session, bot_id)
        for topic_key, kind in lessons:
            revision = _teach(session, bot_id=bot_id, topic_key=topic_key, text=text, kind=kind, actor=who)
            if revision is not None:
                revisions.append(revision)
        detail = {
            "from": source_key,
            "to": target.topic_key,
            "teach": teach,
            "rules_changed": [r.topic_key for r in revisions],
        }
        _audit_item(session, who, "item.move", bot_id, item_id, target.topic_key, detail)
    changed = {revision.topic_key for revision in revisions}
    return ItemMovePublic(
        bot_id=bot_id,
        item_id=item_id,
        from_topic_key=source_key,
        to_topic_key=target.topic_key,
        taught=teach,
        positive_added=target.topic_key in changed,
        negative_added=source_key in changed,
        rule_revisions=revisions,
    )


@contextmanager
def _all_or_nothing(session: Session) -> Iterator[None]:
    """Commit the block's changes together, or none of them (a rule update may refuse midway)."""
    try:
        yield
    except BaseException:
        session.rollback()
        raise
    session.commit()


def _audit_item(
    session: Session, actor: Actor, action: str, bot_id: str, item_id: int, topic_key: str, detail: dict[str, Any]
) -> None:
    record(
        session=session,
        by=actor,
        action=action,
        target=f"item:{item_id}",
        bot_id=bot_id,
        topic_key=topic_key,
        item_id=item_id,
        detail=detail,
    )


def _teach(
    session: Session, *, bot_id: str, topic_key: str, text: str, kind: ExampleKind, actor: Actor
) -> RuleRevision | None:
    """Add the example through the topic service; None when the rule has it already."""
    before = dict(topic_row(session=session, bot_id=bot_id, topic_key=topic_key).routing_json or {})
    rule = with_example(before, text, kind)
    if rule == before:
        return None
    after = apply_topic_update(
        session=session,
        bot_id=bot_id,
        topic_key=topic_key,
        data=TopicUpdate(routing_json=rule),
        actor=actor,
        history_label="move",
    )
    return RuleRevision(topic_key=topic_key, before=before, after=after.routing_json)


def undo_move(*, session: Session, bot_id: str, move: ItemMovePublic, actor: Actor | str) -> MoveUndonePublic:
    """Move the item back and restore the rules the move changed, exactly as they were; when someone
    changed one of those rules since, no rule is touched (the answer names them) and only the item moves.
    Audited (`item.move_undo`, and `topic.update` for each rule restored) in the same transaction.

    Raises bot_not_found, item_not_found, topic_not_found (the old topic is gone), conflict (the item
    has moved again since), invalid_rule and validation_error (from the rule update).
    """
    load_settings(session=session, bot_id=bot_id, for_update=True)
    item = item_row(session=session, bot_id=bot_id, item_id=move.item_id)
    if item.topic_key != move.to_topic_key:
        raise AppError(
            "conflict",
            f"the item has moved to {item.topic_key!r} since; move it yourself if it should go back",
            field="item_id",
        )
    source = topic_row(session=session, bot_id=bot_id, topic_key=move.from_topic_key)
    changed_since = [
        revision.topic_key
        for revision in move.rule_revisions
        if dict(topic_row(session=session, bot_id=bot_id, topic_key=revision.topic_key).routing_json or {})
        != revision.after
    ]
    restore = bool(move.rule_revisions) and not changed_since
    who = as_actor(actor)
    with _all_or_nothing(session):
        item.topic_key = source.topic_key
        session.add(item)
        bump_items_version(session, bot_id)
        for revision in move.rule_revisions if restore else []:
            apply_topic_update(
                session=session,
                bot_id=bot_id,
                topic_key=revision.topic_key,
                data=TopicUpdate(routing_json=revision.before),
                actor=who,
                history_label="undo move",
            )
        detail = {"from": move.to_topic_key, "to": source.topic_key, "rules_restored": restore}
        _audit_item(session, who, "item.move_undo", bot_id, move.item_id, source.topic_key, detail)
    return MoveUndonePublic(
        item_id=move.item_id,
        topic_key=source.topic_key,
        rules_restored=restore,
        rules_changed_since=changed_since,
    )


class ItemsMovedPublic(BaseModel):
    """What a bulk move did: each moved item and the topic it came from (all Undo needs)."""

    bot_id: str
    to_topic_key: str
    moved: dict[int, str]  # item id -> the topic it left
    skipped: int  # items already in the topic, or not the bot's


MAX_BULK_MOVE = 1_000


def move_items(
    *, session: Session, bot_id: str, item_ids: list[int], to_topic_key: str, actor: Actor | None = None
) -> ItemsMovedPublic:
    """Move several items of one bot to another active topic, in one transaction (audited as
    `item.bulk_move` when `actor` is given). The rules are not taught (a bulk of examples at once
    would swamp a rule: moving one item teaches, `move_item`).

    Raises bot_not_found, topic_not_found, invalid_argument (inactive topic, too many items)."""
    if len(item_ids) > MAX_BULK_MOVE:
        raise AppError("invalid_argument", f"move at most {MAX_BULK_MOVE} items at once", field="item_ids")
    load_settings(session=session, bot_id=bot_id, for_update=True)
    target = topic_row(session=session, bot_id=bot_id, topic_key=to_topic_key)
    if not target.is_active:
        raise AppError(
            "invalid_argument", f"topic {to_topic_key!r} is inactive: activate it first", field="to_topic_key"
        )
    moved: dict[int, str] = {}
    items: list[TopicItem] = []
    for item_id in dict.fromkeys(item_ids):
        try:
            items.append(item_row(session=session, bot_id=bot_id, item_id=item_id))
        except AppError:
            continue
    _check_view_fits(target, [item for item in items if item.topic_key != target.topic_key])
    with _all_or_nothing(session):
        for item in items:
            item_id = int(item.id or 0)
            if item.topic_key == target.topic_key:
                continue
            moved[item_id] = item.topic_key
            item.topic_key = target.topic_key
            session.add(item)
        if moved:
            bump_items_version(session, bot_id)
            if actor is not None:
                detail = {"to": target.topic_key, "items": len(moved), "moved": moved}
                _audit_bot(session, actor, "item.bulk_move", bot_id, detail)
    return ItemsMovedPublic(
        bot_id=bot_id, to_topic_key=target.topic_key, moved=moved, skipped=len(set(item_ids)) - len(moved)
    )


def _check_view_fits(target: Topic, items: list[TopicItem]) -> None:
    """Refuse a move that would put an item in a topic that does not show its view: the bot could no longer
    update it there (its next publish with the same dedupe_key would be refused as invalid_view)."""
    allowed = parse_allowed_view_types(target.view_schema_json)
    misfits = sorted(
        {
            str(item.view_json.get("type"))
            for item in items
            if item.view_json and item.view_json.get("type") not in allowed
        }
    )
    if not misfits:
        return
    kinds = " and ".join(misfits)
    many = len(items) > 1
    raise AppError(
        "invalid_argument",
        f"{target.name} does not show {kinds} views, which {'some of these items have' if many else 'this item has'}: "
        f"allow {kinds} in its view types on the Rules page, or choose another topic"
        + (" (or untick those items)" if many else ""),
        field="to_topic_key",
        allowed_types=allowed,
        view_types=misfits,
    )


def _audit_bot(session: Session, actor: Actor, action: str, bot_id: str, detail: dict[str, Any]) -> None:
    record(session=session, by=actor, action=action, target=f"bot:{bot_id}", bot_id=bot_id, detail=detail)


def undo_moves(*, session: Session, moves: ItemsMovedPublic, actor: Actor | None = None) -> tuple[int, int]:
    """Put back the items of a bulk move that are still where it left them (and whose old topic
    still exists); returns (moved back, left where they are). One transaction (audited as
    `item.bulk_move_undo` when `actor` is given)."""
    back = 0
    returned: dict[int, str] = {}
    existing: dict[str, bool] = {}
    with _all_or_nothing(session):
        for item_id, from_key in moves.moved.items():
            try:
                item = item_row(session=session, bot_id=moves.bot_id, item_id=item_id)
            except AppError:
                continue
            if from_key not in existing:
                try:
                    topic_row(session=session, bot_id=moves.bot_id, topic_key=from_key)
                    existing[from_key] = True
                except AppError:
                    existing[from_key] = False
            if item.topic_key != moves.to_topic_key or not existing[from_key]:
                continue
            item.topic_key = from_key
            session.add(item)
            back += 1
            returned[item_id] = from_key
        if back:
            bump_items_version(session, moves.bot_id)
            if actor is not None:
                detail = {"from": moves.to_topic_key, "items": back, "left": len(moves.moved) - back, "moved": returned}
                _audit_bot(session, actor, "item.bulk_move_undo", moves.bot_id, detail)
    return back, len(moves.moved) - back
