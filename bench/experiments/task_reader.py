"""Session 36, measured and not shipped (docs/ROUTING.md, "Known gaps"): the task reader, a second pass through
layers FORM_LAYER-11 with an adapter of its own (LoRA rank 16, biases and norms) and a linear head, trained to
tell the bot's own unfinished work and tool calls from finished results, asked by the engine after the stream
model when that model is unsure (0.1 <= p < its bar).

Its rows are the stream model's, with their texts (`bench/fit_routing.py --dump ROWS.npz`): progress reports
and tool hints against results, from the fitting sets, every training corpus and the templates' examples.
First the rows are held out as `fit_routing.py --cv` holds them (each corpus file, one writer's work, and each
fitting set whole; 6 folds): the bar is the lowest that loses none of the held-out results (every held-out
result's probability is under it). Then the reader is trained on every row and written with that bar.

To run it in the engine (the runtime's second pass, the lazy read from the kept form-layer states, the engine's
gate, the bench cache and the tests are in `task_reader.patch`):

    .venv/bin/python bench/fit_routing.py --dump /tmp/rows.npz
    PYTHONPATH=.tools/torch .venv/bin/python bench/experiments/task_reader.py /tmp/rows.npz --write
    git apply bench/experiments/task_reader.patch   # on 2d42460 (session 36); later engines: git apply -3
    .venv/bin/python -c "from topic_dashboard.routing.e5_runtime import write_graph; write_graph()"
    .venv/bin/python bench/noise_eval.py; .venv/bin/python bench/routing_eval.py --sets blind

About 25 minutes on two cores (six held-out folds and the final fit, one epoch each). The blind sets and
blind noise batches are never read here.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.fit_routing import writer_folds
from bench.train_adapter import Encoder, Inputs, adapter_params
from topic_dashboard.routing.e5_runtime import FORM_LAYER, E5File, bundled_model_path

FOLDS = 6
EPOCHS = 1
READER_FILE = "e5_task_reader.npz"  # e5_runtime.READER_FILE with task_reader.patch applied
OUT = ROOT / "topic_dashboard/routing/fitted" / READER_FILE


class Middle:
    """Each text's hidden states entering FORM_LAYER (frozen: the LoRA only changes the layers above)."""

    def __init__(self, enc: Encoder, inputs: Inputs, texts: list[str]) -> None:
        self.states: dict[str, torch.Tensor] = {}
        order = sorted(set(texts), key=lambda t: len(inputs.ids(t)))
        with torch.no_grad():
            for at in range(0, len(order), 64):
                chosen = order[at : at + 64]
                x, valid = inputs.batch(chosen)
                mask = ((1.0 - valid) * -1e9)[:, None, None, :]
                for m in enc.layers[:FORM_LAYER]:
                    x = enc.layer(m, x, mask)
                for row, text in enumerate(chosen):
                    self.states[text] = x[row, : int(valid[row].sum())].clone()

    def batch(self, texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
        longest = max(len(self.states[t]) for t in texts)
        x = torch.zeros(len(texts), longest, 384)
        valid = torch.zeros(len(texts), longest)
        for row, text in enumerate(texts):
            s = self.states[text]
            x[row, : len(s)] = s
            valid[row, : len(s)] = 1.0
        return x, valid


def upper(enc: Encoder, x: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    mask = ((1.0 - valid) * -1e9)[:, None, None, :]
    for m in enc.layers[FORM_LAYER:]:
        x = enc.layer(m, x, mask)
    pooled = (x * valid[:, :, None]).sum(1) / valid.sum(1, keepdim=True)
    return F.normalize(pooled, dim=-1)


def train_reader(
    f: E5File, middle: Middle, train: list[tuple[str, int]], epochs: int, seed: int = 0
) -> tuple[Encoder, torch.nn.Linear]:
    torch.manual_seed(seed)
    random.seed(seed)
    enc = Encoder(f, 16, FORM_LAYER)
    head = torch.nn.Linear(384, 1)
    y_all = np.array([y for _, y in train], dtype=np.float32)
    pos_weight = torch.tensor((1 - y_all.mean()) / y_all.mean())
    lora = [
        p
        for i, m in enumerate(enc.layers)
        if i >= FORM_LAYER
        for name, p in m.named_parameters()
        if not name.endswith("_w") or name.endswith("ln_w")
    ]
    opt = torch.optim.AdamW(
        [{"params": head.parameters(), "lr": 1e-2}, {"params": lora, "lr": 3e-4}],  # type: ignore[list-item]
        weight_decay=0.0,
    )
    rows = train[:]
    enc.train()
    for _ in range(epochs):
        random.shuffle(rows)
        for at in range(0, len(rows), 32):
            batch = rows[at : at + 32]
            x, valid = middle.batch([t for t, _ in batch])
            logit = head(upper(enc, x, valid) * 10).squeeze(1)
            target = torch.tensor([y for _, y in batch], dtype=torch.float32)
            loss = F.binary_cross_entropy_with_logits(logit, target, pos_weight=pos_weight)
            opt.zero_grad()
            loss.backward()
            opt.step()
    enc.eval()
    return enc, head


def logits(enc: Encoder, head: torch.nn.Linear, middle: Middle, texts: list[str]) -> np.ndarray:
    out = []
    with torch.no_grad():
        for at in range(0, len(texts), 64):
            x, valid = middle.batch(texts[at : at + 64])
            out.append(head(upper(enc, x, valid) * 10).squeeze(1).numpy())
    return np.concatenate(out) if out else np.zeros(0)


def held_out_logits(
    f: E5File, middle: Middle, texts: list[str], y: np.ndarray, folds: np.ndarray, epochs: int
) -> np.ndarray:
    """Each row's logit from a reader trained on the folds that do not hold it."""
    h = np.zeros(len(y))
    for fold in range(FOLDS):
        test = np.flatnonzero(folds == fold)
        train = [(texts[i], int(y[i])) for i in np.flatnonzero(folds != fold)]
        enc, head = train_reader(f, middle, train, epochs)
        h[test] = logits(enc, head, middle, [texts[i] for i in test])
        print(f"held out fold {fold}: {len(test)} rows", flush=True)
    return h


def write_reader(enc: Encoder, head: torch.nn.Linear, bar: float, path: Path) -> None:
    out = adapter_params(enc, FORM_LAYER)
    out["head.w"] = head.weight.detach().numpy().reshape(-1).astype(np.float32)
    out["head.b"] = head.bias.detach().numpy().reshape(-1).astype(np.float32)
    out["bar"] = np.array([bar], np.float32)
    with path.open("wb") as handle:
        np.savez_compressed(handle, **out)
    print(f"wrote {path} ({path.stat().st_size // 1024} KB), bar {bar}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", help="bench/fit_routing.py --dump's file")
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--held-out", help="a file of held-out logits saved by an earlier run (skips the folds)")
    parser.add_argument("--write", action="store_true", help=f"write routing/fitted/{READER_FILE}")
    args = parser.parse_args()
    t0 = time.time()
    data = np.load(args.rows)
    y, texts = data["sy"], [str(t) for t in data["stexts"]]
    folds = writer_folds(data["sgroups"], FOLDS)
    f = E5File(bundled_model_path())
    middle = Middle(Encoder(f, 0), Inputs(f), texts)
    if args.held_out:
        h = np.load(args.held_out)
    else:
        h = held_out_logits(f, middle, texts, y, folds, args.epochs)
        np.save(Path(args.rows).with_suffix(f".reader-e{args.epochs}.npy"), h)
    p = 1 / (1 + np.exp(-h))
    results = np.sort(p[y == 0])[::-1]
    # just over the held-out results' highest probability, rounded up to the next thousandth
    bar = float(np.ceil((results[0] + 1e-6) * 1000) / 1000)
    caught = int(((p >= bar) & (y == 1)).sum())
    print(
        f"held out: bar {bar}: {caught} of {int(y.sum())} progress reports and tool hints over it, "
        f"{int(((p >= bar) & (y == 0)).sum())} of {int((y == 0).sum())} results ({time.time() - t0:.0f}s)"
    )
    if args.write:
        enc, head = train_reader(f, middle, [(t, int(v)) for t, v in zip(texts, y, strict=True)], args.epochs)
        write_reader(enc, head, bar, OUT)


if __name__ == "__main__":
    main()
