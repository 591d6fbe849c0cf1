"""Plain data passed into and out of the routing engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from topic_dashboard.routing.rules import RoutingRules

FallbackPolicy = Literal["inbox", "skip"]
FILTER_KINDS = ("topic_disabled", "progress", "tool_hint", "chat", "noise")


def check_fallback_policy(value: str) -> FallbackPolicy:
    """`value` as a fallback policy (stored and edited as text). Raises ValueError unless "inbox" or "skip"."""
    if value == "inbox":
        return "inbox"
    if value == "skip":
        return "skip"
    raise ValueError(f"fallback_policy must be 'inbox' or 'skip', not {value!r}")


@dataclass(frozen=True)
class TopicSpec:
    """One topic as the engine sees it; `routing` is the topic's routing_json."""

    topic_key: str
    name: str
    description: str = ""
    is_active: bool = True
    is_default_fallback: bool = False
    routing: RoutingRules | dict[str, Any] | None = None


@dataclass(frozen=True)
class RouteRequest:
    """What `topic_route` receives: the candidate message and the model's own hints."""

    content: str
    title: str | None = None
    message_type: str | None = None
    tags: tuple[str, ...] = ()
    level: str | None = None
    summary: str | None = None
    proposed_topic_key: str | None = None  # the bot's own choice, checked against the rules


@dataclass
class ScoredCandidate:
    """One topic's evidence. `score` is the rule engine's; `meaning` the closest rule text in meaning
    (centred cosine) when the embedding model runs; `probability` the calibrated share of belief."""

    topic_key: str
    score: float
    priority: int
    matched: list[str] = field(default_factory=list)
    vetoed_by: str | None = None
    meaning: float | None = None
    meaning_of: str | None = None
    probability: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "topic_key": self.topic_key,
            "score": self.score,
            "priority": self.priority,
            "matched": list(self.matched),
            "vetoed_by": self.vetoed_by,
            "meaning": self.meaning,
            "meaning_of": self.meaning_of,
            "probability": self.probability,
        }


@dataclass
class RouteDecision:
    """The engine's answer. `reason` names the rule text or example that decided it."""

    should_publish: bool
    topic_key: str | None
    confidence: float
    reason: str
    candidates: list[ScoredCandidate] = field(default_factory=list)
    filtered: str | None = None
    fallback: bool = False
    evidence: str = "rules"  # "rules+meaning" when the embedding model took part
    proposal: str | None = None  # what became of the bot's proposed_topic_key: "kept" or why not
    # With filtered "noise": what it is ("ack", "greeting", "question", "empty", "progress", "tool_hint" from the
    # patterns; "conversation" or "progress" from the fitted models), as topic_publish's filtered_noise names it.
    noise_kind: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "should_publish": self.should_publish,
            "topic_key": self.topic_key,
            "confidence": self.confidence,
            "reason": self.reason,
            "candidates": [c.to_dict() for c in self.candidates],
            "filtered": self.filtered,
            "fallback": self.fallback,
            "evidence": self.evidence,
            "proposal": self.proposal,
        }
