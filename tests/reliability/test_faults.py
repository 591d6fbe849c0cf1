"""Faults against a real app process, on SQLite and (with TEST_DATABASE_URL) PostgreSQL.

- kill -9 in the middle of a storm of concurrent topic_publish calls, then a restart on the same
  database: every acknowledged item is stored exactly once and every stored item has its audit row;
- 8 concurrent publishers × 500 publishes on SQLite while the app serves MCP publishes too:
  no "database is locked", no 5xx;
- 50 simultaneous duplicates store one item; the per-minute rate limit is exact under 50-way concurrency;
- a wrong database URL or an unusable data dir at start: one clear message, no traceback, and a
  failing /api/health instead of a stack trace.

The app runs in a child process (tests/support/subprocess_server.py) so that it can be killed for real.
Every wait is for a condition with a deadline.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
import sqlalchemy as sa
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from tests.support.databases import backends, migrated_database
from tests.support.mcp import mcp_client, result_json, run_async
from tests.support.subprocess_server import ROOT, AppProcess, app_process
from topic_dashboard.db import create_db_engine, write_session
from topic_dashboard.models import AuditLog, TopicItem
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import (
    MAX_PUBLISH_RATE,
    TopicCreate,
    TopicSettingsUpdate,
    create_topic,
    update_topic_settings,
)

STORM_CALLS = 500
STORM_CONNECTIONS = 16
KILL_AFTER_ACKNOWLEDGED = 150
PUBLISHERS, PUBLISHES_EACH, WRITER_PROCESSES = 8, 500, 2
SERVED_EVERY = 0.2
CLI = str(Path(sys.executable).with_name("topic-dashboard"))
SECRET = "s3cret-pw"
WRONG_URLS = {
    "nothing listens": f"postgresql://td:{SECRET}@127.0.0.1:9/topics",
    "unknown scheme": f"mysqlx://td:{SECRET}@db.invalid/topics",
    "not a URL": f"td:{SECRET} at the usual place",
}


@pytest.fixture(scope="module", params=backends())
def app(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppProcess]:
    """One app process per backend for the module, on a fresh database; the storm kills and restarts it."""
    tmp = tmp_path_factory.mktemp(f"faults-{request.param}")
    with migrated_database(request.param, str(tmp)) as url, app_process(url, tmp / "data") as process:
        yield process


@pytest.fixture(scope="module")
def store(app: AppProcess) -> Iterator[Engine]:
    """An engine on the app's database, for arranging and checking rows from the test process."""
    engine = create_db_engine(app.database_url)
    yield engine
    engine.dispose()


def _bot(store: Engine, name: str, rate: int = MAX_PUBLISH_RATE) -> tuple[str, str]:
    """A bot with a `ci` topic and its per-minute rate limit set through the settings service."""
    with write_session(store) as session:
        bot, token = create_bot(session=session, name=name, write_config=False)
        create_topic(session=session, bot_id=bot.bot_id, actor="test", data=TopicCreate(topic_key="ci", name="CI"))
        update_topic_settings(
            session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=rate)
        )
    return bot.bot_id, token


def _item(n: int, prefix: str) -> dict[str, Any]:
    return {
        "title": f"{prefix} {n}",
        "content": f"Result {n} of the {prefix}.",
        "topic_key": "ci",
        "dedupe_key": f"{prefix}-{n}",
    }


def _read(store: Engine, query: Any) -> list[Any]:
    with Session(store.execution_options(sqlite_begin="DEFERRED")) as session:
        return list(session.exec(query))


@contextmanager
def _client_pool(
    url: str, token: str, connections: int
) -> Iterator[Callable[[Callable[[Client], Awaitable[Any]]], Any]]:
    """Run an async body with one real MCP client whose HTTP pool holds at most `connections` connections."""

    def run(body: Callable[[Client], Awaitable[Any]]) -> Any:
        async def main() -> Any:
            limits = httpx2.Limits(max_connections=connections, max_keepalive_connections=connections)
            async with (
                httpx2.AsyncClient(headers={"x-topic-mcp-token": token}, timeout=30, limits=limits) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                return await body(client)

        return run_async(main)

    yield run


# --- kill -9 in a storm ---------------------------------------------------------------------------


def test_kill_9_mid_storm_keeps_every_acknowledged_item_once_and_every_item_audited(
    app: AppProcess, store: Engine
) -> None:
    bot_id, token = _bot(store, "storm")
    acknowledged: dict[int, int] = {}
    in_flight: set[int] = set()  # sent, not answered: the kill decides whether each one was stored
    refused: list[dict[str, Any]] = []
    started = time.monotonic()

    async def storm() -> None:
        killed = anyio.Event()
        pending = iter(range(STORM_CALLS))

        async def publisher() -> None:
            try:
                async with mcp_client(app.topic_mcp_url, token) as client:
                    for n in pending:
                        in_flight.add(n)
                        result = await client.call_tool("topic_publish", _item(n, "storm"))
                        in_flight.discard(n)
                        body = result_json(result)
                        if result.is_error:
                            refused.append(body)
                            continue
                        acknowledged[n] = body["item_id"]
                        if len(acknowledged) >= KILL_AFTER_ACKNOWLEDGED:
                            killed.set()
            except Exception:  # the process died under this connection: its call in flight is not acknowledged
                return

        async def kill_when_due() -> None:
            await killed.wait()
            app.kill9()  # blocking on purpose: no answer is read between the decision and the kill

        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                group.start_soon(kill_when_due)
                for _ in range(STORM_CONNECTIONS):
                    group.start_soon(publisher)

    run_async(storm)
    storm_seconds = time.monotonic() - started
    assert refused == []
    assert KILL_AFTER_ACKNOWLEDGED <= len(acknowledged) < STORM_CALLS  # the kill landed mid-storm

    app.restart()
    restarted = time.monotonic()

    items = _read(store, select(TopicItem.id, TopicItem.title).where(TopicItem.bot_id == bot_id))
    titles = Counter(title for _, title in items)
    assert [title for title, count in titles.items() if count > 1] == []  # nothing stored twice
    stored = {title: item_id for item_id, title in items}
    assert {n: stored.get(f"storm {n}") for n in acknowledged} == acknowledged  # nothing acknowledged lost
    audited = Counter(
        _read(
            store,
            select(AuditLog.item_id).where(
                AuditLog.bot_id == bot_id, AuditLog.tool == "topic_publish", AuditLog.outcome == "ok"
            ),
        )
    )
    assert audited == Counter(
        item_id for item_id, _ in items
    )  # each item its one audit row, and no row without its item

    # A bot retries what it got no answer for, with the same dedupe keys: each is then stored exactly once,
    # and the retry of one stored before the kill is answered as a duplicate of that item.
    async def retry(client: Client) -> dict[int, dict[str, Any]]:
        answers: dict[int, dict[str, Any]] = {}

        async def one(n: int) -> None:
            answers[n] = result_json(await client.call_tool("topic_publish", _item(n, "storm")))

        async with anyio.create_task_group() as group:
            for n in in_flight:
                group.start_soon(one, n)
        return answers

    with _client_pool(app.topic_mcp_url, token, STORM_CONNECTIONS) as run:
        answers = run(retry)
    stored_unanswered = {n for n in in_flight if f"storm {n}" in stored}
    assert all(answer["ok"] for answer in answers.values())
    assert {n for n, answer in answers.items() if answer["deduplicated"]} == stored_unanswered
    assert all(answers[n]["item_id"] == stored[f"storm {n}"] for n in stored_unanswered)
    titles = Counter(
        title for _, title in _read(store, select(TopicItem.id, TopicItem.title).where(TopicItem.bot_id == bot_id))
    )
    assert titles == Counter(f"storm {n}" for n in [*acknowledged, *in_flight])
    print(
        f"\nstorm: kill -9 after {len(acknowledged)} acknowledged of {STORM_CALLS} ({storm_seconds:.1f} s), "
        f"{len(in_flight)} in flight of which {len(stored_unanswered)} stored; "
        f"restart {restarted - started - storm_seconds:.1f} s; "
        f"{len(items)} items, each once and audited"
    )


# --- concurrent writers -----------------------------------------------------------------------------


def _publish_from_threads(database_url: str, bot_ids: list[str], each: int) -> list[str]:
    """One worker process's publishers: a thread per bot, each with its own connections; the errors they met."""
    errors: list[str] = []

    def publisher(bot_id: str) -> None:
        engine = create_db_engine(database_url)
        try:
            for n in range(each):
                try:
                    with write_session(engine) as session:
                        publish_item(session=session, bot_id=bot_id, request=PublishRequest(**_item(n, "load")))
                except Exception as exc:  # counted and reported by the test
                    errors.append(f"{type(exc).__name__} at {time.strftime('%X')} on publish {n}: {str(exc)[:300]}")
        finally:
            engine.dispose()

    threads = [threading.Thread(target=publisher, args=(bot_id,)) for bot_id in bot_ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_8_publishers_x_500_on_sqlite_while_serving_mcp_never_lock_or_fail(app: AppProcess, store: Engine) -> None:
    """8 publishers in 2 more processes (4 threads each, own connections), as other workers would write,
    while the app serves MCP publishes on the same SQLite file."""
    if store.dialect.name != "sqlite":
        pytest.skip("the lock this guards against is SQLite's single writer")
    bot_ids = [_bot(store, f"publisher-{p}")[0] for p in range(PUBLISHERS)]
    served_bot, served_token = _bot(store, "served")
    started = time.monotonic()

    async def serve_alongside(client: Client, futures: list[Future[list[str]]]) -> Counter[str]:
        outcomes: Counter[str] = Counter()
        n = 0
        while not all(future.done() for future in futures):
            result = await client.call_tool("topic_publish", _item(n, "served"))
            outcomes["ok" if not result.is_error else result_json(result)["error"]["code"]] += 1
            n += 1
            # Steady traffic, not a second storm: until the publishers are done, at most every SERVED_EVERY s.
            await anyio.to_thread.run_sync(lambda: wait(futures, timeout=SERVED_EVERY))
        return outcomes

    with ProcessPoolExecutor(max_workers=WRITER_PROCESSES, mp_context=multiprocessing.get_context("spawn")) as pool:
        share = PUBLISHERS // WRITER_PROCESSES
        futures = [
            pool.submit(_publish_from_threads, app.database_url, bot_ids[i * share : (i + 1) * share], PUBLISHES_EACH)
            for i in range(WRITER_PROCESSES)
        ]
        with _client_pool(app.topic_mcp_url, served_token, 1) as run:
            served = run(lambda client: serve_alongside(client, futures))
        errors = [error for future in futures for error in future.result(timeout=300)]
    seconds = time.monotonic() - started

    locked = [error for error in errors if "database is locked" in error]
    assert (len(locked), errors[:3]) == (0, [])
    counts = dict(_read(store, select(TopicItem.bot_id, sa.func.count()).group_by(TopicItem.bot_id)))
    assert [counts.get(bot_id) for bot_id in bot_ids] == [PUBLISHES_EACH] * PUBLISHERS
    assert set(served) == {"ok"} and counts[served_bot] == served["ok"]  # no 5xx, no internal_error, nothing lost
    assert httpx.get(app.base_url + "/api/health", timeout=10).status_code == 200
    print(
        f"\nwriters: {PUBLISHERS} x {PUBLISHES_EACH} service publishes + {served['ok']} over MCP in {seconds:.1f} s: "
        f"0 database is locked, 0 errors"
    )


# --- duplicates and the rate limit under concurrency -------------------------------------------------


def _concurrently(app: AppProcess, token: str, arguments: list[dict[str, Any]]) -> list[tuple[bool, dict[str, Any]]]:
    """Send all calls at once, each on its own connection; answers as (isError, JSON)."""

    async def body(client: Client) -> list[tuple[bool, dict[str, Any]]]:
        answers: list[tuple[bool, dict[str, Any]]] = []

        async def one(args: dict[str, Any]) -> None:
            result = await client.call_tool("topic_publish", args)
            answers.append((bool(result.is_error), result_json(result)))

        async with anyio.create_task_group() as group:
            for args in arguments:
                group.start_soon(one, args)
        return answers

    with _client_pool(app.topic_mcp_url, token, len(arguments)) as run:
        return run(body)  # type: ignore[no-any-return]


def test_50_simultaneous_duplicates_store_one_item(app: AppProcess, store: Engine) -> None:
    bot_id, token = _bot(store, "duplicates")
    answers = _concurrently(app, token, [_item(42, "duplicate")] * 50)
    [item_id] = _read(store, select(TopicItem.id).where(TopicItem.bot_id == bot_id))
    assert [is_error for is_error, _ in answers] == [False] * 50
    assert {body["item_id"] for _, body in answers} == {item_id}
    assert sorted(body["deduplicated"] for _, body in answers) == [False] + [True] * 49
    calls = select(AuditLog.outcome).where(AuditLog.bot_id == bot_id, AuditLog.actor_kind == "bot")
    outcomes = Counter(_read(store, calls))
    assert outcomes == {"ok": 1, "deduplicated": 49}


def test_the_per_minute_rate_limit_is_exact_under_50_way_concurrency(app: AppProcess, store: Engine) -> None:
    bot_id, token = _bot(store, "rate", rate=20)
    answers = _concurrently(app, token, [_item(n, "rate") for n in range(50)])
    accepted = [body for is_error, body in answers if not is_error]
    refused = [body["error"] for is_error, body in answers if is_error]
    assert len(accepted) == 20 and len(refused) == 30
    assert {error["code"] for error in refused} == {"rate_limited"}
    assert all(error["retry_after_seconds"] >= 1 for error in refused)
    assert len(_read(store, select(TopicItem.id).where(TopicItem.bot_id == bot_id))) == 20


# --- start-up with a wrong database URL or an unusable data dir -------------------------------------


def _upgrade(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "TOPIC_DASHBOARD_DATA_DIR": str(tmp_path / "data"), **env}
    return subprocess.run(
        [CLI, "db", "upgrade"], check=False, capture_output=True, text=True, env=environment, timeout=60, cwd=ROOT
    )


def _assert_one_clear_message(run: subprocess.CompletedProcess[str], *expected: str) -> None:
    output = run.stdout + run.stderr
    assert run.returncode != 0, output
    assert "Traceback" not in output and SECRET not in output, output
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    for text in expected:
        assert text in run.stderr, run.stderr


@pytest.mark.parametrize("case", list(WRONG_URLS))
def test_db_upgrade_with_a_wrong_database_url_prints_one_clear_message(tmp_path: Path, case: str) -> None:
    run = _upgrade(tmp_path, TOPIC_DASHBOARD_DATABASE_URL=WRONG_URLS[case])
    _assert_one_clear_message(run, "database_unavailable", "TOPIC_DASHBOARD_DATABASE_URL")
    if case == "nothing listens":
        assert "127.0.0.1:9/topics" in run.stderr  # which database, its password masked


@contextmanager
def _read_only_dir(path: Path) -> Iterator[None]:
    """A directory nobody can write to, not even root (root ignores the mode bits: the immutable flag)."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(path)], check=False, capture_output=True).returncode != 0:
            pytest.skip("needs chattr +i to make a directory read-only for root")
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
    else:
        path.chmod(0o555)
        try:
            yield
        finally:
            path.chmod(0o755)


def test_db_upgrade_with_a_read_only_or_impossible_data_dir_prints_one_clear_message(tmp_path: Path) -> None:
    with _read_only_dir(tmp_path / "data"):
        run = _upgrade(tmp_path)
    _assert_one_clear_message(run, "data_dir_unavailable", str(tmp_path / "data"), "TOPIC_DASHBOARD_DATA_DIR")

    (tmp_path / "file").write_text("a file where the data dir's parent should be")
    run = _upgrade(tmp_path, TOPIC_DASHBOARD_DATA_DIR=str(tmp_path / "file" / "data"))
    _assert_one_clear_message(run, "data_dir_unavailable", str(tmp_path / "file" / "data"))


def test_run_script_stops_with_the_message_before_starting_the_app(tmp_path: Path) -> None:
    environment = {
        **os.environ,
        "TOPIC_DASHBOARD_DATA_DIR": str(tmp_path / "data"),
        "TOPIC_DASHBOARD_DATABASE_URL": WRONG_URLS["nothing listens"],
    }
    # Its own process group: if the script got as far as starting the app, the whole group is killed.
    script = subprocess.Popen(
        ["bash", "scripts/run.sh"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        cwd=ROOT,
        start_new_session=True,
    )
    try:
        stdout, stderr = script.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(script.pid, signal.SIGKILL)
        script.communicate()
        pytest.fail("scripts/run.sh did not stop on a database it cannot use")
    assert script.returncode != 0
    assert "Traceback" not in stdout + stderr and SECRET not in stdout + stderr
    assert "database_unavailable" in stderr and "Topic Dashboard" not in stdout  # stopped before the banner


def test_an_app_started_on_an_unreachable_database_answers_503_on_health_not_a_stack_trace(tmp_path: Path) -> None:
    process = AppProcess(database_url=WRONG_URLS["nothing listens"], data_dir=tmp_path / "data")
    try:
        process.spawn()
        response = process.wait_for_health()
        again = httpx.get(process.base_url + "/api/health", timeout=10)
    finally:
        process.stop()
    assert response.status_code == again.status_code == 503
    body = response.json()
    assert body["status"] != "ok" and body["error"]["code"] == "database_unavailable"
    assert SECRET not in response.text and "127.0.0.1:9" not in response.text  # anyone may ask: no URL at all
    log = process.log()
    assert "Traceback" not in log and SECRET not in log


def _start_check(tmp_path: Path, url: str) -> subprocess.CompletedProcess[str]:
    """What the app module runs first when it starts (topic_dashboard.db.exit_unless_startable)."""
    environment = {
        **os.environ,
        "TOPIC_DASHBOARD_DATA_DIR": str(tmp_path / "data"),
        "TOPIC_DASHBOARD_DATABASE_URL": url,
    }
    code = "from topic_dashboard.db import exit_unless_startable; exit_unless_startable()"
    return subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, env=environment, timeout=60, cwd=ROOT
    )


def test_the_app_start_check_exits_on_a_url_it_cannot_use_and_warns_on_a_database_that_is_down(tmp_path: Path) -> None:
    _assert_one_clear_message(
        _start_check(tmp_path, WRONG_URLS["unknown scheme"]), "database_unavailable", "TOPIC_DASHBOARD_DATABASE_URL"
    )
    down = _start_check(tmp_path, WRONG_URLS["nothing listens"])
    assert down.returncode == 0 and "Traceback" not in down.stderr and SECRET not in down.stderr
    assert down.stderr.startswith("warning [database_unavailable]") and "127.0.0.1:9/topics" in down.stderr
