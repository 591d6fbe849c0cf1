"""Measure routing quality on a labelled set, for the engine and for a naive keyword baseline.

A case is right when both the publish decision and the topic are right. Also counted:
noise published (anything labelled "not published" that was), progress/tool-hint published
(must be zero), and substantive messages lost (labelled for a topic, not published).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from topic_dashboard.routing.calibration import calibration
from topic_dashboard.routing.compiler import compile_rules
from topic_dashboard.routing.engine import route_message
from topic_dashboard.routing.rules import validate_routing
from topic_dashboard.routing.semantic import Embedder, build_index
from topic_dashboard.routing.text import STOP_EN, is_cjk
from topic_dashboard.routing.types import RouteDecision, RouteRequest, TopicSpec

# (published?, topic, confidence or None for routers that give none)
Decide = Callable[[dict[str, Any]], tuple[bool, str | None, float | None]]
BANDS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9)
NOISE_KINDS = ("noise", "progress", "tool_hint")


@dataclass
class EvalResult:
    name: str
    total: int = 0
    correct: int = 0
    noise_total: int = 0
    noise_published: int = 0
    stream_published: int = 0  # progress / tool-hint cases published: must stay 0
    substantive_total: int = 0
    substantive_lost: int = 0
    misrouted: int = 0
    errors: list[str] = field(default_factory=list)
    by_variant: dict[str, list[int]] = field(default_factory=dict)  # variant -> [right, total]
    by_band: dict[float, list[int]] = field(default_factory=dict)  # confidence band floor -> [right, total]

    def variant_accuracy(self, variant: str) -> float | None:
        right, total = self.by_variant.get(variant, [0, 0])
        return right / total if total else None

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0


def load_eval_set(path: str | Path) -> tuple[list[TopicSpec], list[dict[str, Any]]]:
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    topics = [
        TopicSpec(
            topic_key=t["topic_key"],
            name=t["name"],
            description=t.get("description", ""),
            is_active=t.get("is_active", True),
            is_default_fallback=t.get("is_default_fallback", False),
            routing=t.get("routing"),
        )
        for t in doc["topics"]
    ]
    return topics, doc["cases"]


def request_of(case: dict[str, Any]) -> RouteRequest:
    return RouteRequest(
        content=case["content"],
        title=case.get("title"),
        message_type=case.get("message_type"),
        tags=tuple(case.get("tags") or ()),
        level=case.get("level"),
        summary=case.get("summary"),
        proposed_topic_key=case.get("proposed_topic_key"),
    )


def engine_decider(topics: list[TopicSpec], embedder: Embedder | None = None) -> Decide:
    """The engine as topic_route runs it: with the embedding model when `embedder` is given, else rules alone."""
    return engine_decisions(topics, embedder, lambda d: (d.should_publish, d.topic_key, d.confidence))


def engine_decisions(
    topics: list[TopicSpec], embedder: Embedder | None, shape: Callable[[RouteDecision], Any]
) -> Callable[[dict[str, Any]], Any]:
    compiled = compile_rules(topics)
    semantic = build_index(topics, embedder, calibration().centring) if embedder is not None else None

    def decide(case: dict[str, Any]) -> Any:
        d = route_message(
            compiled,
            request_of(case),
            topic_enabled=case.get("topic_enabled", True),
            fallback_policy=case.get("policy", "inbox"),
            semantic=semantic,
        )
        return shape(d)

    return decide


def keyword_baseline(topics: list[TopicSpec]) -> Decide:
    """The naive router: include_when split on whitespace and punctuation into keywords
    (English stop-words dropped, English matched as whole words, Chinese as substrings); a
    topic matches when any keyword occurs, the highest priority wins, else the fallback
    topic. It honours the switch and the progress/tool_hint message types."""
    table = []
    fallback = next((t.topic_key for t in topics if t.is_default_fallback and t.is_active), None)
    for t in topics:
        if not t.is_active:
            continue
        rules = validate_routing(t.routing)
        words = {w.lower() for text in rules.include_when for w in re.split(r"[\s\W_]+", text)}
        words = {w for w in words if len(w) >= 2 and w not in STOP_EN}
        patterns = [re.compile(re.escape(w) if is_cjk(w) else rf"\b{re.escape(w)}\b") for w in sorted(words)]
        table.append((rules.priority, t.topic_key, patterns))
    table.sort(key=lambda x: (-x[0], x[1]))

    def decide(case: dict[str, Any]) -> tuple[bool, str | None, float | None]:
        if not case.get("topic_enabled", True) or case.get("message_type") in ("progress", "tool_hint"):
            return False, None, None
        text = " ".join(filter(None, [case.get("title"), case["content"]])).lower()
        for _, key, patterns in table:
            if any(p.search(text) for p in patterns):
                return True, key, None
        if case.get("policy", "inbox") == "skip" or fallback is None:
            return False, None, None
        return True, fallback, None

    return decide


def evaluate(name: str, decide: Decide, cases: list[dict[str, Any]]) -> EvalResult:
    result = EvalResult(name)
    for case in cases:
        published, topic, confidence = decide(case)
        expect = case["expect"]
        result.total += 1
        right = (published and topic == expect) if expect else not published
        result.correct += right
        variant = case.get("variant")
        if variant:
            tally = result.by_variant.setdefault(variant, [0, 0])
            tally[0] += right
            tally[1] += 1
        if confidence is not None:
            band = max(b for b in BANDS if confidence >= b)
            tally = result.by_band.setdefault(band, [0, 0])
            tally[0] += right
            tally[1] += 1
        if expect is None:
            if case["kind"] in NOISE_KINDS:
                result.noise_total += 1
                result.noise_published += published
                if case["kind"] in ("progress", "tool_hint") or case.get("message_type") in ("progress", "tool_hint"):
                    result.stream_published += published
        else:
            result.substantive_total += 1
            result.substantive_lost += not published
            result.misrouted += published and topic != expect
        if not right:
            result.errors.append(
                f"{case['id']}: expected {expect}, got {topic if published else None} | {case['content'][:70]}"
            )
    return result
