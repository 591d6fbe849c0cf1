"""The Topic panel's address: every filter it keeps comes back as it was written, defaults stay out of it,
and what the panel does not know falls back to the default (a stale or hand-edited link is no error)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from topic_dashboard.item_views.limits import LEVELS
from topic_dashboard.services.search import MAX_QUERY_CHARS
from topic_dashboard.topic_panel.address import PanelAddress, panel_url, read_address


def _read_back(url: str) -> PanelAddress:
    return read_address(dict(parse_qsl(urlsplit(url).query, keep_blank_values=True)))


@pytest.mark.parametrize(
    "address",
    [
        PanelAddress(bot_id="b1"),
        PanelAddress(bot_id="b1", level="error"),
        PanelAddress(bot_id="b1", unread_only=True),
        PanelAddress(bot_id="*", selection="pinned", level="warn", unread_only=True),
        PanelAddress(bot_id="b1", selection="topic:ci", search="deploy kiwi", level="success", item_id=42),
        PanelAddress(bot_id="b1", selection="topic:a&b=c", search="?x=1#y", level="info", unread_only=True),
        PanelAddress(bot_id="b1", tag="release"),
        PanelAddress(bot_id="b1", show_archived=True),
        PanelAddress(bot_id="b1", tag="a&b #1", show_archived=True, unread_only=True, item_id=7),
    ],
)
def test_every_filter_comes_back_as_it_was_written(address: PanelAddress) -> None:
    assert _read_back(panel_url(address)) == address


def test_the_plain_list_has_the_plain_address() -> None:
    assert panel_url(PanelAddress(bot_id="b1")) == "/?bot=b1"
    assert panel_url(PanelAddress(bot_id="b1", level="error", unread_only=True)) == "/?bot=b1&level=error&unread=1"


@pytest.mark.parametrize("level", LEVELS)
def test_each_level_is_kept(level: str) -> None:
    assert read_address({"bot": "b1", "level": level}).level == level


@pytest.mark.parametrize(
    "params",
    [
        {"level": "loud", "unread": "maybe"},
        {"level": "ERROR", "unread": "true"},
        {"level": "", "unread": ""},
        {"level": "error\x00", "unread": "1 "},
        {"level": "any", "unread": "0"},
        {"view": "everything", "item": "²"},
        {"item": "-3"},
        {"item": "9" * 40},
        {"tag": "x" * 33, "archived": "yes"},
        {"tag": "two\nlines", "archived": "true"},
        {"tag": "nul\x00", "archived": ""},
        {"tag": "   ", "archived": "0"},
    ],
)
def test_what_the_panel_does_not_know_is_its_default(params: dict[str, str]) -> None:
    address = read_address({"bot": "b1", **params})
    assert address == PanelAddress(bot_id="b1")


def test_a_long_search_is_cut_to_what_the_search_takes() -> None:
    assert read_address({"q": "x" * (MAX_QUERY_CHARS + 50)}).search == "x" * MAX_QUERY_CHARS
