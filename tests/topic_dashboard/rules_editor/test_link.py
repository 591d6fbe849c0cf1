"""The Rules page's address: which topic a link opens, and the note when it opens none."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from topic_dashboard.rules_editor.link import LinkedTopic, linked_topic, rules_url

KEYS = ("inbox", "builds")


def _linked(wanted_topic: str, wanted_bot: str = "b1") -> LinkedTopic:
    return linked_topic(
        wanted_bot=wanted_bot, wanted_topic=wanted_topic, shown_bot="b1", shown_bot_name="Research", topic_keys=KEYS
    )


def test_the_address_names_the_bot_and_the_open_topic() -> None:
    assert rules_url("b1") == "/rules?bot=b1"
    assert rules_url("b1", "builds") == "/rules?bot=b1&topic=builds"
    crafted = urlsplit(rules_url("a&topic=x", "builds"))  # an id is encoded, never read as a second parameter
    assert parse_qs(crafted.query) == {"bot": ["a&topic=x"], "topic": ["builds"]}


def test_a_topic_of_the_shown_bot_opens_without_a_note() -> None:
    assert _linked("builds") == LinkedTopic(topic_key="builds")
    assert _linked("builds", wanted_bot="") == LinkedTopic(topic_key="builds")  # no bot named: the first one's
    assert _linked("") == LinkedTopic()


def test_a_topic_the_bot_has_not_opens_nothing_and_says_so() -> None:
    linked = _linked("payroll")
    assert linked.topic_key == ""
    assert linked.note == "Research has no topic 'payroll' (deleted, or a mistyped link): choose one from the list."


def test_what_cannot_be_a_topic_key_is_not_looked_up_and_is_quoted_back_cut() -> None:
    for crafted in ("<script>alert(1)</script>", "Inbox", "inbox\n", "../inbox", "x" * 65):
        linked = _linked(crafted)
        assert linked.topic_key == "" and "which is not a topic key" in linked.note, crafted
    assert "x" * 64 + "…'" in _linked("x" * 500).note


def test_a_topic_of_a_bot_that_is_not_there_is_not_opened_on_another_bot() -> None:
    linked = _linked("inbox", wanted_bot="gone")
    assert linked.topic_key == ""
    assert linked.note == (
        "There is no bot 'gone' (deleted, or a mistyped link): showing Research; its topic 'inbox' is not opened."
    )
    assert (
        _linked("", wanted_bot="gone").note == "There is no bot 'gone' (deleted, or a mistyped link): showing Research."
    )
