"""Fit routing's calibration (topic_dashboard/routing/fitted/calibration.json) on the DEV sets only.

Run from the repo root:  .venv/bin/python bench/fit_routing.py [--report]

What is fitted, and on what (docs/ROUTING.md):
- the language means of the embedding space (for language centring), from every text of the
  fitting sets and the noise-vs-result corpus;
- the topic-choice model (conditional logit over topics + "nothing fits"), on the results and
  vetoes of the fitting sets;
- the noise model (logistic on the message's form vector, its n-grams and plain signals), on the fitting sets'
  messages and the noise-vs-result corpora, and the stream model (the same kind, progress reports and tool hints
  against results) on every corpus; their L2 and bars are chosen by `--cv`, which holds out each corpus file
  (one writer's work) and each fitting set whole (NOISE_THRESHOLD, STREAM_THRESHOLD below);
- Platt curves of the rules-only decision's score.
Fitting sets: bench/routing_sets/dev/*.json and the design-subject sets in tests/ (tuned on
before). The blind sets (bench/routing_sets/blind/) are never read here.
`--crossfit DIR` reads each set's topic-choice evidence with a fold adapter that never trained on it
(train_adapter.py --out; session 33, whole pipeline held out on fold A: 79.6% either way, so the shipped
calibration is fitted without it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.embedding_cache import CachingEmbedder, caching_adapter_embedder
from topic_dashboard.routing.calibration import (
    NGRAM_DIM,
    NOISE_SIGNALS,
    TOPIC_FEATURES,
    from_dict,
    ngram_features,
    noise_signals,
)
from topic_dashboard.routing.compiler import compile_rules
from topic_dashboard.routing.engine import evidence, feature_rows, matches, message_reading, route_message, rules_score
from topic_dashboard.routing.evaluation import load_eval_set, request_of
from topic_dashboard.routing.semantic import (
    LanguageCentring,
    build_index,
    cjk_share,
    message_text,
    read_message,
    rule_texts,
)
from topic_dashboard.rule_templates import TEMPLATES

FITTING_SETS = sorted((ROOT / "bench/routing_sets/dev").glob("*.json")) + [
    ROOT / "tests/topic_dashboard/routing/eval_set.json",
    ROOT / "tests/topic_dashboard/routing/eval_set_alt.json",
    ROOT / "tests/topic_dashboard/routing/eval_set_blind.json",
]
# progress_vs_result_3.json (progress, tool hints and finished look-alikes) taught the patterns in
# routing/noise.py, not this model: fitted with it, the model published more of the other noise
# (dev sets 4 -> 10 of 411) and caught no more progress than the patterns already do.
# Since session 31 the other corpora's finished results (not their progress or tool hints) join it.
NOISE_CORPORA = sorted((ROOT / "bench/routing_training").glob("noise_vs_result*.json"))
# The stream model (progress reports and tool hints vs finished results) learns from every corpus.
STREAM_CORPORA = sorted((ROOT / "bench/routing_training").glob("*.json"))
STREAM_KINDS = ("progress", "tool_hint")
# Session 35, from the grouped cross-validation (--cv: each corpus file, the work of one writer over its own
# trades, and each fitting set held out whole, 6 folds; the model alone, before the patterns), with nineteen
# corpora: L2 1e-4 at 0.9 (sessions 29-34) caught 2,587 of 3,498 progress reports and tool hints and lost 10
# of 5,532 results; L2 1e-5 at 0.97 catches 2,670 and loses 3 (at 0.95: 2,832 and 9; 3e-6 at 0.98: 2,762
# and 4; 3e-5 at 0.95: 2,569 and 3). Holding out a corpus's trades alone (the earlier protocol) leaves the
# writer's style in the training folds and flattered the stronger L2.
STREAM_THRESHOLD = 0.97
STREAM_L2 = 1e-5
OUT = ROOT / "topic_dashboard/routing/fitted/calibration.json"
LANGUAGE_ALPHA = 0.8  # chosen on the dev sets: cross-language 30% -> 80%, same-language -5 points
NOISE_KINDS = ("noise", "progress", "tool_hint")
# The design-subject sets (what the shipped templates cover, 221 results) count this many times in
# the topic-choice fit beside the seven dev sets (924): at 1 they were outweighed 4:1 and fell
# under their 95% target; see docs/ROUTING.md, "Calibration".
DESIGN_WEIGHT = 3
# Session 35, the same cross-validation: L2 1e-4 at 0.9 (sessions 28-34) caught 1,115 of 1,329 conversation
# messages and lost 14 of 5,505 results; L2 1e-5 at 0.97 catches 1,071 and loses 6 (at 0.95: 1,126 and 11;
# 3e-5 at 0.97: 988 and 6). Results lost cost more than noise published (with it the blind sets publish 2.8% of
# their noise, 2.3% before, against a 5% target), so 0.97.
NOISE_THRESHOLD = 0.97
NOISE_L2 = 1e-5


def weighted(
    choice_rows: dict[str, list[tuple[np.ndarray, int]]], design_weight: int = DESIGN_WEIGHT
) -> list[tuple[np.ndarray, int]]:
    """Every fitting set's rows, the design-subject sets' `design_weight` times (see DESIGN_WEIGHT)."""
    out: list[tuple[np.ndarray, int]] = []
    for name, rows in choice_rows.items():
        out += rows * (design_weight if name.startswith("eval_set") else 1)
    return out


def noise_row(text: str, vector: np.ndarray, signals: list[float]) -> np.ndarray:
    grams = np.zeros(NGRAM_DIM, dtype=np.float32)
    for bucket, value in ngram_features(text).items():
        grams[bucket] = value
    return np.concatenate([grams, vector, np.asarray(signals, dtype=np.float32)])


def adam(grad: Any, w: np.ndarray, steps: int = 3000, lr: float = 0.1) -> np.ndarray:
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, steps + 1):
        g = grad(w)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w = w - lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return w


def fit_choice(rows: Sequence[tuple[np.ndarray, int]], l2: float = 1e-4) -> np.ndarray:
    """Conditional logit: rows of (features per topic [T, d], index of the right topic or T for 'nothing fits')."""
    t_max = max(len(x) for x, _ in rows) + 1
    d = rows[0][0].shape[1]
    a = np.zeros((len(rows), t_max, d))
    mask = np.zeros((len(rows), t_max), bool)
    nothing = np.zeros((len(rows), t_max))
    y = np.zeros(len(rows), int)
    for i, (x, label) in enumerate(rows):
        a[i, : len(x)] = x
        mask[i, : len(x) + 1] = True
        nothing[i, len(x)] = 1
        y[i] = label
    onehot = np.zeros((len(rows), t_max))
    onehot[np.arange(len(rows)), y] = 1

    def grad(w: np.ndarray) -> np.ndarray:
        u = np.where(mask, a @ w[:d] + w[d] * nothing, -1e9)
        u -= u.max(1, keepdims=True)
        p = np.exp(u)
        p /= p.sum(1, keepdims=True)
        g = p - onehot
        return np.append(np.einsum("nt,ntd->d", g, a) / len(y) + l2 * w[:d], (g * nothing).sum() / len(y))

    return adam(grad, np.zeros(d + 1))


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float, balanced: bool = True, steps: int = 2000) -> np.ndarray:
    weights = (
        np.where(y == 1, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9)) if balanced else np.ones(len(y))
    )
    xb = np.hstack([x, np.ones((len(x), 1))])

    def grad(w: np.ndarray) -> np.ndarray:
        p = 1 / (1 + np.exp(-(xb @ w)))
        g = xb.T @ ((p - y) * weights) / len(y)
        g[:-1] += l2 * w[:-1]
        return g

    return adam(grad, np.zeros(xb.shape[1]), steps=steps, lr=0.05)


def fitted_centring(embedder: Any, docs: dict[Path, Any], corpus: list[dict[str, Any]]) -> LanguageCentring:
    """Language means from every text we fit on (raw vectors split by language), and the fitting sets'
    topics' mean (language-centred): a bot with fewer than 3 topics is centred by it."""
    texts: list[str] = [item["text"] for item in corpus]
    for path in docs:
        topics, cases = load_eval_set(path)
        for spec in topics:
            inc, exc, neg = rule_texts(spec)
            texts += [rt.text for rt in (*inc, *exc, *neg)]
        texts += [message_text(c.get("title"), c.get("summary"), c["content"]) for c in cases]
    texts = sorted(set(texts))
    raw = embedder.embed(texts)
    shares = np.array([cjk_share(t) for t in texts])
    mean_zh = raw[shares > 0.8].mean(0)
    mean_en = raw[shares < 0.2].mean(0)
    centring = LanguageCentring(mean_zh.astype(np.float32), mean_en.astype(np.float32), LANGUAGE_ALPHA)
    topic_centroids = []
    for path in docs:
        for spec in load_eval_set(path)[0]:
            if spec.is_active and not spec.is_default_fallback:
                inc = rule_texts(spec)[0]
                rows = np.stack(
                    [centring.apply(v, rt.text) for v, rt in zip(embedder.embed([rt.text for rt in inc]), inc)]
                )
                mean = rows.mean(0)
                topic_centroids.append(mean / np.linalg.norm(mean))
    topic_mean = np.mean(topic_centroids, axis=0).astype(np.float32)
    print(f"language means from {int((shares > 0.8).sum())} Chinese and {int((shares < 0.2).sum())} English texts")
    return LanguageCentring(centring.mean_zh, centring.mean_en, LANGUAGE_ALPHA, topic_mean)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", action="store_true", help="also print leave-one-set-out accuracy")
    parser.add_argument("--cv", action="store_true", help="also cross-validate the noise model (slow)")
    parser.add_argument("--design-weight", type=int, default=DESIGN_WEIGHT, help="see DESIGN_WEIGHT")
    parser.add_argument("--hold", default="", help="fitting sets to leave out (comma-separated stems; experiments)")
    parser.add_argument("--dump", help="also save the noise and stream models' rows to this .npz (experiments)")
    parser.add_argument(
        "--crossfit",
        help="a folder of fold adapters (train_adapter.py --out, folds.json beside them): each set's topic-choice "
        "evidence is read with the adapter that never saw it",
    )
    args = parser.parse_args()
    held = set(args.hold.split(",")) if args.hold else set()
    fitting_sets = [path for path in FITTING_SETS if path.stem not in held]
    embedder = CachingEmbedder()
    docs = {path: json.loads(path.read_text(encoding="utf-8")) for path in fitting_sets}
    corpus = [item for path in NOISE_CORPORA for item in json.loads(path.read_text(encoding="utf-8"))["items"]]

    # 1. Language means (and the fitting topics' mean) of the shipped model: what routing centres with.
    centring = fitted_centring(embedder, docs, corpus)
    # Cross-fitting: the topic-choice weights are fitted on evidence the adapter never trained on, so they
    # weigh meaning as it reads a new owner's topics, not as it reads the sets it learned.
    choice_reading: dict[Path, tuple[CachingEmbedder, LanguageCentring]] = {}
    if args.crossfit:
        folder = Path(args.crossfit)
        for name, fold_held in json.loads((folder / "folds.json").read_text()).items():
            fold_embedder = caching_adapter_embedder(folder / name)
            fold_centring = fitted_centring(fold_embedder, docs, corpus)
            for path in docs:
                if path.stem in fold_held:
                    if path in choice_reading:
                        raise SystemExit(f"{path.stem} is held out by two fold adapters")
                    choice_reading[path] = (fold_embedder, fold_centring)
            fold_embedder.save()
        missing = [path.stem for path in docs if path not in choice_reading]
        if missing:
            raise SystemExit(f"no fold adapter holds out {missing}")

    # 2. Evidence of every case. (The rules-only decision below needs a calibration to load; its
    # topic choice reads none of it, so the previous file stands in, adapted to today's features.)
    previous = json.loads(OUT.read_text(encoding="utf-8"))
    previous.update(topic_features=list(TOPIC_FEATURES), topic_weights=[0.0] * len(TOPIC_FEATURES))
    stand_in = from_dict(previous)
    choice_rows: dict[str, list[tuple[np.ndarray, int]]] = {}
    noise_x: list[np.ndarray] = []
    noise_y: list[int] = []
    noise_group: list[str] = []
    noise_text: list[str] = []  # the message's content (--dump: what the patterns read)
    stream_x: list[np.ndarray] = []
    stream_y: list[int] = []
    stream_group: list[str] = []
    stream_text: list[str] = []  # as embedded (--dump: bench/experiments read the rows with their texts)
    rules_points: list[tuple[float, bool, bool]] = []  # (score, matched?, right?)
    for path in docs:
        topics, cases = load_eval_set(path)
        compiled = compile_rules(topics)
        index = build_index(topics, embedder, centring)
        choice_index = build_index(topics, *choice_reading[path]) if path in choice_reading else index
        fallback = next((t.topic_key for t in topics if t.is_default_fallback), None)
        rows = choice_rows.setdefault(path.name, [])
        for case in cases:
            request = request_of(case)
            scores, vector, sims, _noise, _overruled, _fallback_like = evidence(compiled, request, index)  # no overrule
            assert vector is not None and sims is not None  # an index was given
            kind = (case.get("message_type") or "").lower()
            expect = case["expect"]
            # Messages the patterns already catch still teach the noise model (measured: fitting on
            # them too publishes less noise on the dev sets than leaving them out).
            filtered = kind in ("progress", "tool_hint", "chat")
            if not filtered and case.get("topic_enabled", True):
                is_noise = expect is None and case["kind"] in NOISE_KINDS
                if expect is not None or is_noise:
                    signals = noise_signals(content=case["content"], title=case.get("title"), message_type=kind)
                    noise_x.append(noise_row(case["content"], vector, signals))
                    noise_y.append(int(is_noise))
                    noise_group.append(path.name)
                    noise_text.append(case["content"])
                    if expect is not None or case["kind"] in STREAM_KINDS:
                        stream_x.append(noise_x[-1])
                        stream_y.append(int(expect is None))
                        stream_group.append(path.name)
                        stream_text.append(message_text(request.title, request.summary, request.content))
            if expect is None or not case.get("topic_enabled", True) or case.get("policy", "inbox") != "inbox":
                continue
            if choice_index is not index:
                sims = evidence(compiled, request, choice_index).sims
                assert sims is not None
            features = feature_rows(scores, sims)
            keys = [k for k, _ in features]
            if expect != fallback and expect not in keys:
                continue
            label = keys.index(expect) if expect in keys else len(keys)
            rows.append((np.array([f for _, f in features]), label))
            # The rules-only decision exactly as route_message makes it, and the score it rests on.
            rules_alone = route_message(compiled, request, topic_enabled=True, fallback_policy="inbox", fitted=stand_in)
            live = matches(scores)
            rules_points.append((rules_score(scores, live), bool(live), rules_alone.topic_key == expect))
    embedder.save()
    for path in STREAM_CORPORA:
        for item in json.loads(path.read_text(encoding="utf-8"))["items"]:
            vector = message_reading(read_message(embedder, centring, item["text"]))  # as route_message reads it
            signals = noise_signals(
                content=item["text"], title=item.get("title"), message_type=item.get("message_type")
            )
            row = noise_row(item["text"], vector, signals)
            group = f"corpus:{path.stem}:{item['domain']}"
            # Every corpus's finished results teach the noise model what a result is (terse ones too:
            # "好的，已取消。", "Thumbnail uploaded ✅"); its noise comes from the conversation corpora.
            if path in NOISE_CORPORA or item["label"] == "result":
                noise_x.append(row)
                noise_y.append(int(item["label"] == "noise"))
                noise_group.append(group)
                noise_text.append(item["text"])
            if item["label"] == "result" or item.get("kind") in STREAM_KINDS:
                stream_x.append(row)
                stream_y.append(int(item["label"] != "result"))
                stream_group.append(group)
                stream_text.append(item["text"])
    # The shipped templates' own positive examples are results the stream model must never take for work
    # still going (a refit without them took "对比 Postgres 与 SQLite 的并发写入：…" at 0.909).
    for key, template in TEMPLATES.items():
        for text in template["routing"]["examples"]["positive"]:
            vector = message_reading(read_message(embedder, centring, text))
            stream_x.append(noise_row(text, vector, noise_signals(content=text, title=None, message_type=None)))
            stream_y.append(0)
            stream_group.append(f"templates:{key}")
            stream_text.append(text)
    embedder.save()

    # 3. Fit.
    w = fit_choice(weighted(choice_rows, args.design_weight))
    x, y = np.array(noise_x, dtype=np.float32), np.array(noise_y, dtype=np.float32)
    # A row holds the n-grams, the message's reading (its form vector, then its meaning vector) and the
    # signals; both models read all of it. Measured on the corpora (fitted on): with both parts the models
    # published 33 of their 509 other noise (60 with the noise model on the meaning alone) and kept 1,444
    # of their 1,449 results (1,445); the five dropped are terse results written like an acknowledgement
    # ("已加白名单 ✔️", "发好了，去邮箱看看吧。"). docs/ROUTING.md, "The form vector". Session 31, with every
    # corpus's results in the noise model and corpora 8 and 9: 31 of 509 published, 4 of those 1,449 dropped.
    nw = fit_logistic(x, y, l2=NOISE_L2, steps=1500)
    threshold = NOISE_THRESHOLD
    print(f"noise model: {int(y.sum())} noise / {int((1 - y).sum())} results; threshold {threshold}")
    sx, sy = np.array(stream_x, dtype=np.float32), np.array(stream_y, dtype=np.float32)
    if args.dump:
        np.savez_compressed(
            args.dump,
            x=x,
            y=y,
            groups=np.array(noise_group),
            texts=np.array(noise_text),
            sx=sx,
            sy=sy,
            sgroups=np.array(stream_group),
            stexts=np.array(stream_text),
        )
    sw = fit_logistic(sx, sy, l2=STREAM_L2, steps=1500)
    print(f"stream model: {int(sy.sum())} progress reports and tool hints / {int((1 - sy).sum())} results")
    if args.cv:
        print("noise model, held out:")
        cross_validate_noise(x, y, np.array(noise_group), NOISE_L2)
        print("stream model, held out:")
        cross_validate_noise(sx, sy, np.array(stream_group), STREAM_L2)
    platt = {}
    for matched in (True, False):
        pts = [(s, r) for s, m, r in rules_points if m == matched]
        px = np.array([[s] for s, _ in pts])
        py = np.array([float(r) for _, r in pts])
        pw = fit_logistic(px, py, l2=0.0, balanced=False)
        platt[matched] = [float(pw[0]), float(pw[1])]

    out = {
        "about": "Fitted by bench/fit_routing.py on the dev sets and design-subject sets; never on the blind sets.",
        "model": embedder.model_id,
        "fitted_on": [str(p.relative_to(ROOT)) for p in fitting_sets]
        + [str(path.relative_to(ROOT)) for path in STREAM_CORPORA],
        "topic_features": list(TOPIC_FEATURES),
        "topic_weights": [round(float(v), 5) for v in w[:-1]],
        "nothing_fits": round(float(w[-1]), 5),
        # what the runner-up topic scores (median over the fitting messages): a bot's only topic is
        # measured against it (engine.feature_rows)
        "lone_topic_other": [
            round(float(np.median([np.sort(x[:, j])[-2] for rows in choice_rows.values() for x, _ in rows])), 5)
            for j in (TOPIC_FEATURES.index("sem_best"), TOPIC_FEATURES.index("sem_centroid"))
        ],
        "noise_signals": list(NOISE_SIGNALS),
        "noise_ngram_weights": [round(float(v), 4) for v in nw[:NGRAM_DIM]],
        "noise_weights": [round(float(v), 5) for v in nw[NGRAM_DIM:-1]],
        "noise_bias": round(float(nw[-1]), 5),
        "noise_threshold": round(threshold, 4),
        "stream_ngram_weights": [round(float(v), 4) for v in sw[:NGRAM_DIM]],
        "stream_weights": [round(float(v), 5) for v in sw[NGRAM_DIM:-1]],
        "stream_bias": round(float(sw[-1]), 5),
        "stream_threshold": STREAM_THRESHOLD,
        "rules_matched": [round(v, 5) for v in platt[True]],
        "rules_fallback": [round(v, 5) for v in platt[False]],
        "language_alpha": LANGUAGE_ALPHA,
        "language_means": {
            "zh": [round(float(v), 6) for v in centring.mean_zh],
            "en": [round(float(v), 6) for v in centring.mean_en],
        },
        "topic_mean": [round(float(v), 6) for v in centring.topic_mean],
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(
        "weights:", dict(zip(TOPIC_FEATURES, out["topic_weights"], strict=True)), "nothing fits:", out["nothing_fits"]
    )
    print(f"wrote {OUT.relative_to(ROOT)}")

    if args.report:
        for held, held_rows in choice_rows.items():
            wh = fit_choice(weighted({n: r for n, r in choice_rows.items() if n != held}, args.design_weight))
            right = to_fallback = from_fallback = other_topic = 0
            for feats, label in held_rows:
                u = np.append(feats @ wh[:-1], wh[-1])
                chosen = int(np.argmax(u))
                right += chosen == label
                to_fallback += chosen != label and chosen == len(feats)
                from_fallback += chosen != label and label == len(feats)
                other_topic += chosen != label and chosen < len(feats) and label < len(feats)
            print(
                f"  held out {held}: topic choice {right}/{len(held_rows)} (wrong: {other_topic} another topic, "
                f"{to_fallback} fell to the fallback, {from_fallback} taken from the fallback)"
            )


def writer_folds(groups: np.ndarray, folds: int = 6) -> np.ndarray:
    """Each row's fold: each fitting set and each corpus file (one writer's work over its own trades) whole."""
    units = np.array([g.split(":")[1] if g.startswith("corpus:") else g for g in groups])
    fold = {u: i % folds for i, u in enumerate(sorted(set(units)))}
    return np.array([fold[u] for u in units])


def cross_validate_noise(x: np.ndarray, y: np.ndarray, groups: np.ndarray, l2: float) -> None:
    """Hold out each fitting set and each corpus file (one writer's work over its own trades) whole, in 6
    folds; print what each threshold catches and loses on the held-out messages."""
    folds = writer_folds(groups)
    p = np.zeros(len(y))
    for f in range(6):
        test = folds == f
        w = fit_logistic(x[~test], y[~test], l2=l2, steps=1500)
        p[test] = 1 / (1 + np.exp(-(np.hstack([x[test], np.ones((int(test.sum()), 1))]) @ w)))
    in_sets = np.array([not g.startswith("corpus:") for g in groups])
    for t in (0.8, 0.9, 0.95, 0.97, 0.98):
        caught = p >= t
        print(
            f"  threshold {t}: sets: noise caught {int((caught & (y == 1) & in_sets).sum())}/{int(((y == 1) & in_sets).sum())}, "
            f"results lost {int((caught & (y == 0) & in_sets).sum())}/{int(((y == 0) & in_sets).sum())}; corpus: noise caught "
            f"{int((caught & (y == 1) & ~in_sets).sum())}/{int(((y == 1) & ~in_sets).sum())}, results lost "
            f"{int((caught & (y == 0) & ~in_sets).sum())}/{int(((y == 0) & ~in_sets).sum())}"
        )


if __name__ == "__main__":
    main()
