"""Browser flows: the real app through Reflex's AppHarness, driven by Playwright in Debian's Chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from reflex.testing import AppHarness
from sqlalchemy.engine import Engine

from tests.support.server import configured, free_port
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


@pytest.fixture(scope="session")
def e2e_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[E2EApp]:
    """One app for the whole browser suite (starting it takes seconds): SQLite in a temp dir."""
    tmp = tmp_path_factory.mktemp("e2e")
    url = f"sqlite:///{tmp}/e2e.db"
    upgrade_database(url)
    backend_port = free_port()
    backend_url = f"http://127.0.0.1:{backend_port}"
    # Bots created in the browser get configs that point at this backend, as they would in production.
    with configured(
        url, str(tmp / "data"), TOPIC_DASHBOARD_PORT=str(free_port()), TOPIC_DASHBOARD_PUBLIC_BASE_URL=backend_url
    ):
        harness = AppHarness.create(root=ROOT, app_name="topic_dashboard")
        harness._initialize_app()
        harness._start_backend(port=backend_port)
        harness._start_frontend()
        harness._wait_frontend()
        engine = create_db_engine(url)
        try:
            assert harness.frontend_url
            yield E2EApp(
                url=harness.frontend_url,
                backend_url=backend_url,
                database_url=url,
                engine=engine,
                data_dir=tmp / "data",
            )
        finally:
            engine.dispose()
            harness.stop()
