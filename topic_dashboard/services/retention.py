"""Retention: a topic keeps its items N days and/or only its newest N; older items are purged in
small batches, each its own short transaction, so publishing never waits long behind a purge.

An item is purged only when it is outside a limit the topic sets (older than `retention_days`, or
not among the newest `retention_items` of the topic) and nobody pinned it (neither for everyone
nor for themselves). Nothing inside retention is deleted. A purge bumps the bot's change counter,
so open panels drop the rows; searches follow by the index's own triggers (migration 0007).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel
from sqlmodel import Session, col, select

from topic_dashboard.models import ItemState, Topic, TopicItem, utcnow
from topic_dashboard.services.audit import RETENTION_SWEEP, Actor, record
from topic_dashboard.services.periodic import PeriodicTask
from topic_dashboard.services.topics import topic_row
from topic_dashboard.services.versions import bump_items_version

logger = logging.getLogger(__name__)

BATCH = 500  # items deleted per transaction: a few milliseconds of the write lock at a time


class PurgeResult(BaseModel):
    bot_id: str
    topic_key: str
    dry_run: bool
    items: int  # deleted, or (dry run) that would be deleted now
    retention_days: int | None
    retention_items: int | None


def _purgeable(session: Session, topic: Topic, now: datetime) -> Any | None:
    """The condition an item of `topic` must meet to be purged now (None: the topic keeps everything)."""
    outside: list[Any] = []
    if topic.retention_days:
        outside.append(col(TopicItem.created_at) < now - timedelta(days=topic.retention_days))
    if topic.retention_items:
        boundary = session.exec(
            select(TopicItem.id)
            .where(TopicItem.bot_id == topic.bot_id, TopicItem.topic_key == topic.topic_key)
            .order_by(col(TopicItem.id).desc())
            .offset(topic.retention_items - 1)
            .limit(1)
        ).first()
        if boundary is not None:
            outside.append(col(TopicItem.id) < boundary)
    if not outside:
        return None
    pinned_by_someone = (
        sa.select(col(ItemState.item_id))
        .where(col(ItemState.item_id) == col(TopicItem.id), col(ItemState.is_pinned).is_(True))
        .exists()
    )
    return sa.and_(
        col(TopicItem.bot_id) == topic.bot_id,
        col(TopicItem.topic_key) == topic.topic_key,
        sa.or_(*outside),
        col(TopicItem.is_pinned).is_(False),
        sa.not_(pinned_by_someone),
    )


def count_purgeable(*, session: Session, bot_id: str, topic_key: str, now: datetime | None = None) -> PurgeResult:
    """How many items a purge would delete now (the dry run). Raises topic_not_found."""
    topic = topic_row(session=session, bot_id=bot_id, topic_key=topic_key)
    condition = _purgeable(session, topic, now or utcnow())
    count = 0
    if condition is not None:
        count = int(session.exec(select(sa.func.count()).select_from(TopicItem).where(condition)).one())
    return PurgeResult(
        bot_id=bot_id,
        topic_key=topic_key,
        dry_run=True,
        items=count,
        retention_days=topic.retention_days,
        retention_items=topic.retention_items,
    )


def purge_topic(
    *,
    sessions: Callable[[], AbstractContextManager[Session]],
    bot_id: str,
    topic_key: str,
    now: datetime | None = None,
    batch: int = BATCH,
    actor: Actor | None = None,
) -> PurgeResult:
    """Delete the topic's items outside its retention, `batch` at a time, each batch in its own
    transaction (`sessions` opens a write session). With `actor`, one `retention.purge` audit row
    (the total) goes in with the last batch; the system's sweep leaves one only when it deleted
    something. Raises topic_not_found."""
    when = now or utcnow()
    deleted = 0
    days: int | None = None
    items: int | None = None
    while True:
        with sessions() as session:
            topic = topic_row(session=session, bot_id=bot_id, topic_key=topic_key)
            days, items = topic.retention_days, topic.retention_items
            condition = _purgeable(session, topic, when)
            ids = (
                []
                if condition is None
                else [
                    int(item_id)
                    for item_id in session.exec(
                        select(TopicItem.id).where(condition).order_by(col(TopicItem.id)).limit(batch)
                    )
                    if item_id is not None
                ]
            )
            if ids:
                session.exec(sa.delete(TopicItem).where(col(TopicItem.id).in_(ids)))
                bump_items_version(session, bot_id)
            last = len(ids) < batch
            total = deleted + len(ids)
            if last and actor is not None and (total or actor.kind != "system"):
                record(
                    session=session,
                    by=actor,
                    action="retention.purge",
                    target=f"topic:{bot_id}/{topic_key}",
                    bot_id=bot_id,
                    topic_key=topic_key,
                    detail={"items": total, "retention_days": days, "retention_items": items},
                )
            session.commit()
        deleted = total
        if last:
            break
    if deleted:
        logger.info("retention: purged %d item(s) of %s/%s", deleted, bot_id, topic_key)
    return PurgeResult(
        bot_id=bot_id, topic_key=topic_key, dry_run=False, items=deleted, retention_days=days, retention_items=items
    )


def topics_with_retention(*, session: Session) -> list[tuple[str, str]]:
    rows = session.exec(
        select(Topic.bot_id, Topic.topic_key).where(
            sa.or_(col(Topic.retention_days).is_not(None), col(Topic.retention_items).is_not(None))
        )
    ).all()
    return [(bot_id, key) for bot_id, key in rows]


def purge_all(*, sessions: Callable[[], AbstractContextManager[Session]], now: datetime | None = None) -> int:
    """One sweep over every topic that sets a retention; returns the items deleted. Each topic's
    purge that deleted something is audited as the system's `retention` task."""
    with sessions() as session:
        targets = topics_with_retention(session=session)
    total = 0
    for bot_id, topic_key in targets:
        try:
            total += purge_topic(
                sessions=sessions, bot_id=bot_id, topic_key=topic_key, now=now, actor=RETENTION_SWEEP
            ).items
        except Exception:  # one topic's failure (deleted meanwhile, a locked database) must not stop the sweep
            logger.exception("retention: purging %s/%s failed", bot_id, topic_key)
    return total


class RetentionSweeper(PeriodicTask):
    """Runs `purge_all` every `interval` seconds on a daemon thread (several workers may each run
    one: a purge is idempotent, and each batch is its own short transaction)."""

    def __init__(self, sessions: Callable[[], AbstractContextManager[Session]], interval: float) -> None:
        super().__init__(interval, name="retention-sweeper")
        self.sessions = sessions

    def run_once(self) -> None:
        purge_all(sessions=self.sessions)
