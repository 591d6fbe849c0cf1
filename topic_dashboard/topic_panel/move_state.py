"""Move to topic…: an admin moves the open item to another topic and may teach the rules with it;
the toast's Undo puts both back (docs/DESIGN.md §4.4). Several ticked items of one bot move at once
from the bulk bar (the rules are not taught: one example at a time). A thin adapter over
services/corrections.py."""

from __future__ import annotations

import secrets

import reflex as rx

from topic_dashboard.auth.guard import admin_only
from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.services import corrections as correction_service
from topic_dashboard.services import items as item_service
from topic_dashboard.services.audit import actor_of
from topic_dashboard.topic_panel.detail import item_detail
from topic_dashboard.topic_panel.rows import TopicRow
from topic_dashboard.topic_panel.state import TopicPanelState

UNDO_TOAST_MS = 12_000
KEPT_MOVES = 20  # the moves whose Undo a tab can still offer


class MoveItemState(TopicPanelState):
    move_open: bool = False
    move_target: str = ""
    teach: bool = True
    # What each recent move did, by the id its toast's Undo names; kept on the server only.
    _moves: dict[str, correction_service.ItemMovePublic] = {}
    bulk_move_open: bool = False
    bulk_move_target: str = ""
    _bulk_moves: dict[str, correction_service.ItemsMovedPublic] = {}

    @rx.var
    def move_choices(self) -> list[TopicRow]:
        """The open item's bot's other active topics."""
        return [
            topic
            for topic in self.topics
            if topic.is_active and topic.bot_id == self.detail.bot_id and topic.key != self.detail.topic_key
        ]

    @rx.var
    def bulk_move_bot(self) -> str:
        """The bot of every ticked row ("" when they are of several bots: topics are a bot's own)."""
        chosen = set(self.selected_ids)
        owners = {row.bot_id for row in self.items if row.id in chosen}
        return owners.pop() if len(owners) == 1 else ""

    @rx.var
    def bulk_move_choices(self) -> list[TopicRow]:
        bot_id = self.bulk_move_bot
        return [topic for topic in self.topics if topic.is_active and topic.bot_id == bot_id]

    @rx.var
    def teach_hint(self) -> str:
        if not self.teach:
            return "Only the item moves; the rules stay as they are."
        mine = [topic for topic in self.topics if topic.bot_id == self.detail.bot_id]
        names = {topic.key: topic.name for topic in mine}
        target = names.get(self.move_target, "the new topic")
        here = next((topic for topic in mine if topic.key == self.detail.topic_key), None)
        if here is None or here.is_fallback:  # the fallback gets no counter-example (DESIGN §4.4)
            return f"Adds this item to the rules: an example for {target}."
        return f"Adds this item to the rules: an example for {target}, a counter-example for {here.name}."

    @rx.event
    def show_move(self, value: bool) -> None:
        """Open (with no topic chosen and teaching on) or close the Move control."""
        if value and not self.detail.id:
            return
        if value and not self.move_open:
            self.move_target, self.teach = "", True
        self.move_open = value

    @rx.event
    @admin_only
    def move_key(self) -> rx.event.EventSpec | None:
        """v: Move… for the ticked rows when there are any, as the bulk bar's other actions act on them;
        else Move to topic… for the open item (a walkthrough saw v move the open item while rows were ticked)."""
        if self.selected_ids:
            if not self.bulk_move_bot:
                return rx.toast.error("Tick items of one bot: topics belong to a bot.")
            self.show_move(False)
            self.show_bulk_move(True)
        elif self.detail.id:
            self.show_move(True)
        else:  # a walkthrough pressed v on the list and nothing happened
            return rx.toast.info("Open an item (o) or tick rows (x) first: v moves them to a topic", id="move-key-hint")
        return None

    @rx.event
    def set_move_target(self, topic_key: str) -> None:
        self.move_target = topic_key

    @rx.event
    def set_teach(self, value: bool) -> None:
        self.teach = value

    def _name(self, topic_key: str, bot_id: str = "") -> str:
        owner = bot_id or self.detail.bot_id
        return next(
            (topic.name for topic in self.topics if topic.key == topic_key and topic.bot_id == owner), topic_key
        )

    def _show_item(self, item_id: int) -> None:
        """Counts and the list as they are now (the item left or joined the shown topic); the open item too."""
        self._load_topics()
        self._load_items()
        if self.detail.id == item_id:
            with read_session() as session:
                public = item_service.get_item(
                    session=session, bot_id=self._scope(), item_id=item_id, reader=self._reader()
                )
            self.detail = item_detail(public, allow_images=self._allow_images(public.bot_id))

    @rx.event
    @admin_only
    def move_item(self, item_id: int) -> rx.event.EventSpec:
        if not self.move_target:
            return rx.toast.error("Choose the topic the item belongs to.")
        try:
            with write_session() as session:
                move = correction_service.move_item(
                    session=session,
                    bot_id=self.detail.bot_id if self.detail.id == item_id else self.bot_id,
                    item_id=item_id,
                    to_topic_key=self.move_target,
                    teach=self.teach,
                    actor=actor_of(self._principal()),
                )
        except AppError as error:
            return rx.toast.error(error.message)
        self.move_open = False
        move_id = secrets.token_hex(8)
        recent = list(self._moves.items())[-(KEPT_MOVES - 1) :]
        self._moves = {**dict(recent), move_id: move}
        try:
            self._show_item(item_id)
        except AppError as error:  # moved all the same (e.g. deleted meanwhile): say so, keep Undo's record
            return rx.toast.warning(f"Moved, but the panel could not show it: {error.message}")
        return rx.toast.success(
            f"Moved to {self._name(move.to_topic_key, move.bot_id)}",
            description=self._lesson(move),
            action={"label": "Undo", "on_click": MoveItemState.undo_move(move_id)},
            duration=UNDO_TOAST_MS,
            close_button=True,
        )

    def _lesson(self, move: correction_service.ItemMovePublic) -> str:
        if not move.taught:
            return "The rules were not changed."
        learned = []
        if move.positive_added:
            learned.append(f"an example for {self._name(move.to_topic_key, move.bot_id)}")
        if move.negative_added:
            learned.append(f"a counter-example for {self._name(move.from_topic_key, move.bot_id)}")
        if not learned:
            return "The rules had this example already."
        return "The rules learned " + " and ".join(learned) + "."

    @rx.event
    @admin_only
    def undo_move(self, move_id: str) -> rx.event.EventSpec:
        move = self._moves.get(move_id)
        if move is None:
            return rx.toast.error("This move can no longer be undone here; move the item back yourself.")
        self._moves = {key: value for key, value in self._moves.items() if key != move_id}
        try:
            with write_session() as session:
                undone = correction_service.undo_move(
                    session=session, bot_id=move.bot_id, move=move, actor=actor_of(self._principal())
                )
        except AppError as error:
            return rx.toast.error(error.message)
        try:
            self._show_item(move.item_id)
        except AppError as error:
            return rx.toast.warning(f"Moved back, but the panel could not show it: {error.message}")
        back = f"Moved back to {self._name(undone.topic_key, move.bot_id)}"
        if undone.rules_changed_since:
            changed = ", ".join(self._name(key, move.bot_id) for key in undone.rules_changed_since)
            return rx.toast.warning(
                back,
                description=f"The rules were left as they are: the rule of {changed} changed since the move.",
                duration=UNDO_TOAST_MS,
                close_button=True,
            )
        restored = " The rules are as they were." if undone.rules_restored else ""
        return rx.toast.success(back + "." + restored)

    # --- several ticked items at once ------------------------------------------------------------

    @rx.event
    def show_bulk_move(self, value: bool) -> None:
        if value and not self.bulk_move_open:
            self.bulk_move_target = ""
        self.bulk_move_open = value

    @rx.event
    def set_bulk_move_target(self, topic_key: str) -> None:
        self.bulk_move_target = topic_key

    @rx.event
    @admin_only
    def bulk_move(self) -> rx.event.EventSpec:
        """Move the ticked items (all of one bot) to the chosen topic; the toast's Undo puts them back."""
        bot_id = self.bulk_move_bot
        if not bot_id:
            return rx.toast.error("Tick items of one bot: topics belong to a bot.")
        if not self.bulk_move_target:
            return rx.toast.error("Choose the topic the items belong to.")
        try:
            with write_session() as session:
                moved = correction_service.move_items(
                    session=session,
                    bot_id=bot_id,
                    item_ids=self.selected_ids,
                    to_topic_key=self.bulk_move_target,
                    actor=actor_of(self._principal()),
                )
        except AppError as error:
            return rx.toast.error(error.message)
        self.bulk_move_open = False
        self.selected_ids = []
        token = secrets.token_hex(8)
        self._bulk_moves = {**dict(list(self._bulk_moves.items())[-(KEPT_MOVES - 1) :]), token: moved}
        self._reload_quietly()
        count = len(moved.moved)
        already = f" ({moved.skipped} already there)" if moved.skipped else ""
        return rx.toast.success(
            f"Moved {count} item{'s' if count != 1 else ''} to {self._name(moved.to_topic_key, bot_id)}{already}",
            description="The rules were not changed: move one item from its detail to teach them.",
            action={"label": "Undo", "on_click": MoveItemState.undo_bulk_move(token)},
            duration=UNDO_TOAST_MS,
            close_button=True,
        )

    @rx.event
    @admin_only
    def undo_bulk_move(self, token: str) -> rx.event.EventSpec:
        moved = self._bulk_moves.get(token)
        if moved is None:
            return rx.toast.error("This move can no longer be undone here; move the items back yourself.")
        self._bulk_moves = {key: value for key, value in self._bulk_moves.items() if key != token}
        try:
            with write_session() as session:
                back, left = correction_service.undo_moves(
                    session=session, moves=moved, actor=actor_of(self._principal())
                )
        except AppError as error:
            return rx.toast.error(error.message)
        self._reload_quietly()
        message = f"{back} item{'s' if back != 1 else ''} moved back"
        if left:
            return rx.toast.warning(message, description=f"{left} moved again since (or their topic is gone): left.")
        return rx.toast.success(message)

    def _reload_quietly(self) -> None:
        try:
            self._load_topics()
            self._load_items()
        except AppError:
            pass
