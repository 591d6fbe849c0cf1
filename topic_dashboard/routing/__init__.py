"""Deterministic, explainable topic routing: should a bot's message be published, and where.

The model proposes; these rules decide. One function, `route_message`, serves topic_route,
the publish path's fallback and the rule editor's "test this message" preview. Pure Python:
no web framework or database imports.
"""

from topic_dashboard.routing.compiled import CompiledRules
from topic_dashboard.routing.compiler import compile_rules
from topic_dashboard.routing.engine import route_message
from topic_dashboard.routing.rules import RoutingExamples, RoutingRules, validate_routing
from topic_dashboard.routing.types import (
    RouteDecision,
    RouteRequest,
    ScoredCandidate,
    TopicSpec,
    check_fallback_policy,
)

__all__ = [
    "CompiledRules",
    "RouteDecision",
    "RouteRequest",
    "RoutingExamples",
    "RoutingRules",
    "ScoredCandidate",
    "TopicSpec",
    "check_fallback_policy",
    "compile_rules",
    "route_message",
    "validate_routing",
]
