"""#17: `reflex run --backend-only --env prod` starts (the way to run backend workers behind a proxy that
serves the built frontend). It refused before: rxconfig.py set the frontend port from the one port
setting ("Cannot specify --frontend-port when not running frontend")."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx

from tests.support.subprocess_server import AppProcess
from topic_dashboard.migrate import upgrade_database


class BackendOnly(AppProcess):
    """The backend alone as a deployment behind a proxy starts it."""

    def command(self) -> list[str]:
        reflex = str(Path(sys.executable).with_name("reflex"))
        return [reflex, "run", "--backend-only", "--env", "prod", "--backend-port", str(self.port)]

    def environment(self) -> dict[str, str]:
        return {
            **super().environment(),
            "TOPIC_DASHBOARD_PORT": str(self.port),
            "TOPIC_DASHBOARD_ALERT_CHECKS": "false",
        }


def test_the_backend_starts_alone_in_prod_mode_and_answers(tmp_path: Path) -> None:
    database_url = f"sqlite:///{tmp_path}/backend.db"
    upgrade_database(database_url)
    backend = BackendOnly(database_url=database_url, data_dir=tmp_path / "data")
    try:
        backend.start(timeout=90)  # raises with the log's tail (e.g. "Cannot specify --frontend-port")
        assert httpx.get(backend.base_url + "/api/health", timeout=5).json()["database"] == "ok"
        # The MCP endpoint is there too, behind its token check.
        assert httpx.post(backend.topic_mcp_url, json={}, timeout=5).status_code == 401
    finally:
        backend.stop()
