"""The Topic panel's address: what its query string keeps (the bot, the view, the search, the level, tag,
unread-only and archived filters, the open item), so that a reload, a shared link and Back show the same list.

Read leniently: a value the panel does not know (a stale or hand-edited link) falls back to its default,
never an error. Plain functions, no Reflex: state.py writes and reads the address through them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from urllib.parse import urlencode

from topic_dashboard.item_views.limits import LEVELS, LIMITS
from topic_dashboard.services.search import MAX_QUERY_CHARS
from topic_dashboard.text_policy import forbidden_char

ANY_LEVEL = "any"
VIEWS = ("all", "unread", "pinned")  # besides topic:<key>


@dataclasses.dataclass(frozen=True)
class PanelAddress:
    bot_id: str = ""
    selection: str = "all"  # all | unread | pinned | topic:<key>
    search: str = ""
    level: str = ANY_LEVEL  # any | one of LEVELS
    unread_only: bool = False
    tag: str = ""
    show_archived: bool = False
    item_id: int = 0  # the open item, 0 for none


def panel_url(address: PanelAddress) -> str:
    """The panel's address for `address`; defaults are left out (`/?bot=b1` is the plain list)."""
    params = {"bot": address.bot_id}
    if address.selection != "all":
        params["view"] = address.selection
    if address.search.strip():
        params["q"] = address.search.strip()
    if address.level != ANY_LEVEL:
        params["level"] = address.level
    if address.unread_only:
        params["unread"] = "1"
    if address.tag.strip():
        params["tag"] = address.tag.strip()
    if address.show_archived:
        params["archived"] = "1"
    if address.item_id:
        params["item"] = str(address.item_id)
    # `selection` and `q` can come from a crafted link: urlencode escapes them.
    return "/?" + urlencode(params, safe=":*")


def read_address(params: Mapping[str, str]) -> PanelAddress:
    """The panel's address from a query string's parameters; anything unknown is its default."""
    view = params.get("view", "")
    level = params.get("level", "")
    item = params.get("item", "")
    tag = params.get("tag", "").strip()
    return PanelAddress(
        bot_id=params.get("bot", ""),
        selection=view if view in VIEWS or view.startswith("topic:") else "all",
        search=params.get("q", "")[:MAX_QUERY_CHARS],
        level=level if level in LEVELS else ANY_LEVEL,
        unread_only=params.get("unread", "") == "1",
        # A tag is one line of at most a tag's length: anything else names no tag an item can have.
        tag=tag if len(tag) <= LIMITS.tag_max_chars and forbidden_char(tag, single_line=True) is None else "",
        show_archived=params.get("archived", "") == "1",
        # ASCII digits only ("²".isdigit() is true), and a size an item id can have.
        item_id=int(item) if item.isascii() and item.isdigit() and len(item) <= 18 else 0,
    )
