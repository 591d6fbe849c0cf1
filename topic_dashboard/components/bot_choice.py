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


def option_label(name: str, unread: int) -> str:
    return name + (f" · {unread} unread" if unread else "")


def with_unread(options: list[BotOption], bot_id: str, unread: int) -> list[BotOption]:
    """The options with one bot's unread count brought up to date (the shown bot's, as its reader reads)."""
    return [
        dataclasses.replace(option, unread=unread, label=option_label(option.name, unread))
        if option.id == bot_id and option.unread != unread
        else option
        for option in options
    ]


def bot_choice(wanted: str, *, reader: int | None) -> tuple[list[BotOption], str]:
    """Every bot as an option (with `reader`'s unread count), and the id to show: `wanted` when it
    exists, else the first bot's ("" if none)."""
    with read_session() as session:
        unread = item_service.unread_by_bot(session=session, reader=reader)
        options = [
            BotOption(
                id=bot.bot_id,
                name=bot.name,
                unread=unread.get(bot.bot_id, 0),
                label=option_label(bot.name, unread.get(bot.bot_id, 0)),
            )
            for bot in bot_service.list_bots(session=session)
        ]
    chosen = wanted if any(option.id == wanted for option in options) else (options[0].id if options else "")
    return options, chosen


ALL_BOTS = "*"  # the Topic panel's "All bots" choice (never a bot's id: ids are lookup keys)


def with_all_bots(options: list[BotOption]) -> list[BotOption]:
    """The options led by "All bots", whose count is the others' together."""
    bots = [option for option in options if option.id != ALL_BOTS]
    if not bots:
        return bots
    unread = sum(option.unread for option in bots)
    return [BotOption(id=ALL_BOTS, name="All bots", unread=unread, label=option_label("All bots", unread)), *bots]
