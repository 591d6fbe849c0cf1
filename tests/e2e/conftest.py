"""Browser flows: the real app, started as `make run` starts it, driven by Playwright in Debian's Chromium.

`e2e_app` runs the project's start command, `reflex run --env prod` (tests/support/subprocess_server.py),
in a process group of its own on a free port, with the suite's own SQLite database and data dir:
one port serves the built frontend, the event socket, /api and MCP, behind the same Host/Origin
allow-lists and Content-Security-Policy as for users. Its log goes to a file in the suite's temp
dir, shown when the start fails; the whole group (bun, Granian's workers) is stopped at the end.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from tests.support.server import configured
from tests.support.subprocess_server import ReflexRun
from topic_dashboard.db import create_db_engine
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


@dataclass
class E2EApp:
    url: str
    backend_url: str
    database_url: str
    engine: Engine
    data_dir: Path

    def path(self, route: str) -> str:
        return self.url.rstrip("/") + route


START_LOCK = ROOT / ".web-e2e.lock"


def _worker_web_dir() -> Path | None:
    """With the suite split over pytest-xdist workers (`make test` runs two), the first worker builds
    the frontend in the checkout's .web/ and each other worker in a folder of its own
    (`.web-e2e-gw1`, ...), its packages hard-linked from .web/ (bun then finds them installed). The
    workers start their apps one at a time (`START_LOCK`), so .web/ is installed before it is linked."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    if worker == "gw0":
        return None
    web_dir = ROOT / f".web-e2e-{worker}"
    shared = ROOT / ".web"
    if (shared / "node_modules").is_dir() and not (web_dir / "node_modules").exists():
        web_dir.mkdir(exist_ok=True)
        subprocess.run(["cp", "-al", str(shared / "node_modules"), str(web_dir / "node_modules")], check=True)
        for name in ("package.json", "bun.lock", "bunfig.toml", "reflex.install_frontend_packages.cached"):
            if (shared / name).exists():
                shutil.copy2(shared / name, web_dir / name)
    return web_dir


@pytest.fixture(scope="session")
def e2e_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[E2EApp]:
    """One app for the whole browser suite (starting it takes seconds): SQLite in a temp dir."""
    tmp = tmp_path_factory.mktemp("e2e")
    url = f"sqlite:///{tmp}/e2e.db"
    upgrade_database(url)
    lock = START_LOCK.open("a")
    fcntl.flock(lock, fcntl.LOCK_EX)  # one start at a time: released once this app is up (or failed)
    app = ReflexRun(database_url=url, data_dir=tmp / "data", web_dir=_worker_web_dir())
    # The tests' own calls into the services see the settings the app runs with; bots created in the
    # browser get configs that point at the app, as they would in production.
    with configured(
        url, str(app.data_dir), TOPIC_DASHBOARD_PORT=str(app.port), TOPIC_DASHBOARD_PUBLIC_BASE_URL=app.base_url
    ):
        engine = create_db_engine(url)
        try:
            try:
                app.start()
            finally:
                lock.close()  # closing the file releases the lock
            yield E2EApp(
                url=app.base_url, backend_url=app.base_url, database_url=url, engine=engine, data_dir=app.data_dir
            )
        finally:
            engine.dispose()
            app.stop()
