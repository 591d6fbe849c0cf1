"""What m does to the ticked rows: the bulk bar's Read, or its Unread when every ticked row is read already."""

from __future__ import annotations

import pytest

from topic_dashboard.topic_panel.rows import ItemRow, bulk_done_text, read_key_action

ROWS = [ItemRow(id=1, is_read=True), ItemRow(id=2, is_read=False), ItemRow(id=3, is_read=True)]


@pytest.mark.parametrize(
    ("ticked", "action"),
    [
        ([2], "read"),  # unread: read
        ([1, 3], "unread"),  # every one read: unread
        ([1, 2], "read"),  # mixed: all read
        ([3, 2, 1], "read"),
        ([1, 99], "read"),  # one not in the list (its state unknown here): read, which hides nothing
        ([], "read"),
    ],
)
def test_m_marks_the_ticked_rows_read_unless_every_one_is_read_already(ticked: list[int], action: str) -> None:
    assert read_key_action(ticked, ROWS) == action


@pytest.mark.parametrize(
    ("action", "count", "said"),
    [
        ("archive", 2, "Archived 2 items"),
        ("read", 1, "Marked 1 item read"),
        ("unread", 3, "Marked 3 items unread"),
        ("pin", 1, "Pinned 1 item"),
        ("unarchive", 2, "Unarchived 2 items"),
    ],
)
def test_the_bulk_bar_says_what_it_did_in_words(action: str, count: int, said: str) -> None:
    """A walkthrough read "2 items: archive" after archiving two rows."""
    assert bulk_done_text(action, count) == said
