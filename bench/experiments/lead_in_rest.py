"""Session 38 (shipped: noise.progress_rest, engine.overrule_texts): a finished result after an English lead-in
clause that names the work ("Checking the bank feed, the Henderson payment of $3,200 cleared this morning.") is
taken by the patterns for work going on, and the stream model, reading the whole, agrees. Here the stream model
is asked about what follows the lead-in, at its bar (engine.PATTERN_OVERRULED_UNDER): counts of what the
patterns take for work or a tool call that has such a lead-in, and of those whose rest the model reads as a
result, for the reviewer's results (bench/pattern_review, not fitted) and the training corpora's progress
reports and tool hints (fitted on: optimistic; the blind noise batches are measured through the engine by
noise_eval.py, counts only).

    .venv/bin/python bench/experiments/lead_in_rest.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.embedding_cache import CachingEmbedder
from bench.experiments.offer_lead import corpus_texts, part_probability, reviewer_results
from topic_dashboard.routing.engine import PATTERN_OVERRULED_UNDER
from topic_dashboard.routing.noise import classify_noise, progress_rest
from topic_dashboard.routing.text import normalize

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    embedder = CachingEmbedder()
    results = reviewer_results()
    work = corpus_texts("progress_vs_result_*.json", lambda i: i.get("kind") in ("progress", "tool_hint"))
    for name, texts in (("reviewer's results", results), ("training corpora's work and tool hints", work)):
        flagged = [t for t in texts if classify_noise(normalize(t)) in ("progress", "tool_hint")]
        rests = [
            (t, part_probability(embedder, "stream", rest)) for t in flagged if (rest := progress_rest(t)) is not None
        ]
        kept = sum(p < PATTERN_OVERRULED_UNDER for _, p in rests)
        print(
            f"{name}: {len(texts)}; taken for work {len(flagged)}; with a lead-in {len(rests)}; rest read as a result {kept}"
        )
        for text, p in sorted(rests, key=lambda r: r[1]):
            print(f"  {p:.3f} {'KEPT' if p < PATTERN_OVERRULED_UNDER else '    '} | {text[:100]}")
    embedder.save()


if __name__ == "__main__":
    main()
