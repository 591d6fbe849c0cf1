"""The bot a page shows: the one the address names, else the one this person last chose, else the one with the
most unread items for them, else the first.

Every page that shows one bot lands through `bot_choice`; which bot the person last chose is kept by their
browser (components/last_bot.py) and is only a hint: a bot that is not (or no longer) there is passed over.
"""

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


def pick_bot(options: list[BotOption], *, wanted: str, remembered: str, fallback: bool = True) -> str:
    """The id of the bot to show among `options` (every bot there is, in their order): `wanted` (the address's)
    when it is one of them, else `remembered` (the person's last choice) when it is, else with `fallback` the
    one with the most unread items (the first of equals), so the first bot when nothing is unread; "" when
    there is none, or none was named or remembered and `fallback` is off."""
    ids = {option.id for option in options}
    for candidate in (wanted, remembered):
        if isinstance(candidate, str) and candidate in ids:
            return candidate
    if not fallback or not options:
        return ""
    return max(options, key=lambda option: option.unread).id  # max keeps the first of equals


def bot_choice(
    wanted: str, *, reader: int | None, remembered: str = "", fallback: bool = True
) -> tuple[list[BotOption], str]:
    """Every bot as an option (with `reader`'s unread count), and the id to show (`pick_bot`; "" if none).

    `wanted` and `remembered` come from the browser (the address, its storage): they only choose among the
    bots there are."""
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
    return options, pick_bot(options, wanted=wanted, remembered=remembered, fallback=fallback)


ALL_BOTS = "*"  # the Topic panel's "All bots" choice (never a bot's id: ids are lookup keys)


def with_all_bots(options: list[BotOption]) -> list[BotOption]:
    """The options led by "All bots", whose count is the others' together."""
    bots = [option for option in options if option.id != ALL_BOTS]
    if not bots:
        return bots
    unread = sum(option.unread for option in bots)
    return [BotOption(id=ALL_BOTS, name="All bots", unread=unread, label=option_label("All bots", unread)), *bots]
