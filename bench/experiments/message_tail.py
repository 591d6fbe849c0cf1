"""Session 35, measured and not shipped (docs/ROUTING.md, "Where the vectors live"): does the rest of a message
help? A message is embedded as its title, summary and first ~32 model tokens. Nearest topic among fold A's
held-out results (language and owner centring, as bench/train_adapter.py measures an adapter), with each
message's vector mixed with the vector of its next ~32 tokens (weight w; w = 0 is the shipped reading).

    PYTHONPATH=.tools/torch .venv/bin/python bench/experiments/message_tail.py FOLD_A_ADAPTER.npz

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
from topic_dashboard.routing.evaluation import load_eval_set
from topic_dashboard.routing.semantic import message_text

HOLD = {"law_office", "restaurant_owner", "school_teacher"}


def main(adapter: str) -> None:
    enc = OnnxE5(threads=2, adapter_file=adapter)
    cache: dict[str, np.ndarray] = {}

    def emb(texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        for i in range(0, len(missing), 64):
            for t, row in zip(missing[i : i + 64], enc.query(missing[i : i + 64]), strict=True):
                cache[t] = row
        return np.stack([cache[t] for t in texts])

    sets = [load(p) for p in FITTING_SETS]
    cent = language_means_of(emb, [s for s in sets if s["name"] not in HOLD])
    tail: dict[str, str] = {}  # a message as embedded -> the next ~32 tokens of it
    for path in FITTING_SETS:
        if path.stem in HOLD:
            for c in load_eval_set(path)[1]:
                head = message_text(c.get("title"), c.get("summary"), c["content"])
                whole = "\n".join([x for x in (c.get("title"), c.get("summary")) if x] + [c["content"].strip()])
                rest = whole[len(head) :].strip()
                tail[head] = message_text(None, None, rest) if rest else ""

    def reader(w: float) -> Callable[[list[str]], np.ndarray]:
        def read(texts: list[str]) -> np.ndarray:
            rows = emb(texts)
            for i, t in enumerate(texts):
                if w and tail.get(t):
                    mixed = (1 - w) * rows[i] + w * emb([tail[t]])[0]
                    rows[i] = mixed / np.linalg.norm(mixed)
            return rows

        return read

    right = dict.fromkeys((0.0, 0.2, 0.35, 0.5), 0)
    total = with_tail = 0
    for s in (s for s in sets if s["name"] in HOLD):
        keys = list(s["topics"])
        gold = np.array([keys.index(g) for _, g, _ in s["messages"]])
        total += len(gold)
        with_tail += sum(1 for m, _, _ in s["messages"] if tail.get(m))
        for w in right:
            right[w] += int((topic_scores(s, reader(w), cent).argmax(1) == gold).sum())
    print(f"messages with more than ~32 tokens: {with_tail} of {total}")
    print("weight of the rest -> right:", right)


if __name__ == "__main__":
    main(sys.argv[1])
