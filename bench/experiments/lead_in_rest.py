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

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.embedding_cache import CachingEmbedder
from topic_dashboard.routing.calibration import calibration, ngram_features, noise_signals
from topic_dashboard.routing.engine import PATTERN_OVERRULED_UNDER, message_reading
from topic_dashboard.routing.noise import classify_noise, progress_rest
from topic_dashboard.routing.semantic import message_text, read_message
from topic_dashboard.routing.text import normalize

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    embedder = CachingEmbedder()
    fitted = calibration()
    assert fitted.stream is not None

    def p_work(text: str) -> float:
        reading = message_reading(read_message(embedder, fitted.centring, message_text(None, None, text)))
        signals = noise_signals(content=text, title=None, message_type=None)
        return float(fitted.stream.probability(ngram_features(text), reading, signals))

    review = json.loads((ROOT / "bench/pattern_review/session36_results.json").read_text(encoding="utf-8"))
    results = [r if isinstance(r, str) else r["text"] for part in ("taken", "borderline", "kept") for r in review[part]]
    corpora = sorted((ROOT / "bench/routing_training").glob("progress_vs_result_*.json"))
    work = [
        item["text"]
        for path in corpora
        for item in json.loads(path.read_text(encoding="utf-8"))["items"]
        if item.get("kind") in ("progress", "tool_hint")
    ]
    for name, texts in (("reviewer's results", results), ("training corpora's work and tool hints", work)):
        flagged = [t for t in texts if classify_noise(normalize(t)) in ("progress", "tool_hint")]
        rests = [(t, p_work(rest)) for t in flagged if (rest := progress_rest(t)) is not None]
        kept = sum(p < PATTERN_OVERRULED_UNDER for _, p in rests)
        print(
            f"{name}: {len(texts)}; taken for work {len(flagged)}; with a lead-in {len(rests)}; rest read as a result {kept}"
        )
        for text, p in sorted(rests, key=lambda r: r[1]):
            print(f"  {p:.3f} {'KEPT' if p < PATTERN_OVERRULED_UNDER else '    '} | {text[:100]}")
    embedder.save()


if __name__ == "__main__":
    main()
