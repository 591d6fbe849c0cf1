"""`topic_route` for a bot: its rules compiled once per change, then the routing engine decides.

The same `route_for_bot` serves the MCP tool, the publish path when no topic_key is given, and
(through `preview_route`) the rule editor's "test this message".
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from sqlmodel import Session

from topic_dashboard.models import Topic
from topic_dashboard.routing import (
    CompiledRules,
    RouteDecision,
    RouteRequest,
    TopicSpec,
    check_fallback_policy,
    compile_rules,
    route_message,
)
from topic_dashboard.services.topics import TopicPublic, load_settings, topic_rows

_cache_lock = threading.Lock()
# bot_id -> (rules_version, compiled). A change of any topic bumps rules_version.
_compiled: dict[str, tuple[int, CompiledRules]] = {}


def topic_spec(topic: Topic | TopicPublic) -> TopicSpec:
    return TopicSpec(
        topic_key=topic.topic_key,
        name=topic.name,
        description=topic.description,
        is_active=topic.is_active,
        is_default_fallback=topic.is_default_fallback,
        routing=dict(topic.routing_json or {}),
    )


def compiled_rules(*, session: Session, bot_id: str, rules_version: int) -> CompiledRules:
    """The bot's compiled rules, rebuilt only when `rules_version` changed."""
    with _cache_lock:
        cached = _compiled.get(bot_id)
        if cached is not None and cached[0] == rules_version:
            return cached[1]
    compiled = compile_rules([topic_spec(topic) for topic in topic_rows(session=session, bot_id=bot_id)])
    with _cache_lock:
        _compiled[bot_id] = (rules_version, compiled)
    return compiled


def route_for_bot(*, session: Session, bot_id: str, request: RouteRequest) -> RouteDecision:
    """Decide whether and where a candidate result belongs. Raises bot_not_found."""
    settings = load_settings(session=session, bot_id=bot_id)
    compiled = compiled_rules(session=session, bot_id=bot_id, rules_version=settings.rules_version)
    return route_message(
        compiled,
        request,
        topic_enabled=settings.topic_enabled,
        fallback_policy=check_fallback_policy(settings.fallback_policy),
    )


def preview_route(
    *, topics: Sequence[TopicSpec], request: RouteRequest, topic_enabled: bool, fallback_policy: str
) -> RouteDecision:
    """Route against rules that are not saved yet (the rule editor's live preview)."""
    return route_message(
        compile_rules(list(topics)),
        request,
        topic_enabled=topic_enabled,
        fallback_policy=check_fallback_policy(fallback_policy),
    )
