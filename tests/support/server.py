"""The real app (Reflex backend with the MCP and REST service mounted) served over HTTP in-process."""

from __future__ import annotations

import fcntl
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from topic_dashboard.db import dispose_engines
from topic_dashboard.settings import reset_settings_cache

# One Reflex compile at a time on this checkout: each writes reflex.lock/package.json and .web, and a second
# worker that read the file while the first rewrote it found it empty and failed to set up (session 45; the
# browser flows' apps take the same lock to start: tests/e2e/conftest.py START_LOCK).
COMPILE_LOCK = Path(__file__).resolve().parents[2] / ".web-e2e.lock"


@dataclass
class LiveServer:
    base_url: str
    database_url: str

    @property
    def topic_mcp_url(self) -> str:
        return self.base_url + "/api/mcp/topic"

    @property
    def ccweb_mcp_url(self) -> str:
        return self.base_url + "/api/mcp/ccweb"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def configured(database_url: str, data_dir: str, **extra: str) -> Iterator[None]:
    """Point the settings at a database for the duration of the block."""
    keys = {"TOPIC_DASHBOARD_DATABASE_URL": database_url, "TOPIC_DASHBOARD_DATA_DIR": data_dir, **extra}
    saved = {key: os.environ.get(key) for key in keys}
    os.environ.update(keys)
    reset_settings_cache()
    dispose_engines()
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        reset_settings_cache()
        dispose_engines()


@contextmanager
def serve_app() -> Iterator[str]:
    """Serve the app's backend (Reflex + MCP + REST) on a free port until the block exits.

    One server per test run: the Reflex app is a process-wide singleton bound to the event
    loop it first ran on. Which database it uses follows the settings (see `configured`).
    """
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    os.environ["TOPIC_DASHBOARD_PUBLIC_BASE_URL"] = base_url
    reset_settings_cache()
    from reflex.utils import prerequisites

    with COMPILE_LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        asgi = prerequisites.get_and_validate_app().app()
    server = uvicorn.Server(uvicorn.Config(asgi, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the app did not start")
        time.sleep(0.02)
    try:
        yield base_url
    finally:
        server.should_exit = True
        thread.join(timeout=15)
