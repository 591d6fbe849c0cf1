"""Engine and sessions: one database for the UI, the REST API and the MCP tools.

SQLite gets WAL, synchronous=NORMAL, a busy timeout and foreign keys, and write sessions take
the write lock up front (BEGIN IMMEDIATE): a deferred transaction that reads and then writes
fails with "database is locked" under concurrent writers instead of waiting its turn.
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session

from topic_dashboard.errors import AppError
from topic_dashboard.settings import ENV_PREFIX, Settings, get_settings

_lock = threading.Lock()
_engines: dict[str, Engine] = {}
_writer_turns: dict[str, WriterTurn] = {}
# After this long waiting for its turn, a write session goes ahead and lets SQLite's busy timeout decide.
WRITER_TURN_WAIT_SECONDS = 60.0


class WriterTurn:
    """One SQLite file's in-process writer turn: a lock that a nested write session of the thread
    holding it passes through, and that any thread may release.

    Not an RLock: a FastAPI request enters its write session in one worker thread and may leave it
    in another (sync generator dependencies), and an RLock released from another thread raises and
    stays held, so every later writer waited its full timeout (seen as REST calls timing out in CI)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner: int | None = None

    def acquire(self, timeout: float) -> bool:
        """True when this call took the turn (then `release` it); False when the calling thread
        already holds it (a nested session) or the wait timed out."""
        me = threading.get_ident()
        if self._owner == me:
            return False
        if not self._lock.acquire(timeout=timeout):
            return False
        self._owner = me
        return True

    def release(self) -> None:
        self._owner = None
        self._lock.release()


def is_sqlite(engine: Engine | sa.Connection) -> bool:
    return engine.dialect.name == "sqlite"


def json_text(value: Any) -> str:
    """How JSON columns are stored: UTF-8 as it is ("发布", not "\\u53d1\\u5e03"), so that search and the
    tag filter find Chinese tags in the stored text (migration 0007 rewrote older rows this way)."""
    return json.dumps(value, ensure_ascii=False)


def create_db_engine(url: str, *, busy_timeout_seconds: float = 15.0) -> Engine:
    """Build an engine for `url` with the pragmas and locking this app relies on."""
    if url.startswith("sqlite"):
        engine = sa.create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": busy_timeout_seconds},
            pool_pre_ping=False,
            json_serializer=json_text,
        )
        _configure_sqlite(engine, busy_timeout_seconds)
        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return sa.create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20, json_serializer=json_text)


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
    writer_turn = _sqlite_writer_turn(engine)
    acquired = writer_turn is not None and writer_turn.acquire(timeout=WRITER_TURN_WAIT_SECONDS)
    try:
        with Session(engine, expire_on_commit=False) as session:
            yield session
    finally:
        if writer_turn is not None and acquired:
            writer_turn.release()


def _sqlite_writer_turn(engine: Engine) -> WriterTurn | None:
    """One in-process turn per SQLite file for write sessions.

    SQLite's busy handler polls with growing sleeps and serves no queue: under many concurrent
    writers one of them can miss every free moment until its busy timeout ends in "database is
    locked". Writers of one process queue on this lock instead, so SQLite sees one writer per
    process. A nested write session of the holding thread passes through (`WriterTurn`).
    """
    if not is_sqlite(engine):
        return None
    with _lock:
        return _writer_turns.setdefault(str(engine.url.database), WriterTurn())


@contextmanager
def read_session(engine: Engine | None = None) -> Iterator[Session]:
    """A session for reads: deferred transactions that never block writers under WAL."""
    engine = engine or get_engine()
    bind = engine.execution_options(sqlite_begin="DEFERRED") if is_sqlite(engine) else engine
    with Session(bind, expire_on_commit=False) as session:
        yield session


def ping(engine: Engine | None = None) -> bool:
    """True when the database answers a trivial query."""
    try:
        check_database(engine)
    except AppError:
        return False
    return True


# --- start-up checks: one clear message instead of a traceback ------------------------------------

URL_SETTING = ENV_PREFIX + "DATABASE_URL"
DATA_DIR_SETTING = ENV_PREFIX + "DATA_DIR"
URL_EXAMPLES = "sqlite:////path/to/topic_dashboard.db or postgresql://user@host:5432/dbname"


def masked_url(url: str) -> str | None:
    """`url` with its password masked; None when it does not parse (then it is never echoed: it may hold one)."""
    try:
        parsed = make_url(url)
    except sa.exc.ArgumentError:
        return None
    # As users write it: postgresql://..., not the driver this app picks (postgresql+psycopg://...).
    return parsed.set(drivername=parsed.get_backend_name()).render_as_string(hide_password=True)


def check_data_dir(path: Path) -> None:
    """Create `path` when it is missing and prove that this process can write there.

    Raises data_dir_unavailable (naming the path, what is wrong and what to do).
    """
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise AppError(
            "data_dir_unavailable",
            f"the data dir {path} cannot be used ({reason}): create it writable for this user, "
            f"or point {DATA_DIR_SETTING} at a writable directory",
        ) from exc


def check_database_url(url: str) -> None:
    """Raise database_unavailable when `url` is not one this app can open (syntax, kind, driver); no connection."""
    try:
        create_db_engine(url).dispose()
    except (sa.exc.ArgumentError, ImportError) as exc:  # NoSuchModuleError is an ArgumentError
        raise _bad_url(url, exc) from exc


def check_database(engine: Engine | None = None, *, write: bool = False) -> None:
    """Prove that the database answers a trivial query (with `write`, under the write lock on SQLite).

    Raises database_unavailable, or data_dir_unavailable when SQLite's directory cannot be made.
    The message names the URL with its password masked and says what to do.
    """
    url = get_settings().effective_database_url if engine is None else engine.url.render_as_string(hide_password=False)
    try:
        engine = engine or get_engine()
        with (write_session if write else read_session)(engine) as session:
            session.connection().execute(sa.text("SELECT 1"))  # SQLModel's exec() takes no text()
    except (sa.exc.ArgumentError, ImportError) as exc:
        raise _bad_url(url, exc) from exc
    except (sa.exc.DBAPIError, OSError) as exc:  # OSError: get_engine creating SQLite's directory
        if url.startswith("sqlite:///"):
            check_data_dir(Path(url.removeprefix("sqlite:///")).parent)  # the likelier cause, with its own advice
        raise database_error(url, exc) from exc


def database_error(url: str, exc: BaseException) -> AppError:
    """database_unavailable for `url` failing with `exc`: which database, the driver's reason, what to do."""
    shown = masked_url(url) or f"named by {URL_SETTING}"
    orig = getattr(exc, "orig", None) or exc
    reason = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
    password = _password(url)
    if password:
        reason = reason.replace(password, "***")
    if url.startswith("sqlite"):
        advice = (
            f"check that the file is an SQLite database this user can read and write, or point "
            f"{DATA_DIR_SETTING} (or {URL_SETTING}) elsewhere"
        )
    else:
        advice = (
            f"check that the server runs and accepts this user, and that {URL_SETTING} is right "
            f"(e.g. {URL_EXAMPLES}); unset it to use SQLite in the data dir"
        )
    return AppError("database_unavailable", f"cannot use the database {shown} ({reason}): {advice}")


def _bad_url(url: str, exc: BaseException) -> AppError:
    if isinstance(exc, ImportError):
        reason = f"its driver is not installed ({exc.name or exc})"
    elif isinstance(exc, sa.exc.NoSuchModuleError):
        reason = f"this app does not know the database kind {make_url(url).drivername!r}"
    else:
        reason = "it is not a database URL"  # the parser's message quotes the URL, password and all
    return AppError(
        "database_unavailable",
        f"{URL_SETTING} cannot be used: {reason}; set it to a URL such as {URL_EXAMPLES}, "
        "or unset it to use SQLite in the data dir",
    )


def _password(url: str) -> str | None:
    try:
        return make_url(url).password
    except sa.exc.ArgumentError:
        return None


def startup_problem(settings: Settings | None = None) -> AppError | None:
    """Why the app cannot start, or None. A database that does not answer yet is not such a reason:
    the app serves, and /api/health answers 503 database_unavailable until it does.
    """
    settings = settings or get_settings()
    try:
        check_data_dir(settings.data_dir)
        check_database_url(settings.effective_database_url)
    except AppError as error:
        return error
    return None


def exit_unless_startable(settings: Settings | None = None) -> None:
    """For the app's start: print one clear message and exit with status 2 when the app cannot start;
    warn (one line) when the database does not answer yet.
    """
    problem = startup_problem(settings)
    if problem is not None:
        print(f"error [{problem.code}]: {problem.message}", file=sys.stderr, flush=True)
        raise SystemExit(2)
    try:
        check_database()
    except AppError as error:
        print(f"warning [{error.code}]: {error.message}", file=sys.stderr, flush=True)
