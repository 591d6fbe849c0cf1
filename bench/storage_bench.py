"""Storage paths on the embedded SQLite default, each against a baseline measured in the same run.

Run from the repo root:  .venv/bin/python bench/storage_bench.py [--items N] [--database-url URL]

1. publish: the whole publish pipeline (validation, dedupe and rate checks under the write
   lock, insert, commit) vs a bare INSERT + COMMIT of the same row.
2. panel page: one page (40) of a bot's items newest first, at the top and deep in a stream of
   N items through the cursor, vs the bare indexed SELECT ... ORDER BY id DESC LIMIT 40.
3. user inputs: ccweb_list_user_inputs' query on a conversation of 10,000 messages vs one of
   20 messages (the cost must not grow with the conversation's length).
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
from sqlmodel import Session

from topic_dashboard.db import create_db_engine, read_session, write_session
from topic_dashboard.migrate import upgrade_database
from topic_dashboard.models import Message, TopicItem, utcnow
from topic_dashboard.services import conversations, items, versions
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicSettingsUpdate, update_topic_settings


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def row(label: str, measured: list[float], baseline: list[float]) -> None:
    p50, b50 = statistics.median(measured), statistics.median(baseline)
    print(
        f"| {label} | {p50:.3f} ms | {pct(measured, 0.99):.3f} ms | {b50:.3f} ms | {pct(baseline, 0.99):.3f} ms | {p50 / b50:.1f}x |"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=50_000)
    parser.add_argument("--publishes", type=int, default=1_000)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="td-bench-")
    url = args.database_url or f"sqlite:///{tmp}/bench.db"
    upgrade_database(url)
    engine = create_db_engine(url)
    with write_session(engine) as session:
        bot, _ = create_bot(session=session, name="bench", write_config=False)
        other, _ = create_bot(session=session, name="baseline", write_config=False)
        update_topic_settings(
            session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=10_000)
        )
    print(f"database: {engine.dialect.name}; items in the stream: {args.items}; publishes: {args.publishes}\n")
    print("| path | p50 | p99 | baseline p50 | baseline p99 | ratio (p50) |")
    print("|---|---|---|---|---|---|")

    counter = iter(range(10**9))

    def publish() -> None:
        with write_session(engine) as session:
            publish_item(
                session=session,
                bot_id=bot.bot_id,
                source="system",
                request=PublishRequest(
                    title=f"Build #{next(counter)} passed",
                    content="All 412 tests passed in 3m12s.",
                    tags=["ci"],
                    topic_key="inbox",
                    dedupe_key=f"k{next(counter)}",
                    message_type="result",
                ),
            )

    def bare_insert() -> None:
        with Session(engine) as session:
            session.add(
                TopicItem(
                    bot_id=other.bot_id,
                    topic_key="inbox",
                    title="Build passed",
                    content="All tests passed.",
                    tags_json=["ci"],
                    dedupe_key=f"k{next(counter)}",
                )
            )
            session.commit()

    row("publish_item (full pipeline)", timed(publish, args.publishes), timed(bare_insert, args.publishes))

    # A long stream for the panel: bulk-inserted, spread over five topics.
    now = utcnow()
    with engine.begin() as conn:
        conn.execute(
            sa.insert(TopicItem),
            [
                {
                    "bot_id": bot.bot_id,
                    "topic_key": f"t{i % 5}",
                    "title": f"item {i}",
                    "content": "x" * 200,
                    "level": "info",
                    "tags_json": ["a"],
                    "source": "system",
                    "is_read": i % 3 == 0,
                    "is_pinned": False,
                    "is_archived": False,
                    "created_at": now,
                }
                for i in range(args.items)
            ],
        )
    with read_session(engine) as session:
        first = items.list_items(session=session, bot_id=bot.bot_id, limit=40)
        cursor = first.next_cursor
        for _ in range(args.items // 80):  # walk half-way down the stream
            cursor = items.list_items(session=session, bot_id=bot.bot_id, cursor=cursor, limit=40).next_cursor
        deep_cursor = cursor

        def bare_page() -> None:
            session.exec(
                sa.select(TopicItem).where(TopicItem.bot_id == bot.bot_id).order_by(TopicItem.id.desc()).limit(40)
            ).all()  # type: ignore[call-overload]

        runs = 300
        baseline = timed(bare_page, runs)
        row(
            "panel page, newest 40",
            timed(lambda: items.list_items(session=session, bot_id=bot.bot_id, limit=40), runs),
            baseline,
        )
        row(
            "panel page, 40 at mid-stream (cursor)",
            timed(lambda: items.list_items(session=session, bot_id=bot.bot_id, cursor=deep_cursor, limit=40), runs),
            baseline,
        )
        topic_filter = items.ItemFilters(topic_key="t3", unread_only=True)
        row(
            "panel page, one topic, unread only",
            timed(lambda: items.list_items(session=session, bot_id=bot.bot_id, filters=topic_filter, limit=40), runs),
            baseline,
        )
        row(
            "unread and total counts per topic",
            timed(lambda: items.topic_counts(session=session, bot_id=bot.bot_id), 50),
            baseline,
        )
        row(
            "live-update poll (panel_signature)",
            timed(lambda: versions.panel_signature(session=session, bot_id=bot.bot_id), 50),
            baseline,
        )

    with write_session(engine) as session:
        long_c = conversations.create_conversation(session=session, bot_id=bot.bot_id, title="long")
        short_c = conversations.create_conversation(session=session, bot_id=bot.bot_id, title="short")
    with engine.begin() as conn:
        for cid, count in ((long_c.conversation_id, 10_000), (short_c.conversation_id, 20)):
            conn.execute(
                sa.insert(Message),
                [
                    {
                        "id": f"{cid[:8]}{n:08d}",
                        "conversation_id": cid,
                        "seq": n + 1,
                        "role": "user" if n % 2 else "assistant",
                        "content": f"message {n}",
                        "kind": "text",
                        "created_at": now,
                    }
                    for n in range(count)
                ],
            )
    with read_session(engine) as session:

        def inputs(cid: str) -> Callable[[], object]:
            return lambda: conversations.list_user_inputs(
                session=session, bot_id=bot.bot_id, conversation_id=cid, limit=15, max_chars=1000
            )

        row(
            "user inputs, 10,000-message conversation (vs 20 messages)",
            timed(inputs(long_c.conversation_id), 300),
            timed(inputs(short_c.conversation_id), 300),
        )
    engine.dispose()


if __name__ == "__main__":
    main()
