"""The Bots page's words for a token's age."""

from __future__ import annotations

import pytest

from topic_dashboard.bots_page.state import age_in_words


@pytest.mark.parametrize(
    ("days", "said"),
    [
        (0.0, "under 1 h"),
        (0.01, "under 1 h"),
        (1 / 24, "1 h"),
        (0.5, "12 h"),
        (0.999, "23 h"),
        (1.0, "1 d"),
        (12.7, "12 d"),
    ],
)
def test_a_tokens_age_is_said_in_hours_or_days(days: float, said: str) -> None:
    """A walkthrough read "Token age 0.01 d"."""
    assert age_in_words(days) == said
