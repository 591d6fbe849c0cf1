"""Start-up to first answered request, `make run`'s start command (topic_dashboard/launcher.py).

Run from the repo root:  .venv/bin/python bench/startup_bench.py [--starts N]

Each start runs the launcher in a process group of its own on the same port, database and frontend
build folder (a fresh one under .web-bench/, its packages linked from .web/), and times the spawn
to the first 200 of /api/health and to the first HTML of /. The baseline, in the same run, is what
`reflex run --env prod` does on every start: compile the pages and build the frontend
(`TOPIC_DASHBOARD_REBUILD_FRONTEND=true`); then N starts with the build already on disk.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.server import free_port
from tests.support.subprocess_server import ReflexRun, linked_web_dir
from topic_dashboard.migrate import upgrade_database


def timed_start(app: ReflexRun) -> tuple[float, float]:
    """Seconds from spawn to the first healthy /api/health, and to the first served page."""
    began = time.monotonic()
    app.spawn()
    deadline = began + 300
    app.wait_until_ready("/api/health", deadline, 300, lambda answer: answer.status_code == 200)
    health = time.monotonic() - began
    app.wait_until_ready(
        "/", deadline, 300, lambda answer: answer.headers.get("content-type", "").startswith("text/html")
    )
    return health, time.monotonic() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=3, help="starts with the build on disk (default 3)")
    args = parser.parse_args()
    web_dir = ROOT / ".web-bench"
    shutil.rmtree(web_dir, ignore_errors=True)
    linked_web_dir(web_dir)
    with tempfile.TemporaryDirectory(prefix="startup-bench-") as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        upgrade_database(url)
        app = ReflexRun(database_url=url, data_dir=Path(tmp) / "data", web_dir=web_dir, port=free_port())
        rows: list[tuple[str, float, float]] = []
        try:
            os.environ["TOPIC_DASHBOARD_REBUILD_FRONTEND"] = "true"
            rows.append(("build (reflex run --env prod's every start)", *timed_start(app)))
            app.stop()
            del os.environ["TOPIC_DASHBOARD_REBUILD_FRONTEND"]
            for n in range(args.starts):
                rows.append((f"build on disk, start {n + 1}", *timed_start(app)))
                app.stop()
            app.port = free_port()  # another address: the build on disk is moved to it (relocate_build)
            rows.append(("build for another port, moved", *timed_start(app)))
            app.stop()
        finally:
            app.stop()
            shutil.rmtree(web_dir, ignore_errors=True)
    baseline = rows[0][2]
    print(f"{'start':48} {'/api/health':>12} {'page':>8} {'vs build':>9}")
    for name, health, page in rows:
        print(f"{name:48} {health:11.1f}s {page:7.1f}s {page / baseline:8.2f}x")
    reused = [page for name, _, page in rows[1:] if name.startswith("build on disk")]
    if reused:
        print(f"median start with the build on disk: {statistics.median(reused):.1f} s (target <= 10 s)")


if __name__ == "__main__":
    main()
