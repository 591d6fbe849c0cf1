"""Browser flows: the real app, started as `make run` starts it, driven by Playwright in Debian's Chromium.

`e2e_app` runs the project's start command, `reflex run --env prod` through topic_dashboard/launcher.py
(tests/support/subprocess_server.py), in a process group of its own on the port its frontend build
folder was last built for when that port is free (the build is then reused: no 35-65 s rebuild), else
on a free one, with the suite's own database and data dir: SQLite by
default, a fresh PostgreSQL database on the TEST_DATABASE_URL server with `E2E_DATABASE=postgresql`.
One port serves the built frontend, the event socket, /api and MCP, behind the same Host/Origin
allow-lists and Content-Security-Policy as for users. Its log goes to a file in the suite's temp
dir, shown when the start fails; the whole group (bun, Granian's workers) is stopped at the end.

With `E2E_BASE_URL` set (`E2E_BASE_URL=https://staging.example make e2e`), no app is started: the
flows run against that dashboard, logging in with `E2E_ADMIN_USER` / `E2E_ADMIN_PASSWORD` and setting
up through the REST API with `E2E_API_TOKEN` (an admin API token), all from the environment. Only the
flows that are safe on a shared instance run there; those marked `private_instance` (they read or
write the app's database directly, or need a fresh one) are skipped.

A failed flow leaves its evidence under `test-results/artifacts/<test>/`: Playwright's trace and
video (scripts/e2e.sh turns them on), and `browser-log.txt` (the page's console errors, uncaught
errors, failed requests and HTTP errors) and `server-log.txt` (what the app logged during the
flow), which also appear in the HTML and JUnit reports. docs/TESTING.md says how to read them.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, ConsoleMessage, Page, Request, Response
from pytest_playwright import CreateContextCallback
from slugify import slugify
from sqlalchemy.engine import Engine

from tests.support.databases import TEST_DATABASE_URL, postgres_database
from tests.support.server import COMPILE_LOCK, configured, free_port
from tests.support.subprocess_server import ReflexRun, linked_web_dir
from topic_dashboard.db import create_db_engine
from topic_dashboard.launcher import built_port
from topic_dashboard.migrate import upgrade_database

ROOT = Path(__file__).resolve().parents[2]


def screenshot_path(name: str) -> Path:
    """Where a browser test saves a picture for a person to look at.

    test-results/screenshots/ by default (ignored by git); `TD_SCREENSHOTS=docs/screenshots make test`
    refreshes the ones the docs show.
    """
    directory = ROOT / os.environ.get("TD_SCREENSHOTS", "test-results/screenshots")
    directory.mkdir(parents=True, exist_ok=True)
    return directory / name


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


E2E_BASE_URL = os.environ.get("E2E_BASE_URL", "").rstrip("/")
E2E_DATABASE = os.environ.get("E2E_DATABASE", "sqlite")  # the local app's database: sqlite | postgresql
PRIVATE_REASON = (
    "needs a private instance (it reads or writes the app's database directly, or needs a fresh one); "
    "E2E_BASE_URL runs only the flows that are safe on a shared dashboard"
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not E2E_BASE_URL:
        return
    skip = pytest.mark.skip(reason=PRIVATE_REASON)
    for item in items:
        if item.get_closest_marker("private_instance"):
            item.add_marker(skip)


@dataclass
class E2EApp:
    """The dashboard the flows drive. `engine` and `data_dir` exist only for the app this suite
    started (flows marked `private_instance` use them); against E2E_BASE_URL both are None."""

    url: str
    backend_url: str
    database_url: str
    engine: Engine  # None against E2E_BASE_URL: only private_instance flows touch it
    data_dir: Path
    log_path: Path | None = None
    remote: bool = False
    log_offsets: dict[str, int] = field(default_factory=dict)

    def path(self, route: str) -> str:
        return self.url.rstrip("/") + route


START_LOCK = COMPILE_LOCK  # one start (one Reflex compile) at a time, unit suite included


def _worker_web_dir(purpose: str = "") -> Path | None:
    """With the suite split over pytest-xdist workers (`make test` runs two), the first worker builds
    the frontend in the checkout's .web/ and each other worker in a folder of its own
    (`.web-e2e-gw1`, ...), its packages hard-linked from .web/ (bun then finds them installed). The
    workers start their apps one at a time (`START_LOCK`), so .web/ is installed before it is linked.
    A second app of a worker's (`purpose`, e.g. a fresh dashboard for the first-start journey) gets
    `.web-e2e-<purpose>-gwN`."""
    web_dir = _web_dir_path(purpose)
    if web_dir is None:
        return None
    return linked_web_dir(web_dir)


def _web_dir_path(purpose: str = "") -> Path | None:
    """Where `_worker_web_dir` builds (None: the checkout's .web/), without creating or linking it."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    if worker == "gw0" and not purpose:
        return None
    return ROOT / (f".web-e2e-{purpose}-{worker}" if purpose else f".web-e2e-{worker}")


@contextlib.contextmanager
def app_database(tmp: Path) -> Iterator[str]:
    """The local app's database: an SQLite file, or (E2E_DATABASE=postgresql) a database of its own on
    the TEST_DATABASE_URL server, dropped afterwards. Migrated as `make run` migrates it."""
    if E2E_DATABASE == "postgresql":
        if not TEST_DATABASE_URL:
            raise pytest.UsageError("E2E_DATABASE=postgresql needs TEST_DATABASE_URL (a PostgreSQL server URL)")
        with postgres_database() as url:
            upgrade_database(url)
            yield url
        return
    if E2E_DATABASE != "sqlite":
        raise pytest.UsageError(f"E2E_DATABASE must be sqlite or postgresql, not {E2E_DATABASE!r}")
    url = f"sqlite:///{tmp}/e2e.db"
    upgrade_database(url)
    yield url


@pytest.fixture(scope="session")
def e2e_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[E2EApp]:
    """One app for the whole browser suite (starting it takes seconds), or the dashboard at E2E_BASE_URL."""
    if E2E_BASE_URL:
        yield E2EApp(
            url=E2E_BASE_URL,
            backend_url=E2E_BASE_URL,
            database_url="",
            engine=None,  # type: ignore[arg-type]  # only private_instance flows use it; they are skipped
            data_dir=None,  # type: ignore[arg-type]
            remote=True,
        )
        return
    tmp = tmp_path_factory.mktemp("e2e")
    with app_database(tmp) as url:
        yield from _local_app(url, tmp)


@contextlib.contextmanager
def started_app(url: str, data_dir: Path, purpose: str = "", port: int | None = None) -> Iterator[E2EApp]:
    """`reflex run --env prod` on `url` (migrated), up until the block exits. Apps start one at a time
    (`START_LOCK`); a second app of a worker's names its `purpose` (its own frontend build folder)."""
    lock = START_LOCK.open("a")
    fcntl.flock(lock, fcntl.LOCK_EX)  # one start at a time: released once this app is up (or failed)
    web_dir = _worker_web_dir(purpose)
    app = ReflexRun(database_url=url, data_dir=data_dir, web_dir=web_dir, port=port or app_port(purpose))
    engine = create_db_engine(url)
    try:
        try:
            app.start()
        finally:
            lock.close()  # closing the file releases the lock
        yield E2EApp(
            url=app.base_url,
            backend_url=app.base_url,
            database_url=url,
            engine=engine,
            data_dir=app.data_dir,
            log_path=app.log_path,
        )
    finally:
        engine.dispose()
        app.stop()


def app_port(purpose: str = "") -> int:
    """The port the frontend of this worker's app (`purpose`: `_worker_web_dir`) was last built for, when
    it is free: the launcher then serves that build instead of building again. Else any free port."""
    port = built_port(_web_dir_path(purpose) or ROOT / ".web")
    if port is not None:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                return free_port()
        return port
    return free_port()


def _local_app(url: str, tmp: Path) -> Iterator[E2EApp]:
    data_dir = tmp / "data"
    web_purpose = os.environ.get("E2E_WEB_PURPOSE", "")
    port = app_port(web_purpose)
    # The tests' own calls into the services see the settings the app runs with; bots created in the
    # browser get configs that point at the app, as they would in production.
    base_url = f"http://127.0.0.1:{port}"
    with configured(url, str(data_dir), TOPIC_DASHBOARD_PORT=str(port), TOPIC_DASHBOARD_PUBLIC_BASE_URL=base_url):
        # E2E_WEB_PURPOSE: a run inside another (test_evidence.py) builds in a folder of its own.
        with started_app(url, data_dir, purpose=web_purpose, port=port) as app:
            yield app


# Evidence of a failed flow ----------------------------------------------------------------------

BROWSER_LOG = pytest.StashKey[list[str]]()
SERVER_LOG_TAIL = 20_000  # characters of the app's log kept for one failed flow


@pytest.fixture
def new_context(new_context: CreateContextCallback, request: pytest.FixtureRequest) -> CreateContextCallback:
    """pytest-playwright's contexts (tracing and video as scripts/e2e.sh asks), each page of which
    records its console errors, uncaught errors, failed requests and HTTP errors for the report."""
    log = request.node.stash.setdefault(BROWSER_LOG, [])

    def watch(page: Page) -> None:
        def console(message: ConsoleMessage) -> None:
            if message.type in ("error", "warning"):
                log.append(f"console.{message.type}: {message.text} ({page.url})")

        def failed(request_: Request) -> None:
            log.append(f"request failed: {request_.method} {request_.url}: {request_.failure}")

        def answered(response: Response) -> None:
            if response.status >= 400:
                log.append(f"HTTP {response.status}: {response.request.method} {response.url}")

        page.on("console", console)
        page.on("pageerror", lambda error: log.append(f"uncaught error: {error} ({page.url})"))
        page.on("requestfailed", failed)
        page.on("response", answered)

    def create(**kwargs: Any) -> BrowserContext:
        context = new_context(**kwargs)
        context.on("page", watch)
        return context

    return create  # type: ignore[return-value]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    app = getattr(item, "funcargs", {}).get("e2e_app")
    if isinstance(app, E2EApp) and app.log_path is not None:
        with contextlib.suppress(OSError):
            app.log_offsets[item.nodeid] = app.log_path.stat().st_size
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    sections = []
    browser_log = item.stash.get(BROWSER_LOG, [])
    sections.append(("browser-log", "\n".join(browser_log) or "(no console errors, failed requests or HTTP errors)"))
    app = getattr(item, "funcargs", {}).get("e2e_app")
    if isinstance(app, E2EApp) and app.log_path is not None:
        sections.append(("server-log", _server_log_since(app.log_path, app.log_offsets.get(item.nodeid, 0))))
    folder = _artifacts_folder(item)
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in sections:
        (folder / f"{name}.txt").write_text(text + "\n", encoding="utf-8")
        report.sections.append((name, text))


def _server_log_since(path: Path, offset: int) -> str:
    try:
        with path.open("rb") as log:
            log.seek(offset)
            text = log.read().decode(errors="replace")
    except OSError as error:
        return f"(the app's log {path} could not be read: {error})"
    if len(text) > SERVER_LOG_TAIL:
        text = f"[the last {SERVER_LOG_TAIL} characters]\n" + text[-SERVER_LOG_TAIL:]
    return f"[{path}, from byte {offset}: what the app logged during this flow]\n" + (text or "(nothing)")


def _artifacts_folder(item: pytest.Item) -> Path:
    """The test's folder under --output, the one pytest-playwright keeps its trace and video in."""
    output = getattr(item, "funcargs", {}).get("output_path")
    if isinstance(output, str):
        return Path(output)
    name = slugify(item.nodeid)
    return Path(item.config.getoption("--output")).absolute() / (name if len(name) < 256 else name[:200])


# The flows that failed, for scripts/e2e.sh's second run with recording on (E2E_FAILED_FILE) --------

_FAILED: set[str] = set()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed and os.environ.get("E2E_FAILED_FILE"):
        _FAILED.add(report.nodeid)  # under xdist, the controller sees every worker's reports


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = os.environ.get("E2E_FAILED_FILE")
    if target and not hasattr(session.config, "workerinput"):
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        Path(target).write_text("".join(f"{nodeid}\n" for nodeid in sorted(_FAILED)), encoding="utf-8")
