"""What m does to the ticked rows: the bulk bar's Read, or its Unread when every ticked row is read already."""

from __future__ import annotations

import pytest

from topic_dashboard.topic_panel.rows import ItemRow, read_key_action

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
