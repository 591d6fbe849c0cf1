"""Storage behaviour the app relies on: SQLite pragmas, write locks taken up front, migrations at head."""

import threading
import time
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from topic_dashboard.db import create_db_engine, ping, read_session, write_session
from topic_dashboard.migrate import current_revision_is_head, upgrade_database
from topic_dashboard.models import TopicBotSettings
from topic_dashboard.services.bots import create_bot


def test_sqlite_connections_get_wal_normal_busy_timeout_and_foreign_keys(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/p.db"
    upgrade_database(url)
    engine = create_db_engine(url, busy_timeout_seconds=7)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 7000
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()


def test_concurrent_read_then_write_transactions_all_succeed_on_sqlite(tmp_path: Path) -> None:
    """Deferred transactions fail with 'database is locked' here; BEGIN IMMEDIATE makes them queue."""
    url = f"sqlite:///{tmp_path}/c.db"
    upgrade_database(url)
    engine = create_db_engine(url, busy_timeout_seconds=30)
    with write_session(engine) as session:
        create_bot(session=session, name="counter", write_config=False)
    errors: list[BaseException] = []
    rounds, workers = 40, 4

    def work() -> None:
        try:
            for _ in range(rounds):
                with write_session(engine) as session:
                    row = session.get(TopicBotSettings, 1)
                    assert row is not None
                    row.rules_version += 1  # read, then write
                    session.add(row)
                    session.commit()
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with read_session(engine) as session:
        row = session.get(TopicBotSettings, 1)
        assert row is not None and row.rules_version == rounds * workers
    engine.dispose()


def test_migrations_reach_head_and_ping_answers(db_url: str, engine: Engine) -> None:
    assert current_revision_is_head(db_url)
    assert ping(engine)


def test_the_migrated_schema_is_the_models_schema(db_url: str, engine: Engine) -> None:
    """A column, index or constraint added to a model without a migration (or the reverse) fails here."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlmodel import SQLModel

    import topic_dashboard.models  # noqa: F401  (registers every table)
    from topic_dashboard.migrate import include_object  # leaves out only migration 0007's search objects

    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True, "include_object": include_object})
        diffs = compare_metadata(context, SQLModel.metadata)
    assert diffs == []


def test_ping_reports_an_unreachable_database() -> None:
    engine = create_db_engine("postgresql://nobody@127.0.0.1:1/none")
    assert ping(engine) is False


def test_read_sessions_do_not_take_the_write_lock(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/r.db"
    upgrade_database(url)
    engine = create_db_engine(url, busy_timeout_seconds=0.2)
    with write_session(engine) as writer:
        writer.exec(sa.text("UPDATE topic_bot_settings SET rules_version = 1"))  # holds the write lock
        with read_session(engine) as reader:
            assert reader.exec(sa.text("SELECT count(*) FROM bot")).one()[0] == 0  # type: ignore[call-overload]
    engine.dispose()


def test_a_write_session_left_in_another_thread_frees_the_writer_turn(tmp_path: Path) -> None:
    """FastAPI enters a request's write session in one worker thread and may leave it in another:
    the next writer must get the turn at once, not wait out WRITER_TURN_WAIT_SECONDS (with an RLock
    the release from the other thread failed and every later writer of the file waited)."""
    url = f"sqlite:///{tmp_path}/turn.db"
    upgrade_database(url)
    engine = create_db_engine(url)
    block = write_session(engine)
    inside, done = threading.Event(), threading.Event()

    def enter_and_stay() -> None:  # a worker thread that lives on, as a thread pool's do
        block.__enter__()
        inside.set()
        done.wait(10)

    entered = threading.Thread(target=enter_and_stay)
    entered.start()
    assert inside.wait(10)
    errors: list[BaseException] = []

    def leave() -> None:
        try:
            block.__exit__(None, None, None)
        except BaseException as error:  # the old RLock raised here
            errors.append(error)

    left = threading.Thread(target=leave)
    left.start()
    left.join()
    done.set()
    entered.join()
    took: list[float] = []

    def next_writer() -> None:
        began = time.monotonic()
        with write_session(engine):
            took.append(time.monotonic() - began)

    writer = threading.Thread(target=next_writer)
    writer.start()
    writer.join(timeout=10)
    assert errors == [] and took and took[0] < 5, (errors, took)
    # A nested write session of the holding thread still passes through.
    with write_session(engine), write_session(engine) as inner:
        inner.exec(sa.text("select 1"))
    engine.dispose()
