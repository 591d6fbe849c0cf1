"""Engine and sessions: one database for the UI, the REST API and the MCP tools.

SQLite gets WAL, synchronous=NORMAL, a busy timeout and foreign keys, and write sessions take
the write lock up front (BEGIN IMMEDIATE): a deferred transaction that reads and then writes
fails with "database is locked" under concurrent writers instead of waiting its turn.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session

from topic_dashboard.settings import Settings, get_settings

_lock = threading.Lock()
_engines: dict[str, Engine] = {}


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def create_db_engine(url: str, *, busy_timeout_seconds: float = 15.0) -> Engine:
    """Build an engine for `url` with the pragmas and locking this app relies on."""
    if url.startswith("sqlite"):
        engine = sa.create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": busy_timeout_seconds},
            pool_pre_ping=False,
        )
        _configure_sqlite(engine, busy_timeout_seconds)
        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return sa.create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


def _configure_sqlite(engine: Engine, busy_timeout_seconds: float) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event below emit BEGIN instead of pysqlite.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_seconds * 1000)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        mode = conn.get_execution_options().get("sqlite_begin", "IMMEDIATE")
        conn.exec_driver_sql(f"BEGIN {mode}")


def get_engine(settings: Settings | None = None) -> Engine:
    """The process-wide engine for the configured database URL."""
    settings = settings or get_settings()
    url = settings.effective_database_url
    with _lock:
        engine = _engines.get(url)
        if engine is None:
            if url.startswith("sqlite:///"):
                from pathlib import Path

                Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
            engine = create_db_engine(url, busy_timeout_seconds=settings.sqlite_busy_timeout_seconds)
            _engines[url] = engine
        return engine


def dispose_engines() -> None:
    with _lock:
        for engine in _engines.values():
            engine.dispose()
        _engines.clear()


@contextmanager
def write_session(engine: Engine | None = None) -> Iterator[Session]:
    """A session whose transactions take the write lock first (SQLite: BEGIN IMMEDIATE).

    Services own their transactions (they commit); whatever is left uncommitted when the
    block exits, by error or not, is rolled back when the session closes. Rows read stay
    readable after the block (closing detaches them without expiring their attributes).
    """
    engine = engine or get_engine()
    with Session(engine, expire_on_commit=False) as session:
        yield session


@contextmanager
def read_session(engine: Engine | None = None) -> Iterator[Session]:
    """A session for reads: deferred transactions that never block writers under WAL."""
    engine = engine or get_engine()
    bind = engine.execution_options(sqlite_begin="DEFERRED") if is_sqlite(engine) else engine
    with Session(bind, expire_on_commit=False) as session:
        yield session


def ping(engine: Engine | None = None) -> bool:
    """True when the database answers a trivial query."""
    engine = engine or get_engine()
    try:
        with read_session(engine) as session:
            session.exec(sa.text("SELECT 1"))  # type: ignore[call-overload]
        return True
    except sa.exc.OperationalError:
        return False
