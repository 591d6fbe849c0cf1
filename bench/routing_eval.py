"""Routing quality: the engine against a naive keyword baseline on the labelled sets.

Run from the repo root:  .venv/bin/python bench/routing_eval.py [--errors]

A decision is right when both publish-or-not and the topic are right. "noise published"
counts messages labelled not-to-publish (acks, greetings, progress, tool hints) that were;
"progress/tool-hint published" must be 0; "substantive lost" counts messages labelled for a
topic that were not published.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from topic_dashboard.routing.evaluation import (
    EvalResult,
    engine_decider,
    evaluate,
    keyword_baseline,
    load_eval_set,
)

SETS = {
    "main (design-style rules, 5 topics)": ROOT / "tests/topic_dashboard/routing/eval_set.json",
    "alt (other phrasing, rule-less inbox)": ROOT / "tests/topic_dashboard/routing/eval_set_alt.json",
    "blind (written after tuning, run once)": ROOT / "tests/topic_dashboard/routing/eval_set_blind.json",
}


def row(r: EvalResult) -> str:
    return (
        f"| {r.name} | {r.accuracy:.1%} ({r.correct}/{r.total}) | {r.noise_published}/{r.noise_total} "
        f"| {r.stream_published} | {r.substantive_lost}/{r.substantive_total} | {r.misrouted} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", action="store_true", help="list every wrong decision")
    parser.add_argument(
        "--no-lexicon",
        action="store_true",
        help="ablation: route from the rule words alone, without the bilingual concept lexicon",
    )
    args = parser.parse_args()
    if args.no_lexicon:
        from topic_dashboard.routing import compiler, scoring

        compiler.concepts_of = scoring.concepts_of = lambda key: ()  # type: ignore[assignment]
        compiler._cache.clear()
    for title, path in SETS.items():
        topics, cases = load_eval_set(path)
        kinds = Counter(c["kind"] for c in cases)
        print(f"\n### {title}: {len(cases)} cases, {len(topics)} topics")
        print("cases by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
        print(
            "\n| router | decision accuracy | noise published | progress/tool-hint published "
            "| substantive lost | misrouted |"
        )
        print("|---|---|---|---|---|---|")
        results = [
            evaluate("engine", engine_decider(topics), cases),
            evaluate("keyword baseline", keyword_baseline(topics), cases),
        ]
        for r in results:
            print(row(r))
        engine, base = results
        print(f"\nengine - baseline: {engine.accuracy - base.accuracy:+.1%} accuracy")
        if args.errors:
            for r in results:
                print(f"\n{r.name} errors ({len(r.errors)}):")
                for e in r.errors:
                    print("  " + e)


if __name__ == "__main__":
    main()
