"""Fixtures shared by the suite: real databases (SQLite, and PostgreSQL when configured) and the real app."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import threading
import traceback
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from tests.support.databases import backends, migrated_database
from tests.support.server import LiveServer, configured, serve_app
from topic_dashboard.db import create_db_engine

ROOT = Path(__file__).resolve().parent.parent

# The toolchain environment scripts/env.sh sets, for runs that start pytest directly.
os.environ.setdefault("REFLEX_BUN_PATH", str(ROOT / ".tools/node_modules/bun/bin/bun.exe"))
os.environ.setdefault("REFLEX_TELEMETRY_ENABLED", "false")
os.environ.setdefault("REFLEX_CHECK_LATEST_VERSION", "false")
os.environ.setdefault("REFLEX_DIR", str(ROOT / ".tools/reflex"))
# Each test process keeps the app's per-session states in a folder of its own, set before anything builds the app
# (its state manager reads the folder once and purges expired states from it at once): two processes purging the
# checkout's .states/ together raced (one listed a file the other had just removed: every test of that worker errored).
if "REFLEX_STATES_WORKDIR" not in os.environ:
    _states = tempfile.mkdtemp(prefix="td-states-")
    atexit.register(shutil.rmtree, _states, True)
    os.environ["REFLEX_STATES_WORKDIR"] = _states
os.chdir(ROOT)  # Reflex finds rxconfig.py in the working directory
# The CLI adopts the settings `make run` recorded in the checkout: never in tests (nor may tests record).
os.environ["TOPIC_DASHBOARD_INSTANCE_FILE"] = str(ROOT / "test-results" / "no-instance" / "instance.json")


@pytest.fixture(params=backends())
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database at the latest migration, on each configured backend."""
    with migrated_database(request.param, str(tmp_path)) as url:
        yield url


@pytest.fixture
def engine(db_url: str, tmp_path: Path) -> Iterator[Engine]:
    # The in-process app (when a test on this worker started it) follows these settings: its chat
    # relay and alert checks must not act on what service tests arrange and check themselves.
    with configured(
        db_url, str(tmp_path / "data"), TOPIC_DASHBOARD_CHAT_RELAY="false", TOPIC_DASHBOARD_ALERT_CHECKS="false"
    ):
        engine = create_db_engine(db_url)
        yield engine
        engine.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine, expire_on_commit=False) as session:
        yield session


@pytest.fixture(scope="session")
def app_base_url() -> Iterator[str]:
    with serve_app() as base_url:
        yield base_url


@pytest.fixture(scope="session", params=backends())
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, app_base_url: str
) -> Iterator[LiveServer]:
    """The real app over HTTP, on a fresh database of each backend."""
    tmp = tmp_path_factory.mktemp(f"server-{request.param}")
    # Alert checks stay off: a threshold a test sets must not publish items while others compare rows.
    with (
        migrated_database(request.param, str(tmp)) as url,
        configured(url, str(tmp / "data"), TOPIC_DASHBOARD_ALERT_CHECKS="false"),
    ):
        yield LiveServer(base_url=app_base_url, database_url=url)


@pytest.fixture
def server_session(server: LiveServer) -> Iterator[Session]:
    """A session on the live server's own database, for arranging and checking rows."""
    engine = create_db_engine(server.database_url)
    with Session(engine, expire_on_commit=False) as session:
        yield session
    engine.dispose()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """A request to the in-process app that timed out: every thread's stack, taken while the app's
    thread is still stuck, goes into the report (what held the app is otherwise lost)."""
    report: pytest.TestReport = yield
    if report.when == "call" and call.excinfo is not None and call.excinfo.errisinstance(httpx.TimeoutException):
        report.sections.append(("threads when the request timed out", _thread_stacks()))
    return report


def _thread_stacks() -> str:
    names = {thread.ident: thread.name for thread in threading.enumerate()}
    return "\n".join(
        f"--- thread {names.get(ident, ident)}\n" + "".join(traceback.format_stack(frame))
        for ident, frame in sys._current_frames().items()
    )
