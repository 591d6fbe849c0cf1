"""The Rules page's base state: the chosen bot and its topics.

Each concern of the page is a substate of `RulesState`, so each sees the bot and its topics as its own
vars: `RuleEditorState` (the open topic and its rule) and `RulePreviewState` (test this message) in
editor_state.py, `CreateTopicState` and `DeleteTopicState` (the dialogs) in create_state.py and
delete_state.py. Substates reach each other with `await self.get_state(...)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qs, urlencode

import reflex as rx

from topic_dashboard.auth.guard import SignedInState
from topic_dashboard.components.address_bar import set_address
from topic_dashboard.components.bot_choice import BotOption, bot_choice
from topic_dashboard.components.last_bot import land_on_bot, remember_bot
from topic_dashboard.db import read_session
from topic_dashboard.errors import AppError
from topic_dashboard.routing import TopicSpec
from topic_dashboard.rules_editor.link import linked_topic, rules_url
from topic_dashboard.rules_editor.rows import RuleTopicRow
from topic_dashboard.services import topics as topic_service
from topic_dashboard.services.routing_service import topic_spec

MAX_SEARCH_CHARS = 2_000  # of an address's query string sent by the page
NEW_TOPIC = "new-topic"  # a pending move to the New topic dialog (`pending_url`)


def _params(search: str) -> dict[str, str]:
    """A query string's parameters, the first value of each."""
    return {name: values[0] for name, values in parse_qs(search[:MAX_SEARCH_CHARS]).items()}


# Back and Forward between addresses of this page (`_url_script` pushes one per opened topic) run no on_load:
# one listener per window presses the page's hidden `rules-history-sync` button, whose event carries the query.
FOLLOW_HISTORY = """if (!window.__tdRulesHistory) {
  window.__tdRulesHistory = true;
  window.addEventListener("popstate", () => {
    if (window.location.pathname.replace(/\\/+$/, "") !== "/rules") return;
    const sync = document.getElementById("rules-history-sync");
    if (sync) sync.click();
  });
}"""


class RulesState(SignedInState):
    bots: list[BotOption] = []
    bot_id: str = ""
    topics: list[RuleTopicRow] = []
    # the bot's saved topics and settings as the router sees them: what the preview routes against
    _specs: list[TopicSpec] = []
    _topic_enabled: bool = True
    _fallback_policy: str = "inbox"

    # why the topic a link named was not opened ("" when it was, or none was named)
    link_note: str = ""
    # Unsaved edits stop a move away from them until the person chooses: where the page was going (a rules
    # address, or NEW_TOPIC) and whose edits would be lost. "" when nothing waits.
    pending_url: str = ""
    pending_topic: str = ""

    @rx.event
    async def load_page(self) -> list[rx.event.EventSpec]:
        """on_load (a link, a reload, a page of the app): the bot and the open topic the address names. Back by
        the navigation's link (an address naming nothing) with edits not saved, the edited topic is shown again
        with them (a walkthrough was met by "Discard unsaved changes?" for edits it had come back to make)."""
        params = dict(self.router.url.query_parameters)
        if not params and (unsaved := await self._unsaved()) is not None:
            return [
                rx.call_script(FOLLOW_HISTORY),
                self._url_script(unsaved[0], replace=True),
                rx.toast.info(f"Your unsaved changes to {unsaved[1]} are still here", id="rules-unsaved-kept"),
            ]
        shown = await self._follow(params)
        return [rx.call_script(FOLLOW_HISTORY), *shown]

    @rx.event
    async def follow_address(self, search: str) -> list[rx.event.EventSpec]:
        """Back or Forward within the page (an address `_url_script` pushed): show what it names. Reflex runs
        no on_load for it, so a listener (`FOLLOW_HISTORY`) sends the address's query string here. With
        unsaved edits the address goes back to the open topic and the page asks first (`pending_url`)."""
        return await self._follow(_params(str(search).removeprefix("?")))

    async def _follow(self, params: dict[str, str]) -> list[rx.event.EventSpec]:
        """Show what an address names, unless that would drop unsaved edits: an address of the edited topic
        itself changes nothing (a reload keeps the edits), another one is put back to the edited topic and
        waits for the person's choice (`pending_url`)."""
        unsaved = await self._unsaved()
        if unsaved is None:
            return await self._show_address(params)
        if params.get("bot", "") == self.bot_id and params.get("topic", "") == unsaved[0]:
            return []
        self.pending_url, self.pending_topic = "/rules?" + urlencode(params), unsaved[1]
        return [self._url_script(unsaved[0])]

    async def _unsaved(self) -> tuple[str, str] | None:
        """The open topic's key and name when its edits are not saved (a substate says: `_edits`), else None."""
        for substate in RulesState.get_substates():
            state = await self.get_state(substate)
            if isinstance(state, RulesState) and (edits := state._edits()) is not None:
                return edits
        return None

    def _edits(self) -> tuple[str, str] | None:
        """A substate's part of `_unsaved`: the key and name of a topic with unsaved edits; this base has none."""
        return None

    async def _guard(self, url: str) -> bool:
        """Whether unsaved edits stop going to `url` (a rules address, or NEW_TOPIC): then the page asks."""
        unsaved = await self._unsaved()
        if unsaved is None:
            return False
        self.pending_url, self.pending_topic = url, unsaved[1]
        return True

    @rx.event
    def keep_editing(self) -> None:
        """The person keeps the unsaved edits: nothing moves."""
        self.pending_url = self.pending_topic = ""

    @rx.event
    def set_unsaved_open(self, value: bool) -> None:
        """The dialog closed by Escape: the person keeps editing."""
        if not value:
            self.pending_url = self.pending_topic = ""

    @rx.event
    async def discard_and_go(self) -> list[rx.event.EventSpec]:
        """The person gives up the unsaved edits: the page goes where it was going."""
        url, self.pending_url, self.pending_topic = self.pending_url, "", ""
        if not url:
            return []
        if url == NEW_TOPIC:
            from topic_dashboard.rules_editor.create_state import CreateTopicState  # it imports this module

            # The edited topic goes back to its saved rules under the New topic dialog, so closing the dialog
            # returns to it (it was closed, and a walkthrough found the page empty behind a cancelled dialog).
            unsaved = await self._unsaved()
            shown = await self._show_address({"bot": self.bot_id, "topic": unsaved[0]}) if unsaved else []
            return [*shown, CreateTopicState.open_create]
        await self._close_topic()
        params = _params(url.partition("?")[2])
        shown = await self._show_address(params)
        return [*shown, self._url_script(params.get("topic", "") if self.bot_id == params.get("bot") else "")]

    async def _show_address(self, params: Mapping[str, str]) -> list[rx.event.EventSpec]:
        wanted_bot = params.get("bot", "")
        self.bots, self.bot_id = await land_on_bot(self, wanted_bot)
        self.link_note = ""
        await self._close_topic()
        if not self.bot_id:
            return []
        failed = self._load_topics()
        if failed:
            return [failed]
        linked = linked_topic(
            wanted_bot=wanted_bot,
            wanted_topic=params.get("topic", ""),
            shown_bot=self.bot_id,
            shown_bot_name=next((bot.name for bot in self.bots if bot.id == self.bot_id), self.bot_id),
            topic_keys=[row.key for row in self.topics],
        )
        self.link_note = linked.note
        if linked.topic_key:
            for substate in RulesState.get_substates():
                state = await self.get_state(substate)
                if isinstance(state, RulesState):
                    failed = await state._topic_linked(linked.topic_key) or failed
        if failed:
            return [failed]
        # The address says what is shown: an ignored bot or topic leaves it (a reload would note it again).
        return [self._url_script(replace=True)] if linked.note else []

    @rx.event
    async def select_bot(self, bot_id: str) -> rx.event.EventSpec | None:
        if all(bot.id != bot_id for bot in self.bots):  # the browser's word; a bot made since the page loaded?
            bots, chosen = bot_choice(bot_id, reader=self._principal().user_id, fallback=False)
            if chosen != bot_id:
                return rx.toast.error(f"There is no bot {str(bot_id)[:64]!r}")
            self.bots = bots
        if bot_id != self.bot_id and await self._guard(rules_url(bot_id)):
            return None
        self.bot_id = bot_id
        self.link_note = ""
        await self._close_topic()
        failed = self._load_topics()
        if failed:
            return failed
        await remember_bot(self, bot_id)
        return self._url_script(replace=True)

    def _url_script(self, topic_key: str = "", *, replace: bool = False) -> rx.event.EventSpec:
        """Write the bot and the open topic into the address bar. Opening a topic adds a history entry,
        so Back reopens the one before; a reload or a shared link opens the same topic (`load_page`)."""
        return set_address(rules_url(self.bot_id, topic_key), push=not replace)

    def _load_topics(self) -> rx.event.EventSpec | None:
        try:
            with read_session() as session:
                overview = topic_service.topics_overview(session=session, bot_id=self.bot_id)
                rows = topic_service.list_topics(session=session, bot_id=self.bot_id)
                settings = topic_service.get_topic_settings(session=session, bot_id=self.bot_id)
        except AppError as error:
            return rx.toast.error(error.message)
        self.topics = [
            RuleTopicRow(
                key=row.topic_key,
                name=row.name,
                is_active=row.is_active,
                is_fallback=row.is_default_fallback,
                priority=row.priority,
                item_count=row.item_count,
                archived_count=row.archived_count,
                last_item_at=row.last_item_at or "",
            )
            for row in overview
        ]
        self._specs = [topic_spec(row) for row in rows]
        self._topic_enabled, self._fallback_policy = settings.topic_enabled, settings.fallback_policy
        return None

    async def _close_topic(self) -> None:
        """No topic is open any more (another bot was chosen, or it was deleted): each substate forgets it.

        The substates say what they forget (`_topic_closed`), so this module needs none of theirs.
        """
        for substate in RulesState.get_substates():
            state = await self.get_state(substate)
            if isinstance(state, RulesState):
                state._topic_closed()

    def _topic_closed(self) -> None:
        """A substate's part of `_close_topic`; this base holds nothing of the open topic."""

    async def _topic_linked(self, topic_key: str) -> rx.event.EventSpec | None:
        """A substate's part of opening the topic the address names (the editor opens it); an error toast
        when it cannot. This base opens nothing."""
        return None
