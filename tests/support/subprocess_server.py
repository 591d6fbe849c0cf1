"""The real app in a child process of its own process group, stopped as a group.

`AppProcess`: the backend alone (Reflex's ASGI app with the MCP and REST service) under uvicorn.
Unlike tests/support/server.py (in-process), it can be killed with SIGKILL mid-request and started
again on the same database and data dir: what a crash and a restart do to stored data.
Run as a module, it is that child: `python -m tests.support.subprocess_server PORT`.

`ReflexRun`: the whole app as `make run` starts it (`reflex run --env prod`: the frontend built and
served with the backend on one port), for the browser flows.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.support.server import free_port
from topic_dashboard.cluster import group_members
from topic_dashboard.launcher import read_stamp, reflex_versions, source_digest

ROOT = Path(__file__).resolve().parents[2]
LOG_TAIL_CHARS = 4000


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

    def command(self) -> list[str]:
        return [sys.executable, "-m", "tests.support.subprocess_server", str(self.port)]

    def environment(self) -> dict[str, str]:
        return {
            **os.environ,
            "TOPIC_DASHBOARD_DATABASE_URL": self.database_url,
            "TOPIC_DASHBOARD_DATA_DIR": str(self.data_dir),
            "TOPIC_DASHBOARD_PUBLIC_BASE_URL": self.base_url,
            # Alert thresholds are checked every 2 s (not every minute), so a browser test sees one fire.
            "TOPIC_DASHBOARD_ALERT_INTERVAL_SECONDS": os.environ.get("TOPIC_DASHBOARD_ALERT_INTERVAL_SECONDS", "2"),
            # Reflex's disk state manager writes here, not into the checkout.
            "REFLEX_STATES_WORKDIR": str(self.data_dir.parent / "states"),
            # The frontend is not served here: skip compiling it (seconds per start, and no rewriting
            # .web/ under other tests' feet). Reflex reads its internal variables with a "__" prefix.
            "__REFLEX_SKIP_COMPILE": "1",
            "PYTHONUNBUFFERED": "1",
        }

    def spawn(self) -> None:
        """Start the child in a process group of its own; it is up when `wait_for_health` says so."""
        assert self.process is None or self.process.poll() is not None, "the app is still running"
        self.starts += 1
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                self.command(),
                cwd=ROOT,
                env=self.environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_for_health(self, timeout: float = 60.0) -> httpx.Response:
        """The first answer of /api/health (any status); raises when the child exits or the deadline passes."""
        return self._wait_for_answer(self.base_url + "/api/health", time.monotonic() + timeout, timeout)

    def _wait_for_answer(self, url: str, deadline: float, timeout: float) -> httpx.Response:
        while True:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"the app exited with {self.process.returncode}:\n{self.log()}")
            try:
                return httpx.get(url, timeout=5)
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the app did not answer {url} in {timeout} s:\n{self.log()}") from None
                time.sleep(0.05)

    def start(self, timeout: float = 60.0) -> None:
        """Start the child and wait until /api/health says ok."""
        self.spawn()
        response = self.wait_for_health(timeout)
        if response.status_code != 200:
            raise RuntimeError(f"/api/health answered {response.status_code}: {response.text}\n{self.log()}")

    def kill9(self) -> None:
        """SIGKILL the child's whole process group: no shutdown, no flush, no lifespan exit."""
        if self.process is not None:
            self._end_group(signal.SIGKILL, 0)

    def restart(self, timeout: float = 60.0) -> None:
        """kill -9 (if still running), then start again on the same database, data dir and port."""
        self.kill9()
        self.start(timeout)

    def stop(self, grace: float = 15.0) -> None:
        """SIGTERM the child's process group, SIGKILL what is left after `grace` seconds.

        Raises RuntimeError when a process of the group still runs after that.
        """
        if self.process is not None:
            self._end_group(signal.SIGTERM, grace)

    def _end_group(self, sig: signal.Signals, grace: float) -> None:
        # The whole group, not just the child: `reflex run` starts bun, Vite and Granian's workers,
        # and a group member can outlive the child that started it.
        assert self.process is not None
        pgid = self.process.pid
        _signal_group(pgid, sig)
        deadline = time.monotonic() + grace
        while group_members(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
        _signal_group(pgid, signal.SIGKILL)
        self.process.wait(timeout=30)
        deadline = time.monotonic() + 10
        while left := group_members(pgid):
            if time.monotonic() > deadline:
                raise RuntimeError("still running after SIGKILL:\n" + "\n".join(left))
            time.sleep(0.05)

    def log(self, tail: int = LOG_TAIL_CHARS) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""
        return f"[the last {tail} characters of {self.log_path}]\n{text[-tail:]}" if len(text) > tail else text


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass  # nothing left in the group


@dataclass
class ReflexRun(AppProcess):
    """The project's start command (scripts/run.sh: `reflex run --env prod` through
    topic_dashboard/launcher.py, which skips the frontend build when the one in the web dir is current).

    One port serves the built frontend, Reflex's event socket, /api and MCP, exactly as for users:
    the HTML comes through HttpGuards with its Content-Security-Policy, and the page's origin is
    the Host and Origin the allow-lists check. A start compiles and builds the frontend in .web/ unless
    the build there was made from the same sources for the same port.
    """

    # Where the frontend is compiled and built: the checkout's .web/ by default; a browser suite
    # split over several pytest-xdist workers gives each worker its own (tests/e2e/conftest.py).
    web_dir: Path | None = None

    def command(self) -> list[str]:
        return [sys.executable, "-m", "topic_dashboard.launcher"]

    def environment(self) -> dict[str, str]:
        environment = super().environment()
        del environment["__REFLEX_SKIP_COMPILE"]
        if self.web_dir is not None:
            environment["REFLEX_WEB_WORKDIR"] = str(self.web_dir)
        return {**environment, "TOPIC_DASHBOARD_PORT": str(self.port)}

    def start(self, timeout: float = 180.0) -> None:
        """Start `reflex run` and wait until /api/health says ok and / answers with the app's page.

        Raises RuntimeError, with the tail of the log, when the child exits or the deadline passes.
        """
        self.spawn()
        deadline = time.monotonic() + timeout
        self.wait_until_ready("/api/health", deadline, timeout, lambda answer: answer.status_code == 200)
        self.wait_until_ready("/", deadline, timeout, is_page)

    def wait_until_ready(
        self, path: str, deadline: float, timeout: float, ready: Callable[[httpx.Response], bool]
    ) -> None:
        """Until `path` answers so that `ready` says yes (RuntimeError with the log's tail after `deadline`)."""
        while not ready(answer := self._wait_for_answer(self.base_url + path, deadline, timeout)):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{path} answered {answer.status_code}: {answer.text[:500]}\n{self.log()}")
            time.sleep(0.1)


def linked_web_dir(web_dir: Path) -> Path:
    """`web_dir` as a frontend build folder of its own whose packages are hard-linked from the
    checkout's .web/ (bun then finds them installed), once .web/ has them; and, when another build
    folder holds a build of the same sources, that build hard-linked in (`seed_build`)."""
    shared = ROOT / ".web"
    if (shared / "node_modules").is_dir() and not (web_dir / "node_modules").exists():
        web_dir.mkdir(exist_ok=True)
        subprocess.run(["cp", "-al", str(shared / "node_modules"), str(web_dir / "node_modules")], check=True)
        for name in ("package.json", "bun.lock", "bunfig.toml", "reflex.install_frontend_packages.cached"):
            if (shared / name).exists():
                shutil.copy2(shared / name, web_dir / name)
    seed_build(web_dir)
    return web_dir


def _same_sources(web_dir: Path, sources: str, reflex: dict[str, str]) -> bool:
    stamp = read_stamp(web_dir)
    built = (stamp or {}).get("fingerprint") or {}
    return (
        built.get("sources") == sources
        and built.get("reflex") == reflex
        and (web_dir / "build" / "client" / "index.html").is_file()
    )


def seed_build(web_dir: Path) -> bool:
    """Give `web_dir` a copy of another folder's build of the current sources (everything but the
    packages, which `linked_web_dir` links: Reflex's project files too, or its first start would wipe
    the folder to initialise it), so its app's start moves that build to its own address
    (topic_dashboard/launcher.py, `relocate_build`) instead of building one (35-65 s). Copied, not
    linked: a later build in either folder rewrites files in place. Nothing happens when `web_dir` has
    such a build already, or no other folder has one. True: seeded."""
    sources, reflex = source_digest(), reflex_versions()
    if _same_sources(web_dir, sources, reflex):
        return False
    for other in sorted(ROOT.glob(".web*")):
        if other.resolve() == web_dir.resolve() or not other.is_dir() or not _same_sources(other, sources, reflex):
            continue
        web_dir.mkdir(exist_ok=True)
        for entry in web_dir.iterdir():
            if entry.name != "node_modules":
                shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
        shutil.copytree(
            other, web_dir, ignore=shutil.ignore_patterns("node_modules"), dirs_exist_ok=True, symlinks=True
        )
        return True
    return False


def is_page(answer: httpx.Response) -> bool:
    return answer.status_code == 200 and answer.headers.get("content-type", "").startswith("text/html")


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
