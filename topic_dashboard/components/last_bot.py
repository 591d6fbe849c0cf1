"""The bot a person last chose, kept by their browser: a page whose address names no bot opens on it.

Kept per browser (local storage), not per account: remembering it server-side would need a new table (a
migration) and a write on every choice, and which bot someone works with is as much a matter of the device
(the laptop on one bot, the phone on another) as of the person. The stored value names whose choice it was,
so someone else signing in on the same browser starts from their own first visit.

The value is the browser's: any script there can write it. It is only a hint that `bot_choice` checks against
the bots there are; what a person may see stays decided server-side.
"""

from __future__ import annotations

import reflex as rx

from topic_dashboard.auth.guard import SignedInState
from topic_dashboard.components.bot_choice import BotOption, bot_choice

STORAGE_KEY = "td-last-bot"
MAX_STORED_CHARS = 200  # a person's id, ":" and a bot's id fit with room to spare


def stored_choice(reader: int | None, bot_id: str) -> str:
    """What the browser keeps for `reader` choosing `bot_id`."""
    return f"{reader if reader is not None else ''}:{bot_id}"


def recalled(stored: object, reader: int | None) -> str:
    """The bot `reader` last chose, from what the browser kept ("" when it kept nothing of theirs)."""
    if not isinstance(stored, str) or len(stored) > MAX_STORED_CHARS:
        return ""
    owner, separator, bot_id = stored.partition(":")
    if not separator or owner != (str(reader) if reader is not None else ""):
        return ""
    return bot_id


class LastBotState(SignedInState):
    """The pages' shared memory of the bot last chosen. It has no events of its own: pages read and write it
    in theirs (`land_on_bot`, `remember_bot`)."""

    # sync: a choice made in one tab is where the browser's other tabs land next (what they show stays)
    last_bot: str = rx.LocalStorage("", name=STORAGE_KEY, sync=True)

    def _recall(self, reader: int | None) -> str:
        return recalled(self.last_bot, reader)

    def _remember(self, reader: int | None, bot_id: str) -> None:
        value = stored_choice(reader, bot_id)
        if bot_id and value != self.last_bot:
            self.last_bot = value


async def land_on_bot(state: SignedInState, wanted: str, *, fallback: bool = True) -> tuple[list[BotOption], str]:
    """The bots and the one a page opens on (`bot_choice`, given the bot this person last chose). A bot the
    address named, and found, is their choice from now on (a link followed, a reload)."""
    reader = state._principal().user_id
    memory = await state.get_state(LastBotState)
    options, chosen = bot_choice(wanted, reader=reader, remembered=memory._recall(reader), fallback=fallback)
    if chosen and chosen == wanted:
        memory._remember(reader, chosen)
    return options, chosen


async def recalled_bot(state: SignedInState) -> str:
    """The bot this person last chose, as their browser keeps it: unchecked (the Topic panel's All bots, `*`,
    is one; `bot_choice` checks a bot's id against the bots there are)."""
    memory = await state.get_state(LastBotState)
    return memory._recall(state._principal().user_id)


async def remember_bot(state: SignedInState, bot_id: str) -> None:
    """`bot_id` is the bot the person chose (from a page's bots: the caller has checked it is one)."""
    memory = await state.get_state(LastBotState)
    memory._remember(state._principal().user_id, bot_id)
