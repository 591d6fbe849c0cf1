"""#17's scale-out, tested as `make run-cluster` runs it: two backend workers (Reflex's Redis state
manager, one Granian process each) behind Debian's nginx, on a PostgreSQL database of this run's own and
a Redis database number of its own (topic_dashboard/cluster.py).

- A browser on the proxy sees live what a bot publishes through *either* worker directly: its event
  socket is held by one of them, so one of the two publishes crossed workers (the proxy's log names
  the worker that held it).
- Deduplication, the rate limit and the Topic Enabled switch hold across workers (they live in the
  database, under the bot's row lock).
- Every page, `/api/*` and `/api/mcp/*` answer through the proxy; the frontend's fingerprinted files come
  from nginx itself (no worker named in its log for them).

Needs PostgreSQL (TEST_DATABASE_URL) and Redis (TEST_REDIS_URL, default redis://127.0.0.1:6379): CI has
both; without them the flows are skipped with the reason.
"""

from __future__ import annotations

import dataclasses
import fcntl
import os
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import redis
from playwright.sync_api import Page, expect
from sqlmodel import Session, select

from tests.e2e.conftest import START_LOCK, E2EApp, _worker_web_dir, app_port, screenshot_path
from tests.e2e.topic_panel_support import ADMIN, log_in, make_bot, mcp_publish, open_panel
from tests.support.databases import TEST_DATABASE_URL, postgres_database
from tests.support.server import free_port
from topic_dashboard.cluster import Cluster
from topic_dashboard.db import create_db_engine
from topic_dashboard.models import TopicItem
from topic_dashboard.services.topics import TopicSettingsUpdate, update_topic_settings

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance, pytest.mark.xdist_group("cluster")]  # one cluster per run

LIVE_MS = 10_000
TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379")


def _redis_url() -> str:
    """A Redis database number of this run's own (1-15 by process id; Reflex's keys are random tokens,
    so two runs that meet on one number still never read each other's state)."""
    base = TEST_REDIS_URL.rstrip("/")
    try:
        redis.Redis.from_url(base, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        pytest.skip(f"the cluster needs Redis at {base}: {error}")
    return f"{base}/{os.getpid() % 15 + 1}"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    if not TEST_DATABASE_URL:
        pytest.skip("the cluster needs PostgreSQL: set TEST_DATABASE_URL (CI does)")
    redis_url = _redis_url()
    tmp = tmp_path_factory.mktemp("cluster")
    with postgres_database() as database_url:
        lock = START_LOCK.open("a")
        fcntl.flock(lock, fcntl.LOCK_EX)  # one frontend build at a time on this machine's two cores
        try:
            web_dir = _worker_web_dir("cluster")
            cluster = Cluster(
                database_url=database_url,
                redis_url=redis_url,
                run_dir=tmp / "run",
                proxy_port=app_port("cluster"),  # the port its build was made for, when free: no rebuild
                worker_ports=[free_port(), free_port()],
                data_dir=tmp / "data",
                web_dir=web_dir or Path(".web").resolve(),
                extra_env={"TOPIC_DASHBOARD_ALERT_CHECKS": "false"},
            )
            cluster.start()
        finally:
            lock.close()
        try:
            yield cluster
        finally:
            cluster.stop()


@pytest.fixture(scope="module")
def app(cluster: Cluster) -> Iterator[E2EApp]:
    """The cluster as the flows' helpers see an app: pages through the proxy, MCP calls to worker 0
    unless a flow names another (`_through`)."""
    engine = create_db_engine(cluster.database_url)
    try:
        yield E2EApp(
            url=cluster.base_url,
            backend_url=cluster.worker_url(0),
            database_url=cluster.database_url,
            engine=engine,
            data_dir=cluster.data_dir,
        )
    finally:
        engine.dispose()


def _through(app: E2EApp, cluster: Cluster, worker: int) -> E2EApp:
    return dataclasses.replace(app, backend_url=cluster.worker_url(worker))


def _stored(app: E2EApp, bot_id: str) -> list[TopicItem]:
    with Session(app.engine) as session:
        return list(session.exec(select(TopicItem).where(TopicItem.bot_id == bot_id)))


def _socket_workers(cluster: Cluster) -> set[str]:
    """The workers nginx handed the pages' event sockets to (logged when a socket closes)."""
    log = (cluster.run_dir / "nginx-access.log").read_text(errors="replace")
    return set(re.findall(r'"GET /_event[^"]*" 101 upstream=(\S+)', log))


def test_a_publish_through_either_worker_appears_live_in_a_panel_on_the_proxy(
    page: Page, cluster: Cluster, app: E2EApp
) -> None:
    bot_id, token = make_bot(app, "builds")
    log_in(page, app, ADMIN)
    panel = open_panel(page, app, bot_id)

    published = []
    for worker in (0, 1, 0, 1):
        is_error, body = mcp_publish(
            _through(app, cluster, worker),
            token,
            topic_key="builds",
            title=f"Build {len(published) + 1} passed (through worker {worker})",
            content="all green",
            message_type="result",
        )
        assert not is_error, body
        published.append(body["item_id"])
        expect(panel.row(body["item_id"])).to_be_visible(timeout=LIVE_MS)
    expect(panel.rows()).to_have_count(4)
    assert panel.row_title().all_inner_texts() == [
        f"Build {n} passed (through worker {w})" for n, w in ((4, 1), (3, 0), (2, 1), (1, 0))
    ]
    assert sorted(published) == sorted(item.id for item in _stored(app, bot_id))
    page.screenshot(path=str(screenshot_path("cluster-panel.png")))

    # An action in the page (open, so read) goes through the socket's worker and is stored once.
    panel.row(published[0]).click()
    expect(panel.detail_title()).to_have_text("Build 1 passed (through worker 0)")

    page.close()  # nginx logs a websocket when it closes
    workers = {f"127.0.0.1:{port}" for port in cluster.worker_ports}
    deadline = time.monotonic() + 10
    while not (held := _socket_workers(cluster)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert held and held <= workers, (held, workers)
    # The socket was on one worker; the other worker's publishes reached it all the same.


def test_the_same_dedupe_key_through_both_workers_at_once_stores_one_item(cluster: Cluster, app: E2EApp) -> None:
    bot_id, token = make_bot(app, "alerts")

    def publish(n: int) -> dict[str, object]:
        is_error, body = mcp_publish(
            _through(app, cluster, n % 2),
            token,
            topic_key="alerts",
            title="Disk 91% on db-1",
            content=f"attempt {n}",
            dedupe_key="disk-db-1",
            message_type="result",
        )
        assert not is_error, body
        return body

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(publish, range(8)))
    assert len(_stored(app, bot_id)) == 1
    assert sorted(bool(answer["deduplicated"]) for answer in answers) == [False] + [True] * 7
    assert len({answer["item_id"] for answer in answers}) == 1


def test_the_rate_limit_counts_publishes_through_every_worker(cluster: Cluster, app: E2EApp) -> None:
    bot_id, token = make_bot(app, "reports", rate_per_minute=4)
    outcomes = []
    for n in range(8):
        is_error, body = mcp_publish(
            _through(app, cluster, n % 2),
            token,
            topic_key="reports",
            title=f"Report {n}",
            content="done",
            message_type="result",
        )
        outcomes.append("error" if is_error else "stored")
        if is_error:
            assert body["error"]["code"] == "rate_limited", body
    assert outcomes == ["stored"] * 4 + ["error"] * 4
    assert len(_stored(app, bot_id)) == 4


def test_the_switch_turned_off_through_one_worker_refuses_publishing_on_the_other(
    cluster: Cluster, app: E2EApp
) -> None:
    bot_id, token = make_bot(app, "reports")
    admin_token = _admin_api_token(app)
    answer = httpx.put(
        cluster.worker_url(0) + f"/api/bots/{bot_id}/topic-settings",
        json={"topic_enabled": False},
        headers={"Authorization": f"Bearer {admin_token}"},
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    for worker in (1, 0):
        is_error, body = mcp_publish(
            _through(app, cluster, worker),
            token,
            topic_key="reports",
            title="Report",
            content="x",
            message_type="result",
        )
        assert is_error and body["error"]["code"] == "topic_disabled", body
    with Session(app.engine) as session:
        update_topic_settings(session=session, bot_id=bot_id, update=TopicSettingsUpdate(topic_enabled=True))
    is_error, body = mcp_publish(
        _through(app, cluster, 1), token, topic_key="reports", title="Report", content="x", message_type="result"
    )
    assert not is_error, body


def test_pages_api_and_mcp_answer_through_the_proxy_and_nginx_serves_the_built_files(cluster: Cluster) -> None:
    with httpx.Client(base_url=cluster.base_url, timeout=10, follow_redirects=True) as client:
        page = client.get("/login")
        assert page.status_code == 200 and "Content-Security-Policy" in page.headers
        health = client.get("/api/health").json()
        assert health["database"] == "ok"
        assert client.post("/api/mcp/topic", json={}).status_code == 401  # the bot-token gate, on a worker
        asset = re.search(r'(/assets/[^"\']+\.js)', page.text)
        assert asset, "the page names no built script"
        script = client.get(asset.group(1))
        assert script.status_code == 200
        assert "immutable" in script.headers.get("cache-control", "")
    # From disk, not a worker: only the /assets/ location's disk path adds "immutable" (above), and nginx
    # logs no upstream for it (the log line may lag the answer a moment).
    deadline = time.monotonic() + 5
    while True:
        log = (cluster.run_dir / "nginx-access.log").read_text(errors="replace")
        served = [line for line in log.splitlines() if asset.group(1) in line]
        if served or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert served and all("upstream=-" in line for line in served), (asset.group(1), served, log[-2000:])


def _admin_api_token(app: E2EApp) -> str:
    from topic_dashboard.services import accounts

    with Session(app.engine) as session:
        return accounts.create_api_token(session=session, name=f"cluster-{os.getpid()}", role="admin")
