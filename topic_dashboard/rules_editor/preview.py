"""Test this message: which topics the Rules page's preview routes against, and the rows it shows. Pure."""

from __future__ import annotations

import re
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


# The engine names rule texts by their place in routing_json ("include_when[0]", "examples.positive[1]",
# "purpose, translated"), which bots and the API keep; the editor names them as its own sections do.
_PLAIN_LABELS = (
    (re.compile(r"\binclude_when\[(\d+)\]"), "Include when #{}"),
    (re.compile(r"\bexclude_when\[(\d+)\]"), "Exclude when #{}"),
    (re.compile(r"\bexamples\.positive\[(\d+)\]"), "positive example #{}"),
    (re.compile(r"\bexamples\.negative\[(\d+)\]"), "negative example #{}"),
)


def plain_labels(text: str) -> str:
    """`text` (a reason, a matched rule, a veto) with the rule texts named as the editor names them:
    'include_when[0], translated' -> 'Include when #1 (translated word by word)': the rule text's gloss in
    the other language than its own (routing/gloss.py) is what came closest."""
    for pattern, label in _PLAIN_LABELS:
        text = pattern.sub(lambda match, label=label: label.format(int(match.group(1)) + 1), text)
    return text.replace("purpose/name", "purpose or name").replace(", translated", " (translated word by word)")


def score_rows(decision: RouteDecision) -> list[ScoreRow]:
    """One row per candidate topic, best first as the engine ranked them; the chosen one marked."""
    return [
        ScoreRow(
            topic_key=c.topic_key,
            score=c.score,
            score_pct=round(c.score * 100),
            priority=c.priority,
            matched=plain_labels("; ".join(c.matched[:3])),
            vetoed_by=plain_labels(c.vetoed_by or ""),
            chosen=decision.should_publish and c.topic_key == decision.topic_key,
            # "+ 0.0": a closeness of -0.001 shows as 0.00, not "-0.00"
            meaning=plain_labels(f"{c.meaning_of} {round(c.meaning, 2) + 0.0:.2f}")
            if c.meaning is not None and c.meaning_of
            else "",
            bar_pct=round((c.probability if c.probability is not None else c.score) * 100),
        )
        for c in decision.candidates
    ]
