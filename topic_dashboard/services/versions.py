"""The two change counters of a bot, and their only writers.

`items_version` changes whenever what an open panel shows may have changed (an item published,
read, pinned or archived, a topic changed); panels poll it. `rules_version` changes whenever a
topic or its rule changed; routing recompiles the bot's rules when it sees a new value.
Both are bumped in the caller's transaction, so they change exactly when the change commits.

`VersionBoard` is what open panels ask: every bot's counter in one process-wide snapshot, read again
at most once per `max_age` whoever asks, so the database sees one small read per process per interval
however many panels are open (not one per panel per tick).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager

import sqlalchemy as sa
from sqlmodel import Session, col, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import TopicBotSettings, utcnow


def bump_items_version(session: Session, bot_id: str) -> None:
    """Tell open panels that the bot's items changed (in the caller's transaction).

    A Core statement on the session's connection: on every publish, the ORM's bulk-update
    bookkeeping (and the autoflush before it) cost more than the UPDATE. Rows of the settings
    table already loaded in the session keep the items_version they had; nothing reads it from them.
    """
    session.connection().execute(
        sa.update(TopicBotSettings)
        .where(col(TopicBotSettings.bot_id) == bot_id)
        .values(items_version=TopicBotSettings.items_version + 1)
    )


def bump_rules_version(session: Session, bot_id: str) -> None:
    """Topics changed: routing recompiles (rules_version) and open panels refresh (items_version)."""
    session.exec(
        sa.update(TopicBotSettings)
        .where(col(TopicBotSettings.bot_id) == bot_id)
        .values(
            rules_version=TopicBotSettings.rules_version + 1,
            items_version=TopicBotSettings.items_version + 1,
            updated_at=utcnow(),
        )
    )


def panel_signature(*, session: Session, bot_id: str) -> tuple[int, bool]:
    """(items_version, topic_enabled): one indexed row that changes whenever the panel must refresh."""
    row = session.exec(
        select(TopicBotSettings.items_version, TopicBotSettings.topic_enabled).where(TopicBotSettings.bot_id == bot_id)
    ).first()
    if row is None:
        raise AppError("bot_not_found", f"no bot with id {bot_id!r}")
    return int(row[0]), bool(row[1])


def panel_signatures(*, session: Session, bot_ids: list[str]) -> dict[str, tuple[int, bool]]:
    """bot id -> (items_version, topic_enabled) for several bots in one indexed read (the "All bots"
    view); bots that no longer exist are left out."""
    if not bot_ids:
        return {}
    rows = session.exec(
        select(TopicBotSettings.bot_id, TopicBotSettings.items_version, TopicBotSettings.topic_enabled).where(
            col(TopicBotSettings.bot_id).in_(bot_ids)
        )
    ).all()
    return {bot_id: (int(version), bool(enabled)) for bot_id, version, enabled in rows}


class VersionBoard:
    """Every bot's (items_version, topic_enabled), shared by the panels of one process.

    `signatures` answers from a snapshot of the whole settings table taken at most `max_age` seconds
    ago; the first caller after that reads it again (one query, whatever the number of panels and
    bots asking). A snapshot is kept per database, named by `key` (tests switch databases in one
    process)."""

    def __init__(self, max_age: float = 0.25, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_age = max_age
        self._clock = clock
        self._lock = threading.Lock()
        self._snapshots: dict[str, tuple[float, dict[str, tuple[int, bool]]]] = {}
        self.reads = 0  # snapshots taken: what the database saw

    def signatures(
        self, *, key: str, sessions: Callable[[], AbstractContextManager[Session]], bot_ids: list[str]
    ) -> dict[str, tuple[int, bool]]:
        """bot id -> (items_version, topic_enabled) for `bot_ids`; bots that do not exist are left out."""
        with self._lock:
            taken = self._snapshots.get(key)
            if taken is None or self._clock() - taken[0] >= self.max_age:
                taken = self._take(key, sessions)
            snapshot = taken[1]
        return {bot_id: snapshot[bot_id] for bot_id in bot_ids if bot_id in snapshot}

    def refresh(
        self, *, key: str, sessions: Callable[[], AbstractContextManager[Session]]
    ) -> dict[str, tuple[int, bool]]:
        """Read every bot's counters now (the live hub's one read per interval); panels asking within
        `max_age` are answered from it."""
        with self._lock:
            return dict(self._take(key, sessions)[1])

    def _take(
        self, key: str, sessions: Callable[[], AbstractContextManager[Session]]
    ) -> tuple[float, dict[str, tuple[int, bool]]]:
        now = self._clock()
        with sessions() as session:
            rows = session.exec(
                select(TopicBotSettings.bot_id, TopicBotSettings.items_version, TopicBotSettings.topic_enabled)
            ).all()
        taken = (now, {bot_id: (int(version), bool(enabled)) for bot_id, version, enabled in rows})
        self._snapshots[key] = taken
        self.reads += 1
        return taken

    def signature(
        self, *, key: str, sessions: Callable[[], AbstractContextManager[Session]], bot_id: str
    ) -> tuple[int, bool]:
        """One bot's (items_version, topic_enabled). Raises bot_not_found."""
        found = self.signatures(key=key, sessions=sessions, bot_ids=[bot_id])
        if bot_id not in found:
            raise AppError("bot_not_found", f"no bot with id {bot_id!r}")
        return found[bot_id]
