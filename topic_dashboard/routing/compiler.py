"""Compile the active topics' rules once per change into look-up tables `route_message` scores with.

Compiling parses every rule text (segmenting Chinese with jieba), weighs each term by how
specific it is (generic words weakly; words several topics share less), and indexes terms
and lexicon concepts, so one pass over a message finds every rule term it contains and a
decision skips topics the message cannot touch.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from topic_dashboard.errors import AppError
from topic_dashboard.routing.compiled import Alt, CompiledRules, CompiledTopic, Condition, Example, Term
from topic_dashboard.routing.conditions import (
    ParsedAlt,
    ParsedCondition,
    parse_condition,
    stem_key,
    text_terms,
)
from topic_dashboard.routing.lexicon import concept_index, concepts_of, domain_of
from topic_dashboard.routing.rules import RoutingRules, validate_routing
from topic_dashboard.routing.text import CJK_RUN, bag, is_cjk, normalize, term_weight, vector_norm
from topic_dashboard.routing.types import TopicSpec

MAX_SCAN_LEN = 8  # CJK keys up to this length are found by n-gram scan, longer ones by `in`
IDF_SHARING_PENALTY = 0.5  # a term used by k topics weighs 1 / (1 + 0.5 (k - 1))
_CACHE_SIZE = 32


@dataclass
class _Draft:
    spec: TopicSpec
    rules: RoutingRules
    includes: list[tuple[str, ParsedCondition]]
    excludes: list[tuple[str, ParsedCondition]]
    positives: list[tuple[str, str, list[str]]]
    negatives: list[tuple[str, str, list[str]]]
    soft: list[str]

    def term_keys(self) -> set[str]:
        """Every term key the topic's rules use. Not `keys()`: ruff (SIM118) rewrites `x.keys()` loops to `x`."""
        out = set(self.soft)
        for _, cond in self.includes + self.excludes:
            out.update(t for alt in cond.alts for t in alt.terms)
        for _, _, terms in self.positives:
            out.update(terms)
        return out


def _rules_of(spec: TopicSpec) -> RoutingRules:
    try:
        return validate_routing(spec.routing)
    except AppError as exc:
        raise AppError(
            "invalid_rule", f"topic {spec.topic_key!r}: {exc.message}", field=exc.field, topic_key=spec.topic_key
        ) from exc


def _draft(spec: TopicSpec) -> _Draft:
    rules = _rules_of(spec)
    includes = [(f"include_when[{i}]", parse_condition(t)) for i, t in enumerate(rules.include_when)]
    if rules.keywords:
        alts = tuple(ParsedAlt(text=kw, terms=(key,)) for kw in rules.keywords if (key := stem_key(kw)))
        includes.append(("keywords", ParsedCondition(text=", ".join(rules.keywords), alts=alts)))
    excludes = [(f"exclude_when[{i}]", parse_condition(t)) for i, t in enumerate(rules.exclude_when)]
    positives = [(f"examples.positive[{i}]", t, text_terms(t)) for i, t in enumerate(rules.examples.positive)]
    negatives = [(f"examples.negative[{i}]", t, text_terms(t)) for i, t in enumerate(rules.examples.negative)]
    soft_text = " ".join([spec.name, spec.description, rules.purpose, spec.topic_key.replace("_", " ")])
    return _Draft(spec, rules, includes, excludes, positives, negatives, text_terms(soft_text))


def _with_domains(topic: CompiledTopic, terms: list[Term]) -> CompiledTopic:
    concepts = {c for t in terms for c in t.concepts if not c.startswith("meta.")}
    counts: dict[str, int] = {}
    for concept in concepts:
        counts[domain_of(concept)] = counts.get(domain_of(concept), 0) + 1
    shares = tuple(sorted((d, n / len(concepts)) for d, n in counts.items()))
    return dataclasses.replace(topic, domains=shares)


def _fingerprint(topics: Sequence[TopicSpec]) -> str:
    def plain(spec: TopicSpec) -> list[object]:
        routing = spec.routing.model_dump() if isinstance(spec.routing, RoutingRules) else spec.routing
        return [spec.topic_key, spec.name, spec.description, spec.is_active, spec.is_default_fallback, routing]

    ordered = sorted(topics, key=lambda t: t.topic_key)  # the order topics arrive in does not matter
    blob = json.dumps([plain(t) for t in ordered], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


_cache: OrderedDict[str, CompiledRules] = OrderedDict()
_cache_lock = threading.Lock()


def compile_rules(topics: Sequence[TopicSpec]) -> CompiledRules:
    """Compile a bot's topics. Inactive topics are not routed to; the fallback is the active
    topic with `is_default_fallback`. Identical input returns the cached compiled form.

    Raises AppError("invalid_rule") naming the topic and field of a bad routing_json, and
    AppError("topic_exists") when two topics share a key.
    """
    fingerprint = _fingerprint(topics)
    with _cache_lock:
        if fingerprint in _cache:
            _cache.move_to_end(fingerprint)
            return _cache[fingerprint]
    compiled = _compile(topics, fingerprint)
    with _cache_lock:
        _cache[fingerprint] = compiled
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return compiled


def _compile(topics: Sequence[TopicSpec], fingerprint: str) -> CompiledRules:
    seen: set[str] = set()
    for spec in topics:
        if spec.topic_key in seen:
            raise AppError("topic_exists", f"two topics use the key {spec.topic_key!r}", field="topic_key")
        seen.add(spec.topic_key)
    active = sorted((s for s in topics if s.is_active), key=lambda s: s.topic_key)
    drafts = [_draft(spec) for spec in active]

    df: dict[str, int] = {}
    for draft in drafts:
        for key in draft.term_keys():
            df[key] = df.get(key, 0) + 1
    term_ids: dict[str, int] = {}
    terms: list[Term] = []

    def tid(key: str) -> int:
        if key not in term_ids:
            concepts = frozenset(concepts_of(key))
            domains = frozenset(d for d in map(domain_of, concepts) if d != "meta")
            weight = term_weight(key) / (1 + IDF_SHARING_PENALTY * (df.get(key, 1) - 1))
            term_ids[key] = len(terms)
            terms.append(Term(key, weight, concepts, domains))
        return term_ids[key]

    def condition(label: str, cond: ParsedCondition) -> Condition:
        alts = []
        for alt in cond.alts:
            ids = tuple(tid(t) for t in alt.terms)
            alts.append(Alt(alt.text, ids, sum(terms[i].weight for i in ids), alt.meta))
        return Condition(label, cond.text, tuple(alts), tuple(tid(t) for t in cond.neg))

    def example(label: str, text: str, keys: list[str]) -> Example:
        ids = tuple(tid(k) for k in keys)
        vec = {k: float(v) for k, v in bag(normalize(text)).items()}
        return Example(label, text, ids, sum(terms[i].weight for i in ids), vec, vector_norm(vec))

    compiled_topics: list[CompiledTopic] = []
    for index, draft in enumerate(drafts):
        topic = CompiledTopic(
            index=index,
            key=draft.spec.topic_key,
            name=draft.spec.name,
            priority=draft.rules.priority,
            is_fallback=draft.spec.is_default_fallback,
            fallback_topic_key=draft.rules.fallback_topic_key,
            includes=tuple(condition(label, c) for label, c in draft.includes),
            excludes=tuple(condition(label, c) for label, c in draft.excludes),
            positives=tuple(example(*p) for p in draft.positives),
            negatives=tuple(example(*n) for n in draft.negatives),
            soft=tuple(dict.fromkeys(tid(k) for k in draft.soft)),
            domains=(),
        )
        touching = {i for c in topic.includes for a in c.alts for i in a.terms}
        touching.update(i for e in topic.positives for i in e.terms)
        touching.update(topic.soft)
        topic = dataclasses.replace(topic, evidence_terms=frozenset(touching))
        compiled_topics.append(_with_domains(topic, [terms[i] for i in sorted(touching)]))
    concept_terms: dict[str, list[int]] = {}
    for i, term in enumerate(terms):
        for concept in sorted(term.concepts):
            concept_terms.setdefault(concept, []).append(i)
    alt_postings: dict[int, list[tuple[int, int, int]]] = {}
    example_postings: dict[int, list[tuple[int, int, float]]] = {}
    soft_postings: dict[int, list[int]] = {}
    for topic in compiled_topics:
        for c, cond in enumerate(topic.includes):
            for a, alt in enumerate(cond.alts):
                for i in dict.fromkeys(alt.terms):
                    alt_postings.setdefault(i, []).append((topic.index, c, a))
        for e, ex in enumerate(topic.positives):
            for i in ex.terms:
                example_postings.setdefault(i, []).append((topic.index, e, terms[i].weight))
        for i in topic.soft:
            soft_postings.setdefault(i, []).append(topic.index)
    domain_postings: dict[str, list[tuple[int, float]]] = {}
    for topic in compiled_topics:
        for domain, share in topic.domains:
            domain_postings.setdefault(domain, []).append((topic.index, share))

    vocab_keys = [t.key for t in terms] + list(concept_index())
    cjk_keys = [k for k in vocab_keys if is_cjk(k)]
    scan = frozenset(k for k in cjk_keys if len(k) <= MAX_SCAN_LEN and CJK_RUN.fullmatch(k))
    fallback = next((t.key for t in compiled_topics if t.is_fallback), None)
    return CompiledRules(
        topics=tuple(compiled_topics),
        terms=tuple(terms),
        cjk_vocab=scan,
        max_cjk_len=max((len(k) for k in scan), default=1),
        substring_keys=tuple(sorted(set(cjk_keys) - scan)),
        phrase_vocab=frozenset(k for k in vocab_keys if " " in k),
        term_ids=dict(term_ids),
        concept_terms={k: tuple(v) for k, v in concept_terms.items()},
        alt_postings={k: tuple(v) for k, v in alt_postings.items()},
        example_postings={k: tuple(v) for k, v in example_postings.items()},
        soft_postings={k: tuple(v) for k, v in soft_postings.items()},
        domain_postings={k: tuple(v) for k, v in domain_postings.items()},
        fallback_key=fallback,
        fingerprint=fingerprint,
        active_keys=frozenset(t.key for t in compiled_topics),
    )
