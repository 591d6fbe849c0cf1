"""Backend memory under use (#17 target 5: RSS growth <= 20 MB over 20,000 publishes and 2,000 panel
loads, after warm-up).

Run from the repo root:  .venv/bin/python bench/memory_bench.py [--publishes N] [--loads N] [--database-url URL]

The backend (Reflex's ASGI app with the MCP and REST service) in a process of its own under uvicorn
(tests/support/subprocess_server.py), on a fresh database (SQLite by default). A bot publishes over
MCP HTTP (JSON-RPC `tools/call`, as nanobot does) and 20 browser tabs (Reflex event sockets, signed
in) load the Topic panel in turn, 100 loads each by default: what an always-open dashboard sees in a
busy day. RSS is read from /proc. Baseline, in the same run: the RSS after a warm-up of the same mix
(a tenth of each); growth is measured from it, at every tenth of the run, so a leak shows as a slope.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx
from sqlmodel import Session

from tests.support.subprocess_server import AppProcess
from tests.support.ui_socket import UiSocket
from topic_dashboard.auth.state import AuthState
from topic_dashboard.db import create_db_engine
from topic_dashboard.migrate import upgrade_database
from topic_dashboard.services import accounts
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.topics import TopicCreate, TopicSettingsUpdate, create_topic, update_topic_settings
from topic_dashboard.topic_panel.state import TopicPanelState

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
TABS = 20
PASSWORD = "long enough password"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def arrange(url: str) -> tuple[str, str]:
    engine = create_db_engine(url)
    with Session(engine) as session:
        bot, token = create_bot(session=session, name="memory-bench", write_config=False)
        for key in ("builds", "alerts", "reports"):
            create_topic(session=session, bot_id=bot.bot_id, actor="bench", data=TopicCreate(topic_key=key, name=key))
        update_topic_settings(
            session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=10_000)
        )
        accounts.create_user(session=session, username="bench", password=PASSWORD, role="admin")
        _, login = accounts.log_in(session=session, username="bench", password=PASSWORD, ttl_hours=12)
    engine.dispose()
    return token, login


class Load:
    def __init__(self, app: AppProcess, token: str, login: str) -> None:
        self.client = httpx.Client(timeout=30, headers={**HEADERS, "Authorization": f"Bearer {token}"})
        self.url = app.topic_mcp_url
        self.base_url = app.base_url
        self.login = login
        self.sent = 0
        self.tabs: list[UiSocket] = []

    def publish(self, count: int) -> None:
        for _ in range(count):
            self.sent += 1
            n = self.sent
            arguments = {
                "topic_key": ("builds", "alerts", "reports")[n % 3],
                "title": f"Build {n} finished",
                "content": f"## Result {n}\n\n- tests: {n % 500} passed\n- duration: {n % 90} s\n" + "detail " * 40,
                "level": ("info", "success", "warn", "error")[n % 4],
                "tags": [f"run-{n % 50}", "ci"],
                "message_type": "result",
            }
            body = {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": "topic_publish", "arguments": arguments},
            }
            answer = self.client.post(self.url, content=json.dumps(body))
            assert answer.status_code == 200 and '"isError":false' in answer.text.replace(" ", ""), answer.text[:300]

    def load_panels(self, count: int) -> None:
        if not self.tabs:
            for _ in range(TABS):
                tab = UiSocket(self.base_url)
                tab.connect()
                key = f"{AuthState.get_full_name()}.session_token"
                tab.send(
                    "reflex___state____state.reflex___state____update_vars_internal_state.update_vars_internal",
                    {"vars": {key: self.login}},
                )
                self.tabs.append(tab)
        for n in range(count):
            tab = self.tabs[n % TABS]
            tab.send(f"{TopicPanelState.get_full_name()}.load_page")
            if n % TABS == TABS - 1:
                for each in self.tabs:
                    each.sync(timeout=60)
                    each.updates.clear()  # this client's memory, not the server's

    def close(self) -> None:
        for tab in self.tabs:
            tab.close()
        self.client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--publishes", type=int, default=20_000)
    parser.add_argument("--loads", type=int, default=2_000)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memory-bench-") as tmp:
        url = args.database_url or f"sqlite:///{tmp}/bench.db"
        upgrade_database(url)
        token, login = arrange(url)
        app = AppProcess(database_url=url, data_dir=Path(tmp) / "data")
        os.environ["TOPIC_DASHBOARD_ALERT_CHECKS"] = "false"
        app.start(timeout=120)
        load = Load(app, token, login)
        try:
            assert app.process is not None
            pid = app.process.pid
            started = time.monotonic()
            load.publish(args.publishes // 10)
            load.load_panels(args.loads // 10)
            baseline = rss_mb(pid)
            print(
                f"after warm-up ({args.publishes // 10} publishes, {args.loads // 10} panel loads): RSS {baseline:.1f} MB"
            )
            print(f"{'publishes':>10} {'panel loads':>12} {'RSS MB':>8} {'growth MB':>10}")
            for step in range(1, 11):
                load.publish(args.publishes // 10)
                load.load_panels(args.loads // 10)
                now = rss_mb(pid)
                print(
                    f"{step * args.publishes // 10:>10} {step * args.loads // 10:>12} {now:>8.1f} {now - baseline:>10.1f}"
                )
            growth = rss_mb(pid) - baseline
            print(
                f"growth over {args.publishes} publishes and {args.loads} panel loads: {growth:.1f} MB "
                f"({growth / baseline:+.1%} of the warmed-up RSS; target <= 20 MB); {time.monotonic() - started:.0f} s"
            )
        finally:
            load.close()
            app.stop()


if __name__ == "__main__":
    main()
