"""#17: updates are pushed to open panels. Panels wait on the process's LiveHub; one watcher reads every
bot's counters once per interval (counted on the database's own statement stream) and wakes exactly the
panels whose bots changed, within about one interval. On every backend."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from tests.support.change_counters import live_bot, publish_result, settings_reads
from topic_dashboard.db import read_session, write_session
from topic_dashboard.services.live import LiveHub
from topic_dashboard.services.topics import set_topic_enabled
from topic_dashboard.services.versions import VersionBoard

INTERVAL = 0.05


@pytest.fixture
def reads(engine: Engine) -> Iterator[list[str]]:
    with settings_reads(engine) as seen:
        yield seen


def _hub(engine: Engine, idle_after: float = 30.0) -> LiveHub:
    board = VersionBoard(max_age=0.25)
    return LiveHub(
        lambda: board.refresh(key="test", sessions=lambda: read_session(engine)),
        interval=INTERVAL,
        idle_after=idle_after,
    )


async def _in_thread(function: object, *args: object) -> None:
    await asyncio.to_thread(function, *args)  # type: ignore[arg-type]


def test_a_publish_wakes_the_panels_of_its_bot_and_no_other(engine: Engine, session: Session) -> None:
    one, two = live_bot(session, "one"), live_bot(session, "two")
    hub = _hub(engine)

    async def scenario() -> tuple[list[float], bool]:
        await hub.wait([one], {}, timeout=0)  # the watcher is running; its first snapshot is taken
        known_one, known_two = hub.current([one]), hub.current([two])
        woken_at: list[float] = []

        async def panel(bot_id: str, known: dict[str, tuple[int, bool]]) -> None:
            now = await hub.wait([bot_id], known, timeout=5)
            if now != known:
                woken_at.append(time.monotonic())

        panels = [asyncio.create_task(panel(one, known_one)) for _ in range(20)]
        other = asyncio.create_task(panel(two, known_two))
        await asyncio.sleep(INTERVAL * 2)  # every panel waits
        assert hub.waiting == 21
        published = time.monotonic()
        await _in_thread(_publish_in_own_session, engine, one)
        await asyncio.gather(*panels)
        other_woken = not other.done()
        other.cancel()
        return [at - published for at in woken_at], other_woken

    delays, other_still_waiting = asyncio.run(scenario())
    assert len(delays) == 20  # every panel of bot one
    assert other_still_waiting  # bot two's panel slept on
    assert max(delays) < 1.0, delays  # within a few intervals, also on a loaded machine


def _publish_in_own_session(engine: Engine, bot_id: str) -> None:
    with write_session(engine) as session:
        publish_result(session, bot_id)


def test_the_database_sees_one_read_per_interval_however_many_panels_wait(
    engine: Engine, session: Session, reads: list[str]
) -> None:
    bots = [live_bot(session, f"bot{n}") for n in range(5)]
    hub = _hub(engine)

    async def scenario(panels: int) -> int:
        await hub.wait(bots, {}, timeout=0)
        before = len(reads)
        waiters = [
            asyncio.create_task(hub.wait([bots[n % 5]], hub.current([bots[n % 5]]), timeout=INTERVAL * 10))
            for n in range(panels)
        ]
        await asyncio.gather(*waiters)
        return len(reads) - before

    few = asyncio.run(scenario(2))
    many = asyncio.run(scenario(200))
    # At most one read per interval (ten) either way: the reads follow time, not the number of panels
    # (100 times as many panels; with one read per panel per interval that would be 2,000 reads).
    assert 1 <= few <= 11 and 1 <= many <= 11 and abs(many - few) <= 4, (few, many)


def test_the_switch_wakes_the_panels_and_nobody_waiting_means_no_reads(
    engine: Engine, session: Session, reads: list[str]
) -> None:
    bot_id = live_bot(session, "switched")
    hub = _hub(engine, idle_after=INTERVAL * 4)

    async def scenario() -> tuple[tuple[int, bool] | None, int]:
        known = await hub.wait([bot_id], {}, timeout=0)
        waiting = asyncio.create_task(hub.wait([bot_id], known, timeout=5))
        await asyncio.sleep(INTERVAL * 2)
        await asyncio.to_thread(_switch_off, engine, bot_id)
        now = await waiting
        await asyncio.sleep(INTERVAL * 10)  # nobody waits: the watcher stops after idle_after
        quiet_from = len(reads)
        await asyncio.sleep(INTERVAL * 10)
        return now.get(bot_id), len(reads) - quiet_from

    signature, reads_while_idle = asyncio.run(scenario())
    assert signature is not None and signature[1] is False  # topic_enabled off, seen by the panel
    assert reads_while_idle == 0


def _switch_off(engine: Engine, bot_id: str) -> None:
    with write_session(engine) as session:
        set_topic_enabled(session=session, bot_id=bot_id, enabled=False)


def test_a_kick_wakes_that_tab_at_once_from_any_thread_and_no_other(engine: Engine, session: Session) -> None:
    bot_id = live_bot(session, "kicked")
    hub = _hub(engine)

    async def scenario() -> tuple[float, bool]:
        known = await hub.wait([bot_id], {}, timeout=0)
        kicked = asyncio.create_task(hub.wait([bot_id], known, timeout=5, tag="tab-1"))
        other = asyncio.create_task(hub.wait([bot_id], known, timeout=5, tag="tab-2"))
        await asyncio.sleep(INTERVAL * 2)
        started = time.monotonic()
        await asyncio.to_thread(hub.kick, "tab-1")  # as a page event would, from a worker thread
        await kicked
        took = time.monotonic() - started
        still = not other.done()
        other.cancel()
        return took, still

    took, other_still_waiting = asyncio.run(scenario())
    assert took < 1.0 and other_still_waiting
