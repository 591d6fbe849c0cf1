"""A topic with many items (#17 target 4): first page, next page and per-topic counts.

Run from the repo root:
  .venv/bin/python bench/scale_bench.py --items 100000                       # SQLite
  .venv/bin/python bench/scale_bench.py --items 1000000 --database-url postgresql+psycopg://postgres@127.0.0.1:5432/td_scale

The items are loaded by the database itself (generate_series / a recursive CTE: minutes faster than
sending a million rows), through topic_item's triggers like any insert. Baseline, same run, same
data: the counts as they were computed before migration 0014 (a GROUP BY over the bot's items,
answered from the covering index (bot_id, topic_key, is_archived, is_read)).
Targets: first page <= 1 s, next page <= 200 ms, counts <= 20 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sqlalchemy as sa
from sqlmodel import col, select

from topic_dashboard.db import create_db_engine, read_session, write_session
from topic_dashboard.migrate import upgrade_database
from topic_dashboard.models import TopicItem
from topic_dashboard.services import items
from topic_dashboard.services.bots import create_bot


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.99))]


def load(engine: sa.Engine, bot_id: str, count: int) -> float:
    start = time.perf_counter()
    columns = (
        "bot_id, topic_key, title, content, level, tags_json, source, is_read, is_pinned, is_archived, "
        "created_at, resolved_at, resolved_by, message_type, dedupe_key, conversation_id, view_json, update_count"
    )
    if engine.dialect.name == "postgresql":
        values = (
            f"SELECT '{bot_id}', 't' || (g % 5), 'item ' || g, 'result ' || g, 'info', '[\"a\"]'::json, 'system', "
            "g % 3 = 0, false, false, now(), NULL, NULL, 'result', NULL, NULL, NULL, 0 FROM generate_series(1, :n) AS g"
        )
    else:
        values = (
            "WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < :n) "
            f"SELECT '{bot_id}', 't' || (g % 5), 'item ' || g, 'result ' || g, 'info', '[\"a\"]', 'system', "
            "g % 3 = 0, 0, 0, datetime('now'), NULL, NULL, 'result', NULL, NULL, NULL, 0 FROM s"
        )
    with engine.begin() as conn:
        conn.execute(sa.text(f"INSERT INTO topic_item ({columns}) {values}"), {"n": count})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    url = args.database_url or f"sqlite:///{tempfile.mkdtemp(prefix='td-scale-')}/scale.db"
    upgrade_database(url)
    engine = create_db_engine(url)
    with write_session(engine) as session:
        bot, _ = create_bot(session=session, name="scale", write_config=False)
    seconds = load(engine, bot.bot_id, args.items)
    print(f"database: {engine.dialect.name}; one bot, {args.items:,} items over 5 topics (loaded in {seconds:.0f} s)\n")
    with read_session(engine) as session:
        first = items.list_items(session=session, bot_id=bot.bot_id, limit=40)
        assert len(first.items) == 40 and first.next_cursor

        def counted_before() -> object:  # the baseline: what topic_counts ran before migration 0014
            return session.exec(
                select(TopicItem.topic_key, TopicItem.is_read, sa.func.count())
                .where(TopicItem.bot_id == bot.bot_id, col(TopicItem.is_archived).is_(False))
                .group_by(col(TopicItem.topic_key), col(TopicItem.is_read))
            ).all()

        kept = items.topic_counts(session=session, bot_id=bot.bot_id)
        assert sum(total for _, total in kept.values()) == args.items, kept
        rows = [
            (
                "first page (newest 40)",
                timed(lambda: items.list_items(session=session, bot_id=bot.bot_id, limit=40), 50),
            ),
            (
                "next page (cursor)",
                timed(
                    lambda: items.list_items(session=session, bot_id=bot.bot_id, cursor=first.next_cursor, limit=40), 50
                ),
            ),
            (
                "counts per topic (topic_count)",
                timed(lambda: items.topic_counts(session=session, bot_id=bot.bot_id), 50),
            ),
            ("baseline: counts by GROUP BY over the items", timed(counted_before, 10)),
        ]
    print("| path | p50 | p99 |")
    print("|---|---|---|")
    for name, (p50, p99) in rows:
        print(f"| {name} | {p50:.2f} ms | {p99:.2f} ms |")
    print(f"\ncounts: {rows[3][1][0] / rows[2][1][0]:.0f}x faster than the GROUP BY at p50")


if __name__ == "__main__":
    main()
