"""`route_message`: the one decision function behind topic_route, the publish path's fallback
and the rule editor's "test this message" preview.

Order: hard filters (topic switch, progress/tool-hint streams, content that is only noise),
then every active topic is scored from its rules; a topic matches when its evidence is clear
and nothing in its exclude_when or negative examples vetoes it; among matches the higher
`priority` wins, then the higher score; no match goes to the fallback topic under the
bot's policy ("inbox") or is not published ("skip").
"""

from __future__ import annotations

from topic_dashboard.routing.analysis import analyse
from topic_dashboard.routing.compiled import CompiledRules, CompiledTopic
from topic_dashboard.routing.scoring import TopicScore, score_topics
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
NEAR_MISS = 0.2  # a topic this close to matching may redirect the fallback (its fallback_topic_key)
_NOISE_REASONS = {
    "empty": "content is empty",
    "tool_hint": "content is a tool hint (a tool call, not a result)",
    "progress": "content is only a progress report",
    "ack": "content is only an acknowledgement",
    "greeting": "content is only a greeting or small talk",
}


def route_message(
    compiled: CompiledRules,
    request: RouteRequest,
    *,
    topic_enabled: bool,
    fallback_policy: FallbackPolicy,
) -> RouteDecision:
    """Decide whether `request` is published and to which topic. Pure and deterministic.

    Raises nothing for any message; a bad `fallback_policy` raises ValueError.
    """
    check_fallback_policy(fallback_policy)
    message = analyse(compiled, request)
    scores = score_topics(compiled, message, veto_from=MATCH_THRESHOLD)
    candidates = _candidates(compiled.topics, scores)

    if not topic_enabled:
        return _filtered(
            "topic_disabled", "topic delivery is switched off for this bot (topic_enabled=false)", 1.0, candidates
        )
    kind = (request.message_type or "").strip().lower().replace("-", "_")
    if kind in ("progress", "tool_hint"):
        return _filtered(
            kind, f"message_type {kind!r} is a {kind.replace('_', '-')} stream, never published", 1.0, candidates
        )
    noise = message.noise_kind()
    if noise is not None:
        excerpt = request.content.strip()[:40]
        return _filtered("noise", f"{_NOISE_REASONS[noise]}: {excerpt!r}", 0.9, candidates)

    live = [s for s in scores if s.vetoed_by is None and s.score >= MATCH_THRESHOLD]
    strongest = max((s.evidence for s in live), default=0.0)
    live = [
        s for s in live if s.evidence >= strongest * (RELATIVE_FLOOR if s.anchored else RELATIVE_FLOOR_SYNONYMS_ONLY)
    ]
    if live:
        return _matched(compiled, live, scores, candidates)
    return _fallback(compiled, scores, candidates, fallback_policy)


def _candidates(topics: tuple[CompiledTopic, ...], scores: list[TopicScore]) -> list[ScoredCandidate]:
    out = [
        ScoredCandidate(
            topic_key=t.key,
            score=round(s.score, 4),
            priority=t.priority,
            matched=list(s.matched),
            vetoed_by=s.vetoed_by,
        )
        for t, s in zip(topics, scores)
    ]
    out.sort(key=lambda c: (-c.score, -c.priority, c.topic_key))
    return out


def _filtered(kind: str, reason: str, confidence: float, candidates: list[ScoredCandidate]) -> RouteDecision:
    return RouteDecision(
        should_publish=False,
        topic_key=None,
        confidence=confidence,
        reason=reason,
        candidates=candidates,
        filtered=kind,
        fallback=False,
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
    if closest is not None and closest.score >= NEAR_MISS and closest.topic.fallback_topic_key in compiled.active_keys:
        target, origin = closest.topic.fallback_topic_key, f"{closest.topic.key}.fallback_topic_key"
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
