"""The Rules page's preview: the topics it routes against (the open one as edited), and the rows it shows."""

from __future__ import annotations

import pytest

from topic_dashboard.routing import RouteDecision, ScoredCandidate, TopicSpec
from topic_dashboard.rules_editor.preview import plain_labels, preview_topics, score_rows

SAVED = [
    TopicSpec(topic_key="inbox", name="Inbox", is_default_fallback=True, routing={"purpose": "anything"}),
    TopicSpec(topic_key="builds", name="Builds", routing={"purpose": "CI", "include_when": ["build results"]}),
    TopicSpec(topic_key="alerts", name="Alerts", routing={"purpose": "incidents"}),
]


def test_without_an_edited_topic_the_saved_rules_are_previewed() -> None:
    topics = preview_topics(SAVED, None)
    assert topics == SAVED
    assert topics is not SAVED


def test_the_edited_topic_replaces_its_saved_version() -> None:
    edited = TopicSpec(topic_key="builds", name="Builds", routing={"purpose": "CI", "include_when": ["deploys"]})
    assert preview_topics(SAVED, edited) == [SAVED[0], SAVED[2], edited]


def test_an_edited_topic_that_is_not_saved_is_added() -> None:
    edited = TopicSpec(topic_key="markets", name="Markets")
    assert preview_topics(SAVED, edited) == [*SAVED, edited]


def test_score_rows_mark_the_chosen_topic_and_say_why() -> None:
    decision = RouteDecision(
        should_publish=True,
        topic_key="builds",
        confidence=0.75,
        reason="builds: matched",
        candidates=[
            ScoredCandidate(topic_key="builds", score=0.7059, priority=60, matched=["a", "b", "c", "d"]),
            ScoredCandidate(topic_key="alerts", score=0.375, priority=50, vetoed_by='exclude_when[0] "staging"'),
        ],
    )
    rows = score_rows(decision)
    assert [(r.topic_key, r.score_pct, r.priority, r.chosen) for r in rows] == [
        ("builds", 71, 60, True),
        ("alerts", 38, 50, False),
    ]
    assert rows[0].matched == "a; b; c"  # the first three reasons
    assert (rows[0].vetoed_by, rows[1].vetoed_by) == ("", 'Exclude when #1 "staging"')


@pytest.mark.parametrize(
    ("engine", "editor"),
    [
        (
            "meaning close to include_when[0], translated (0.29)",
            "meaning close to Include when #1 (translated word by word) (0.29)",
        ),
        ('its exclude_when[1] "spam" applies', 'its Exclude when #2 "spam" applies'),
        ('examples.positive[0] "New review" (0.19)', 'positive example #1 "New review" (0.19)'),
        ("the message is like its examples.negative[11]", "the message is like its negative example #12"),
        ("purpose/name (review)", "purpose or name (review)"),
        ('keywords "review, stars" (star)', 'keywords "review, stars" (star)'),
    ],
)
def test_the_editor_names_rule_texts_as_its_own_sections_do(engine: str, editor: str) -> None:
    """A new owner read "include_when[0], translated" in the test panel: jargon from routing_json."""
    assert plain_labels(engine) == editor


def test_nothing_is_chosen_when_the_message_is_not_published() -> None:
    decision = RouteDecision(
        should_publish=False,
        topic_key="builds",
        confidence=0.0,
        reason="filtered",
        candidates=[ScoredCandidate(topic_key="builds", score=0.9, priority=50)],
    )
    assert [row.chosen for row in score_rows(decision)] == [False]


def test_a_closeness_just_under_zero_shows_as_zero() -> None:
    """A walkthrough read "purpose -0.00" in the test panel."""
    decision = RouteDecision(
        should_publish=True,
        topic_key="builds",
        confidence=0.4,
        reason="builds: …",
        candidates=[
            ScoredCandidate(topic_key="builds", score=0.5, priority=50, meaning=-0.001, meaning_of="purpose"),
            ScoredCandidate(topic_key="alerts", score=0.1, priority=50, meaning=-0.2, meaning_of="name"),
        ],
    )
    assert [r.meaning for r in score_rows(decision)] == ["purpose 0.00", "name -0.20"]
