"""Publish -> visible in an open panel, pushed (#17), with 1 and with 3 backend workers.

Run from the repo root:  .venv/bin/python bench/live_bench.py [--publishes N] [--workers 1,3]

The stack `make run-cluster` starts (topic_dashboard/cluster.py: workers behind nginx, PostgreSQL,
Redis), on a PostgreSQL database of its own (TEST_DATABASE_URL's server, default the machine's) and a
Redis database number of its own. One Chromium panel is open on a bot through the proxy; a bot publishes
over MCP straight to each worker's port in turn (so with 3 workers two thirds of the publishes cross
workers), at random moments. Latency: from just before the call to the row in the DOM, both on this
machine's clock (a MutationObserver stamps the row's arrival with Date.now()). Baseline in the same
run: the publish call itself (MCP round trip to its answer), what the bot waits for anyway.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

os.environ.setdefault("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")

from playwright.sync_api import sync_playwright
from sqlmodel import Session

from tests.e2e.pages.topic_panel import TopicPanel
from tests.e2e.test_topic_panel_live import WATCH_FOR_TITLE
from tests.support.databases import postgres_database
from tests.support.mcp import mcp_client, result_json, run_async
from tests.support.server import free_port
from tests.support.subprocess_server import linked_web_dir
from topic_dashboard.cluster import Cluster
from topic_dashboard.db import create_db_engine
from topic_dashboard.services import accounts
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.topics import TopicSettingsUpdate, update_topic_settings

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic"]


def publish(url: str, token: str, title: str) -> None:
    async def body() -> None:
        async with mcp_client(url, token) as client:
            result = await client.call_tool(
                "topic_publish",
                {"topic_key": "inbox", "title": title, "content": "done", "message_type": "result"},
            )
            assert not result.is_error, result_json(result)

    run_async(body)


def measure(workers: int, publishes: int, proxy_port: int, web_dir: Path) -> tuple[list[float], list[float]]:
    redis_url = f"redis://127.0.0.1:6379/{os.getpid() % 15 + 1}"
    with tempfile.TemporaryDirectory(prefix="live-bench-") as tmp, postgres_database() as url:
        cluster = Cluster(
            database_url=url,
            redis_url=redis_url,
            run_dir=Path(tmp) / "run",
            proxy_port=proxy_port,
            worker_ports=[free_port() for _ in range(workers)],
            data_dir=Path(tmp) / "data",
            web_dir=web_dir,
            extra_env={"TOPIC_DASHBOARD_ALERT_CHECKS": "false"},
        )
        cluster.start()
        engine = create_db_engine(url)
        try:
            with Session(engine) as session:
                bot, bot_token = create_bot(session=session, name="live-bench")
                update_topic_settings(
                    session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=600)
                )
                accounts.create_user(session=session, username="bench", password="long enough password", role="admin")
                _, login = accounts.log_in(
                    session=session, username="bench", password="long enough password", ttl_hours=1
                )
            latencies, calls = [], []
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.goto(cluster.base_url + "/api/health")
                page.evaluate("(token) => localStorage.setItem('td_session', token)", login)
                page.goto(cluster.base_url + f"/?bot={bot.bot_id}")
                page.wait_for_selector("#stream-heading", timeout=60_000)
                time.sleep(2)  # the push loop starts with the page; measure the steady state
                for n in range(publishes):
                    title = f"result {n} of {publishes}"
                    page.evaluate(WATCH_FOR_TITLE, [TopicPanel.ITEM_LIST, title])
                    time.sleep(
                        random.uniform(0.35, 1.0)
                    )  # a random moment against the hub's interval, as results come (a burst is shown in 0.3 s steps)
                    started = time.time() * 1000
                    publish(cluster.worker_url(n % workers) + "/api/mcp/topic", bot_token, title)
                    answered = time.time() * 1000
                    page.wait_for_function("window.__seenAt > 0", timeout=10_000)
                    latencies.append(page.evaluate("window.__seenAt") - started)
                    calls.append(answered - started)
                browser.close()
            return latencies, calls
        finally:
            engine.dispose()
            cluster.stop()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--publishes", type=int, default=40)
    parser.add_argument("--workers", default="1,3")
    args = parser.parse_args()
    web_dir = linked_web_dir(ROOT / ".web-bench")  # a build of the current sources is moved here, not rebuilt
    proxy_port = free_port()
    print(f"{'workers':>7} {'publishes':>9} {'visible p50':>12} {'p95':>8} {'max':>8} {'call p50':>9} {'call p95':>9}")
    for workers in (int(w) for w in args.workers.split(",")):
        latencies, calls = measure(workers, args.publishes, proxy_port, web_dir)
        print(
            f"{workers:>7} {len(latencies):>9} {statistics.median(latencies):>10.0f}ms {pct(latencies, 0.95):>6.0f}ms"
            f" {max(latencies):>6.0f}ms {statistics.median(calls):>7.0f}ms {pct(calls, 0.95):>7.0f}ms"
        )
    print("target: publish -> visible p95 <= 300 ms with 1 and with 3 workers")


if __name__ == "__main__":
    main()
