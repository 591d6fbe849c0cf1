"""The compiled form of a bot's routing rules: immutable tables built by `compile_rules`."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Term:
    key: str
    weight: float
    concepts: frozenset[str]
    domains: frozenset[str]


@dataclass(frozen=True, slots=True)
class Alt:
    text: str
    terms: tuple[int, ...]
    total: float
    meta: str | None


@dataclass(frozen=True, slots=True)
class Condition:
    label: str
    text: str
    alts: tuple[Alt, ...]
    neg: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Example:
    label: str
    text: str
    terms: tuple[int, ...]
    total: float
    vec: dict[str, float]
    norm: float


@dataclass(frozen=True)
class CompiledTopic:
    index: int
    key: str
    name: str
    priority: int
    is_fallback: bool
    fallback_topic_key: str | None
    includes: tuple[Condition, ...]
    excludes: tuple[Condition, ...]
    positives: tuple[Example, ...]
    negatives: tuple[Example, ...]
    soft: tuple[int, ...]
    domains: tuple[tuple[str, float], ...]  # (domain, share of the topic's concepts in it)
    evidence_terms: frozenset[int] = frozenset()  # include, keyword, example and name terms


@dataclass(frozen=True)
class CompiledRules:
    """Opaque compiled form of a bot's topics; build with `compile_rules`, reuse across calls.

    Read-only after construction: it is shared between callers through the compile cache.
    """

    topics: tuple[CompiledTopic, ...]
    terms: tuple[Term, ...]
    cjk_vocab: frozenset[str]
    max_cjk_len: int
    phrase_vocab: frozenset[str]
    substring_keys: tuple[str, ...]
    term_ids: dict[str, int]  # term key -> term id
    concept_terms: dict[str, tuple[int, ...]]  # lexicon concept -> ids of terms sharing it
    # term id -> where it counts as evidence, so a decision only visits what a message hits
    alt_postings: dict[int, tuple[tuple[int, int, int], ...]]  # (topic, include condition, alternative)
    example_postings: dict[int, tuple[tuple[int, int, float], ...]]  # (topic, positive example, weight)
    soft_postings: dict[int, tuple[int, ...]]  # topics whose name/description/purpose use it
    domain_postings: dict[str, tuple[tuple[int, float], ...]]  # domain -> (topic, its share there)
    fallback_key: str | None
    fingerprint: str
    active_keys: frozenset[str] = field(default_factory=frozenset)
