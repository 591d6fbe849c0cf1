"""`route_message`: the one decision function behind topic_route, the publish path's fallback
and the rule editor's "test this message" preview.

Order: hard filters (topic switch, progress/tool-hint streams, message_type "chat", content the
noise patterns recognise, unless a fitted model overrules their verdict: the stream model their progress or
tool-hint one, the noise model their conversation one; the overrule holds for the topics' exclusions too),
then, with the embedding model, a fitted noise model (a message that reads as conversation is not
published); then the bot's own proposal is kept when the topic is
active and no exclusion applies; otherwise every active topic is scored.

With the embedding model (docs/ROUTING.md): each topic's evidence (closeness in meaning to its
rule texts, the rule engine's score, its exclusions) becomes a utility, and a softmax over the
topics plus "nothing fits" picks the topic and gives the confidence (calibration.py).
Rules alone: a topic matches when its rule evidence is clear and nothing in its exclude_when or
negative examples vetoes it; among matches the higher `priority` wins, then the higher score;
the confidence is the rule score through a fitted Platt curve.
No match goes to the fallback topic under the bot's policy ("inbox") or is not published ("skip").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from topic_dashboard.routing.analysis import analyse
from topic_dashboard.routing.calibration import Calibration, calibration, ngram_features, noise_signals, topic_features
from topic_dashboard.routing.compiled import CompiledRules, CompiledTopic
from topic_dashboard.routing.noise import NOISE_REASONS, OVERRULED_BY, offer_lead, progress_rest
from topic_dashboard.routing.scoring import TopicScore, exclusion_said, score_topics
from topic_dashboard.routing.semantic import (
    MessageVectors,
    SemanticIndex,
    TopicSimilarity,
    Vector,
    fallback_likeness,
    message_text,
    similarities,
)
from topic_dashboard.routing.types import (
    FallbackPolicy,
    RouteDecision,
    RouteRequest,
    ScoredCandidate,
    check_fallback_policy,
)

MATCH_THRESHOLD = 0.36  # score a topic needs to count as a clear match (evidence ~0.56)
# A match also needs this share of the strongest match's evidence, so priority settles real
# conflicts rather than one incidental word ("latency" in an experiment note). A topic that
# matched only through synonyms (no rule word literally present) must come closer.
RELATIVE_FLOOR = 0.6
RELATIVE_FLOOR_SYNONYMS_ONLY = 0.8
# Centred cosine above which a message is "like" a negative example (a rewording of it, not merely
# the same subject): short generic negatives ("好的") sit near many messages below it.
NEGATIVE_EXAMPLE_LIKENESS = 0.85
NEAR_MISS = 0.2  # a topic this close to matching may redirect the fallback (its fallback_topic_key)


# The patterns' verdict "the bot's own work still going" or "a tool call" is overruled when the stream model,
# which learnt from every training corpus's look-alike results, reads the message as a finished result with
# a probability of work under this: held out by writer, it overrules 2 of the 2,706 progress reports and
# tool hints the patterns catch, and keeps 102 of the 152 results a reviewer found them taking as progress or
# tool hints (docs/ROUTING.md, "How a decision is made", 1).
PATTERN_OVERRULED_UNDER = 0.05
# Their verdict "an acknowledgement" or "a greeting" is overruled when the noise model reads a finished result
# in the content alone with a probability of conversation under this: held out by writer, it overrules none
# of the 319 pleasantries the patterns catch (the first at 0.2) and keeps 11 of the 27 results the reviewer
# found them taking for conversation (bench/experiments/conversation_overrule.py). Only the content: every
# message it was measured on was untitled and untyped, and the model leans on a title and the type "result"
# (with both, "Got it." would pass). A question back is overruled only by what comes before it (a result and
# then an offer: "Received $3,200 from Henderson. Want me to send a receipt?", noise.offer_lead), as is an
# acknowledgement or greeting that ends in one; never by the whole message (none of the reviewer's questions
# came under the bar that way; 109 of those 319 pleasantries are questions). At the same bar, the training
# corpora's one such pleasantry stays out and the reviewer's 2 such results are kept
# (bench/experiments/offer_lead.py).
CONVERSATION_OVERRULED_UNDER = 0.05
# The overrule holds everywhere the patterns' reading is used: the hard filter and every exclusion that names
# what they read (`evidence` decides it before the topics are scored).


def overrule_texts(noise: str, request: RouteRequest) -> list[tuple[str, str | None]]:
    """What the model that may overrule the patterns' verdict `noise` (noise.OVERRULED_BY) reads, in turn, as
    (the text embedded, cut as routing cuts a message; the part of the content read alone, None for the
    whole): the stream model the message as routing reads it, then what follows a lead-in naming the work
    (noise.progress_rest); the noise model the content alone (see CONVERSATION_OVERRULED_UNDER), then what
    comes before a question it ends in (noise.offer_lead; a question back: only that)."""
    model = OVERRULED_BY.get(noise)
    if model is None:
        return []
    if model == "stream":
        whole, part = message_text(request.title, request.summary, request.content), progress_rest(request.content)
    else:
        whole, part = message_text(None, None, request.content), offer_lead(request.content)
    readings: list[tuple[str, str | None]] = [] if noise == "question" else [(whole, None)]
    return readings + ([(message_text(None, None, part), part)] if part is not None else [])


def reads_result(
    fitted: Calibration, reading: Vector | None, request: RouteRequest, model: str, part: str | None = None
) -> bool:
    """Whether the fitted `model` ("stream" or "noise", noise.OVERRULED_BY) reads the message, or `part` of its
    content alone (`overrule_texts`), as a finished result, under its overrule bar; `reading` is the form
    vector, then the meaning vector of what was embedded (`message_reading`)."""
    fitted_model = fitted.stream if model == "stream" else fitted.noise
    if reading is None or fitted_model is None:
        return False
    bar = PATTERN_OVERRULED_UNDER if model == "stream" else CONVERSATION_OVERRULED_UNDER
    if part is not None:
        words, signals = part, noise_signals(content=part, title=None, message_type=None)
    elif model == "stream":
        words = request.content
        signals = noise_signals(content=request.content, title=request.title, message_type=request.message_type)
    else:
        words, signals = request.content, noise_signals(content=request.content, title=None, message_type=None)
    return fitted_model.probability(ngram_features(words), reading, signals) < bar


def model_overrules(
    noise: str, fitted: Calibration, read: Callable[[str], Vector | None], request: RouteRequest
) -> bool:
    """Whether the patterns' verdict `noise` yields to the fitted model that answers for it reading a result
    in one of `overrule_texts` (`read` gives a text's reading, `message_reading`; asked lazily, in turn)."""
    model = OVERRULED_BY.get(noise)
    return model is not None and any(
        reads_result(fitted, read(text), request, model, part) for text, part in overrule_texts(noise, request)
    )


class Evidence(NamedTuple):
    """What a decision weighs (`evidence`)."""

    scores: list[TopicScore]  # the rule scores, every topic
    reading: Vector | None  # form vector, then meaning vector: what the noise and stream models read
    sims: dict[str, TopicSimilarity] | None  # closeness to each topic's rule texts (None without the model)
    noise: str | None  # the noise patterns' verdict, unless overruled
    overruled: str | None  # the patterns' verdict a fitted model overruled (noise.OVERRULED_BY)
    fallback_like: tuple[float, str] | None = None  # closeness to the fallback topic's closest positive example


def _excerpt(content: str, limit: int = 40) -> str:
    """The start of a message as a reason quotes it: whole words, "…" where it is cut (a walkthrough read
    "'Should I refund the full amount or just '")."""
    text = " ".join(content.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space >= limit // 2 else cut).rstrip(" ,;:，。；：") + "…"


READS_AS_CONVERSATION = "reads as conversation (a greeting, thanks, question or remark)"
READS_AS_WORK_GOING = "reads as work still going or a tool call"


def models_read_noise(fitted: Calibration, reading: Vector, request: RouteRequest) -> tuple[str, float] | None:
    """What the fitted noise and stream models read in a message the patterns let through (`reading`, its
    `message_reading`): (what it reads as, probability) when one holds it for conversation or work still going,
    else None. topic_route refuses such a message; so does topic_publish naming its topic."""
    signals = noise_signals(content=request.content, title=request.title, message_type=request.message_type)
    grams = ngram_features(request.content)
    models = ((fitted.noise, READS_AS_CONVERSATION), (fitted.stream, READS_AS_WORK_GOING))
    for model, reads_as in models:
        if model is None:
            continue
        holds, probability = model.holds(grams, reading, signals)
        if holds:
            return reads_as, probability
    return None


def route_message(
    compiled: CompiledRules,
    request: RouteRequest,
    *,
    topic_enabled: bool,
    fallback_policy: FallbackPolicy,
    semantic: SemanticIndex | None = None,
    fitted: Calibration | None = None,
) -> RouteDecision:
    """Decide whether `request` is published and to which topic. Deterministic for a given model.

    `semantic` (the bot's topics as vectors) adds meaning to the rules; without it the rules
    decide alone. Raises nothing for any message; a bad `fallback_policy` raises ValueError.
    """
    check_fallback_policy(fallback_policy)
    fitted = fitted or calibration()
    scores, vector, sims, noise, overruled, fallback_like = evidence(compiled, request, semantic, fitted)
    probs = _probabilities(fitted, feature_rows(scores, sims, fitted.lone_other)) if sims is not None else None
    candidates = _candidates(compiled.topics, scores, sims, probs)

    if not topic_enabled:
        return _filtered(
            "topic_disabled", "topic delivery is switched off for this bot (topic_enabled=false)", 1.0, candidates
        )
    kind = (request.message_type or "").strip().lower().replace("-", "_")
    if kind in ("progress", "tool_hint"):
        return _filtered(
            kind, f"message_type {kind!r} is a {kind.replace('_', '-')} stream, never published", 1.0, candidates
        )
    if kind == "chat":
        return _filtered("chat", "message_type 'chat' is conversation, not a result: never published", 1.0, candidates)
    if noise is not None:
        excerpt = _excerpt(request.content)
        return _filtered("noise", f"{NOISE_REASONS[noise]}: {excerpt!r}", 0.9, candidates, noise_kind=noise)
    if vector is not None and (read := models_read_noise(fitted, vector, request)) is not None:
        reads_as, probability = read
        excerpt = _excerpt(request.content)
        return _filtered(
            "noise",
            f"{reads_as}, not a finished result: {excerpt!r}",
            round(probability, 3),
            candidates,
            noise_kind="conversation" if reads_as == READS_AS_CONVERSATION else "progress",
        )

    kept, proposal, refused = None, None, None  # a topic that refused the bot's choice binds the engine too
    if request.proposed_topic_key is not None:
        kept, proposal, refused = _check_proposal(
            request.proposed_topic_key, scores, sims, probs, candidates, fitted, overruled
        )
    if kept is not None:
        decision = kept
    else:
        decision = _choose(compiled, scores, sims, probs, candidates, fallback_policy, fitted, refused, fallback_like)
        decision.proposal = proposal
        if proposal is not None:
            decision.reason = f"{proposal}; {decision.reason}"
    if overruled is not None:
        decision.reason += f"; {OVERRULED_NOTE[overruled]}"
    return decision


def _choose(
    compiled: CompiledRules,
    scores: list[TopicScore],
    sims: dict[str, TopicSimilarity] | None,
    probs: dict[str, float] | None,
    candidates: list[ScoredCandidate],
    policy: FallbackPolicy,
    fitted: Calibration,
    refused: str | None,
    fallback_like: tuple[float, str] | None = None,
) -> RouteDecision:
    """The engine's own choice among the topics (`refused`: a topic whose exclusion refused the bot's proposal;
    `fallback_like`: the message's closeness to the fallback topic's closest positive example)."""
    if probs is not None and sims is not None:
        if refused is not None and refused in probs:
            probs = {k: v for k, v in probs.items() if k != refused}
            total = sum(probs.values()) or 1.0
            probs = {k: v / total for k, v in probs.items()}
        return _by_meaning(compiled, scores, sims, probs, candidates, policy, fallback_like)
    return _by_rules(compiled, [s for s in scores if s.topic.key != refused], candidates, policy, fitted)


# What a decision's reason says when a fitted model overruled the patterns (`evidence`), in an owner's words:
# the patterns are a first look, the stream model checks for work still going, the noise model for conversation.
_CHECK = {"stream": "the work-in-progress check", "noise": "the conversation check"}
OVERRULED_NOTE = {
    kind: f"it looked like {what} at first, but read as a whole it is a finished result ({_CHECK[OVERRULED_BY[kind]]})"
    for kind, what in (
        ("progress", "a progress report"),
        ("tool_hint", "a tool call"),
        ("ack", "an acknowledgement"),
        ("greeting", "a greeting"),
        ("question", "a question back"),
    )
}


def _by_rules(
    compiled: CompiledRules,
    scores: list[TopicScore],
    candidates: list[ScoredCandidate],
    policy: FallbackPolicy,
    fitted: Calibration,
) -> RouteDecision:
    live = matches(scores)
    if live:
        decision = _matched(compiled, live, scores, candidates)
        decision.confidence = round(fitted.rules_confidence(rules_score(scores, live), matched=True), 3)
        return decision
    decision = _fallback(compiled, scores, candidates, policy)
    decision.confidence = round(fitted.rules_confidence(rules_score(scores, live), matched=False), 3)
    return decision


def matches(scores: list[TopicScore]) -> list[TopicScore]:
    """The topics the rules alone count as clear matches (score, no veto, near the strongest)."""
    live = [s for s in scores if s.vetoed_by is None and s.score >= MATCH_THRESHOLD]
    strongest = max((s.evidence for s in live), default=0.0)
    return [
        s for s in live if s.evidence >= strongest * (RELATIVE_FLOOR if s.anchored else RELATIVE_FLOOR_SYNONYMS_ONLY)
    ]


def rules_score(scores: list[TopicScore], live: list[TopicScore]) -> float:
    """The rule score a rules-only decision's confidence rests on: the winner's (priority first, then
    score) when something matched, else the best topic's (how near the fallback came to a match)."""
    if live:
        return min(live, key=lambda s: (-s.topic.priority, -s.score, s.topic.key)).score
    return max((s.score for s in scores if not s.topic.is_fallback), default=0.0)


def feature_rows(
    scores: list[TopicScore], sims: dict[str, TopicSimilarity], lone_other: tuple[float, float] = (0.0, 0.0)
) -> list[tuple[str, list[float]]]:
    """(topic key, its features) for every topic with vectors: what the topic-choice model weighs.
    A bot's only topic is measured against `lone_other` (what another topic typically scores, fitted),
    so its lead over nothing is not read as a lead over a rival."""
    ranked = [s for s in scores if s.topic.key in sims]
    bests = {s.topic.key: sims[s.topic.key].best for s in ranked}
    centroids = {s.topic.key: sims[s.topic.key].centroid for s in ranked}
    rows = []
    for s in ranked:
        other = max((v for k, v in bests.items() if k != s.topic.key), default=lone_other[0])
        centroid_other = max((v for k, v in centroids.items() if k != s.topic.key), default=lone_other[1])
        features = topic_features(
            sims[s.topic.key], other, centroid_other, s.score, s.anchored, s.vetoed_by is not None, s.topic.priority
        )
        rows.append((s.topic.key, features))
    return rows


def message_reading(vectors: MessageVectors) -> Vector:
    """What the noise and stream models read of a message: how it is written (its form vector), then what
    it is about (its meaning vector)."""
    return np.concatenate([vectors.form, vectors.meaning])


def evidence(
    compiled: CompiledRules, request: RouteRequest, semantic: SemanticIndex | None, fitted: Calibration | None = None
) -> Evidence:
    """What a decision weighs: the rule scores, the message's reading, its similarities to the topics
    and the noise patterns' verdict. `route_message` decides from it; the calibration is fitted on it
    (without `fitted`: no overrule, as the noise and stream models are fitted in the same run).

    With the model and `fitted`, a fitted model may overrule the patterns' verdict (noise.OVERRULED_BY)
    before the topics are scored, so a result it keeps is not refused by a topic's exclusion that names
    what the patterns read either (asked only when the patterns give such a verdict)."""
    message = analyse(compiled, request)
    if semantic is None:
        scores = score_topics(compiled, message, veto_from=MATCH_THRESHOLD)
        return Evidence(scores, None, None, message.noise_kind(), None)
    text = message_text(request.title, request.summary, request.content)
    vectors = semantic.embed_message(text)
    reading = message_reading(vectors)
    if fitted is not None:
        index, known = semantic, fitted

        def read(own: str) -> Vector:
            return reading if own == text else message_reading(index.embed_message(own))

        message.reads_result = lambda noise: model_overrules(noise, known, read, request)
    scores = score_topics(compiled, message, veto_from=MATCH_THRESHOLD)
    sims = similarities(semantic, vectors.meaning)
    # Said and meant by one exclusion, for a topic the rules' veto did not look at: the exclusion the message is
    # closest to in meaning, closer than to anything the topic includes (`_excluded_by_meaning`'s test, so the
    # words are read only where meaning already points there), has its words in the message.
    for s in scores:
        sim = sims.get(s.topic.key)
        if s.vetoed_by is None and sim is not None and sim.exclude is not None and sim.exclude > sim.best:
            cond = next((c for c in s.topic.excludes if c.label == sim.exclude_label), None)
            if cond is not None and exclusion_said(compiled, cond, message):
                s.said_excluded = f'{cond.label} "{cond.text}"'
    return Evidence(
        scores,
        reading,
        sims,
        message.standing_noise(),
        message.overruled(),
        fallback_likeness(semantic, vectors.meaning),
    )


def _probabilities(fitted: Calibration, rows: list[tuple[str, list[float]]]) -> dict[str, float]:
    """topic key -> probability, and "" -> probability that nothing fits."""
    probs = fitted.choice_probabilities([fitted.topic_utility(features) for _, features in rows])
    out = {key: p for (key, _), p in zip(rows, probs, strict=False)}
    out[""] = probs[-1]
    return out


def _by_meaning(
    compiled: CompiledRules,
    scores: list[TopicScore],
    sims: dict[str, TopicSimilarity],
    probs: dict[str, float],
    candidates: list[ScoredCandidate],
    policy: FallbackPolicy,
    fallback_like: tuple[float, str] | None = None,
) -> RouteDecision:
    by_key = {s.topic.key: s for s in scores}
    ranked = sorted((k for k in probs if k), key=lambda k: (-probs[k], k))
    # The owner's constraints hold in meaning too: a message closer to one of a topic's negative
    # examples than to any of its include texts does not go there.
    excluded = {
        k: why
        for k in ranked
        if (why := _excluded_by_meaning(sims[k], by_key[k].vetoed_by or by_key[k].said_excluded)) is not None
    }
    ranked = [k for k in ranked if k not in excluded]
    taught = _like_fallback_example(compiled, sims[ranked[0]] if ranked else None, fallback_like)
    if taught is not None:
        return RouteDecision(
            should_publish=True,
            topic_key=compiled.fallback_key,
            confidence=round(max(probs[""], min(0.95, taught[0])), 3),
            reason=f"{compiled.fallback_key}: the message is like its {taught[1]} ({taught[0]:.2f})"
            + (f", closer than to anything {ranked[0]} includes ({sims[ranked[0]].best:.2f})" if ranked else "")
            + "; a person put such messages in the fallback topic",
            candidates=candidates,
            filtered=None,
            fallback=False,
            evidence="rules+meaning",
        )
    if ranked and probs[ranked[0]] > probs[""]:
        key = ranked[0]
        win = by_key[key]
        sim = sims[key]
        parts = [f"meaning close to {sim.best_label} ({sim.best:.2f})"]
        if win.score > 0:
            parts.append(f"rules {win.explain()}, rule score {win.score:.2f}")
        if win.vetoed_by is not None:
            parts.append(f"its {win.vetoed_by} shares words with the message but not its meaning")
        runner = next((k for k in ranked[1:]), None)
        if runner is not None and probs[runner] >= 0.15:
            parts.append(f"next: {runner} ({probs[runner]:.2f})")
        parts += [f"not {k}: {why}" for k, why in sorted(excluded.items())]
        return RouteDecision(
            should_publish=True,
            topic_key=key,
            confidence=round(probs[key], 3),
            reason=f"{key}: " + "; ".join(parts) + f"; probability {probs[key]:.2f}",
            candidates=candidates,
            filtered=None,
            fallback=False,
            evidence="rules+meaning",
        )
    decision = _fallback(compiled, scores, candidates, policy)
    closest = ranked[0] if ranked else None
    if closest is not None:
        sim = sims[closest]
        why = (
            f"no topic fits clearly (closest {closest}: meaning of {sim.best_label} {sim.best:.2f}, "
            f"probability {probs[closest]:.2f})"
        )
    else:
        why = "no topic has rules to match"
    why += "".join(f"; not {k}: {reason}" for k, reason in sorted(excluded.items()))
    decision.reason = why + decision.reason[decision.reason.index(";") :] if ";" in decision.reason else why
    decision.confidence = round(probs[""], 3)
    decision.evidence = "rules+meaning"
    return decision


def _like_fallback_example(
    compiled: CompiledRules, best: TopicSimilarity | None, fallback_like: tuple[float, str] | None
) -> tuple[float, str] | None:
    """The fallback topic's positive examples are messages a person put there (Move to topic… teaches them):
    a message that rewords one, closer to it than to anything the best topic includes, goes to the fallback,
    as a message like a topic's negative example does not go to that topic (the same bar)."""
    if fallback_like is None or compiled.fallback_key is None:
        return None
    likeness, label = fallback_like
    if likeness > max(best.best if best is not None else -1.0, NEGATIVE_EXAMPLE_LIKENESS):
        return likeness, label
    return None


def _excluded_by_meaning(sim: TopicSimilarity, vetoed_by: str | None = None) -> str | None:
    """A negative example is a concrete message the owner does not want there: a message that is a
    rewording of one (and closer to it than to any include text) is excluded. An exclude_when text
    excludes when its words are in the message (`vetoed_by`, or `TopicScore.said_excluded` for a topic
    the rules alone did not match: "cloud bills" in "Cloud bill for November … up 12%", a topic the model
    reads as market news) and the message is closer in meaning to it than to anything the topic
    includes: said and meant. (Alone, neither is enough: an
    exclusion's words turn up in results it was not written for ("还在拉取订单数据" in a finished
    shipment notice), and its meaning is close to much of what the topic is for: excluding by meaning
    alone cost the design sets 4 points; there the fitted exclude_gap weighs it.)"""
    if sim.negative is not None and sim.negative > max(sim.best, NEGATIVE_EXAMPLE_LIKENESS):
        return f"the message is like its {sim.negative_label}"
    if vetoed_by is not None and sim.exclude is not None and sim.exclude > sim.best:
        return f"its {vetoed_by} applies (in its words and its meaning)"
    return None


def _check_proposal(
    proposed: str,
    scores: list[TopicScore],
    sims: dict[str, TopicSimilarity] | None,
    probs: dict[str, float] | None,
    candidates: list[ScoredCandidate],
    fitted: Calibration,
    overruled: str | None = None,
) -> tuple[RouteDecision | None, str, str | None]:
    """Keep the bot's own choice when the topic is active and no exclusion applies; else say why not.
    Returns (the kept decision or None, the note, the topic key when an exclusion refused it).
    `overruled`: the patterns' verdict a fitted model overruled; an exclusion naming it does not refuse."""
    key = proposed.strip()
    score = next((s for s in scores if s.topic.key == key), None)
    if score is None:
        return None, f"proposed topic {key!r} is not an active topic of this bot", None
    if score.vetoed_by is not None:
        return None, f"proposed topic {key!r} is excluded by its {score.vetoed_by}", key
    sim = sims.get(key) if sims is not None else None
    why = _excluded_by_meaning(sim) if sim is not None else None
    if (
        sim is not None
        and sim.exclude is not None
        and sim.exclude > sim.best
        and not _names_overruled(score.topic, sim.exclude_label, overruled)
    ):
        # A proposal has no competing evidence to outweigh an exclusion, so its description suffices.
        why = f"the message means what its {sim.exclude_label} says"
    if why is not None:
        return None, f"proposed topic {key!r} is excluded: {why}", key
    if probs is not None and key in probs:
        confidence = probs[key]
    else:
        confidence = fitted.rules_confidence(score.score, matched=True)
    note = "kept the bot's proposal"
    reason = f"{key}: {note}: the topic is active and none of its exclusions applies"
    if not score.topic.is_fallback and sim is not None:
        reason += f"; meaning close to {sim.best_label} ({sim.best:.2f})"
    decision = RouteDecision(
        should_publish=True,
        topic_key=key,
        confidence=round(confidence, 3),
        reason=reason,
        candidates=candidates,
        filtered=None,
        fallback=False,
        evidence="rules+meaning" if sims is not None else "rules",
        proposal="kept",
    )
    return decision, "kept", None


def _names_overruled(topic: CompiledTopic, label: str | None, overruled: str | None) -> bool:
    """Whether the topic's exclusion `label` names what the patterns read ("progress updates", "纯寒暄") of a
    message whose verdict a fitted model overruled: then it yields, as in the rule engine's veto."""
    if overruled is None:
        return False
    family = OVERRULED_BY[overruled]
    return any(
        cond.label == label and any(alt.meta is not None and OVERRULED_BY.get(alt.meta) == family for alt in cond.alts)
        for cond in topic.excludes
    )


def _candidates(
    topics: tuple[CompiledTopic, ...],
    scores: list[TopicScore],
    sims: dict[str, TopicSimilarity] | None = None,
    probs: dict[str, float] | None = None,
) -> list[ScoredCandidate]:
    out = []
    for t, s in zip(topics, scores, strict=True):
        sim = sims.get(t.key) if sims is not None else None
        out.append(
            ScoredCandidate(
                topic_key=t.key,
                score=round(s.score, 4),
                priority=t.priority,
                matched=list(s.matched),
                vetoed_by=s.vetoed_by,
                meaning=round(sim.best, 4) if sim is not None else None,
                meaning_of=sim.best_label if sim is not None else None,
                probability=round(probs[t.key], 4) if probs is not None and t.key in probs else None,
            )
        )
    if probs is not None:
        out.sort(key=lambda c: (-(c.probability or 0.0), -c.score, c.topic_key))
    else:
        out.sort(key=lambda c: (-c.score, -c.priority, c.topic_key))
    return out


def _filtered(
    kind: str, reason: str, confidence: float, candidates: list[ScoredCandidate], noise_kind: str | None = None
) -> RouteDecision:
    return RouteDecision(
        should_publish=False,
        topic_key=None,
        confidence=confidence,
        reason=reason,
        candidates=candidates,
        filtered=kind,
        fallback=False,
        noise_kind=noise_kind,
    )


def _matched(
    compiled: CompiledRules, live: list[TopicScore], scores: list[TopicScore], candidates: list[ScoredCandidate]
) -> RouteDecision:
    live.sort(key=lambda s: (-s.topic.priority, -s.score, s.topic.key))
    win = live[0]
    others = [s.score for s in scores if s is not win and s.vetoed_by is None]
    runner = max(others, default=0.0)
    margin = max(0.0, min(1.0, (win.score - runner) / win.score)) if win.score else 0.0
    confidence = round(min(0.99, win.score * (0.85 + 0.15 * margin) + 0.1), 3)
    reason = f"{win.topic.key}: {win.explain()}"
    beaten = live[1:]
    if beaten:
        names = ", ".join(f"{s.topic.key} ({s.topic.priority})" for s in beaten)
        if any(s.topic.priority == win.topic.priority for s in beaten):
            reason += f"; also matched {names}: same priority, higher score wins"
        else:
            reason += f"; priority {win.topic.priority} over {names}"
    return RouteDecision(
        should_publish=True,
        topic_key=win.topic.key,
        confidence=confidence,
        reason=reason,
        candidates=candidates,
        filtered=None,
        fallback=False,
    )


def _fallback(
    compiled: CompiledRules, scores: list[TopicScore], candidates: list[ScoredCandidate], policy: str
) -> RouteDecision:
    vetoed = [s for s in scores if s.vetoed_by is not None]
    clean = [s for s in scores if s.vetoed_by is None]
    near = max(clean, key=lambda s: (s.score, -s.topic.index), default=None)
    if vetoed:
        closest = max(vetoed, key=lambda s: (s.score, -s.topic.index))
        why = f"{closest.topic.key} was vetoed by {closest.vetoed_by}"
    elif near is not None and near.score > 0:
        closest = near
        why = f"no topic matched clearly (best {near.topic.key} {near.score:.2f} < {MATCH_THRESHOLD})"
    else:
        closest = None
        why = "no topic's rules match this message"
    confidence = round(max(0.3, min(0.95, 1.0 - (near.score if near else 0.0))), 3)
    if policy == "skip":
        return RouteDecision(
            should_publish=False,
            topic_key=None,
            confidence=confidence,
            reason=f"{why}; fallback policy 'skip': not published",
            candidates=candidates,
            filtered=None,
            fallback=True,
        )
    # The near-miss topic's own fallback_topic_key wins over the bot's default fallback topic.
    target, origin = compiled.fallback_key, "the default fallback topic"
    if (
        closest is not None
        and closest.score >= NEAR_MISS
        and closest.topic.fallback_topic_key in compiled.active_keys
        and closest.topic.fallback_topic_key != target
    ):  # named only where it changes the place: "(travel.fallback_topic_key)" for the inbox read as travel's doing
        target = closest.topic.fallback_topic_key
        origin = f"the fallback the closest topic, {closest.topic.key}, names (its fallback_topic_key)"
    if target is None:
        return RouteDecision(
            should_publish=False,
            topic_key=None,
            confidence=confidence,
            reason=f"{why}; fallback policy 'inbox' but no active fallback topic exists",
            candidates=candidates,
            filtered=None,
            fallback=True,
        )
    return RouteDecision(
        should_publish=True,
        topic_key=target,
        confidence=confidence,
        reason=f"{why}; fallback policy 'inbox': sent to {target} ({origin})",
        candidates=candidates,
        filtered=None,
        fallback=True,
    )
