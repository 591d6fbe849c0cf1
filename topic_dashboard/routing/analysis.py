"""Analyse a request once per decision: which rule terms and lexicon concepts its text holds.

Chinese is matched by scanning every substring of each CJK run (up to the longest rule or
lexicon word) against the compiled vocabulary, so no segmenter runs per message; English by
stems and stem n-grams; numbers, times, percentages, links and tickers become signals.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from topic_dashboard.routing.compiled import CompiledRules
from topic_dashboard.routing.lexicon import SIGNAL_CONCEPTS, concepts_of, domain_of
from topic_dashboard.routing.noise import OVERRULED_BY, classify_noise, looks_like
from topic_dashboard.routing.text import (
    bag,
    cjk_runs,
    latin_sequence,
    latin_stems,
    normalize,
    signals,
    vector_norm,
)
from topic_dashboard.routing.types import RouteRequest

CONCEPT_MATCH = 0.6  # a rule term met only through a shared lexicon concept counts this much
MAX_ANALYSED_CHARS = 4000  # the topic of a long report shows early; bounds the latency


@dataclass
class Message:
    """A request analysed once: its text and the value (1.0 or 0.6) of every rule term it hits."""

    content_norm: str
    text_norm: str
    values: dict[int, float]
    domains: dict[str, int]
    _bag: tuple[dict[str, float], float] | None = None
    _noise: tuple[str | None] | None = None
    _looks: dict[str, bool] = field(default_factory=dict)
    # Whether the fitted model that answers for the patterns' verdict (noise.OVERRULED_BY; asked with the
    # verdict) reads a finished result: set by the engine when the model is loaded, asked only then.
    # When it does, that verdict yields everywhere: the hard filter and every topic's exclusion that names
    # what the patterns read (engine.evidence).
    reads_result: Callable[[str], bool] | None = None
    _overruled: tuple[str | None] | None = None

    def bag(self) -> tuple[dict[str, float], float]:
        if self._bag is None:
            vec = {k: float(v) for k, v in bag(self.text_norm).items()}
            self._bag = (vec, vector_norm(vec))
        return self._bag

    def noise_kind(self) -> str | None:
        """The hard-filter noise kind of the content (see noise.classify_noise), computed once."""
        if self._noise is None:
            self._noise = (classify_noise(self.content_norm),)
        return self._noise[0]

    def overruled(self) -> str | None:
        """The patterns' verdict that a fitted model overrules (it reads a finished result), if any."""
        if self._overruled is None:
            kind = self.noise_kind()
            held = kind in OVERRULED_BY and self.reads_result is not None and self.reads_result(kind)
            self._overruled = (kind if held else None,)
        return self._overruled[0]

    def standing_noise(self) -> str | None:
        """The patterns' verdict once the models have had their say: what the hard filter applies."""
        return None if self.overruled() is not None else self.noise_kind()

    def looks_like(self, kind: str) -> bool:
        """Whether the message reads as `kind` to an exclusion that names it ("progress updates", "纯寒暄").
        When a model overrules the patterns' verdict, the readings that model answers for yield here too, as
        in the hard filter (a loose reading without a pattern verdict is not asked about: the bars were
        measured on the messages the patterns flag)."""
        if kind not in self._looks:
            seen = looks_like(kind, self.content_norm, self.noise_kind())
            overruled = self.overruled()
            yields = overruled is not None and OVERRULED_BY.get(kind) == OVERRULED_BY[overruled]
            self._looks[kind] = seen and not yields
        return self._looks[kind]


def analyse(compiled: CompiledRules, request: RouteRequest) -> Message:
    """Find every rule term and lexicon concept in the request's text (title, summary, content, tags).

    `level` is not matched: severity says how urgent a message is, not what it is about.
    """
    content = normalize((request.content or "")[:MAX_ANALYSED_CHARS])
    parts = [request.title or "", request.summary or "", request.content or "", " ".join(request.tags)]
    text = normalize(" \n ".join(p for p in parts if p)[:MAX_ANALYSED_CHARS])
    keys: set[str] = set()
    vocab, max_n = compiled.cjk_vocab, compiled.max_cjk_len
    for run in cjk_runs(text):
        n_run = len(run)
        for i in range(n_run):
            for n in range(1, min(max_n, n_run - i) + 1):
                if run[i : i + n] in vocab:
                    keys.add(run[i : i + n])
    compact = text.replace(" ", "")
    keys.update(k for k in compiled.substring_keys if k in compact)
    keys.update(latin_stems(text))
    seq = latin_sequence(text)
    phrases = compiled.phrase_vocab
    for n in (2, 3):
        for i in range(len(seq) - n + 1):
            piece = " ".join(seq[i : i + n])
            if piece in phrases:
                keys.add(piece)
    concepts: set[str] = set()
    for key in keys:
        concepts.update(concepts_of(key))
    for sig in signals(text):
        keys.add(sig)
        concepts.update(SIGNAL_CONCEPTS.get(sig, ()))
    values: dict[int, float] = {}
    for concept in concepts:
        for tid in compiled.concept_terms.get(concept, ()):
            values[tid] = CONCEPT_MATCH
    term_ids = compiled.term_ids
    for key in keys:
        term_id = term_ids.get(key)
        if term_id is not None:
            values[term_id] = 1.0
    domains: dict[str, int] = {}
    for concept in concepts:
        domain = domain_of(concept)
        if domain != "meta":
            domains[domain] = domains.get(domain, 0) + 1
    return Message(content, text, values, domains)
