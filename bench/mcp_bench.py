"""topic_publish and topic_route over MCP HTTP against a bare MCPServer echo tool on the same stack.

Run from the repo root:  .venv/bin/python bench/mcp_bench.py [--seconds S] [--database-url URL]

Two servers, each one uvicorn process (one worker), started by this script:
  * the app: Reflex's backend with the co-hosted MCP and REST service, on a fresh database (SQLite file
    by default), one bot with one topic; publishes name the topic, so no routing model runs on them;
  * the baseline: an `MCPServer` with one `echo` tool, mounted the same way (stateless streamable
    HTTP, JSON answers), behind nothing else.
The client sends the same JSON-RPC `tools/call` requests to both from one asyncio process, at
concurrency 1, 8 and 32, the rounds interleaved (app, echo, app, echo...) so that load on the machine
falls on both alike. It prints calls/s, p50 and p99 per round and the ratio to the echo tool.

Then, with `--layers` (on by default), where one publish's time goes, at concurrency 1 (p50 of 300 calls
each, interleaved): the echo server's `ping` and `echo` call; the app's `ping` (HTTP, Reflex's ASGI stack,
HttpGuards and the bot-token gate, no tool); the app's `tools/list` (plus the SDK's dispatch); a publish;
and `publish_item` called in this process in a loop on the same database (the service alone: its SQL
through SQLAlchemy). The differences between neighbouring rows are the layers' costs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx

from bench.storage_bench import pct
from tests.support.server import free_port

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


# --- the two servers (run as `--serve app|echo --port N` in a subprocess) ------------------------------


def serve_echo(port: int) -> None:
    import uvicorn
    from mcp.server.mcpserver import MCPServer
    from mcp.server.transport_security import TransportSecuritySettings

    server = MCPServer(name="echo")
    # As the app's servers do (mcp_service/tooling.py): the SDK's per-request INFO lines stay off, so
    # the baseline is the protocol's cost, not its logging's.
    logging.getLogger("mcp").setLevel(logging.WARNING)

    @server.tool(name="echo")
    def echo(title: str, content: str) -> dict[str, Any]:
        return {"ok": True, "title": title, "length": len(content)}

    app = server.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def serve_app(port: int) -> None:
    import uvicorn
    from reflex.utils import prerequisites

    os.chdir(ROOT)
    asgi = prerequisites.get_and_validate_app().app()
    uvicorn.run(asgi, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


def start(kind: str, port: int, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:  # a pipe nobody reads would stall the server once full
        proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", kind, "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{kind} server exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"{kind} server did not start")


# --- the app's database ----------------------------------------------------------------------------------


def arrange_app(database_url: str, data_dir: str) -> str:
    """A migrated database with one bot (rate limit lifted for the run) and one topic; returns its token."""
    import sqlalchemy as sa

    from topic_dashboard.db import create_db_engine, write_session
    from topic_dashboard.migrate import upgrade_database
    from topic_dashboard.models import TopicBotSettings
    from topic_dashboard.services.bots import create_bot
    from topic_dashboard.services.topics import TopicCreate, create_topic

    upgrade_database(database_url)
    engine = create_db_engine(database_url)
    with write_session(engine) as session:
        bot, token = create_bot(session=session, name=f"bench-{secrets.token_hex(3)}", write_config=False)
        create_topic(
            session=session,
            bot_id=bot.bot_id,
            data=TopicCreate(topic_key="builds", name="Builds", routing_json={"include_when": ["CI build results"]}),
            actor="bench",
        )
        # A bench publishes far more than a bot may: the limit is lifted here, not in the product.
        session.exec(
            sa.update(TopicBotSettings)
            .where(TopicBotSettings.bot_id == bot.bot_id)
            .values(publish_rate_per_minute=10**9)
        )
        session.commit()
    engine.dispose()
    return token


# --- the client --------------------------------------------------------------------------------------------


def call_body(tool: str, arguments: dict[str, Any], n: int) -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    ).encode()


async def round_of(
    client: httpx.AsyncClient,
    url: str,
    headers: dict[str, str],
    make_args: Any,
    tool: str,
    concurrency: int,
    seconds: float,
) -> tuple[float, list[float], int]:
    latencies: list[float] = []
    errors = 0
    counter = 0
    stop_at = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal errors, counter
        while time.perf_counter() < stop_at:
            counter += 1
            body = call_body(tool, make_args(counter), counter)
            started = time.perf_counter()
            response = await client.post(url, content=body, headers=headers)
            latencies.append((time.perf_counter() - started) * 1000)
            answer = response.json()
            if response.status_code != 200 or answer.get("error") or answer.get("result", {}).get("isError"):
                errors += 1

    began = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - began
    return len(latencies) / elapsed, latencies, errors


async def run(args: argparse.Namespace, app_url: str, echo_url: str, token: str) -> None:
    app_headers = {**HEADERS, "Authorization": f"Bearer {token}"}
    run_id = secrets.token_hex(3)

    def publish_args(n: int) -> dict[str, Any]:
        return {
            "topic_key": "builds",
            "title": f"Build #{n} passed",
            "content": f"Build {run_id}-{n} of main passed: 1,204 tests in 3 min 12 s.",
            "level": "success",
            "tags": ["ci"],
        }

    def route_args(n: int) -> dict[str, Any]:
        return {"content": f"Build {run_id}-{n} of main passed: 1,204 tests in 3 min 12 s.", "title": "Build passed"}

    def echo_args(n: int) -> dict[str, Any]:
        return {"title": f"Build #{n} passed", "content": f"Build {run_id}-{n} of main passed: 1,204 tests."}

    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        # warm-up: imports, first route (model load), connections
        for n in range(20):
            await client.post(app_url, content=call_body("topic_route", route_args(n), n), headers=app_headers)
            await client.post(
                app_url, content=call_body("topic_publish", publish_args(10**6 + n), n), headers=app_headers
            )
            await client.post(echo_url, content=call_body("echo", echo_args(n), n), headers=HEADERS)
        print("| tool | concurrency | calls/s | p50 | p99 | echo calls/s | echo p50 | echo p99 | ratio | errors |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for tool, make in (("topic_publish", publish_args), ("topic_route", route_args)):
            if tool not in args.tools:
                continue
            for concurrency in args.concurrency:
                app_rates, app_lat, echo_rates, echo_lat, errors = [], [], [], [], 0
                for _ in range(args.rounds):
                    rate, lat, err = await round_of(client, app_url, app_headers, make, tool, concurrency, args.seconds)
                    app_rates.append(rate)
                    app_lat += lat
                    errors += err
                    rate, lat, err = await round_of(
                        client, echo_url, HEADERS, echo_args, "echo", concurrency, args.seconds
                    )
                    echo_rates.append(rate)
                    echo_lat += lat
                    errors += err
                app_rate, echo_rate = statistics.median(app_rates), statistics.median(echo_rates)
                print(
                    f"| {tool} | {concurrency} | {app_rate:.0f} | {pct(app_lat, 0.5):.1f} ms | {pct(app_lat, 0.99):.1f} ms"
                    f" | {echo_rate:.0f} | {pct(echo_lat, 0.5):.1f} ms | {pct(echo_lat, 0.99):.1f} ms"
                    f" | {app_rate / echo_rate:.2f} | {errors} |",
                    flush=True,
                )


def layers(app_url: str, echo_url: str, token: str, database_url: str, calls: int = 300) -> None:
    """Per-call p50 of each layer of a publish, at concurrency 1 (see the module docstring)."""
    from topic_dashboard.db import create_db_engine, write_session
    from topic_dashboard.services.audit import CallAudit
    from topic_dashboard.services.bots import bot_id_for_token
    from topic_dashboard.services.publishing import PublishRequest, publish_item

    def body(method: str, params: dict[str, Any], n: int) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}).encode()

    def publish(n: int) -> bytes:
        arguments = {"topic_key": "builds", "title": f"Layer #{n}", "content": f"Build {n} of main passed."}
        return body("tools/call", {"name": "topic_publish", "arguments": arguments}, n)

    app_headers = {**HEADERS, "Authorization": f"Bearer {token}"}
    cases: dict[str, tuple[str, dict[str, str], Any]] = {
        "echo server: ping": (echo_url, HEADERS, lambda n: body("ping", {}, n)),
        "echo server: echo tool": (
            echo_url,
            HEADERS,
            lambda n: body("tools/call", {"name": "echo", "arguments": {"title": "t", "content": "c"}}, n),
        ),
        "app: ping (stack, guards, token gate)": (app_url, app_headers, lambda n: body("ping", {}, n)),
        "app: tools/list (+ SDK dispatch)": (app_url, app_headers, lambda n: body("tools/list", {}, n)),
        "app: topic_publish": (app_url, app_headers, publish),
    }
    samples: dict[str, list[float]] = {name: [] for name in cases}
    engine = create_db_engine(database_url)
    with write_session(engine) as session:
        bot_id = bot_id_for_token(session=session, token=token)
    assert bot_id is not None
    in_process: list[float] = []
    with httpx.Client(timeout=30) as client:
        for n in range(calls):
            for name, (url, headers, make) in cases.items():
                started = time.perf_counter()
                response = client.post(url, content=make(10**7 + n), headers=headers)
                samples[name].append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, response.text[:200]
            started = time.perf_counter()
            with write_session(engine) as session:
                request = PublishRequest(topic_key="builds", title=f"In process #{n}", content=f"Build {n} passed.")
                publish_item(session=session, bot_id=bot_id, request=request, audit=CallAudit(tool="topic_publish"))
            in_process.append((time.perf_counter() - started) * 1000)
    engine.dispose()
    print("\n| where a publish's time goes (concurrency 1) | p50 | p99 |\n|---|---|---|")
    for name, measured in {**samples, "publish_item in process (the service, its SQL)": in_process}.items():
        print(f"| {name} | {statistics.median(measured):.2f} ms | {pct(measured, 0.99):.2f} ms |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--serve", choices=("app", "echo"))
    parser.add_argument("--port", type=int)
    parser.add_argument("--database-url", default=None, help="default: a fresh SQLite file")
    parser.add_argument("--seconds", type=float, default=3.0, help="length of one round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--tools", nargs="+", default=["topic_publish", "topic_route"])
    parser.add_argument("--no-layers", dest="layers", action="store_false", help="skip where a publish's time goes")
    args = parser.parse_args()
    if args.serve == "echo":
        serve_echo(args.port)
        return
    if args.serve == "app":
        serve_app(args.port)
        return

    with tempfile.TemporaryDirectory(prefix="mcp-bench-") as tmp:
        database_url = args.database_url or f"sqlite:///{tmp}/bench.db"
        app_port, echo_port = free_port(), free_port()
        env = {
            **os.environ,
            "TOPIC_DASHBOARD_DATABASE_URL": database_url,
            "TOPIC_DASHBOARD_DATA_DIR": f"{tmp}/data",
            "TOPIC_DASHBOARD_PORT": str(app_port),
            "TOPIC_DASHBOARD_ALERT_CHECKS": "false",
        }
        os.environ.update(env)
        token = arrange_app(database_url, f"{tmp}/data")
        procs = [
            start(kind, port, env, Path(tmp) / f"{kind}.log") for kind, port in (("app", app_port), ("echo", echo_port))
        ]
        try:
            print(
                f"# {time.strftime('%Y-%m-%d %H:%M')} · {os.cpu_count()} CPUs · load {os.getloadavg()[0]:.2f}"
                f" · {database_url.split(':')[0]} · {args.rounds} rounds of {args.seconds:.0f} s, interleaved"
            )
            asyncio.run(
                run(args, f"http://127.0.0.1:{app_port}/api/mcp/topic", f"http://127.0.0.1:{echo_port}/mcp", token)
            )
            if args.layers:
                layers(
                    f"http://127.0.0.1:{app_port}/api/mcp/topic",
                    f"http://127.0.0.1:{echo_port}/mcp",
                    token,
                    database_url,
                )
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.wait(timeout=20)


if __name__ == "__main__":
    main()
