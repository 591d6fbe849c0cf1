"""What the browser keeps of the bot a person last chose: their id with the bot's, read back only for them."""

from __future__ import annotations

from topic_dashboard.components.last_bot import MAX_STORED_CHARS, recalled, stored_choice


def test_the_remembered_bot_is_read_back_for_the_person_who_chose_it_only() -> None:
    stored = stored_choice(7, "zeta-1")
    assert recalled(stored, 7) == "zeta-1"
    assert recalled(stored, 8) == ""  # someone else signed in on this browser: their own first visit
    assert recalled(stored, None) == ""
    assert recalled(stored_choice(None, "zeta-1"), None) == "zeta-1"


def test_whatever_the_browser_sends_is_only_a_hint() -> None:
    """The value comes from the browser (any script there can write it): a page checks it against the bots
    there are (`bot_choice`); here it only has to come back as a string, or nothing."""
    assert recalled("", 7) == ""
    assert recalled("zeta-1", 7) == ""  # no owner
    assert recalled("7:", 7) == ""
    assert recalled("7:a:b", 7) == "a:b"  # passed on as it is, and found to be no bot
    assert recalled("7:" + "x" * MAX_STORED_CHARS, 7) == ""  # too long to be a bot's id
    assert recalled(None, 7) == ""  # a stored JSON null
    assert recalled(42, 7) == ""
