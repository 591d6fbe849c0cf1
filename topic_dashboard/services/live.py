"""Live updates pushed to open panels: one watcher per process, however many panels are open.

Every open panel used to ask the server every 700 ms whether its bot changed. Now a panel waits on
the process's `LiveHub` instead: one task reads every bot's change counters (`items_version`,
`topic_enabled`: one small indexed query over the settings table) every `interval` seconds while any
panel waits, and wakes exactly the panels whose bots changed. The database sees one read per worker per
interval whatever the number of panels; a change reaches a waiting panel within one interval (a
publish through another worker included: the counters are in the database all workers share).

The hub is asyncio (the backend's event loop); the read runs in a thread so it never blocks the loop.
It stops reading when no panel has waited for `idle_after` seconds.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterable, Mapping

logger = logging.getLogger(__name__)

Signature = tuple[int, bool]
Snapshot = dict[str, Signature]


class LiveHub:
    """Wakes the panels whose bots changed. `read` returns every bot's (items_version, topic_enabled)."""

    def __init__(self, read: Callable[[], Snapshot], interval: float = 0.1, idle_after: float = 30.0) -> None:
        self._read = read
        self.interval = interval
        self.idle_after = idle_after
        self._snapshot: Snapshot = {}
        self._fresh = False  # the snapshot was taken by a running watcher (not left over from before)
        self._waiters: list[tuple[frozenset[str], asyncio.Future[None], str]] = []
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self.reads = 0  # snapshots taken: what the database saw

    def current(self, bot_ids: Iterable[str]) -> Snapshot:
        """The latest known signatures of `bot_ids` (bots that do not exist are left out)."""
        snapshot = self._snapshot
        return {bot_id: snapshot[bot_id] for bot_id in bot_ids if bot_id in snapshot}

    async def wait(
        self, bot_ids: Iterable[str], known: Mapping[str, Signature], timeout: float, tag: str = ""
    ) -> Snapshot:
        """Until a signature of `bot_ids` differs from `known` (a publish, a read, the switch, a bot
        removed), `kick(tag)` is called, or `timeout` seconds; returns their signatures now."""
        ids = frozenset(bot_ids)
        await self._ensure_watching()
        if self.current(ids) != dict(known):
            return self.current(ids)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiter = (ids, future, tag)
        self._waiters.append(waiter)
        try:
            await asyncio.wait([future], timeout=timeout)
        finally:
            self._waiters.remove(waiter)
            if not future.done():
                future.cancel()
        return self.current(ids)

    def kick(self, tag: str) -> None:
        """Wake the waiters of `tag` now (a panel that chose another bot waits on the new one's
        changes at once). Safe from any thread."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        def wake() -> None:
            for _ids, future, waiter_tag in list(self._waiters):
                if waiter_tag == tag and not future.done():
                    future.set_result(None)

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            wake()
        else:
            loop.call_soon_threadsafe(wake)

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    async def _ensure_watching(self) -> None:
        loop = asyncio.get_running_loop()
        if self._task is not None and not self._task.done() and self._loop is loop:
            return
        # A first snapshot before anyone compares against it: the one left from an earlier watcher may be old.
        await self._take()
        self._loop = loop
        self._task = loop.create_task(self._watch(), name="topic-dashboard live hub")

    async def _take(self) -> set[str]:
        """Read the counters (in a thread); the bots whose signature changed since the last read."""
        snapshot = await asyncio.to_thread(self._read)
        with self._lock:
            self.reads += 1
            before, self._snapshot = self._snapshot, snapshot
        return {bot_id for bot_id in before.keys() | snapshot.keys() if before.get(bot_id) != snapshot.get(bot_id)}

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        idle_since = loop.time()
        while True:
            await asyncio.sleep(self.interval)
            if self._waiters:
                idle_since = loop.time()
            elif loop.time() - idle_since > self.idle_after:
                return  # nobody waits: no more reads until someone does
            try:
                changed = await self._take()
            except Exception:  # a failed read (the database restarting) is tried again next round
                logger.warning("the live hub could not read the bots' counters; trying again", exc_info=True)
                continue
            if changed:
                for ids, future, _tag in list(self._waiters):
                    if ids & changed and not future.done():
                        future.set_result(None)
