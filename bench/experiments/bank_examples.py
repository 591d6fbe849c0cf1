"""Session 35, measured (docs/ROUTING.md, "The topic adapter"): pseudo-examples from a bank of results.

An owner's rule texts are descriptions; a message is a result. Result-to-result similarity may be the
stronger evidence, so each topic borrows the bank results (written for other owners and trades) that sit
nearest its own rule texts and clearly nearer it than the owner's other topics, and they join its rows
(pseudo-relevance feedback on the topic side, done once per rule change). Nearest topic among fold A's
held-out results, with language and owner centring, as bench/train_adapter.py measures an adapter.

    PYTHONPATH=.tools/torch .venv/bin/python bench/experiments/bank_examples.py FOLD_A_ADAPTER.npz

(the adapter from `bench/train_adapter.py --hold law_office,restaurant_owner,school_teacher --out …`)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.fit_routing import FITTING_SETS
from bench.train_adapter import centre, language_means_of, load, owner_space
from topic_dashboard.routing.e5_runtime import OnnxE5
from topic_dashboard.routing.semantic import message_text

HOLD = {"law_office", "restaurant_owner", "school_teacher"}


def bank_texts(train: list[dict]) -> list[str]:
    texts = [m for s in train for m, _, _ in s["messages"]]
    for path in sorted((ROOT / "bench/routing_training/owners").glob("*.json")):
        texts += [m for m, _, _ in load(path)["messages"]]
    for path in sorted((ROOT / "bench/routing_training").glob("*.json")):
        for item in json.loads(path.read_text())["items"]:
            if item.get("label") == "result" or str(item.get("kind", "")).startswith("result"):
                texts.append(message_text(item.get("title"), None, item["text"]))
    return sorted(set(texts))


def main(adapter: str) -> None:
    sets = [load(p) for p in FITTING_SETS]
    train = [s for s in sets if s["name"] not in HOLD]
    test = [s for s in sets if s["name"] in HOLD]
    enc = OnnxE5(threads=2, adapter_file=adapter)
    cache: dict[str, np.ndarray] = {}

    def emb(texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        for i in range(0, len(missing), 64):
            chunk = missing[i : i + 64]
            for t, row in zip(chunk, enc.query(chunk), strict=True):
                cache[t] = row
        return np.stack([cache[t] for t in texts])

    cent = language_means_of(emb, train)
    bank = bank_texts(train)
    print(f"bank: {len(bank)} results")
    bv_raw = centre(emb(bank), bank, cent)

    tally: dict[tuple[object, ...], int] = {}
    total = 0
    for s in test:
        keys, spans, tv, cents, oc = owner_space(s, emb, cent)
        mt = [m for m, _, _ in s["messages"]]
        mv = oc(centre(emb(mt), mt, cent))
        tvo, co, bv = oc(tv), oc(cents), oc(bv_raw)
        sims, csim = mv @ tvo.T, mv @ co.T
        rows = np.stack([sims[:, a:b].max(1) for a, b in spans], 1)
        base = 0.5 * rows + 0.5 * csim
        # each bank result scored against the owner's topics as a message would be
        bs = bv @ tvo.T
        bank_topic = np.stack([0.5 * bs[:, a:b].max(1) + 0.5 * (bv @ co[j]) for j, (a, b) in enumerate(spans)], 1)
        ordered = np.sort(bank_topic, 1)
        lead, owner_best = ordered[:, -1] - ordered[:, -2], bank_topic.argmax(1)
        gold = np.array([keys.index(g) for _, g, _ in s["messages"]])
        total += len(gold)
        tally[("base",)] = tally.get(("base",), 0) + int((base.argmax(1) == gold).sum())
        for k in (3, 5, 10, 20):
            for margin in (0.0, 0.03):
                borrowed = np.zeros_like(base)  # a message's closest borrowed result, per topic
                for j in range(len(keys)):
                    ok = np.where((owner_best == j) & (lead >= margin))[0]
                    if len(ok):
                        top = ok[np.argsort(-bank_topic[ok, j])[:k]]
                        borrowed[:, j] = (mv @ bv[top].T).max(1)
                variants = {"rows": 0.5 * np.maximum(rows, borrowed) + 0.5 * csim}  # they join the topic's rows
                variants |= {f"mix {w}": (1 - w) * base + w * borrowed for w in (0.25, 0.5)}
                for name, score in variants.items():
                    key = (name, k, margin)
                    tally[key] = tally.get(key, 0) + int((score.argmax(1) == gold).sum())
    for key, right in sorted(tally.items(), key=lambda kv: -kv[1]):
        print(key, f"{right}/{total}")


if __name__ == "__main__":
    main(sys.argv[1])
