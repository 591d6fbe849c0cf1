"""Publish-or-not on the noise-vs-result corpora: how many progress reports, tool hints and other
conversation the engine would publish, and how many finished results it would lose.

Run from the repo root:  .venv/bin/python bench/noise_eval.py [--errors] [--corpora fitted|blind|all|review]

A corpus item is routed by `route_message` for a bot with the design's five topics and an inbox
(tests/topic_dashboard/routing/eval_set.json): whether a message is conversation does not depend
on the bot's topics, and with the `inbox` policy everything that is not filtered is published.
Which corpora are which: bench/routing_training/ was fitted on (the noise model and the patterns
were written from it); bench/routing_sets/blind_noise/ was written by helpers who never read the
router, frozen before its first run (MANIFEST.json), and is only ever reported.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from topic_dashboard.routing.evaluation import engine_decisions, load_eval_set

FITTED = {f"fitted: {p.stem}": p for p in sorted((ROOT / "bench/routing_training").glob("*.json"))}
BLIND = {f"BLIND: {p.stem}": p for p in sorted((ROOT / "bench/routing_sets/blind_noise").glob("*.json"))}
REVIEW = ROOT / "bench/pattern_review/session36_results.json"  # results a reviewer aimed at the patterns
TOPICS = ROOT / "tests/topic_dashboard/routing/eval_set.json"
KINDS = ("progress", "tool_hint", "other noise", "result")


def case_of(item: dict[str, Any]) -> dict[str, Any]:
    return {"content": item["text"], "title": item.get("title"), "message_type": item.get("message_type")}


def kind_of(item: dict[str, Any]) -> str:
    if item["label"] == "result":
        return "result"
    return item.get("kind") if item.get("kind") in ("progress", "tool_hint") else "other noise"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", action="store_true", help="list every wrong decision (with meaning)")
    parser.add_argument("--corpora", choices=("fitted", "blind", "all", "review"), default="all")
    args = parser.parse_args()
    from bench.embedding_cache import CachingEmbedder

    embedder = CachingEmbedder()
    topics, _ = load_eval_set(TOPICS)
    routers = {
        "rules + meaning": engine_decisions(topics, embedder, lambda d: d.should_publish),
        "rules alone": engine_decisions(topics, None, lambda d: d.should_publish),
    }
    if args.corpora == "review":  # every message there is a finished result: how many are lost
        review = json.loads(REVIEW.read_text(encoding="utf-8"))
        for part in ("taken", "borderline", "kept"):
            texts = [r if isinstance(r, str) else r["text"] for r in review[part]]
            for name, decide in routers.items():
                lost = sum(not decide(case_of({"text": t})) for t in texts)
                print(f"reviewer's results, {part} by the patterns when written: {name}: {lost}/{len(texts)} lost")
        embedder.save()
        return
    chosen = {"fitted": FITTED, "blind": BLIND, "all": {**FITTED, **BLIND}}[args.corpora]
    print("| corpus | router | progress published | tool hints published | other noise published | results lost |")
    print("|---|---|---|---|---|---|")
    for title, path in chosen.items():
        items = json.loads(path.read_text(encoding="utf-8"))["items"]
        for name, decide in routers.items():
            wrong: Counter[str] = Counter()
            total: Counter[str] = Counter()
            errors = []
            for item in items:
                kind = kind_of(item)
                total[kind] += 1
                published = decide(case_of(item))
                if published != (kind == "result"):
                    wrong[kind] += 1
                    errors.append(f"  {kind}: {'published' if published else 'not published'} | {item['text'][:110]}")
            cells = " | ".join(f"{wrong[k]}/{total[k]}" if total[k] else "—" for k in KINDS)
            print(f"| {title} | {name} | {cells} |")
            if args.errors and name == "rules + meaning":
                print("\n".join(errors))
    embedder.save()


if __name__ == "__main__":
    main()
