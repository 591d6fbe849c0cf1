"""The Rules page's base state: the chosen bot and its topics.

Each concern of the page is a substate of `RulesState`, so each sees the bot and its topics as its own
vars: `RuleEditorState` (the open topic and its rule) and `RulePreviewState` (test this message) in
editor_state.py, `CreateTopicState` and `DeleteTopicState` (the dialogs) in create_state.py and
delete_state.py. Substates reach each other with `await self.get_state(...)`.
"""

from __future__ import annotations

import reflex as rx

from topic_dashboard.auth.guard import SignedInState
from topic_dashboard.components.bot_choice import BotOption, bot_choice
from topic_dashboard.db import read_session
from topic_dashboard.errors import AppError
from topic_dashboard.routing import TopicSpec
from topic_dashboard.rules_editor.rows import RuleTopicRow
from topic_dashboard.services import topics as topic_service
from topic_dashboard.services.routing_service import topic_spec


class RulesState(SignedInState):
    bots: list[BotOption] = []
    bot_id: str = ""
    topics: list[RuleTopicRow] = []
    # the bot's saved topics and settings as the router sees them: what the preview routes against
    _specs: list[TopicSpec] = []
    _topic_enabled: bool = True
    _fallback_policy: str = "inbox"

    @rx.event
    async def load_page(self) -> rx.event.EventSpec | None:
        self.bots, self.bot_id = bot_choice(
            self.router.url.query_parameters.get("bot", ""), reader=self._principal().user_id
        )
        await self._close_topic()
        if self.bot_id:
            return self._load_topics()
        return None

    @rx.event
    async def select_bot(self, bot_id: str) -> rx.event.EventSpec | None:
        self.bot_id = bot_id
        await self._close_topic()
        return self._load_topics()

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
