"""`topic_route` for a bot: its rules compiled once per change, then the routing engine decides.

The same `route_for_bot` serves the MCP tool, the publish path when no topic_key is given, and
(through `preview_route`) the rule editor's "test this message". With the embedding model (see
routing/semantic.py) each bot's rule texts become vectors once per rule change; the vectors are
kept in the `rule_vector` table, so a restart or another worker reads them instead of embedding.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

import numpy as np
import sqlalchemy as sa
from sqlmodel import Session, col, select

from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.models import RuleVector, Topic
from topic_dashboard.routing import (
    CompiledRules,
    RouteDecision,
    RouteRequest,
    TopicSpec,
    check_fallback_policy,
    compile_rules,
    route_message,
)
from topic_dashboard.routing.calibration import calibration
from topic_dashboard.routing.engine import message_reading, model_overrules, models_read_noise
from topic_dashboard.routing.gloss import lexicon as gloss_lexicon
from topic_dashboard.routing.noise import OVERRULED_BY
from topic_dashboard.routing.semantic import (
    SemanticIndex,
    Vector,
    build_index,
    default_embedder,
    message_text,
    read_message,
)
from topic_dashboard.services.topics import TopicPublic, load_settings, topic_rows

_cache_lock = threading.Lock()
# bot_id -> (rules_version, compiled). A change of any topic bumps rules_version.
_compiled: dict[str, tuple[int, CompiledRules]] = {}
_semantic: dict[str, tuple[int, SemanticIndex]] = {}


class DatabaseVectorStore:
    """Rule-text vectors in the `rule_vector` table, read and written in the caller's session.

    `writable=False` (routing) only reads: a missing vector is embedded for this process and
    stored later by a rule save or the start-up warm-up, never from inside a route (which may
    run inside a publish's write transaction)."""

    def __init__(self, session: Session, *, writable: bool) -> None:
        self.session = session
        self.writable = writable

    def get_many(self, model_id: str, digests: Sequence[str]) -> dict[str, Vector]:
        if not digests:
            return {}
        rows = self.session.exec(
            select(RuleVector).where(RuleVector.model_id == model_id, col(RuleVector.digest).in_(list(digests)))
        ).all()
        return {row.digest: np.frombuffer(row.vector, dtype="<f4").copy() for row in rows}

    def put_many(self, model_id: str, vectors: Mapping[str, Vector]) -> None:
        if not self.writable or not vectors:
            return
        have = set(self.get_many(model_id, list(vectors)))
        for digest, vector in vectors.items():
            if digest not in have:
                self.session.add(
                    RuleVector(model_id=model_id, digest=digest, vector=np.asarray(vector, dtype="<f4").tobytes())
                )


def store_rule_vectors(*, session: Session, topics: Sequence[TopicSpec]) -> None:
    """Embed and add (in the caller's transaction) the vectors of these topics' rule texts that the
    table lacks: a rule save pays the embedding once, routes only read."""
    embedder = default_embedder().embedder
    if embedder is not None:
        build_index(topics, embedder, calibration().centring, store=DatabaseVectorStore(session, writable=True))


def warm_rule_vectors() -> int:
    """Store the vectors of every bot's active rules that are missing (after an upgrade or a model
    change) and prime the compiled rules and indexes. Run once at start-up, in the background, so
    a bot's first route after a restart waits for neither the model nor its rules. Returns how many
    bots it looked at."""
    embedder = default_embedder().embedder
    if embedder is None:
        return 0
    gloss_lexicon()  # ~2 s once: a rule saved or previewed later is glossed without the wait
    try:
        with read_session() as session:
            bot_ids = list(session.exec(select(Topic.bot_id).distinct()))
    except (sa.exc.SQLAlchemyError, AppError):  # no database yet: /api/health says why
        return 0
    for bot_id in bot_ids:
        with write_session() as session:
            try:
                store_rule_vectors(
                    session=session, topics=[topic_spec(t) for t in topic_rows(session=session, bot_id=bot_id)]
                )
                session.commit()
                # Prime this process's caches (and the word segmenter) so the bot's first route is quick.
                version = load_settings(session=session, bot_id=bot_id).rules_version
                compiled_rules(session=session, bot_id=bot_id, rules_version=version)
                semantic_index(session=session, bot_id=bot_id, rules_version=version)
            except (sa.exc.SQLAlchemyError, AppError):  # a bot deleted meanwhile, a busy database: next start
                session.rollback()
    return len(bot_ids)


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


def semantic_index(*, session: Session, bot_id: str, rules_version: int) -> SemanticIndex | None:
    """The bot's topics as vectors (rebuilt when `rules_version` changed), or None without the model."""
    embedder = default_embedder().embedder
    if embedder is None:
        return None
    with _cache_lock:
        cached = _semantic.get(bot_id)
        if cached is not None and cached[0] == rules_version:
            return cached[1]
    specs = [topic_spec(topic) for topic in topic_rows(session=session, bot_id=bot_id)]
    index = build_index(specs, embedder, calibration().centring, store=DatabaseVectorStore(session, writable=False))
    with _cache_lock:
        _semantic[bot_id] = (rules_version, index)
    return index


def patterns_overruled(*, kind: str, title: str | None, content: str, message_type: str | None) -> bool:
    """Whether the noise patterns' verdict `kind` on a message yields to a fitted model reading a finished
    result, as topic_route decides (engine.model_overrules): topic_publish refuses no result that
    topic_route would publish. Embeds the message only for a verdict that can be overruled."""
    if kind not in OVERRULED_BY:
        return False
    embedder = default_embedder().embedder
    if embedder is None:
        return False
    fitted = calibration()
    request = RouteRequest(content=content, title=title, message_type=message_type)
    return model_overrules(
        kind, fitted, lambda text: message_reading(read_message(embedder, fitted.centring, text)), request
    )


def read_as_noise(*, title: str | None, content: str, message_type: str | None) -> str | None:
    """What the fitted models read in a message, as topic_route reads it after the patterns
    (engine.models_read_noise): "reads as conversation …" or "reads as work still going …", else None (and
    None without the model). No topic's rules are needed, so no bot's index is built: it embeds the message
    once (topic_route's embedding of it is reused)."""
    embedder = default_embedder().embedder
    if embedder is None:
        return None
    fitted = calibration()
    request = RouteRequest(content=content, title=title, message_type=message_type)
    reading = message_reading(read_message(embedder, fitted.centring, message_text(title, None, content)))
    read = models_read_noise(fitted, reading, request)
    return read[0] if read is not None else None


def routing_mode() -> tuple[str, str]:
    """("rules+meaning" or "rules", why): what /api/health reports."""
    status = default_embedder()
    return ("rules+meaning" if status.embedder is not None else "rules"), status.detail


def route_for_bot(*, session: Session, bot_id: str, request: RouteRequest) -> RouteDecision:
    """Decide whether and where a candidate result belongs. Raises bot_not_found."""
    settings = load_settings(session=session, bot_id=bot_id)
    compiled = compiled_rules(session=session, bot_id=bot_id, rules_version=settings.rules_version)
    return route_message(
        compiled,
        request,
        topic_enabled=settings.topic_enabled,
        fallback_policy=check_fallback_policy(settings.fallback_policy),
        semantic=semantic_index(session=session, bot_id=bot_id, rules_version=settings.rules_version),
    )


def preview_route(
    *, topics: Sequence[TopicSpec], request: RouteRequest, topic_enabled: bool, fallback_policy: str
) -> RouteDecision:
    """Route against rules that are not saved yet (the rule editor's live preview), with meaning too."""
    embedder = default_embedder().embedder
    semantic = None
    if embedder is not None:
        with read_session() as session:
            store = DatabaseVectorStore(session, writable=False)
            semantic = build_index(list(topics), embedder, calibration().centring, store=store)
    return route_message(
        compile_rules(list(topics)),
        request,
        topic_enabled=topic_enabled,
        fallback_policy=check_fallback_policy(fallback_policy),
        semantic=semantic,
    )
