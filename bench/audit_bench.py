"""The Audit page's first page at 1,000,000 audit rows on PostgreSQL (#16: ≤ 300 ms), against the same
queries answered without the indexes (a sequential scan) in the same run.

Run from the repo root:  .venv/bin/python bench/audit_bench.py [--rows N] [--server-url URL]

The rows are 30 days of a team's trail (20 bots' tool calls, people's and tokens' actions, refusals),
inserted in bulk with generate_series into a database of their own (made and dropped here) at the latest
migration. "First page" is what the page loads when it opens or a filter changes: `list_calls` (101 rows,
newest first) plus `hourly_counts` (the 24-hour chart), through the real services, for no filter and for
each filter the page has (bot, action, outcome, actor, error code, a day range, two filters together).
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sqlalchemy as sa
from sqlmodel import Session

from topic_dashboard.db import create_db_engine
from topic_dashboard.migrate import upgrade_database
from topic_dashboard.models import AuditRollup
from topic_dashboard.services import audit, insights

TARGET_MS = 300.0
ROUNDS = 15


def _fill(engine: sa.Engine, rows: int) -> None:
    """30 days of rows, newest id newest in time; about 1 in 50 refused, 1 in 40 a person's action."""
    with engine.begin() as conn:
        conn.exec_driver_sql(
            f"""
            INSERT INTO audit_log (bot_id, tool, outcome, error_code, topic_key, item_id, latency_ms, created_at,
                                   actor_kind, actor, target, detail)
            SELECT
              CASE WHEN mod(g, 40) = 0 THEN NULL ELSE 'bot' || (mod(g, 20)) END,
              CASE WHEN mod(g, 40) = 0 THEN (ARRAY['item.read','topic.update','bot.rotate_token','auth.login'])[1 + mod(g / 40, 4)]
                   ELSE (ARRAY['topic_publish','topic_route','topic_list_topics','topic_get_schema'])[1 + mod(g, 4)] END,
              CASE WHEN mod(g, 50) = 7 THEN 'refused' WHEN mod(g, 97) = 3 THEN 'deduplicated' ELSE 'ok' END,
              CASE WHEN mod(g, 50) = 7 THEN (ARRAY['rate_limited','invalid_view','topic_disabled'])[1 + mod(g, 3)] END,
              'topic' || (mod(g, 12)),
              CASE WHEN mod(g, 4) = 0 THEN g END,
              (mod(g, 37))::float,
              now() - interval '30 days' * (1 - g::float / {rows}),
              CASE WHEN mod(g, 40) = 0 THEN (ARRAY['user','api_token'])[1 + mod(g / 40, 2)] ELSE 'bot' END,
              CASE WHEN mod(g, 40) = 0 THEN 'person' || (mod(g, 7)) ELSE 'bot' || (mod(g, 20)) END,
              CASE WHEN mod(g, 40) = 0 THEN 'bot:bot' || (mod(g, 20)) END,
              CASE WHEN mod(g, 40) = 0 THEN '{{"before": 1, "after": 2}}' END
            FROM generate_series(1, {rows}) AS g
            """
        )
        conn.exec_driver_sql("ANALYZE audit_log")


def _filters(now: datetime) -> dict[str, dict[str, Any]]:
    return {
        "no filter": {},
        "bot": {"bot_id": "bot7"},
        "action": {"tool": "topic.update"},
        "outcome": {"outcome": "refused"},
        "actor": {"actor": "person3"},
        "error code": {"error_code": "topic_disabled"},
        "days (3 days, a week ago)": {"since": now - timedelta(days=10), "until": now - timedelta(days=7)},
        "bot + outcome": {"bot_id": "bot7", "outcome": "refused"},
    }


def _first_page(engine: sa.Engine, filters: dict[str, Any]) -> int:
    with Session(engine) as session:
        rows = audit.list_calls(session=session, **filters, limit=101)
        audit.hourly_counts(session=session, bot_id=filters.get("bot_id"))
    return len(rows)


def _timed(fn: Callable[[], object], rounds: int) -> list[float]:
    fn()  # warm the cache and the plan
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[18] if len(values) >= 2 else values[0]


def _without_indexes(engine: sa.Engine) -> sa.Engine:
    """The same database, every session planning without index or bitmap scans (the baseline)."""
    other = create_db_engine(engine.url.render_as_string(hide_password=False))

    @sa.event.listens_for(other, "connect")
    def _no_indexes(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off")
        cursor.close()

    return other


def _insights_from_rows(engine: sa.Engine, scope: list[str] | None, range_key: str) -> None:
    """The baseline: the same numbers counted from audit_log's rows (the rollup marker reset, rolled back)."""
    with Session(engine) as session:
        session.execute(sa.update(AuditRollup).values(rolled_until=""))
        insights.insights(session=session, bot_ids=scope, range_key=range_key)
        session.rollback()


def _insights(engine: sa.Engine, rounds: int) -> None:
    """The Insights page's numbers: the one-time roll-up of the whole trail, then each range and scope
    from the hourly rollup, against counting the rows in the same run."""
    with Session(engine) as session:
        start = time.perf_counter()
        written = insights.roll_up(session=session)
        print(f"\nroll-up of the whole trail: {written:,} hour rows in {time.perf_counter() - start:.1f} s (once)")
    print(f"{'Insights (range, scope)':32} {'p50 ms':>8} {'p95 ms':>8} {'from rows p95':>14} {'ratio':>6}")
    for range_key in insights.RANGES:
        for label, scope in (("all bots", None), ("one bot", ["bot7"])):

            def read(scope: list[str] | None = scope, range_key: str = range_key) -> None:
                with Session(engine) as session:
                    insights.insights(session=session, bot_ids=scope, range_key=range_key)

            times = _timed(read, rounds)
            base = _timed(lambda s=scope, r=range_key: _insights_from_rows(engine, s, r), 3)
            p95, base_p95 = _p95(times), _p95(base)
            print(
                f"{range_key + ', ' + label:32} {statistics.median(times):>8.1f} {p95:>8.1f} {base_p95:>14.1f} "
                f"{base_p95 / p95:>5.1f}x"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--server-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()

    name = f"td_audit_bench_{secrets.token_hex(4)}"
    admin = sa.create_engine(
        args.server_url.replace("postgresql://", "postgresql+psycopg://", 1), isolation_level="AUTOCOMMIT"
    )
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = args.server_url.rsplit("/", 1)[0] + f"/{name}"
    engine = create_db_engine(url)
    baseline_engine: sa.Engine | None = None
    try:
        upgrade_database(url)
        start = time.perf_counter()
        _fill(engine, args.rows)
        print(f"filled {args.rows:,} audit rows in {time.perf_counter() - start:.1f} s (PostgreSQL)")
        baseline_engine = _without_indexes(engine)
        now = datetime.now(UTC)
        print(
            f"{'first page (list + 24 h chart)':32} {'rows':>5} {'p50 ms':>8} {'p95 ms':>8} {'seq scan p95':>13} {'ratio':>6}"
        )
        worst = 0.0
        for label, filters in _filters(now).items():
            shown = _first_page(engine, filters)
            times = _timed(lambda f=filters: _first_page(engine, f), args.rounds)
            base = _timed(lambda f=filters: _first_page(baseline_engine, f), max(3, args.rounds // 5))
            p95, base_p95 = _p95(times), _p95(base)
            worst = max(worst, p95)
            print(
                f"{label:32} {shown:>5} {statistics.median(times):>8.1f} {p95:>8.1f} {base_p95:>13.1f} "
                f"{base_p95 / p95:>5.1f}x"
            )
        verdict = "met" if worst <= TARGET_MS else "NOT met"
        print(f"worst first-page p95: {worst:.1f} ms (target <= {TARGET_MS:.0f} ms: {verdict})")
        _insights(engine, args.rounds)
    finally:
        engine.dispose()
        if baseline_engine is not None:
            baseline_engine.dispose()
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


if __name__ == "__main__":
    main()
