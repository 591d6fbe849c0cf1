"""Routing quality on every labelled set: the engine (with the embedding model, and rules alone)
against a naive keyword baseline.

Run from the repo root:  .venv/bin/python bench/routing_eval.py [--errors] [--sets dev|blind|design|all]

A decision is right when both publish-or-not and the topic are right. Also counted: noise
published (greetings, thanks, progress, tool hints labelled not-to-publish that were), progress
or tool hints published (must be 0), and real results lost (labelled for a topic, not published).
Per variant (plain, paraphrase, cross_language, two_topic, noise) where a set labels them, and a
reliability table: of the decisions given confidence in a band, how many were right.

Which sets are which (bench/routing_sets/MANIFEST.json): design sets (tests/...) and dev sets
were tuned or fitted on; blind sets were written by helpers who never read the router, frozen
before the first run, and are never fitted on.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from topic_dashboard.routing.evaluation import (
    BANDS,
    EvalResult,
    engine_decider,
    evaluate,
    keyword_baseline,
    load_eval_set,
)

DESIGN = {
    "design: main (5 design topics)": ROOT / "tests/topic_dashboard/routing/eval_set.json",
    "design: alt (other phrasing)": ROOT / "tests/topic_dashboard/routing/eval_set_alt.json",
    "design: blind-2025 (tuned on since)": ROOT / "tests/topic_dashboard/routing/eval_set_blind.json",
}
DEV = {f"dev: {p.stem}": p for p in sorted((ROOT / "bench/routing_sets/dev").glob("*.json"))}
BLIND = {f"BLIND: {p.stem}": p for p in sorted((ROOT / "bench/routing_sets/blind").glob("*.json"))}
# A frozen batch kept for measuring the next change once ("kept_unrun" in MANIFEST.json): left out unless
# named with --only, so that no everyday run spends it.
KEPT_UNRUN = {
    Path(name).stem
    for name, entry in json.loads((ROOT / "bench/routing_sets/MANIFEST.json").read_text(encoding="utf-8"))[
        "sets"
    ].items()
    if entry.get("kept_unrun")
}
VARIANTS = ("plain", "paraphrase", "cross_language", "two_topic", "noise")


def select(sets: dict[str, Path], only: str | None, skip: str | None) -> tuple[dict[str, Path], list[str]]:
    """The sets to run: those named with `only` (stems, comma-separated), else all but the kept-unrun
    ones; then less those named with `skip`. Also the kept-unrun stems left out."""
    if only:
        chosen = {t: p for t, p in sets.items() if p.stem in only.split(",")}
        held: list[str] = []
    else:
        chosen = {t: p for t, p in sets.items() if p.stem not in KEPT_UNRUN}
        held = sorted(p.stem for p in sets.values() if p.stem in KEPT_UNRUN)
    if skip:
        chosen = {t: p for t, p in chosen.items() if p.stem not in skip.split(",")}
    return chosen, held


def row(r: EvalResult) -> str:
    variants = " | ".join(f"{v:.0%}" if (v := r.variant_accuracy(name)) is not None else "—" for name in VARIANTS)
    return (
        f"| {r.name} | {r.accuracy:.1%} ({r.correct}/{r.total}) | {variants} | {r.noise_published}/{r.noise_total} "
        f"| {r.stream_published} | {r.substantive_lost}/{r.substantive_total} | {r.misrouted} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", action="store_true", help="list every wrong decision of the engine")
    parser.add_argument("--sets", choices=("design", "dev", "blind", "all"), default="all")
    parser.add_argument("--rules-only", action="store_true", help="skip the embedding model")
    parser.add_argument(
        "--only", help="comma-separated set names (file stems) to run, e.g. to keep a frozen batch unrun"
    )
    parser.add_argument("--skip", help="comma-separated set names (file stems) not to run")
    args = parser.parse_args()
    chosen, held = select(
        {"design": DESIGN, "dev": DEV, "blind": BLIND, "all": {**DESIGN, **DEV, **BLIND}}[args.sets],
        args.only,
        args.skip,
    )
    if held:
        print(f"kept unrun (MANIFEST.json; name them with --only to spend them): {', '.join(held)}")
    embedder = None
    if not args.rules_only:
        from bench.embedding_cache import CachingEmbedder

        embedder = CachingEmbedder()
    totals: dict[str, dict[str, EvalResult]] = {}
    for title, path in chosen.items():
        topics, cases = load_eval_set(path)
        kinds = Counter(c["kind"] for c in cases)
        print(f"\n### {title}: {len(cases)} cases, {len(topics)} topics")
        print("cases by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
        print(
            "\n| router | decisions right | "
            + " | ".join(VARIANTS)
            + " | noise published | progress/tool-hint published | results lost | misrouted |"
        )
        print("|---|---|" + "---|" * len(VARIANTS) + "---|---|---|---|")
        routers = []
        if embedder is not None:
            routers.append(("engine (rules + meaning)", engine_decider(topics, embedder)))
        routers += [("engine (rules alone)", engine_decider(topics)), ("keyword baseline", keyword_baseline(topics))]
        for name, decide in routers:
            result = evaluate(name, decide, cases)
            print(row(result))
            group = title.split(":")[0]
            merged = totals.setdefault(group, {}).setdefault(name, EvalResult(name))
            _merge(merged, result)
            if args.errors and name.startswith("engine") and (embedder is None or "meaning" in name):
                for e in result.errors:
                    print("  " + e)
    print("\n## Totals per kind of set")
    for group, results in totals.items():
        print(f"\n### {group}")
        print(
            "| router | decisions right | "
            + " | ".join(VARIANTS)
            + " | noise published | progress/tool-hint published | results lost | misrouted |"
        )
        print("|---|---|" + "---|" * len(VARIANTS) + "---|---|---|---|")
        for result in results.values():
            print(row(result))
        engine = next(iter(results.values()))
        if engine.by_band:
            print(f"\nreliability of {engine.name} (decisions by confidence band: right / given):")
            print("| confidence | " + " | ".join(f"≥ {b:.1f}" if b else "< 0.5" for b in BANDS) + " |")
            print("|---|" + "---|" * len(BANDS))
            cells = []
            for b in BANDS:
                right, total = engine.by_band.get(b, [0, 0])
                cells.append(f"{right}/{total} ({right / total:.0%})" if total else "—")
            print("| right | " + " | ".join(cells) + " |")
    if embedder is not None:
        embedder.save()


def _merge(into: EvalResult, result: EvalResult) -> None:
    for name in (
        "total",
        "correct",
        "noise_total",
        "noise_published",
        "stream_published",
        "substantive_total",
        "substantive_lost",
        "misrouted",
    ):
        setattr(into, name, getattr(into, name) + getattr(result, name))
    for key, (right, total) in result.by_variant.items():
        tally = into.by_variant.setdefault(key, [0, 0])
        tally[0] += right
        tally[1] += total
    for band, (right, total) in result.by_band.items():
        tally = into.by_band.setdefault(band, [0, 0])
        tally[0] += right
        tally[1] += total


if __name__ == "__main__":
    main()
