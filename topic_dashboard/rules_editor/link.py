"""The Rules page's address: `/rules?bot=<id>&topic=<key>` names the bot and its open topic.

A link is read before anything opens: a topic of a bot that is not the one shown, a key that cannot be a
topic key, or a key the bot has no topic for opens nothing and gives a note saying so (never an error page).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import urlencode

from topic_dashboard.services.topics import TOPIC_KEY_RE

SHOWN_CHARS = 64  # of a key or id quoted back in a note: a crafted link can be long


def rules_url(bot_id: str, topic_key: str = "") -> str:
    """The page's address for this bot and open topic (none: the bot alone)."""
    params = {"bot": bot_id}
    if topic_key:
        params["topic"] = topic_key
    return "/rules?" + urlencode(params)


@dataclass(frozen=True)
class LinkedTopic:
    """What a link asks the page to open: `topic_key` ("" for none) and, when it is ignored, why."""

    topic_key: str = ""
    note: str = ""


def _quoted(text: str) -> str:
    return repr(text[:SHOWN_CHARS] + ("…" if len(text) > SHOWN_CHARS else ""))


def linked_topic(
    *, wanted_bot: str, wanted_topic: str, shown_bot: str, shown_bot_name: str, topic_keys: Collection[str]
) -> LinkedTopic:
    """The topic to open for a link that asked for `wanted_bot` and `wanted_topic`, the page showing
    `shown_bot` (the wanted one when it exists, else the first) whose topics are `topic_keys`."""
    notes = []
    if wanted_bot and wanted_bot != shown_bot:
        notes.append(f"There is no bot {_quoted(wanted_bot)} (deleted, or a mistyped link): showing {shown_bot_name}")
        if wanted_topic:
            notes.append(f"its topic {_quoted(wanted_topic)} is not opened")
        return LinkedTopic(note="; ".join(notes) + ".")
    if not wanted_topic:
        return LinkedTopic()
    if not TOPIC_KEY_RE.fullmatch(wanted_topic):
        return LinkedTopic(
            note=f"The link names {_quoted(wanted_topic)}, which is not a topic key "
            "(lowercase letters, digits and _): no topic was opened."
        )
    if wanted_topic not in topic_keys:
        return LinkedTopic(
            note=f"{shown_bot_name} has no topic {_quoted(wanted_topic)} (deleted, or a mistyped link): "
            "choose one from the list."
        )
    return LinkedTopic(topic_key=wanted_topic)
