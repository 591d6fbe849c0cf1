"""Test this message: which topics the Rules page's preview routes against, and the rows it shows. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from topic_dashboard.routing import RouteDecision, TopicSpec
from topic_dashboard.rules_editor.rows import ScoreRow


def preview_topics(saved: Sequence[TopicSpec], edited: TopicSpec | None) -> list[TopicSpec]:
    """The bot's saved topics, the open topic as edited replacing its saved version (and placed last).

    `edited` is None when no topic is open or its draft does not validate: then the saved rules are previewed.
    """
    if edited is None:
        return list(saved)
    return [spec for spec in saved if spec.topic_key != edited.topic_key] + [edited]


def score_rows(decision: RouteDecision) -> list[ScoreRow]:
    """One row per candidate topic, best first as the engine ranked them; the chosen one marked."""
    return [
        ScoreRow(
            topic_key=c.topic_key,
            score=c.score,
            score_pct=round(c.score * 100),
            priority=c.priority,
            matched="; ".join(c.matched[:3]),
            vetoed_by=c.vetoed_by or "",
            chosen=decision.should_publish and c.topic_key == decision.topic_key,
            meaning=f"{c.meaning_of} {c.meaning:.2f}" if c.meaning is not None and c.meaning_of else "",
            bar_pct=round((c.probability if c.probability is not None else c.score) * 100),
        )
        for c in decision.candidates
    ]
