"""Score every active topic's compiled rules against one analysed message.

Evidence, in units where one clearly matched specific include term is 1.0:
  include_when / keywords: per condition, the best alternative's score: its terms match
      directly (1.0) or through a shared lexicon concept (0.6); a partly matched alternative
      scores by the square of the share matched, so "production" alone is weak evidence for
      "production outage"; further matched alternatives add a little; later conditions less.
  examples.positive: the best example's coverage of its own terms, times EXAMPLE_WEIGHT.
  name / description / purpose: a small capped bonus per literally shared word.
  domain: the topic's share of concepts in a domain times the message's distinct concepts
      there (capped), times DOMAIN_WEIGHT: subject-area evidence for wordings no rule names.
score = evidence / (evidence + 1), in 0..1.

Only what the message hits is visited (through the compiled postings); term ids are walked
in sorted order so float sums, and so decisions, never depend on hash order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from topic_dashboard.routing.analysis import CONCEPT_MATCH, Message
from topic_dashboard.routing.compiled import Alt, CompiledRules, CompiledTopic, Condition
from topic_dashboard.routing.text import cosine, stem

_WORD = re.compile(r"[a-z]+")

DOMAIN_WEIGHT = 0.3
DOMAIN_CAP = 3
EXTRA_ALT_WEIGHT = 0.25
CONDITION_DECAY = (1.0, 0.5, 0.35, 0.25)
EXAMPLE_WEIGHT = 2.0
EXAMPLE_FLOOR = 0.1
ANCHOR_EXAMPLE = 0.3
SOFT_WEIGHT = 0.3
SOFT_CAP = 0.9
VETO_COVERAGE = 0.6
VETO_MIN_WEIGHT = 0.6
NEGATIVE_CLOSENESS = 0.55


@dataclass
class TopicScore:
    topic: CompiledTopic
    score: float = 0.0
    evidence: float = 0.0
    matched: list[str] = field(default_factory=list)
    vetoed_by: str | None = None
    said_excluded: str | None = None  # an exclude_when whose words the message has, however weak the rule score
    decisive: str = ""
    anchored: bool = False  # some include term or positive example matched literally

    def explain(self) -> str:
        return f"matched {self.decisive}" if self.decisive else "matched its rules"


@dataclass
class _Hits:
    alts: dict[int, set[int]] = field(default_factory=dict)  # include condition -> alternatives hit
    examples: dict[int, float] = field(default_factory=dict)  # positive example -> weighted hits
    soft: list[int] = field(default_factory=list)  # literally shared name/purpose terms
    domain: float = 0.0  # subject-area evidence


def score_topics(compiled: CompiledRules, msg: Message, *, veto_from: float) -> list[TopicScore]:
    """Score every topic, in compiled order; vetoes are checked for scores >= `veto_from`."""
    hits: dict[int, _Hits] = {}
    for tid in sorted(msg.values):
        value = msg.values[tid]
        for t, c, a in compiled.alt_postings.get(tid, ()):
            hits.setdefault(t, _Hits()).alts.setdefault(c, set()).add(a)
        for t, e, weight in compiled.example_postings.get(tid, ()):
            examples = hits.setdefault(t, _Hits()).examples
            examples[e] = examples.get(e, 0.0) + weight * value
        if value == 1.0:
            for t in compiled.soft_postings.get(tid, ()):
                hits.setdefault(t, _Hits()).soft.append(tid)
    for domain in sorted(msg.domains):
        strength = DOMAIN_WEIGHT * min(DOMAIN_CAP, msg.domains[domain])
        for t, share in compiled.domain_postings.get(domain, ()):
            hits.setdefault(t, _Hits()).domain += share * strength
    return [_score(compiled, topic, msg, hits.get(topic.index), veto_from) for topic in compiled.topics]


def _score(
    compiled: CompiledRules, topic: CompiledTopic, msg: Message, hits: _Hits | None, veto_from: float
) -> TopicScore:
    result = TopicScore(topic)
    if hits is None:
        return result
    evidence = 0.0
    if hits.alts or hits.examples or hits.soft:
        evidence = _rule_evidence(compiled, topic, msg.values, hits, result)
    if hits.domain > 0.05:
        evidence += hits.domain
        result.matched.append(f"subject area ({', '.join(d for d, _ in topic.domains if d in msg.domains)})")
        result.decisive = result.decisive or result.matched[-1]
    result.evidence = evidence
    result.score = evidence / (evidence + 1.0)
    if evidence > 0 and result.score >= veto_from:
        result.vetoed_by = _veto(compiled, topic, msg)
    return result


def _rule_evidence(
    compiled: CompiledRules, topic: CompiledTopic, values: dict[int, float], hits: _Hits, result: TopicScore
) -> float:
    conds: list[tuple[float, Condition, list[str]]] = []
    for c in sorted(hits.alts):
        cond = topic.includes[c]
        s, matched = _include_score(compiled, cond, sorted(hits.alts[c]), values)
        if s > 0:
            conds.append((s, cond, matched))
    conds.sort(key=lambda x: -x[0])
    evidence = 0.0
    for k, (s, cond, matched) in enumerate(conds):
        evidence += CONDITION_DECAY[min(k, len(CONDITION_DECAY) - 1)] * s
        result.anchored = result.anchored or any(not h.startswith("~") for h in matched)
        shown = (shown_term(key, cond.text) for key in matched)
        result.matched.append(f'{cond.label} "{cond.text}" ({", ".join(dict.fromkeys(shown))})')
    best_ex, best_label = 0.0, ""
    for e in sorted(hits.examples):
        ex = topic.positives[e]
        coverage = hits.examples[e] / ex.total if ex.total else 0.0
        if coverage > best_ex:
            best_ex, best_label = coverage, f'{ex.label} "{ex.text}" ({coverage:.2f})'
    if best_ex >= EXAMPLE_FLOOR:
        evidence += EXAMPLE_WEIGHT * best_ex
        result.anchored = result.anchored or best_ex >= ANCHOR_EXAMPLE
        result.matched.append(best_label)
    if hits.soft:  # prose, so only words it literally shares count
        soft = [compiled.terms[t] for t in hits.soft]
        evidence += min(SOFT_CAP, SOFT_WEIGHT * sum(t.weight for t in soft))
        result.matched.append(f"purpose/name ({', '.join(t.key for t in soft)})")
    if conds and conds[0][0] >= EXAMPLE_WEIGHT * best_ex:
        result.decisive = result.matched[0]
    elif best_ex >= EXAMPLE_FLOOR:
        result.decisive = best_label
    elif result.matched:
        result.decisive = result.matched[0]
    return evidence


@lru_cache(maxsize=8192)  # asked for every matched term of every route: rule texts and their terms repeat
def shown_term(key: str, text: str) -> str:
    """A matched term as the rule text spells it: its word for a stem ("database" for "databas", "on site" for
    "on sit"; a walkthrough's rule test read "(material, til)"); "~" (matched through a concept) is kept, and a
    key the text does not spell (Chinese, a number) is shown as it is."""
    if key.startswith("~"):
        return "~" + shown_term(key[1:], text)
    words = _WORD.findall(text.lower())

    def spelled(part: str) -> str:
        same = next((word for word in words if stem(word) == part), None)
        return same or next((word for word in words if len(part) >= 3 and word.startswith(part)), part)

    return " ".join(spelled(part) for part in key.split(" "))


def _alt_score(compiled: CompiledRules, alt: Alt, values: dict[int, float]) -> tuple[float, float, list[str]]:
    """(score, share of the alternative's weight matched, matched term keys; "~" = via concept)."""
    got = covered = 0.0
    matched: list[str] = []
    for tid in alt.terms:
        v = values.get(tid)
        if v:
            term = compiled.terms[tid]
            got += term.weight * v
            covered += term.weight
            matched.append(term.key if v == 1.0 else f"~{term.key}")
    if not covered:
        return 0.0, 0.0, matched
    share = covered / alt.total
    return min(1.0, alt.total) * (got / covered) * share * share, share, matched


def _negated(cond: Condition, values: dict[int, float]) -> bool:
    return any(values.get(tid, 0.0) >= CONCEPT_MATCH for tid in cond.neg)


def _include_score(
    compiled: CompiledRules, cond: Condition, alt_indices: list[int], values: dict[int, float]
) -> tuple[float, list[str]]:
    best, extra = 0.0, 0.0
    best_hits: list[str] = []
    extra_hits: list[str] = []
    for a in alt_indices:
        s, _, matched = _alt_score(compiled, cond.alts[a], values)
        if s > best:
            if best >= 0.5:
                extra, extra_hits = extra + best, extra_hits + best_hits
            best, best_hits = s, matched
        elif s >= 0.5:
            extra, extra_hits = extra + s, extra_hits + matched
    if best <= 0 or _negated(cond, values):
        return 0.0, []
    return min(1.5, best + EXTRA_ALT_WEIGHT * extra), best_hits + extra_hits


def exclusion_said(compiled: CompiledRules, cond: Condition, msg: Message) -> bool:
    """Whether the message has the words of the exclude_when `cond` (the veto's coverage), whatever the
    topic's rule score: "said" of "said and meant" for the choice by meaning (engine.evidence). A veto is
    checked only for topics the rules already match; a topic the model prefers on meaning alone ("Cloud
    bill … up 12%" for markets) must still meet its own "cloud bills" exclusion."""
    return not _negated(cond, msg.values) and any(not alt.meta and _alt_said(compiled, alt, msg) for alt in cond.alts)


def _alt_said(compiled: CompiledRules, alt: Alt, msg: Message) -> bool:
    return alt.total >= VETO_MIN_WEIGHT and _alt_score(compiled, alt, msg.values)[1] >= VETO_COVERAGE


def _veto(compiled: CompiledRules, topic: CompiledTopic, msg: Message) -> str | None:
    """The exclude_when text or negative example that rules this topic out, if any."""
    for cond in topic.excludes:
        if _negated(cond, msg.values):
            continue
        for alt in cond.alts:
            if alt.meta:
                if msg.looks_like(alt.meta):
                    return f'{cond.label} "{cond.text}"'
            elif _alt_said(compiled, alt, msg):
                return f'{cond.label} "{cond.text}"'
    if topic.negatives:
        vec, norm = msg.bag()
        closest = max(topic.negatives, key=lambda ex: cosine(vec, ex.vec, norm, ex.norm))
        closeness = cosine(vec, closest.vec, norm, closest.norm)
        if closeness >= NEGATIVE_CLOSENESS:
            positive = max((cosine(vec, ex.vec, norm, ex.norm) for ex in topic.positives), default=0.0)
            if closeness > positive:
                return f'{closest.label} "{closest.text}" ({closeness:.2f} close)'
    return None
