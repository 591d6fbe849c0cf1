"""The Topic panel's state: a thin adapter over the bots, topics and items services."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import secrets
import time
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import reflex as rx
from sqlmodel import Session

from topic_dashboard.auth.guard import SignedInState, acting_as, admin_only, quiet_when_signed_out
from topic_dashboard.auth.state import AuthState
from topic_dashboard.components.address_bar import set_address
from topic_dashboard.components.bot_choice import ALL_BOTS, BotOption, bot_choice, with_all_bots, with_unread
from topic_dashboard.components.last_bot import land_on_bot, recalled_bot, remember_bot
from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.services import export as export_service
from topic_dashboard.services import items as item_service
from topic_dashboard.services import live as live_service
from topic_dashboard.services import panel as panel_service
from topic_dashboard.services import search as search_service
from topic_dashboard.services import topics as topic_service
from topic_dashboard.services import versions as version_service
from topic_dashboard.services.audit import actor_of
from topic_dashboard.settings import get_settings
from topic_dashboard.topic_panel.address import PanelAddress, panel_url, read_address
from topic_dashboard.topic_panel.detail import item_detail, item_row, plain_preview, search_row
from topic_dashboard.topic_panel.rows import (
    ItemDetail,
    ItemRow,
    NotifyPrefs,
    TopicRow,
    bulk_done_text,
    read_key_action,
)

PAGE_SIZE = 40
# Scroll a row into view once it is drawn (assets/keyboard_shortcuts.js).
_SCROLL_TO_ROW = "window.__tdShowRow?.('item-%d')"
# The rows the list holds at most (in the state and in the page): a window that "Load more" moves
# down and "Back to newest" resets, so a session that sees 10,000 items answers as fast as one of 40.
LIST_WINDOW = 500
SCROLL_TO_TOP = "document.getElementById('items-column')?.scrollTo({top: 0}); window.scrollTo({top: 0})"
UNDO_MARK_READ_MS = 12_000
NOTIFY_LEVELS = {"all": ("info", "success", "warn", "error"), "warn": ("warn", "error"), "error": ("error",)}
# Every open panel of this process reads its bot's change counters here, not from the database.
LIVE_VERSIONS = version_service.VersionBoard()
# Pushed updates (`follow`): a waiting panel goes round at least every LIVE_ROUND_SECONDS to check it is
# still wanted; the page says it is open every LIVE_HEARTBEAT_MS; a loop not heard of for
# LIVE_STALE_SECONDS ends (tab closed, page left) or, from the page's side, is started again.
LIVE_ROUND_SECONDS = 5.0
LIVE_HEARTBEAT_MS = 4000
LIVE_STALE_SECONDS = 12.0
LIVE_MIN_GAP_SECONDS = 0.3
_LIVE_HUBS: dict[str, live_service.LiveHub] = {}


def live_hub(key: str) -> live_service.LiveHub:
    """The process's live hub for the database `key` (one per database: tests switch databases)."""
    hub = _LIVE_HUBS.get(key)
    if hub is None:
        hub = _LIVE_HUBS[key] = live_service.LiveHub(lambda: LIVE_VERSIONS.refresh(key=key, sessions=read_session))
    return hub


NOTIFY_AT_ONCE = 5  # single notifications per poll; more arrive as one summary
NOTIFY_READ = 50  # new items read per poll for the single notifications (the summary counts them all)
PAGE_TITLE = "Topics · Topic Dashboard"  # as topic_dashboard.py registers the page


def _topic_rows(bot_id: str, snapshot: panel_service.PanelSnapshot) -> list[TopicRow]:
    """The sidebar's rows of one bot's topics, with this reader's counts."""
    return [
        TopicRow(
            key=topic.topic_key,
            bot_id=bot_id,
            name=topic.name,
            unread=topic.unread,
            total=topic.total,
            is_active=topic.is_active,
            is_fallback=topic.is_fallback,
        )
        for topic in snapshot.topics
    ]


class TopicPanelState(SignedInState):
    """Reading state (read, pinned, archived) is each person's own (services/items.py): a viewer
    reads, pins, archives and marks all read for themselves and changes nothing anyone else sees.
    Admins also pin and archive "for everyone" (the team's state, which shows through for everyone
    who has not changed their own).

    `bot_id` is one bot's, or ALL_BOTS: the "All bots" view, one stream of every bot's items (each
    row names its bot; the sidebar lists the bots). Services read the view's scope (`_scope`); an
    action on one item acts on that item's own bot."""

    bots: list[BotOption] = []
    bot_id: str = ""
    topic_enabled: bool = True
    # "Mark all read": the confirmation (how many, in this view) and what each recent one marked (Undo).
    mark_read_open: bool = False
    delivery_off_open: bool = False  # "Turn off topic delivery?" asks first (a walkthrough flipped it unasked)
    help_open: bool = False
    _title_shown: str = ""  # the tab title this page last wrote ("" after a load: write it again)
    mark_read_count: int = 0
    _mark_read_ids: list[int] = []
    _marked: dict[str, list[int]] = {}
    allow_images: bool = False
    _images: dict[str, bool] = {}  # in the "All bots" view: each bot's remote image policy
    topics: list[TopicRow] = []
    selection: str = "all"  # all | unread | pinned | topic:<key>
    topic_query: str = ""
    level_filter: str = "any"
    tag_filter: str = ""
    tag_options: list[str] = []  # the tags in use that start with what is typed (the filter's suggestions)
    search_query: str = ""  # while set, the list shows the search's results, best first
    # Browser notifications: this browser's choice (JSON of NotifyPrefs), and the newest item told of.
    notify_prefs: str = rx.LocalStorage("", name="td-notify", sync=True)
    _notified_up_to: int = 0
    # Bulk: the rows ticked (shift-click ticks a range from the last one ticked; x ticks the cursor's).
    selected_ids: list[int] = []
    _last_selected: int = 0
    _notify_armed: bool = False  # set once the newest item at load is known: older ones are never notified
    unread_only: bool = False
    show_archived: bool = False
    items: list[ItemRow] = []
    next_cursor: str = ""
    # The window: newer rows than the first shown were let go by "Load more" (hidden_newer), and new
    # items that did not join the list (it was full, or scrolled away from the newest): the pill.
    hidden_newer: bool = False
    new_count: int = 0
    _newest_seen: int = 0
    detail: ItemDetail = ItemDetail()
    content_expanded: bool = False
    loading: bool = True
    loading_more: bool = False
    signature: str = ""
    _heard_at: float = 0.0  # when the page last said it is open (keep_live)
    _follower: str = ""  # the push loop serving this tab ("" none)
    _follow_beat: float = 0.0  # when that loop last went round (or was started)
    pinned_total: int = 0

    # --- derived ------------------------------------------------------------------------------

    @rx.var
    def visible_topics(self) -> list[TopicRow]:
        query = self.topic_query.strip().lower()
        if not query:
            return self.topics
        return [topic for topic in self.topics if query in topic.key.lower() or query in topic.name.lower()]

    @rx.var
    def all_bots(self) -> bool:
        return self.bot_id == ALL_BOTS

    @rx.var
    def bot_rows(self) -> list[TopicRow]:
        """The "All bots" view's sidebar: each bot with its unread and total counts."""
        if self.bot_id != ALL_BOTS:
            return []
        rows = {bot.id: TopicRow(key=bot.id, bot_id=bot.id, name=bot.name) for bot in self.bots if bot.id != ALL_BOTS}
        for topic in self.topics:
            row = rows.get(topic.bot_id)
            if row is not None:
                row.unread += topic.unread
                row.total += topic.total
        return list(rows.values())

    @rx.var
    def unread_total(self) -> int:
        return sum(topic.unread for topic in self.topics)

    @rx.var
    def item_total(self) -> int:
        return sum(topic.total for topic in self.topics)

    @rx.var
    def selected_topic_key(self) -> str:
        return self.selection.removeprefix("topic:") if self.selection.startswith("topic:") else ""

    @rx.var
    def notify(self) -> NotifyPrefs:
        return self._prefs()

    def _prefs(self) -> NotifyPrefs:
        try:
            raw = json.loads(self.notify_prefs) if self.notify_prefs else {}
        except ValueError:
            raw = {}
        if not isinstance(raw, dict):
            raw = {}
        level = raw.get("level") if raw.get("level") in NOTIFY_LEVELS else "all"
        muted = (
            [key for key in raw.get("muted", []) if isinstance(key, str)][:200]
            if isinstance(raw.get("muted"), list)
            else []
        )
        return NotifyPrefs(enabled=raw.get("enabled") is True, level=level, sound=raw.get("sound") is True, muted=muted)

    def _save_prefs(self, **changes: object) -> None:
        self.notify_prefs = json.dumps(dataclasses.asdict(dataclasses.replace(self._prefs(), **changes)))

    @rx.event
    def set_notify_enabled(self, value: bool) -> rx.event.EventSpec | None:
        if not value:
            self._save_prefs(enabled=False)
            return None
        # The browser asks the person (once); the answer comes back to notify_permission.
        return rx.call_script("window.__tdAskNotify()", callback=TopicPanelState.notify_permission)

    @rx.event
    def notify_permission(self, result: str) -> rx.event.EventSpec:
        if result == "granted":
            self._save_prefs(enabled=True)
            self._arm_notifications()
            return rx.toast.success(
                "Notifications on: new items arrive as notifications while this tab is in the background"
            )
        self._save_prefs(enabled=False)
        if result == "unsupported":
            return rx.toast.warning("This browser cannot show notifications")
        return rx.toast.warning(
            "The browser blocks notifications for the dashboard: allow them in its site settings, then switch this on"
        )

    @rx.event
    def set_notify_level(self, value: str) -> None:
        if value in NOTIFY_LEVELS:
            self._save_prefs(level=value)

    @rx.event
    def set_notify_sound(self, value: bool) -> None:
        self._save_prefs(sound=bool(value))

    @rx.event
    def toggle_topic_notify(self, topic_key: str, notify: bool) -> None:
        muted = [key for key in self._prefs().muted if key != topic_key]
        self._save_prefs(muted=muted if notify else [*muted, topic_key[:64]])

    def _notify_script(self, session: Session) -> rx.event.EventSpec | None:
        """Notifications for items newer than the newest told of (any topic this person did not
        mute, at the chosen levels); shown by the browser only while the tab is in the background."""
        prefs = self._prefs()
        if not prefs.enabled:
            self._notify_armed = False  # switched on later: from the newest item then, never a backlog
            return None
        if not self._notify_armed:
            self._arm_notifications(session)
            return None
        newest = self._notified_up_to
        page = item_service.list_items(
            session=session, bot_id=self._scope(), newer_than=newest, limit=NOTIFY_READ, reader=self._reader()
        )
        if page.items:
            self._notified_up_to = max(item.id for item in page.items)
        wanted = [
            item
            for item in page.items
            if item.topic_key not in prefs.muted and item.level in NOTIFY_LEVELS[prefs.level] and not item.is_read
        ]
        if not wanted:
            return None
        names = {(topic.bot_id, topic.key): topic.name for topic in self.topics}
        notes = [
            {
                "id": item.id,
                "title": f"{names.get((item.bot_id, item.topic_key), item.topic_key)}: {item.title}"[:200],
                "body": plain_preview(item.content)[:200],
                "href": panel_url(PanelAddress(bot_id=self.bot_id, item_id=item.id)),
            }
            for item in wanted[:NOTIFY_AT_ONCE]
        ]
        total = len(wanted)
        if len(page.items) == NOTIFY_READ:  # more arrived than were read: count them all for the summary
            total = item_service.count_notifiable(
                session=session,
                bot_id=self._scope(),
                newer_than=newest,
                levels=NOTIFY_LEVELS[prefs.level],
                muted=prefs.muted,
                reader=self._reader(),
            )
        if total > NOTIFY_AT_ONCE:
            notes.append(
                {
                    "id": 0,
                    "title": f"{total - NOTIFY_AT_ONCE} more new items",
                    "body": self.bot_name,
                    "href": panel_url(PanelAddress(bot_id=self.bot_id, selection="unread")),
                }
            )
        return rx.call_script(f"window.__tdNotify({json.dumps(notes)}, {json.dumps(prefs.sound)})")

    @rx.var
    def searching(self) -> bool:
        return bool(self.search_query.strip())

    @rx.var
    def heading(self) -> str:
        topic = ""
        if self.selection.startswith("topic:"):
            key = self.selection.removeprefix("topic:")
            topic = next((row.name for row in self.topics if row.key == key), key)
        if query := self.search_query.strip():  # says where it searches: one topic, or all (a walkthrough asked)
            return f"Search in {topic}: {query}" if topic else f"Search: {query}"
        if topic:
            return topic
        if self.bot_id == ALL_BOTS:
            return {"unread": "Unread in all bots", "pinned": "Pinned in all bots"}.get(self.selection, "All bots")
        return {"all": "All items", "unread": "Unread", "pinned": "Pinned"}.get(self.selection, "All items")

    @rx.var
    def has_detail(self) -> bool:
        return self.detail.id > 0

    @rx.var
    def detail_bot_name(self) -> str:
        return next((bot.name for bot in self.bots if bot.id == self.detail.bot_id), self.detail.bot_id)

    @rx.var
    def bot_name(self) -> str:
        return next((bot.name for bot in self.bots if bot.id == self.bot_id), "")

    # --- loading ------------------------------------------------------------------------------

    def _filters(self) -> item_service.ItemFilters:
        return item_service.ItemFilters(
            topic_key=self.selected_topic_key or None,
            unread_only=self.unread_only or self.selection == "unread",
            pinned_only=self.selection == "pinned",
            level=None if self.level_filter == "any" else self.level_filter,
            tag=self.tag_filter.strip() or None,
            include_archived=self.show_archived,
        )

    def _scope(self) -> item_service.Scope:
        """The bots this view reads: the shown bot, or every bot in the selector ("All bots")."""
        if self.bot_id == ALL_BOTS:
            return tuple(bot.id for bot in self.bots if bot.id != ALL_BOTS)
        return self.bot_id

    def _allow_images(self, bot_id: str) -> bool:
        """The item's bot's remote image policy."""
        return self._images.get(bot_id, False) if self.bot_id == ALL_BOTS else self.allow_images

    def _reader(self) -> int | None:
        """Whose reading state this panel shows and changes: the signed-in person's."""
        return self._principal().user_id

    def _arm_notifications(self, session: Session | None = None) -> None:
        """With notifications on: items newer than the bot's newest now are the ones to notify."""
        self._notify_armed = False
        if not self._prefs().enabled:
            return
        with contextlib.nullcontext(session) if session is not None else read_session() as reading:
            newest = item_service.list_items(
                session=reading, bot_id=self._scope(), filters=item_service.ItemFilters(include_archived=True), limit=1
            )
        self._notified_up_to = newest.items[0].id if newest.items else 0
        self._notify_armed = True

    def _load_topics(self) -> None:
        if self.bot_id == ALL_BOTS:
            self._load_all_bots()
            return
        with read_session() as session:
            snapshot = panel_service.panel_snapshot(session=session, bot_id=self.bot_id, reader=self._reader())
        self.topic_enabled = snapshot.topic_enabled
        self.allow_images = snapshot.allow_remote_images
        self.pinned_total = snapshot.pinned_total
        self.topics = _topic_rows(self.bot_id, snapshot)
        bots = with_all_bots(with_unread(self.bots, self.bot_id, sum(topic.unread for topic in self.topics)))
        if bots != self.bots:  # the selector's count follows this person's reading
            self.bots = bots
        self.signature = json.dumps((snapshot.items_version, snapshot.topic_enabled))

    def _load_all_bots(self) -> None:
        """The "All bots" view: every bot's topics and counts (the sidebar lists the bots)."""
        topics: list[TopicRow] = []
        images: dict[str, bool] = {}
        versions: dict[str, int] = {}
        pinned = 0
        with read_session() as session:
            for bot_id in self._scope():
                try:
                    snapshot = panel_service.panel_snapshot(session=session, bot_id=bot_id, reader=self._reader())
                except AppError:  # deleted since the page loaded
                    continue
                images[bot_id] = snapshot.allow_remote_images
                versions[bot_id] = snapshot.items_version
                pinned += snapshot.pinned_total
                topics += _topic_rows(bot_id, snapshot)
        self.topic_enabled, self.allow_images, self._images = True, False, images
        self.pinned_total = pinned
        self.topics = topics
        bots = list(self.bots)
        for bot_id in versions:
            bots = with_unread(bots, bot_id, sum(topic.unread for topic in topics if topic.bot_id == bot_id))
        bots = with_all_bots(bots)
        if bots != self.bots:
            self.bots = bots
        self.signature = self._all_signature(versions)

    @staticmethod
    def _all_signature(versions: dict[str, int]) -> str:
        return json.dumps(sorted(versions.items()))

    def _load_items(self) -> None:
        if self.searching:
            self._load_search()
            return
        with read_session() as session:
            page = item_service.list_items(
                session=session, bot_id=self._scope(), filters=self._filters(), limit=PAGE_SIZE, reader=self._reader()
            )
        self._set_window(self._named([item_row(item) for item in page.items]), page.next_cursor or "")

    def _set_window(self, rows: list[ItemRow], next_cursor: str) -> None:
        """The list starts again at its newest rows."""
        self.items, self.next_cursor = rows, next_cursor
        self.hidden_newer, self.new_count = False, 0
        self._newest_seen = max((row.id for row in rows), default=0)

    def _search_page(self, cursor: str | None) -> tuple[list[ItemRow], str]:
        with read_session() as session:
            page = search_service.search_items(
                session=session,
                bot_id=self._scope(),
                query=self.search_query,
                filters=self._filters(),
                cursor=cursor,
                limit=PAGE_SIZE,
                reader=self._reader(),
            )
        return self._named([search_row(hit) for hit in page.hits]), page.next_cursor or ""

    def _load_search(self) -> None:
        """The search's first page, best first (new items join it when the search runs again)."""
        self._set_window(*self._search_page(None))

    def _named(self, rows: list[ItemRow]) -> list[ItemRow]:
        """Rows show their topic by the name the sidebar uses, not its key (and their bot's name)."""
        names = {(topic.bot_id, topic.key): topic.name for topic in self.topics}
        bots = {bot.id: bot.name for bot in self.bots}
        return [
            dataclasses.replace(
                row,
                topic_name=names.get((row.bot_id, row.topic_key), row.topic_key),
                bot_name=bots.get(row.bot_id, row.bot_id),
            )
            for row in rows
        ]

    def _open(self, item_id: int) -> None:
        with write_session() as session:
            reader = self._reader()
            public = item_service.get_item(session=session, bot_id=self._scope(), item_id=item_id, reader=reader)
            if not public.is_read:
                public = item_service.set_item_flags(
                    session=session, bot_id=self._scope(), item_id=item_id, is_read=True, reader=reader
                )
        self.detail = item_detail(public, allow_images=self._allow_images(public.bot_id))
        self.content_expanded = False
        self._patch_row(public.id, is_read=public.is_read, is_pinned=public.is_pinned, is_archived=public.is_archived)

    def _patch_row(self, item_id: int, **flags: bool) -> None:
        rows = []
        for row in self.items:
            if row.id == item_id:
                row = ItemRow(**{**row.__dict__, **flags})
            rows.append(row)
        self.items = rows

    def _url_script(self, *, push: bool = False) -> rx.event.EventSpec:
        """Write the view, its filters and the open item into the address bar (address.py). Opening an
        item from the list adds a history entry (`push`), so a phone's Back closes the item instead of
        leaving the app; a filter changed replaces the entry, as a view chosen does."""
        url = panel_url(
            PanelAddress(
                bot_id=self.bot_id,
                selection=self.selection,
                search=self.search_query,
                level=self.level_filter,
                unread_only=self.unread_only,
                tag=self.tag_filter,
                show_archived=self.show_archived,
                item_id=self.detail.id,
            )
        )
        return set_address(url, push=push)

    @rx.event
    async def load_page(self) -> rx.event.EventSpec | None:
        """on_load: the bot, view, filters and item of the URL (address.py); without a bot there, the one this
        person last chose (All bots too, when that was it), else the one with the most unread (last_bot.py)."""
        self.loading = True
        self._title_shown = ""
        address = read_address(self.router.url.query_parameters)
        wanted_bot = address.bot_id
        if not wanted_bot and await recalled_bot(self) == ALL_BOTS:
            wanted_bot = ALL_BOTS
        bots, self.bot_id = await land_on_bot(self, wanted_bot)
        self.bots = with_all_bots(bots)
        if wanted_bot == ALL_BOTS and bots:
            self.bot_id = ALL_BOTS
            await remember_bot(self, ALL_BOTS)
        self.selection = address.selection
        self.search_query = address.search
        self.level_filter, self.unread_only = address.level, address.unread_only
        self.tag_filter, self.show_archived = address.tag, address.show_archived
        self.detail = ItemDetail()
        if not self.bot_id:
            self.topics, self.items, self.loading = [], [], False
            return None
        notices: list[str] = []
        if wanted_bot and wanted_bot != self.bot_id:  # a stale or mistyped link: say so, never swap silently
            shown = next((bot.name for bot in self.bots if bot.id == self.bot_id), self.bot_id)
            notices.append(f"There is no bot {wanted_bot!r} (deleted, or a mistyped link): showing {shown}")
        try:
            self._load_topics()
            if self.selected_topic_key and self.bot_id == ALL_BOTS:
                notices.append("Topics belong to one bot: choose the bot to read one topic. Showing all bots' items")
                self.selection = "all"
            elif self.selected_topic_key and all(topic.key != self.selected_topic_key for topic in self.topics):
                notices.append(f"This bot has no topic {self.selected_topic_key!r}: showing all items")
                self.selection = "all"
            self._load_items()
            self._arm_notifications()
            if address.item_id:
                self._open(address.item_id)
                self._load_topics()
        except AppError as error:
            self.loading = False
            return rx.toast.error(error.message)
        self.loading = False
        self._kick_live()
        events: list[rx.event.EventSpec] = [
            rx.toast.warning(notice, id=f"notice-{index}") for index, notice in enumerate(notices)
        ]
        if address.item_id and any(row.id == address.item_id for row in self.items):
            # A link to an item shows its row too, wherever it is in the list (a walkthrough's ?item= opened the
            # item while its row stayed below the fold); tried for a few frames, until the list is drawn.
            events.append(rx.call_script(_SCROLL_TO_ROW % int(address.item_id)))
        return events or None  # type: ignore[return-value]

    @rx.event
    async def select_bot(self, bot_id: str) -> rx.event.EventSpec | None:
        if all(bot.id != bot_id for bot in self.bots):  # a bot created since the page loaded, or none
            bots, chosen = bot_choice(bot_id, reader=self._reader())
            self.bots = with_all_bots(bots)
            if chosen != bot_id and not (bot_id == ALL_BOTS and bots):
                return rx.toast.error(f"There is no bot {bot_id[:64]!r}")
        await remember_bot(self, bot_id)  # one of the bots, or All bots (checked above)
        self.bot_id = bot_id
        self.selection = "all"
        self.search_query = ""
        self.detail = ItemDetail()
        self._arm_notifications()
        self._kick_live()
        return self._reload()

    @rx.event
    def select_view(self, selection: str) -> rx.event.EventSpec | None:
        self.selection = selection
        self.detail = ItemDetail()
        return self._reload()

    def _reload(self) -> rx.event.EventSpec | None:
        self.selected_ids = []
        try:
            self._load_topics()
            self._load_items()
        except AppError as error:
            return rx.toast.error(error.message)
        return self._url_script()

    @rx.event
    def set_topic_query(self, value: str) -> None:
        self.topic_query = value

    @rx.event
    def set_level_filter(self, value: str) -> rx.event.EventSpec | None:
        self.level_filter = value
        return self._reload()

    @rx.event
    def set_tag_filter(self, value: str) -> rx.event.EventSpec | None:
        self.tag_filter = value
        try:
            with read_session() as session:
                self.tag_options = item_service.tag_suggestions(session=session, bot_id=self._scope(), prefix=value)
        except AppError:
            self.tag_options = []
        return self._reload()

    @rx.event
    def load_tag_options(self) -> None:
        """The tags in use, offered when the tag box gets focus."""
        with read_session() as session:
            self.tag_options = item_service.tag_suggestions(
                session=session, bot_id=self._scope(), prefix=self.tag_filter
            )

    @rx.event
    def toggle_select(self, item_id: int, shift: bool = False) -> None:
        shown = [row.id for row in self.items]
        if item_id not in shown:
            return
        if shift and self._last_selected in shown and self._last_selected != item_id:
            first, last = sorted((shown.index(self._last_selected), shown.index(item_id)))
            chosen = set(self.selected_ids) | set(shown[first : last + 1])
            self.selected_ids = [row_id for row_id in shown if row_id in chosen]
        elif item_id in self.selected_ids:
            self.selected_ids = [row_id for row_id in self.selected_ids if row_id != item_id]
        else:
            self.selected_ids = [*self.selected_ids, item_id]
        self._last_selected = item_id

    @rx.event
    def clear_selection(self) -> None:
        self.selected_ids = []

    @rx.event
    def bulk(self, action: str) -> rx.event.EventSpec | None:
        """Read, unread, pin, unpin, archive or unarchive the ticked rows, for this person."""
        flags = {
            "read": {"is_read": True},
            "unread": {"is_read": False},
            "pin": {"is_pinned": True},
            "unpin": {"is_pinned": False},
            "archive": {"is_archived": True},
            "unarchive": {"is_archived": False},
        }.get(action)
        if flags is None or not self.selected_ids:
            return None
        try:
            with write_session() as session:
                done = item_service.set_flags_many(
                    session=session,
                    bot_id=self._scope(),
                    item_ids=self.selected_ids,
                    flags=flags,
                    reader=self._reader(),
                    actor=actor_of(self._principal()),
                )
            self._load_topics()
            self._load_items()
        except AppError as error:
            return rx.toast.error(error.message)
        if self.detail.id in done:  # the open item was ticked: its pane says what its row says
            self.detail = dataclasses.replace(self.detail, **flags)
        self.selected_ids = []
        return rx.toast.success(bulk_done_text(action, len(done)))

    @rx.event
    def export_view(self, kind: str) -> rx.event.EventSpec | None:
        """Download what this view shows (filters or search, as this person reads it) as JSON or CSV."""
        try:
            with read_session() as session:
                shown = search_service.items_in_view(
                    session=session,
                    bot_id=self._scope(),
                    filters=self._filters(),
                    query=self.search_query,
                    reader=self._reader(),
                    cap=export_service.MAX_EXPORT,
                )
            data, mime = export_service.export(kind, shown)
        except AppError as error:
            return rx.toast.error(error.message)
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M")
        return rx.download(
            data=data,
            filename=f"topic-items-{'all-bots' if self.bot_id == ALL_BOTS else self.bot_id}-{stamp}.{kind}",
            mime_type=mime,
        )

    @rx.event
    def set_search_query(self, value: str) -> rx.event.EventSpec | None:
        self.search_query = value[: search_service.MAX_QUERY_CHARS]
        self.detail = ItemDetail()
        return self._reload()

    @rx.event
    def clear_search(self) -> rx.event.EventSpec | None:
        self.search_query = ""
        return self._reload()

    @rx.event
    def clear_filters(self) -> rx.event.EventSpec | None:
        """The empty list's Clear filters: the search, level, tag and unread-only go; the topic stays."""
        self.search_query, self.level_filter, self.tag_filter, self.unread_only = "", "any", "", False
        return self._reload()

    @rx.event
    def filter_by_tag(self, tag: str) -> rx.event.EventSpec | None:
        self.tag_filter = tag
        return self._reload()

    @rx.event
    def set_unread_only(self, value: bool) -> rx.event.EventSpec | None:
        self.unread_only = value
        return self._reload()

    @rx.event
    def set_show_archived(self, value: bool) -> rx.event.EventSpec | None:
        self.show_archived = value
        return self._reload()

    @rx.event
    def load_more(self) -> rx.event.EventSpec | None:
        if not self.next_cursor:
            return None
        if self.searching:
            try:
                rows, self.next_cursor = self._search_page(self.next_cursor)
            except AppError as error:
                return rx.toast.error(error.message)
            seen = {row.id for row in self.items}
            self._append([row for row in rows if row.id not in seen])
            return None
        try:
            with read_session() as session:
                page = item_service.list_items(
                    session=session,
                    bot_id=self._scope(),
                    filters=self._filters(),
                    cursor=self.next_cursor,
                    limit=PAGE_SIZE,
                    reader=self._reader(),
                )
        except AppError as error:
            return rx.toast.error(error.message)
        self._append(self._named([item_row(item) for item in page.items]))
        self.next_cursor = page.next_cursor or ""
        return None

    def _append(self, rows: list[ItemRow]) -> None:
        """Older rows join the bottom; past LIST_WINDOW the newest rows leave the top ("Back to newest")."""
        kept = self.items + rows
        if len(kept) > LIST_WINDOW:
            kept = kept[len(kept) - LIST_WINDOW :]
            self.hidden_newer = True
        self.items = kept

    @rx.event
    def show_newest(self) -> rx.event.EventSpec | None:
        """The pill ("N new items") or "Back to newest": the list again from its newest row."""
        try:
            self._load_items()
        except AppError as error:
            return rx.toast.error(error.message)
        return rx.call_script(SCROLL_TO_TOP)

    # --- reading ------------------------------------------------------------------------------

    @rx.event
    def open_item(self, item_id: int) -> rx.event.EventSpec | None:
        from_list = not self.detail.id
        try:
            self._open(item_id)
            self._load_topics()
        except AppError as error:
            return rx.toast.error(error.message)
        return self._url_script(push=from_list)

    @rx.event
    def close_detail(self) -> rx.event.EventSpec:
        self.detail = ItemDetail()
        return self._url_script()

    @rx.event
    def toggle_expanded(self) -> None:
        self.content_expanded = not self.content_expanded

    def _set_flags(self, item_id: int, *, for_everyone: bool = False, **flags: bool) -> rx.event.EventSpec | None:
        try:
            with write_session() as session:
                if for_everyone:  # the team's state: audited (one person's own reading is not)
                    item_service.set_item_flags(
                        session=session,
                        bot_id=self._scope(),
                        item_id=item_id,
                        actor=actor_of(self._principal()),
                        **flags,
                    )
                public = item_service.set_item_flags(
                    session=session,
                    bot_id=self._scope(),
                    item_id=item_id,
                    reader=self._reader(),
                    **({} if for_everyone else flags),
                )
            self._patch_row(item_id, is_read=public.is_read, is_pinned=public.is_pinned, is_archived=public.is_archived)
            if self.detail.id == item_id:
                self.detail = item_detail(public, allow_images=self._allow_images(public.bot_id))
            self._load_topics()
        except AppError as error:
            return rx.toast.error(error.message)
        return None

    @rx.event
    def toggle_read(self, item_id: int) -> rx.event.EventSpec | None:
        row = next((row for row in self.items if row.id == item_id), None)
        current = row.is_read if row is not None else self.detail.is_read
        return self._set_flags(item_id, is_read=not current)

    @rx.event
    def toggle_pin(self, item_id: int) -> rx.event.EventSpec | None:
        current = (
            self.detail.is_pinned
            if self.detail.id == item_id
            else next((r.is_pinned for r in self.items if r.id == item_id), False)
        )
        return self._set_flags(item_id, is_pinned=not current)

    @rx.event
    def toggle_archive(self, item_id: int) -> rx.event.EventSpec | None:
        current = (
            self.detail.is_archived
            if self.detail.id == item_id
            else next((r.is_archived for r in self.items if r.id == item_id), False)
        )
        result = self._set_flags(item_id, is_archived=not current)
        if not current and not self.show_archived:
            self.items = [row for row in self.items if row.id != item_id]
        return result

    @rx.event
    @admin_only
    def toggle_team_pin(self, item_id: int) -> rx.event.EventSpec | None:
        """Pin (or unpin) for everyone: the team's pin, which shows for all who have not changed their own."""
        if self.detail.id != item_id:
            return None
        return self._set_flags(item_id, for_everyone=True, is_pinned=not self.detail.team_pinned)

    @rx.event
    @admin_only
    def toggle_resolved(self, item_id: int) -> rx.event.EventSpec | None:
        """Mark the open item resolved (dealt with), or open it again: shared, for everyone."""
        if self.detail.id != item_id:
            return None
        try:
            with write_session() as session:
                item_service.set_resolved(
                    session=session,
                    bot_id=self._scope(),
                    item_id=item_id,
                    resolved=not self.detail.resolved_at,
                    actor=actor_of(self._principal()),
                )
                public = item_service.get_item(
                    session=session, bot_id=self._scope(), item_id=item_id, reader=self._reader()
                )
        except AppError as error:
            return rx.toast.error(error.message)
        self.detail = item_detail(public, allow_images=self._allow_images(public.bot_id))
        self._patch_row(item_id, is_resolved=public.resolved_at is not None)
        return None

    @rx.event
    @admin_only
    def toggle_team_archive(self, item_id: int) -> rx.event.EventSpec | None:
        """Archive (or unarchive) for everyone: hidden from every reader's lists and counts."""
        if self.detail.id != item_id:
            return None
        archive = not self.detail.team_archived
        result = self._set_flags(item_id, for_everyone=True, is_archived=archive)
        if archive and not self.show_archived:
            self.items = [row for row in self.items if row.id != item_id]
        return result

    @rx.event
    def mark_all_read(self) -> rx.event.EventSpec | None:
        """Ask first: how many unread items this view (its filters, up to the newest row shown) holds."""
        newest_shown = max((row.id for row in self.items), default=0)
        try:
            with read_session() as session:
                if self.searching:  # exactly what the search shows, with its filters
                    unread = self._filters().model_copy(update={"unread_only": True})
                    found = search_service.items_in_view(
                        session=session,
                        bot_id=self._scope(),
                        filters=unread,
                        query=self.search_query,
                        reader=self._reader(),
                    )
                    ids = [item.id for item in found if item.id <= newest_shown]
                else:
                    ids = item_service.unread_in_view(
                        session=session,
                        bot_id=self._scope(),
                        filters=self._filters(),
                        up_to_id=newest_shown,
                        reader=self._reader(),
                    )
        except AppError as error:
            return rx.toast.error(error.message)
        if not newest_shown or not ids:
            return rx.toast.info("Nothing unread in this view")
        self._mark_read_ids = ids
        self.mark_read_count = len(ids)
        self.mark_read_open = True
        return None

    @rx.event
    def set_mark_read_open(self, value: bool) -> None:
        self.mark_read_open = value
        if not value:
            self._mark_read_ids = []

    @rx.event
    def confirm_mark_read(self) -> rx.event.EventSpec | None:
        ids, self._mark_read_ids, self.mark_read_open = self._mark_read_ids, [], False
        try:
            with write_session() as session:
                changed = item_service.set_read(
                    session=session,
                    bot_id=self._scope(),
                    item_ids=ids,
                    is_read=True,
                    reader=self._reader(),
                    actor=actor_of(self._principal()),
                    action="item.mark_all_read",
                )
            self._load_topics()
            self._load_items()
        except AppError as error:
            return rx.toast.error(error.message)
        token = secrets.token_hex(8)
        self._marked = {**dict(list(self._marked.items())[-4:]), token: changed}
        count = len(changed)
        return rx.toast.success(
            f"Marked {count} item{'s' if count != 1 else ''} read",
            action={"label": "Undo", "on_click": TopicPanelState.undo_mark_read(token)},
            duration=UNDO_MARK_READ_MS,
            close_button=True,
        )

    @rx.event
    def undo_mark_read(self, token: str) -> rx.event.EventSpec | None:
        ids = self._marked.get(token)
        if ids is None:
            return rx.toast.error("This can no longer be undone here")
        self._marked = {key: value for key, value in self._marked.items() if key != token}
        try:
            with write_session() as session:
                back = item_service.set_read(
                    session=session,
                    bot_id=self._scope(),
                    item_ids=ids,
                    is_read=False,
                    reader=self._reader(),
                    actor=actor_of(self._principal()),
                    action="item.mark_all_read_undo",
                )
            self._load_topics()
            self._load_items()
        except AppError as error:
            return rx.toast.error(error.message)
        count = len(back)
        return rx.toast.success(f"{count} item{'s are' if count != 1 else ' is'} unread again")

    # --- keyboard -----------------------------------------------------------------------------

    # The list's cursor (j/k, o/Enter, m on a row, x) lives in the browser: assets/keyboard_shortcuts.js,
    # where the list's Tab stop, its arrows and the focus follow it.

    @rx.event
    def close_detail_from_history(self) -> None:
        """The browser went back to the list's address: close the item (the address is already right)."""
        self.detail = ItemDetail()

    @rx.event
    def close_detail_key(self) -> rx.event.EventSpec | None:
        """Esc closes the open item (and does nothing when none is open)."""
        if not self.detail.id:
            return None
        return self.close_detail()

    @rx.event
    def set_help_open(self, value: bool) -> None:
        self.help_open = value

    @rx.event
    def toggle_read_key(self, item_id: int = 0) -> rx.event.EventSpec | None:
        """m. With rows ticked: the bulk bar's Read for them, or its Unread when every ticked row is read
        already (as v moves the ticked rows; a walkthrough saw m act on the cursor's row while rows were
        ticked). Else the read state of `item_id` (the cursor's row, which the browser sends while no item is
        open) or of the open item. Decided here, in the order the events came: an x just before m counts."""
        if self.selected_ids:
            return self.bulk(read_key_action(self.selected_ids, self.items))
        target = item_id or self.detail.id
        return self.toggle_read(target) if target else None

    # --- delivery switch ----------------------------------------------------------------------

    @rx.event
    @admin_only
    def ask_topic_enabled(self, enabled: bool) -> rx.event.EventSpec | None:
        """The switch: on at once; off only after "Turn off" in the dialog (`confirm_topic_off`), since while
        it is off the bot's results stay in the chat and are never added here later."""
        if enabled:
            return self.set_topic_enabled(True)
        if self.bot_id == ALL_BOTS:
            return rx.toast.error("Choose a bot to switch its topic delivery")
        self.delivery_off_open = True
        return None

    @rx.event
    @admin_only
    def confirm_topic_off(self) -> rx.event.EventSpec:
        self.delivery_off_open = False
        return self.set_topic_enabled(False)

    @rx.event
    def set_delivery_off_open(self, value: bool) -> None:
        self.delivery_off_open = value and self.delivery_off_open  # closing only: opening is the switch's

    @rx.event
    @admin_only
    def set_topic_enabled(self, enabled: bool) -> rx.event.EventSpec:
        if self.bot_id == ALL_BOTS:
            return rx.toast.error("Choose a bot to switch its topic delivery")
        with write_session() as session:
            settings = topic_service.set_topic_enabled(
                session=session, bot_id=self.bot_id, enabled=enabled, actor=actor_of(self._principal())
            )
        self.topic_enabled = settings.topic_enabled
        return rx.toast.info(
            "Topic delivery is on" if enabled else "Topic delivery is off: bots' publishes are refused"
        )

    # --- live updates -------------------------------------------------------------------------

    @rx.event
    @quiet_when_signed_out
    def keep_live(self, _tick: str = "") -> rx.event.EventSpec | None:
        """The open page says so when it mounts and every few seconds after. The push loop (`follow`)
        is started when none went round lately (the page's first mount, a worker restarted, a lost
        task); and the page polls once, in case a push was lost (nothing is read when nothing changed)."""
        self._heard_at = time.time()
        events = self.poll()
        listed = [] if events is None else events if isinstance(events, list) else [events]
        return [*listed, *self._start_following()] or None  # type: ignore[return-value]

    def _start_following(self) -> list[rx.event.EventSpec]:
        """`follow`, when no loop went round for this tab lately (one start per stale period)."""
        now = time.time()
        if now - self._follow_beat <= LIVE_STALE_SECONDS:
            return []
        self._follow_beat = now
        return [TopicPanelState.follow]  # type: ignore[list-item]

    @rx.event(background=True)
    async def follow(self) -> AsyncIterator[rx.event.EventSpec | list[rx.event.EventSpec] | None]:
        """Push, not poll: wait on the process's live hub for a change to this view's bots, then
        refresh (as `poll`), until the page stops saying it is open or its login ends. The hub reads
        the counters once per interval for every panel of the process (services/live.py)."""
        me = uuid.uuid4().hex
        async with self:
            tab = self.router.session.client_token
            self._follower = me
            self._follow_beat = time.time()
            bot_ids = self._live_bot_ids()
            hub = live_hub(get_settings().effective_database_url)
        known = hub.current(bot_ids)
        refreshed = 0.0
        while True:
            # No bot yet (the page is still loading): look again soon rather than after a whole round.
            known = await hub.wait(bot_ids, known, timeout=LIVE_ROUND_SECONDS if bot_ids else 0.25, tag=tab)
            # A burst of publishes is shown in steps LIVE_MIN_GAP_SECONDS apart, not one step per item:
            # each step sends the changed list to the browser.
            if (wait := LIVE_MIN_GAP_SECONDS - (time.monotonic() - refreshed)) > 0:
                await asyncio.sleep(wait)
                known = hub.current(bot_ids)
            refreshed = time.monotonic()
            async with self:
                if self._follower != me or time.time() - self._heard_at > LIVE_STALE_SECONDS:
                    return  # a newer loop serves this tab, or the page is gone
                principal = (await self.get_state(AuthState))._resolve()
                if principal is None or principal.must_change_password:
                    self._follower = ""
                    return  # logged out (or expired): nothing more is pushed; the page's next event redirects
                with acting_as(principal):
                    events = self._poll_once()
                self._follow_beat = time.time()
                wanted = self._live_bot_ids()
            if wanted != bot_ids:  # another bot, or All bots, chosen meanwhile
                bot_ids, known = wanted, hub.current(wanted)
            if events:
                yield events

    def _kick_live(self) -> None:
        """This tab's push loop waits on the bots now shown (after a load or another bot chosen)."""
        live_hub(get_settings().effective_database_url).kick(self.router.session.client_token)

    def _live_bot_ids(self) -> list[str]:
        if not self.bot_id:
            return []
        return list(self._scope()) if self.bot_id == ALL_BOTS else [self.bot_id]

    @rx.event
    def poll(self, _tick: str = "") -> rx.event.EventSpec | None:
        """Refresh when the view's bots changed; `follow` runs this on every push, `keep_live` as a fallback."""
        return self._poll_once()

    def _poll_once(self) -> rx.event.EventSpec | None:
        """Compares this view's (items_version, topic_enabled) with the process's shared snapshot
        (`LIVE_VERSIONS`: read by the live hub, or at most once per 250 ms however many panels ask)."""
        if not self.bot_id or self.loading:
            return None
        key = get_settings().effective_database_url
        try:
            if self.bot_id == ALL_BOTS:
                versions = LIVE_VERSIONS.signatures(key=key, sessions=read_session, bot_ids=list(self._scope()))
                signature = self._all_signature({bot: version for bot, (version, _) in versions.items()})
            else:
                signature = json.dumps(LIVE_VERSIONS.signature(key=key, sessions=read_session, bot_id=self.bot_id))
        except AppError:
            return None
        if signature == self.signature:
            return self._title_script()
        self._load_topics()
        with read_session() as session:
            self._take_new_items(session)
            flags = item_service.item_flags(
                session=session, bot_id=self._scope(), item_ids=[row.id for row in self.items], reader=self._reader()
            )
            notify = self._notify_script(session)  # in the same read: every topic, not only this view's
        topic = self.selected_topic_key
        rows = [
            ItemRow(**{**row.__dict__, **flags[row.id]._asdict()}) if row.id in flags else row
            for row in self.items
            # An item archived or moved to another topic in another panel leaves this one too (as it
            # does where that happened). One moved or unarchived into this view shows on the next load.
            if row.id not in flags
            or ((self.show_archived or not flags[row.id].is_archived) and topic in ("", flags[row.id].topic_key))
        ]
        if rows != self.items:  # the rows go to the browser only when one of them changed
            self.items = rows
        opened = flags.get(self.detail.id)
        if opened is not None and (
            opened.update_count != self.detail.update_count or opened.is_resolved != bool(self.detail.resolved_at)
        ):
            # The bot rewrote the open item (an alert that changed): show what it says now.
            with read_session() as session:
                public = item_service.get_item(
                    session=session, bot_id=self._scope(), item_id=self.detail.id, reader=self._reader()
                )
            self.detail = item_detail(public, allow_images=self._allow_images(public.bot_id))
        elif self.detail.id in flags and flags[self.detail.id].topic_key != self.detail.topic_key:
            self.detail = dataclasses.replace(self.detail, topic_key=flags[self.detail.id].topic_key)
        events = [event for event in (self._title_script(), notify) if event is not None]
        return events or None  # type: ignore[return-value]

    def _take_new_items(self, session: Session) -> None:
        """Every item newer than the newest seen joins the top of the list, all of them or none: when
        they would not fit the window (or the list was scrolled away from its newest rows), they are
        counted for the pill instead, which loads them. So a burst never leaves a hole. A search's
        results are ranked, not a stream: new items join them when it runs again."""
        if self.searching:
            return
        newest = self._newest_seen
        if self.hidden_newer or self.new_count:
            self.new_count = item_service.count_newer(
                session=session, bot_id=self._scope(), filters=self._filters(), newer_than=newest, reader=self._reader()
            )
            return
        room = LIST_WINDOW - len(self.items)
        fresh: list[item_service.ItemPublic] = []
        cursor: str | None = None
        while True:
            page = item_service.list_items(
                session=session,
                bot_id=self._scope(),
                filters=self._filters(),
                newer_than=newest,
                cursor=cursor,
                limit=PAGE_SIZE,
                reader=self._reader(),
            )
            fresh += page.items
            if page.next_cursor is None or len(fresh) > room:
                break
            cursor = page.next_cursor
        if len(fresh) <= room:
            if fresh:
                self.items = self._named([item_row(item) for item in fresh]) + self.items
                self._newest_seen = max(self._newest_seen, fresh[0].id)
        elif not self.items:  # nothing shown to keep: the newest page, the rest below it
            self._load_items()
        else:
            self.new_count = item_service.count_newer(
                session=session, bot_id=self._scope(), filters=self._filters(), newer_than=newest, reader=self._reader()
            )

    def _title_script(self) -> rx.event.EventSpec | None:
        """The tab's title carries the bot's unread count ("(3) Topics"), written only when it changes
        (and again after a navigation reset it)."""
        unread = sum(topic.unread for topic in self.topics)
        title = (f"({unread}) " if unread else "") + PAGE_TITLE
        if title == self._title_shown:
            return None
        self._title_shown = title
        return rx.call_script(f"document.title = {json.dumps(title)}")
