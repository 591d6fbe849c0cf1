"""The bot a page shows: the one the URL names, else the first one."""

from __future__ import annotations

import dataclasses

from topic_dashboard.db import read_session
from topic_dashboard.services import bots as bot_service
from topic_dashboard.services import items as item_service


@dataclasses.dataclass
class BotOption:
    """A bot in a page's bot selector."""

    id: str = ""
    name: str = ""
    unread: int = 0
    label: str = ""  # the name, and its unread count when it has some


def bot_choice(wanted: str) -> tuple[list[BotOption], str]:
    """Every bot as an option, and the id to show: `wanted` when it exists, else the first bot's ("" if none)."""
    with read_session() as session:
        unread = item_service.unread_by_bot(session=session)
        options = [
            BotOption(
                id=bot.bot_id,
                name=bot.name,
                unread=unread.get(bot.bot_id, 0),
                label=bot.name + (f" · {unread[bot.bot_id]} unread" if unread.get(bot.bot_id) else ""),
            )
            for bot in bot_service.list_bots(session=session)
        ]
    chosen = wanted if any(option.id == wanted for option in options) else (options[0].id if options else "")
    return options, chosen
