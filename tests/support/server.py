"""The real app (Reflex backend with the MCP and REST service mounted) served over HTTP in-process."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import uvicorn

from topic_dashboard.db import dispose_engines
from topic_dashboard.settings import reset_settings_cache


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
