"""Session 38: a finished result followed by an offer or a question back ("Received $3,200 from Henderson.
Want me to send a receipt?", "几家快递比下来中通最便宜 ¥380，要下单吗？") is taken by the patterns for
conversation, and the noise model, reading the whole message, sees the question. Here the noise model is asked
about the message's lead instead: what comes before its last asking sentence (or, in a one-sentence message,
before its last asking clause), at the shipped bar (engine.CONVERSATION_OVERRULED_UNDER). Counts of messages
the patterns take for conversation (question, greeting, acknowledgement) that end in a question mark, and of
those whose lead the model reads as a result: the reviewer's results (bench/pattern_review, not fitted) and
the conversation of every corpus (fitted: the noise model learnt them, so this side is optimistic; the blind
sets are measured through the engine by routing_eval.py and noise_eval.py, counts only).

    .venv/bin/python bench/experiments/offer_lead.py [--show]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.embedding_cache import CachingEmbedder
from bench.noise_eval import REVIEW
from topic_dashboard.routing.calibration import calibration, ngram_features, noise_signals
from topic_dashboard.routing.engine import CONVERSATION_OVERRULED_UNDER, message_reading
from topic_dashboard.routing.noise import classify_noise, offer_lead
from topic_dashboard.routing.semantic import message_text, read_message
from topic_dashboard.routing.text import normalize

ROOT = Path(__file__).resolve().parents[2]
CONVERSATION = ("question", "greeting", "ack")


def part_probability(embedder: CachingEmbedder, model: str, text: str) -> float:
    """What the fitted `model` ("noise": conversation, "stream": work going on) gives `text` read alone, as the
    engine reads a part of a message (engine.reads_result with a `part`)."""
    fitted = calibration()
    fitted_model = fitted.noise if model == "noise" else fitted.stream
    assert fitted_model is not None
    reading = message_reading(read_message(embedder, fitted.centring, message_text(None, None, text)))
    signals = noise_signals(content=text, title=None, message_type=None)
    return float(fitted_model.probability(ngram_features(text), reading, signals))


def reviewer_results() -> list[str]:
    """Every finished result of session 36's pattern review (never fitted on)."""
    review = json.loads(REVIEW.read_text(encoding="utf-8"))
    return [r if isinstance(r, str) else r["text"] for part in ("taken", "borderline", "kept") for r in review[part]]


def corpus_texts(pattern: str, keep: Callable[[dict[str, Any]], bool]) -> list[str]:
    """The texts of the training corpora (bench/routing_training/`pattern`) whose item `keep` takes."""
    paths = sorted((ROOT / "bench/routing_training").glob(pattern))
    return [
        item["text"] for path in paths for item in json.loads(path.read_text(encoding="utf-8"))["items"] if keep(item)
    ]


def main() -> None:
    show = "--show" in sys.argv
    embedder = CachingEmbedder()
    results = reviewer_results()
    chat = corpus_texts("*.json", lambda i: i["label"] != "result" and i.get("kind") not in ("progress", "tool_hint"))
    for name, texts in (("reviewer's results", results), ("fitted corpora's conversation", chat)):
        flagged = [t for t in texts if classify_noise(normalize(t)) in CONVERSATION]
        leads = [(t, lead) for t in flagged if (lead := offer_lead(t)) is not None]
        read = [(t, lead, p) for t, lead in leads if (p := part_probability(embedder, "noise", lead)) < 1.0]
        released = [(t, lead, p) for t, lead, p in read if p < CONVERSATION_OVERRULED_UNDER]
        print(
            f"{name}: {len(texts)}; taken for conversation {len(flagged)}; with a lead {len(leads)}; lead read as a result {len(released)}"
        )
        if show:
            for t, lead, p in sorted(read, key=lambda r: r[2]):
                print(
                    f"  {p:.3f} {'RELEASED' if p < CONVERSATION_OVERRULED_UNDER else '        '} | {lead[:70]} | {t[:100]}"
                )
    embedder.save()


if __name__ == "__main__":
    main()
