"""The detail pane's pure shaping of an item: timeline times read as date-times only when they are one."""

from __future__ import annotations

import pytest

from topic_dashboard.topic_panel.detail import iso_time


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("2026-11-30T09:30:00Z", "2026-11-30T09:30:00+00:00"),
        ("2026-11-30 09:30", "2026-11-30T09:30:00+00:00"),
        ("2026-11-30T09:30:00+08:00", "2026-11-30T09:30:00+08:00"),
        ("09:30", ""),
        ("yesterday", ""),
        ("2026-11-30", ""),
        ("2026-13-40T00:00", ""),
    ],
)
def test_timeline_times_are_read_as_date_times_only_when_they_are_one(text: str, iso: str) -> None:
    assert iso_time(text) == iso
