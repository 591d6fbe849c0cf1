"""Session 37: may the noise model overrule the patterns' conversation verdicts (an acknowledgement, a greeting,
a question back) as the stream model overrules their progress and tool-hint ones? docs/ROUTING.md, "Known gaps".

Reads the noise model's rows with their texts (`bench/fit_routing.py --dump ROWS.npz`) and holds them out as
`fit_routing.py --cv` does (each corpus file, one writer's work, and each fitting set whole; 6 folds). Among the
held-out rows the patterns take for conversation, it prints how many real pleasantries (noise) and how many
results the noise model reads as a result (probability of conversation under each bar): the first would be
published by such an overrule, the second kept. Then, with the model fitted on every row, how many of the
reviewer's results the patterns take for conversation (bench/pattern_review/session36_results.json) it keeps.

    .venv/bin/python bench/experiments/conversation_overrule.py /tmp/rows.npz
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.fit_routing import NOISE_L2, adam, noise_row, writer_folds
from topic_dashboard.routing.calibration import NGRAM_DIM, calibration, noise_signals
from topic_dashboard.routing.engine import message_reading
from topic_dashboard.routing.noise import classify_noise
from topic_dashboard.routing.semantic import default_embedder, read_message
from topic_dashboard.routing.text import normalize

CONVERSATION = ("ack", "greeting", "question")
BARS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float, steps: int = 1500) -> np.ndarray:
    """fit_routing.fit_logistic (balanced, L2 on all but the bias, the same Adam), with the n-gram columns
    (nearly all zeros) multiplied as sparse: the same weights, minutes faster."""
    weights = np.where(y == 1, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9))
    rows, cols = np.nonzero(x[:, :NGRAM_DIM])
    values = x[rows, cols].astype(np.float64)
    dense = np.hstack([x[:, NGRAM_DIM:], np.ones((len(x), 1))]).astype(np.float64)
    n = len(y)

    def grad(w: np.ndarray) -> np.ndarray:
        z = np.bincount(rows, weights=values * w[cols], minlength=n) + dense @ w[NGRAM_DIM:]
        r = (1 / (1 + np.exp(-z)) - y) * weights / n
        g = np.concatenate([np.bincount(cols, weights=values * r[rows], minlength=NGRAM_DIM), dense.T @ r])
        g[:-1] += l2 * w[:-1]
        return g

    return adam(grad, np.zeros(x.shape[1] + 1), steps=steps, lr=0.05)


def probabilities(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-(np.hstack([x, np.ones((len(x), 1))]) @ w)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", help="the .npz fit_routing.py --dump wrote")
    args = parser.parse_args()
    data = np.load(args.rows)
    x, y, groups, texts = data["x"], data["y"], data["groups"], data["texts"]
    kinds = np.array([classify_noise(normalize(str(t))) or "" for t in texts])
    folds = writer_folds(groups)
    p = np.zeros(len(y))
    for f in range(int(folds.max()) + 1):
        test = folds == f
        w = fit_logistic(x[~test], y[~test], l2=NOISE_L2, steps=1500)
        p[test] = probabilities(w, x[test])
    caught = np.isin(kinds, CONVERSATION)
    print(
        f"held out by writer: the patterns take {int((caught & (y == 1)).sum())} of {int((y == 1).sum())} "
        f"pleasantries and {int((caught & (y == 0)).sum())} of {int((y == 0).sum())} results for conversation"
    )
    for kind in CONVERSATION:
        print(
            f"  {kind}: {int(((kinds == kind) & (y == 1)).sum())} pleasantries, {int(((kinds == kind) & (y == 0)).sum())} results"
        )
    for bar in BARS:
        under = caught & (p < bar)
        print(
            f"  p(conversation) < {bar}: pleasantries released {int((under & (y == 1)).sum())}, "
            f"results kept {int((under & (y == 0)).sum())}"
        )
    released = caught & (y == 1) & (p < 0.05)
    for i in np.flatnonzero(released)[:20]:
        print(f"    {p[i]:.3f} {kinds[i]} {groups[i]}: {str(texts[i])[:90]!r}")

    w = fit_logistic(x, y, l2=NOISE_L2, steps=1500)
    embedder = default_embedder().embedder
    assert embedder is not None
    centring = calibration().centring
    review = json.loads((ROOT / "bench/pattern_review/session36_results.json").read_text(encoding="utf-8"))
    taken = [item["text"] for item in review["taken"] if classify_noise(normalize(item["text"])) in CONVERSATION]
    rows = np.array(
        [
            noise_row(
                text,
                message_reading(read_message(embedder, centring, text)),
                noise_signals(content=text, title=None, message_type=None),
            )
            for text in taken
        ]
    )
    rp = probabilities(w, rows)
    print(f"reviewer's results the patterns take for conversation: {len(taken)}")
    for bar in BARS:
        print(f"  p(conversation) < {bar}: kept {int((rp < bar).sum())}")
    for text, value in sorted(zip(taken, rp, strict=True), key=lambda tv: tv[1]):
        print(f"    {value:.3f} {text[:90]!r}")


if __name__ == "__main__":
    main()
