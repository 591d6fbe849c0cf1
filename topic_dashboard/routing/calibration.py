"""The fitted part of routing: how evidence becomes a decision and a confidence that means what it says.

`bench/fit_routing.py` fits everything here on the *dev* evaluation sets (never the blind ones)
and writes fitted/calibration.json; this module only reads it. Three models:

- **topic choice** (with the embedding model): a conditional logit over the bot's topics plus
  one "nothing fits" option (the fallback). Each topic's utility is a weighted sum of its
  features (`topic_features`); "nothing fits" has a fitted constant. The softmax probability of
  the chosen option is the decision's confidence.
- **rules only** (no embedding model): the rule engine decides as it always did; Platt scaling
  of its score turns it into a confidence (matched: the winner's score; fallback: the best
  topic's score).
- **noise**: a logistic model on the message's word and character n-grams (hashed), its vector
  and a few plain signals says whether a message reads as conversation (a greeting, thanks, a
  question back, an offer) rather than a result. The n-grams carry the speech act ("want me
  to", "要不要我", "谢谢"), the vector what it is about; together they caught 79% of the fitting
  sets' noise held out by set, losing 2 of 740 results (bench/fit_routing.py --cv).
- **stream**: the same kind of model, fitted only on progress reports and tool hints against
  finished results, for the forms of "still working on it" and "calling a tool" the hand-written
  patterns do not know. Held out by set and by trade it caught every progress report and tool hint
  of the sets and lost no result (bench/fit_routing.py --cv).

Pure: numpy and the standard library.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from topic_dashboard.routing.semantic import LanguageCentring, TopicSimilarity, Vector

TOPIC_FEATURES = (
    "sem_best",  # centred cosine to the topic's closest include-side text
    "sem_top2",  # mean of its two closest
    "sem_margin",  # sem_best minus the best other topic's sem_best
    "sem_centroid",  # centred cosine to the mean of its include-side texts (the topic as a whole)
    "centroid_margin",  # sem_centroid minus the best other topic's
    "rule_score",  # the rule engine's score (0..1)
    "rule_anchored",  # a rule word or positive example matched literally
    "rule_vetoed",  # an exclude_when or negative example vetoed it in the rule engine
    "exclude_gap",  # closeness to its closest exclude_when minus sem_best (-1 when it has none)
    "negative_gap",  # the same for negative examples
    "priority",  # (priority - 50) / 50
    "example_gap",  # its closest positive example minus sem_best (0 when it has none): examples read like messages
    "description_gap",  # its closest name, purpose, condition or keyword list minus sem_best
    "has_examples",  # 1 when it has positive examples
    "into_english_gap",  # its closest Chinese description glossed into English (routing/gloss.py), minus sem_best
    "has_into_english",
    "into_chinese_gap",  # the same for English descriptions glossed into Chinese (rougher: word senses)
    "has_into_chinese",
)
NOISE_SIGNALS = (
    "typed_result",  # the bot said message_type "result"
    "has_title",
    "length",  # characters / 400, capped at 1
    "question",  # ends with a question mark
    "has_digit",
)
_QUESTION_END = re.compile(r"[?？]\s*\W{0,3}$")
NGRAM_DIM = 1 << 14
_NGRAM_TOKEN = re.compile(r"[a-z']+|[0-9]+|[\u4e00-\u9fff]|[^\sa-z0-9\u4e00-\u9fff]")


@dataclass(frozen=True)
class TextModel:
    """A logistic model on a message's hashed n-grams, its vector and NOISE_SIGNALS."""

    ngram_weights: Vector  # one per hashed n-gram bucket
    weights: Vector  # the message's reading (form vector, then meaning vector), then NOISE_SIGNALS
    bias: float
    threshold: float  # at or above it, the message is not published

    def probability(self, grams: dict[int, float], reading: Vector, signals: Sequence[float]) -> float:
        """`grams` is `ngram_features(text)`, computed once for every model that reads the message;
        `reading` is the message's form vector and then its meaning vector (engine.evidence)."""
        x = np.concatenate([reading, np.asarray(signals, dtype=np.float32)])
        weighted = sum(self.ngram_weights[i] * v for i, v in grams.items())
        return _sigmoid(float(x @ self.weights) + float(weighted) + self.bias)

    def holds(self, grams: dict[int, float], vector: Vector, signals: Sequence[float]) -> tuple[bool, float]:
        p = self.probability(grams, vector, signals)
        return p >= self.threshold, p

    @staticmethod
    def read(raw: dict[str, Any], prefix: str) -> TextModel:
        return TextModel(
            ngram_weights=np.asarray(raw[f"{prefix}_ngram_weights"], dtype=np.float32),
            weights=np.asarray(raw[f"{prefix}_weights"], dtype=np.float32),
            bias=float(raw[f"{prefix}_bias"]),
            threshold=float(raw[f"{prefix}_threshold"]),
        )


@dataclass(frozen=True)
class Calibration:
    topic_weights: tuple[float, ...]
    nothing_fits: float
    noise: TextModel  # conversation (greetings, thanks, questions back) vs results
    stream: TextModel | None  # progress reports and tool hints vs results
    rules_matched: tuple[float, float]  # Platt (a, b) of the winner's rule score
    rules_fallback: tuple[float, float]  # Platt (a, b) of the best topic's rule score
    centring: LanguageCentring
    fitted_on: tuple[str, ...]
    lone_other: tuple[float, float] = (0.0, 0.0)  # a lone topic's rival: the median runner-up (best, centroid)
    model: str = ""  # the embedding model (model_id) whose vectors it was fitted on

    def topic_utility(self, features: Sequence[float]) -> float:
        return float(sum(w * f for w, f in zip(self.topic_weights, features, strict=True)))

    def choice_probabilities(self, utilities: Sequence[float]) -> list[float]:
        """Softmax over the topics' utilities and, last, "nothing fits"."""
        values = [*utilities, self.nothing_fits]
        top = max(values)
        exps = [math.exp(v - top) for v in values]
        total = sum(exps)
        return [e / total for e in exps]

    def rules_confidence(self, score: float, *, matched: bool) -> float:
        a, b = self.rules_matched if matched else self.rules_fallback
        return _sigmoid(a * score + b)


def topic_features(
    sim: TopicSimilarity,
    best_other: float,
    centroid_other: float,
    rule_score: float,
    anchored: bool,
    vetoed: bool,
    priority: int,
) -> list[float]:
    return [
        sim.best,
        sim.top2,
        sim.best - best_other,
        sim.centroid,
        sim.centroid - centroid_other,
        rule_score,
        float(anchored),
        float(vetoed),
        (sim.exclude - sim.best) if sim.exclude is not None else -1.0,
        (sim.negative - sim.best) if sim.negative is not None else -1.0,
        (priority - 50) / 50,
        _gap(sim.example, sim.best),
        _gap(sim.description, sim.best),
        float(sim.example > -1.0),
        _gap(sim.into_english, sim.best),
        float(sim.into_english > -1.0),
        _gap(sim.into_chinese, sim.best),
        float(sim.into_chinese > -1.0),
    ]


def _gap(part: float, best: float) -> float:
    """How far one kind of rule text is behind the topic's closest text (0 when it has none: -1)."""
    return part - best if part > -1.0 else 0.0


def noise_signals(*, content: str, title: str | None, message_type: str | None) -> list[float]:
    """Plain signals beside the vector (a message the hand-written patterns caught gets here only
    for a fitted model to overrule them: engine.model_overrules)."""
    text = content.strip()
    return [
        float((message_type or "").strip().lower() == "result"),
        float(bool(title and title.strip())),
        min(len(text), 400) / 400,
        float(bool(_QUESTION_END.search(text))),
        float(any(ch.isdigit() for ch in text)),
    ]


def ngram_features(text: str) -> dict[int, float]:
    """Hashed word/character 1-3-grams of the text (Chinese by character), L2-normalised counts."""
    tokens = ["<s>", *_NGRAM_TOKEN.findall(text.lower().strip()), "</s>"]
    counts: dict[int, float] = {}
    for n in (1, 2, 3):
        for i in range(len(tokens) - n + 1):
            bucket = zlib.crc32(" ".join(tokens[i : i + n]).encode("utf-8")) % NGRAM_DIM
            counts[bucket] = counts.get(bucket, 0.0) + 1.0
    norm = math.sqrt(sum(v * v for v in counts.values()))
    return {k: v / norm for k, v in counts.items()} if norm else {}


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


@lru_cache(maxsize=1)
def calibration() -> Calibration:
    """The shipped calibration (topic_dashboard/routing/fitted/calibration.json)."""
    raw = json.loads(resources.files("topic_dashboard.routing").joinpath("fitted/calibration.json").read_text("utf-8"))
    return from_dict(raw)


def from_dict(raw: dict[str, Any]) -> Calibration:
    if tuple(raw["topic_features"]) != TOPIC_FEATURES or tuple(raw["noise_signals"]) != NOISE_SIGNALS:
        raise ValueError("calibration.json was fitted for other features: run bench/fit_routing.py")
    return Calibration(
        topic_weights=tuple(float(w) for w in raw["topic_weights"]),
        nothing_fits=float(raw["nothing_fits"]),
        noise=TextModel.read(raw, "noise"),
        stream=TextModel.read(raw, "stream") if "stream_weights" in raw else None,
        rules_matched=(float(raw["rules_matched"][0]), float(raw["rules_matched"][1])),
        rules_fallback=(float(raw["rules_fallback"][0]), float(raw["rules_fallback"][1])),
        centring=LanguageCentring(
            mean_zh=np.asarray(raw["language_means"]["zh"], dtype=np.float32),
            mean_en=np.asarray(raw["language_means"]["en"], dtype=np.float32),
            alpha=float(raw["language_alpha"]),
            topic_mean=np.asarray(raw["topic_mean"], dtype=np.float32) if raw.get("topic_mean") else None,
        ),
        fitted_on=tuple(raw["fitted_on"]),
        lone_other=(float(raw.get("lone_topic_other", [0, 0])[0]), float(raw.get("lone_topic_other", [0, 0])[1])),
        model=str(raw.get("model", "")),
    )
