"""Search over a bot's items (#15: p95 ≤ 50 ms over 100,000 items on SQLite), against a plain LIKE
scan of the same items answering the same queries in the same run.

Run from the repo root:  .venv/bin/python bench/search_bench.py [--items N] [--database-url URL]

The items are a bot's results in English and Chinese (a vocabulary of operations words, with
numbers and tags), inserted in bulk through the real schema (so the search triggers index them).
Queries: rare and common English words, two- and four-character Chinese, two terms, a tag.
Both sides return the first page (40) of matches; the baseline in newest-first order (what a LIKE
scan can do), search ranked.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sqlalchemy as sa
from sqlmodel import Session

from topic_dashboard.db import create_db_engine
from topic_dashboard.migrate import upgrade_database
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.search import search_items

EN = [
    "deploy",
    "build",
    "failed",
    "passed",
    "release",
    "rollback",
    "latency",
    "error",
    "rate",
    "database",
    "replica",
    "backup",
    "nightly",
    "canary",
    "payments",
    "orders",
    "inventory",
    "refund",
    "customer",
    "shipment",
    "invoice",
    "cluster",
    "node",
    "memory",
    "disk",
    "cpu",
    "queue",
    "worker",
    "timeout",
    "retry",
    "migration",
    "schema",
    "index",
    "cache",
    "redis",
    "postgres",
    "kafka",
    "alert",
    "incident",
    "resolved",
    "acknowledged",
]
ZH = [
    "部署",
    "构建",
    "失败",
    "通过",
    "发布",
    "回滚",
    "延迟",
    "错误率",
    "数据库",
    "副本",
    "备份",
    "订单",
    "库存",
    "退款",
    "客户",
    "发货",
    "发票",
    "集群",
    "内存",
    "磁盘",
    "队列",
    "超时",
    "重试",
    "告警",
    "事故",
    "恢复",
]
TAGS = ["nightly", "release", "P0", "P1", "发布", "infra", "payments", "db"]
QUERIES = [
    "rollback",
    "kafka",
    "deploy",
    "部署",
    "错误率",
    "数据库 延迟",
    "payments timeout",
    "nightly",
    "canary release",
    "xyzzy",
]


def make_items(engine: sa.Engine, bot_id: str, count: int, rng: random.Random) -> None:
    rows = []
    for index in range(count):
        if rng.random() < 0.5:
            words = rng.sample(EN, 8)
            title = f"{words[0].capitalize()} {words[1]} #{index}"
            content = " ".join(rng.sample(EN, 25)) + f" took {rng.randint(1, 900)} ms"
        else:
            words = rng.sample(ZH, 8)
            title = "".join(words[:2]) + f" {index}"
            content = "，".join(rng.sample(ZH, 18)) + f"，耗时 {rng.randint(1, 900)} 毫秒"
        rows.append(
            {
                "bot_id": bot_id,
                "topic_key": rng.choice(["inbox", "ci", "alerts", "ops"]),
                "title": title,
                "content": content,
                "level": "info",
                "tags_json": json.dumps(rng.sample(TAGS, rng.randint(0, 2)), ensure_ascii=False),
                "source": "system",
                "is_read": False,
                "is_pinned": False,
                "is_archived": False,
                "created_at": "2026-12-01 00:00:00",
            }
        )
    columns = ", ".join(rows[0])
    values = ", ".join(f":{name}" for name in rows[0])
    with engine.begin() as conn:
        conn.execute(sa.text(f"INSERT INTO topic_item ({columns}) VALUES ({values})"), rows)


def like_scan(session: Session, bot_id: str, query: str) -> list[int]:
    """The baseline: every term as LIKE over title, content and tags, newest first, first page."""
    where = ["bot_id = :bot"]
    params: dict[str, object] = {"bot": bot_id}
    for n, term in enumerate(query.split()):
        params[f"t{n}"] = f"%{term}%"
        where.append(f"(title LIKE :t{n} OR content LIKE :t{n} OR CAST(tags_json AS TEXT) LIKE :t{n})")
    sql = f"SELECT id FROM topic_item WHERE {' AND '.join(where)} ORDER BY id DESC LIMIT 40"
    return [row[0] for row in session.connection().execute(sa.text(sql), params)]


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="search-bench-")
    url = args.database_url or f"sqlite:///{tmp}/bench.db"
    upgrade_database(url)
    engine = create_db_engine(url)
    rng = random.Random(7)
    with Session(engine) as session:
        bot, _ = create_bot(session=session, name="bench", write_config=False)
        other, _ = create_bot(session=session, name="other", write_config=False)
    start = time.perf_counter()
    make_items(engine, bot.bot_id, args.items, rng)
    make_items(engine, other.bot_id, args.items // 10, rng)  # another bot's items share the index
    if url.startswith("postgresql"):
        with engine.connect() as conn:  # what autovacuum does after a bulk load
            conn.execution_options(isolation_level="AUTOCOMMIT").execute(sa.text("ANALYZE topic_item"))
    print(
        f"{url.split(':')[0]}: {args.items:,} items (+{args.items // 10:,} of another bot) stored and indexed "
        f"in {time.perf_counter() - start:.1f} s"
    )
    search: dict[str, list[float]] = {q: [] for q in QUERIES}
    scan: dict[str, list[float]] = {q: [] for q in QUERIES}
    found: dict[str, tuple[int, int]] = {}
    with Session(engine) as session:
        for _ in range(args.rounds):  # interleaved, so both sides see the same machine
            for query in QUERIES:
                t0 = time.perf_counter()
                hits = search_items(session=session, bot_id=bot.bot_id, query=query, limit=40).hits
                t1 = time.perf_counter()
                base = like_scan(session, bot.bot_id, query)
                t2 = time.perf_counter()
                search[query].append((t1 - t0) * 1000)
                scan[query].append((t2 - t1) * 1000)
                found[query] = (len(hits), len(base))
    print("\n| query | results (search / scan, first page) | search p50 | search p95 | LIKE scan p50 | LIKE scan p95 |")
    print("|---|---|---|---|---|---|")
    for query in QUERIES:
        print(
            f"| {query} | {found[query][0]} / {found[query][1]} | {statistics.median(search[query]):.1f} ms | "
            f"{pct(search[query], 0.95):.1f} ms | {statistics.median(scan[query]):.1f} ms | {pct(scan[query], 0.95):.1f} ms |"
        )
    every_search = [x for q in QUERIES for x in search[q]]
    every_scan = [x for q in QUERIES for x in scan[q]]
    print(
        f"\nall queries: search p50 {statistics.median(every_search):.1f} ms, p95 {pct(every_search, 0.95):.1f} ms; "
        f"LIKE scan p50 {statistics.median(every_scan):.1f} ms, p95 {pct(every_scan, 0.95):.1f} ms; "
        f"p95 ratio search/scan {pct(every_search, 0.95) / pct(every_scan, 0.95):.2f}"
    )
    engine.dispose()


if __name__ == "__main__":
    main()
