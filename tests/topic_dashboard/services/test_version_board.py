"""#17: open panels ask a process-wide board for their bots' change counters, so the database sees one
small read per interval however many panels are open; a change reaches the board within `max_age`.
On every backend, counting the statements the database really received."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from tests.support.change_counters import live_bot, publish_result, settings_reads
from topic_dashboard.db import read_session
from topic_dashboard.errors import AppError
from topic_dashboard.services.topics import set_topic_enabled
from topic_dashboard.services.versions import VersionBoard, panel_signature


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def statements(engine: Engine) -> Iterator[list[str]]:
    with settings_reads(engine) as seen:
        yield seen


def test_fifty_panels_of_ten_bots_cost_one_read_per_interval(
    engine: Engine, session: Session, statements: list[str]
) -> None:
    bots = [live_bot(session, f"bot{n}") for n in range(10)]
    clock = Clock()
    board = VersionBoard(max_age=0.25, clock=clock)
    statements.clear()

    for tick in range(4):  # four ticks of every open panel
        for panel in range(50):
            bot_id = bots[panel % 10]
            assert board.signature(key="db", sessions=lambda: read_session(engine), bot_id=bot_id) == panel_signature(
                session=session, bot_id=bot_id
            )
        clock.now += 0.3
        del tick

    # The board's own reads: one per interval (4), not 200; the rest are this test's own checks.
    board_reads = [s for s in statements if "WHERE" not in s.upper()]
    assert board.reads == 4 and len(board_reads) == 4


def test_a_publish_reaches_the_board_within_its_interval_and_not_before(engine: Engine, session: Session) -> None:
    bot_id = live_bot(session, "live")
    clock = Clock()
    board = VersionBoard(max_age=0.25, clock=clock)
    before = board.signature(key="db", sessions=lambda: read_session(engine), bot_id=bot_id)

    publish_result(session, bot_id)
    clock.now += 0.1
    assert board.signature(key="db", sessions=lambda: read_session(engine), bot_id=bot_id) == before  # same snapshot
    clock.now += 0.15
    after = board.signature(key="db", sessions=lambda: read_session(engine), bot_id=bot_id)
    assert after[0] > before[0] and after == panel_signature(session=session, bot_id=bot_id)

    set_topic_enabled(session=session, bot_id=bot_id, enabled=False)
    clock.now += 0.25
    assert board.signature(key="db", sessions=lambda: read_session(engine), bot_id=bot_id)[1] is False


def test_unknown_bots_are_left_out_or_refused_and_each_database_has_its_own_snapshot(
    engine: Engine, session: Session
) -> None:
    bot_id = live_bot(session, "known")
    board = VersionBoard()
    sessions = lambda: read_session(engine)
    assert set(board.signatures(key="a", sessions=sessions, bot_ids=[bot_id, "no-such-bot"])) == {bot_id}
    with pytest.raises(AppError) as refused:
        board.signature(key="a", sessions=sessions, bot_id="no-such-bot")
    assert refused.value.code == "bot_not_found"
    assert board.reads == 1
    board.signatures(key="b", sessions=sessions, bot_ids=[bot_id])
    assert board.reads == 2  # another database (key): a snapshot of its own
