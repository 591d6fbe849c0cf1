"""The real app (Reflex's ASGI app with the MCP and REST service) under uvicorn in a child process.

Unlike tests/support/server.py (in-process), this one can be killed with SIGKILL mid-request and
started again on the same database and data dir: what a crash and a restart do to stored data.
Run as a module, it is the child: `python -m tests.support.subprocess_server PORT`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.support.server import free_port

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class AppProcess:
    """One app process at a time on a fixed port, database URL and data dir."""

    database_url: str
    data_dir: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def topic_mcp_url(self) -> str:
        return self.base_url + "/api/mcp/topic"

    @property
    def log_path(self) -> Path:
        return self.data_dir.parent / f"app-{self.port}-{self.starts}.log"

    def environment(self) -> dict[str, str]:
        return {
            **os.environ,
            "TOPIC_DASHBOARD_DATABASE_URL": self.database_url,
            "TOPIC_DASHBOARD_DATA_DIR": str(self.data_dir),
            "TOPIC_DASHBOARD_PUBLIC_BASE_URL": self.base_url,
            # Reflex's disk state manager writes here, not into the checkout.
            "REFLEX_STATES_WORKDIR": str(self.data_dir.parent / "states"),
            # The frontend is not served here: skip compiling it (seconds per start, and no rewriting
            # .web/ under other tests' feet). Reflex reads its internal variables with a "__" prefix.
            "__REFLEX_SKIP_COMPILE": "1",
            "PYTHONUNBUFFERED": "1",
        }

    def spawn(self) -> None:
        """Start the child; it is up when `wait_for_health` says so."""
        assert self.process is None or self.process.poll() is not None, "the app is still running"
        self.starts += 1
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tests.support.subprocess_server", str(self.port)],
                cwd=ROOT,
                env=self.environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_for_health(self, timeout: float = 60.0) -> httpx.Response:
        """The first answer of /api/health (any status); raises when the child exits or the deadline passes."""
        deadline = time.monotonic() + timeout
        while True:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"the app exited with {self.process.returncode}:\n{self.log()}")
            try:
                return httpx.get(self.base_url + "/api/health", timeout=5)
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the app did not answer /api/health in {timeout} s:\n{self.log()}") from None
                time.sleep(0.05)

    def start(self, timeout: float = 60.0) -> None:
        """Start the child and wait until /api/health says ok."""
        self.spawn()
        response = self.wait_for_health(timeout)
        if response.status_code != 200:
            raise RuntimeError(f"/api/health answered {response.status_code}: {response.text}\n{self.log()}")

    def kill9(self) -> None:
        """SIGKILL the child: no shutdown, no flush, no lifespan exit."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def restart(self, timeout: float = 60.0) -> None:
        """kill -9 (if still running), then start again on the same database, data dir and port."""
        self.kill9()
        self.start(timeout)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill9()

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except FileNotFoundError:
            return ""


@contextmanager
def app_process(database_url: str, data_dir: Path, *, start: bool = True) -> Iterator[AppProcess]:
    """An app child process on `database_url`; stopped when the block exits."""
    app = AppProcess(database_url=database_url, data_dir=data_dir)
    try:
        if start:
            app.start()
        yield app
    finally:
        app.stop()


def _serve(port: int) -> None:
    import uvicorn
    from reflex.utils import prerequisites

    asgi = prerequisites.get_and_validate_app().app()
    uvicorn.run(asgi, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
