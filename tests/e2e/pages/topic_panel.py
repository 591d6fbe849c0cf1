"""The Topic panel (`/`): the stream, the detail pane, search, mark all read, the switch, notifications."""

from __future__ import annotations

import re
from dataclasses import dataclass

from playwright.sync_api import Locator, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.e2e.pages.shell import PAGE_LOAD_MS, Shell

# How long a change may take to reach an open panel (the panel reads every 700 ms).
LIVE_MS = 10_000


@dataclass
class TopicPanel(Shell):
    # Selectors that scripts run in the page also need (`page.wait_for_function`, `document.querySelector`).
    STREAM_HEADING = "#stream-heading"
    ITEM_LIST = "#item-list"
    ROWS = "#item-list .item-row"
    ROW_TITLE = ".item-title"
    NEW_ITEMS_PILL = "#new-items-pill"
    BOT_SELECT = "#bot-select"
    ITEM_DETAIL = "#item-detail"
    DETAIL_TITLE = "#detail-title"
    DETAIL_CONTENT = "#detail-content"
    DETAIL_COLUMN = "#detail-column"

    def open(self, bot_id: str, query: str = "") -> TopicPanel:
        self.page.goto(self.path(f"/?bot={bot_id}{query}"))
        self.expect_loaded()
        return self

    def expect_loaded(self) -> None:
        """The stream (or its empty state) is shown and the loading rows are gone."""
        expect(self.heading()).to_be_visible(timeout=PAGE_LOAD_MS)
        # The first load is the page's too: a cluster's first panel (two workers, Redis, nginx, on the same two
        # cores as the suite) kept its loading rows for over 5 s on session 45's slower machine.
        expect(self.loading_placeholders()).to_have_count(0, timeout=PAGE_LOAD_MS)

    # The stream -------------------------------------------------------------------------------
    def rows(self) -> Locator:
        return self.page.locator(self.ROWS)

    def row(self, item_id: int) -> Locator:
        return self.page.locator(f"#item-{item_id}")

    def row_title(self, item_id: int | None = None) -> Locator:
        """A row's title (the link that opens it); without an id, every row's title."""
        return (self.row(item_id) if item_id is not None else self.page.locator(self.ITEM_LIST)).locator(self.ROW_TITLE)

    @staticmethod
    def title_in(row: Locator) -> Locator:
        """The title inside a row locator (e.g. `rows().first`)."""
        return row.locator(TopicPanel.ROW_TITLE)

    def row_snippet(self, item_id: int) -> Locator:
        """The one line of the item's content under a row's title (around the hit in a search)."""
        return self.row(item_id).locator(".row-snippet")

    def row_link(self, item_id: int) -> Locator:
        """The row's title as a link (its `href` is the item's deep link)."""
        return self.row(item_id).locator("a.item-title")

    def row_bot(self, item_id: int) -> Locator:
        """The bot's name on a row (the All bots view)."""
        return self.row(item_id).locator(".row-bot")

    def row_checkbox(self, item_id: int) -> Locator:
        """The row's tick box for acting on several items."""
        return self.row(item_id).locator(".row-select")

    def row_pin(self, item_id: int) -> Locator:
        """The pin mark a pinned row shows."""
        return self.row(item_id).locator("svg.lucide-pin")

    def row_resolved(self, item_id: int) -> Locator:
        return self.row(item_id).locator(".row-resolved")

    def row_updated(self, item_id: int) -> Locator:
        return self.row(item_id).locator(".row-updated")

    def row_error_mark(self, item_id: int) -> Locator:
        return self.row(item_id).locator("[aria-label=error]")

    def row_search_hits(self, item_id: int) -> Locator:
        """The highlighted matches of a search in a row."""
        return self.row(item_id).locator("mark.search-hit")

    def unread_rows(self) -> Locator:
        return self.page.locator("#item-list .item-unread")

    def pin_marks(self) -> Locator:
        """Every pin mark in the list."""
        return self.page.locator("#item-list svg.lucide-pin")

    def search_hits(self) -> Locator:
        """Every highlighted match of a search in the list."""
        return self.page.locator("#item-list mark.search-hit")

    def read_rows(self) -> Locator:
        return self.page.locator("#item-list .item-read")

    def cursor_row(self) -> Locator:
        """The row the keyboard cursor (j/k) is on."""
        return self.page.locator("#item-list [data-td-cursor]")

    # The rows drawn with a background of their own: what reads as the current row (hover aside).
    FILLED_ROWS = """() => [...document.querySelectorAll("#item-list .item-row")]
        .filter((row) => !["rgba(0, 0, 0, 0)", "transparent"].includes(getComputedStyle(row).backgroundColor))
        .map((row) => row.id)"""

    def filled_rows(self) -> list[int]:
        return [int(value.removeprefix("item-")) for value in self.page.evaluate(self.FILLED_ROWS)]

    def expect_filled_rows(self, item_ids: list[int]) -> None:
        """Exactly these rows are filled (waits a moment for the page to draw them)."""
        wanted = [f"item-{item_id}" for item_id in item_ids]
        try:
            self.page.wait_for_function(
                f"(wanted) => JSON.stringify(({self.FILLED_ROWS})()) === JSON.stringify(wanted)",
                arg=wanted,
                timeout=5_000,
            )
        except PlaywrightTimeoutError:
            filled = self.filled_rows()
            assert filled == item_ids, f"rows filled: {filled}, wanted {item_ids}"

    def focus_in_list(self) -> str:
        """Where the focus is in the list: "item-<id>" for a row, "select:item-<id>" for its tick box,
        "" outside the list."""
        return str(
            self.page.evaluate(
                """() => {
                    const active = document.activeElement;
                    const row = active && active.closest ? active.closest("#item-list [data-td-row]") : null;
                    if (!row) return "";
                    return (active === row ? "" : active.matches("[data-td-select]") ? "select:" : "other:") + row.id;
                }"""
            )
        )

    def item_list(self) -> Locator:
        return self.page.locator(self.ITEM_LIST)

    def shown_ids(self) -> list[int]:
        ids = self.rows().evaluate_all("(rows) => rows.map((row) => row.id)")
        return [int(value.removeprefix("item-")) for value in ids]

    def expect_item(self, item_id: int, title: str) -> None:
        """The item arrives (live) with its title."""
        expect(self.row_title(item_id)).to_have_text(title, timeout=LIVE_MS)

    def expect_unread(self, item_id: int, unread: bool = True) -> None:
        state = r"\bitem-unread\b" if unread else r"\bitem-read\b"
        expect(self.row(item_id)).to_have_class(re.compile(state), timeout=LIVE_MS)

    def load_more_button(self) -> Locator:
        return self.page.locator("#load-more")

    def load_more(self) -> None:
        self.load_more_button().click()

    def new_items_pill(self) -> Locator:
        """The "N new items" pill: what arrived while the list was scrolled or full; a click shows them."""
        return self.page.locator(self.NEW_ITEMS_PILL)

    def back_to_newest(self) -> Locator:
        return self.page.locator("#back-to-newest")

    def empty_state(self, text: str) -> Locator:
        return self.page.get_by_text(text)

    # Views, topics and filters ------------------------------------------------------------------
    def view(self, name: str) -> None:
        """all, unread, pinned, or topic:<key>."""
        self.view_link(name).click()

    def view_link(self, name: str) -> Locator:
        """The sidebar entry of a view (all, unread, pinned, ...) or a topic (topic:<key>)."""
        if name.startswith("topic:"):
            return self.topic(name.removeprefix("topic:"))
        return self.page.locator(f"#view-{name}")

    def view_count(self, name: str) -> Locator:
        """The count badge of a view in the sidebar (e.g. unread)."""
        return self.view_link(name).locator(".rt-Badge")

    def topic(self, topic_key: str) -> Locator:
        """The topic's entry in the sidebar (its name and count)."""
        return self.page.locator(f"#topic-{topic_key}")

    def topic_unread(self, topic_key: str) -> Locator:
        """The topic's unread count in the sidebar."""
        return self.page.locator(f"#unread-{topic_key}")

    def choose_level(self, label: str) -> None:
        """The level filter: Any level, Info, Success, Warning, Error."""
        self.level_filter().click()
        self.page.get_by_role("option", name=label).click()

    def phone_topic_picker(self) -> Locator:
        return self.page.locator("#mobile-topic-picker")

    def choose_phone_view(self, name: str) -> None:
        """At phone size: the topic menu, then the view or topic shown as `name`."""
        self.phone_topic_picker().click()
        # an entry with unread items says how many: "Alerts (2)"
        self.page.get_by_role("option", name=re.compile(rf"^{re.escape(name)}( \(\d+\))?$")).click()

    def heading(self) -> Locator:
        return self.page.locator(self.STREAM_HEADING)

    def unread_only(self) -> Locator:
        """The "unread only" filter toggle."""
        return self.page.locator("#unread-only")

    def show_archived(self) -> Locator:
        return self.page.locator("#show-archived")

    def tag_filter(self) -> Locator:
        return self.page.locator("#tag-filter")

    def tag_suggestions(self) -> Locator:
        return self.page.locator("#tag-suggestions option")

    def level_filter(self) -> Locator:
        return self.page.locator("#level-filter")

    def topic_filter(self) -> Locator:
        return self.page.locator("#topic-filter")

    # Bots: the selector and the All bots sidebar --------------------------------------------------
    def bot_select(self) -> Locator:
        return self.page.locator(self.BOT_SELECT)

    def choose_bot(self, name: str | re.Pattern[str]) -> None:
        """Choose a bot (or "All bots") from the bot selector."""
        self.bot_select().click()
        self.page.get_by_role("option", name=name).click()

    def create_bot_link(self) -> Locator:
        """Where the panel without bots points an admin."""
        return self.page.locator("#create-bot-link")

    def sidebar_bot(self, bot_id: str) -> Locator:
        """A bot in the All bots sidebar; a click shows that bot alone."""
        return self.page.locator(f"#bot-{bot_id}")

    def bot_unread(self, bot_id: str) -> Locator:
        """The unread count of a bot in the All bots sidebar."""
        return self.sidebar_bot(bot_id).locator(".rt-Badge")

    # The detail pane ---------------------------------------------------------------------------
    def open_item(self, item_id: int) -> Locator:
        self.row_title(item_id).click()
        return self.detail_title()

    def close_item(self) -> None:
        self.page.keyboard.press("Escape")
        expect(self.detail_title()).to_have_count(0)

    def detail(self) -> Locator:
        return self.page.locator(self.ITEM_DETAIL)

    def detail_column(self) -> Locator:
        return self.page.locator(self.DETAIL_COLUMN)

    def detail_title(self) -> Locator:
        return self.page.locator(self.DETAIL_TITLE)

    def detail_content(self) -> Locator:
        return self.page.locator(self.DETAIL_CONTENT)

    def detail_level(self) -> Locator:
        return self.page.locator("#detail-level")

    def close_button(self) -> Locator:
        """The detail pane's Close (×)."""
        return self.page.get_by_role("button", name="Close")

    def detail_close_button(self) -> Locator:
        """The Close (×) inside the detail column, by its exact name."""
        return self.detail_column().get_by_role("button", name="Close", exact=True)

    def detail_topic(self) -> Locator:
        return self.page.locator("#detail-topic")

    def detail_expand(self) -> Locator:
        """The "Show more" / "Show less" of long content."""
        return self.page.locator("#detail-expand")

    def detail_view(self, kind: str | None = None) -> Locator:
        """The rendered view of the open item (markdown, card, table, checklist, metric, timeline)."""
        if kind is None:
            return self.page.locator("#detail-view")
        return self.page.locator(self.view_selector(kind))

    @staticmethod
    def view_selector(kind: str) -> str:
        """The rendered view of `kind`, for checks that take a selector."""
        return f"#view-{kind}"

    def detail_view_in_pane(self, kind: str) -> Locator:
        """The view of `kind`, inside the detail pane's view slot."""
        return self.page.locator(f"#detail-view #view-{kind}")

    def metric_value(self) -> Locator:
        return self.page.locator("#metric-value")

    def card_field_labels(self, view: Locator) -> Locator:
        return view.locator(".rt-DataListLabel")

    def card_field_values(self, view: Locator) -> Locator:
        return view.locator(".rt-DataListValue")

    def metric_trend_down(self, view: Locator) -> Locator:
        return view.locator("svg.lucide-trending-down")

    def detail_conversation(self) -> Locator:
        return self.page.locator("#detail-conversation")

    def toggle_pin(self) -> None:
        self.pin_button().click()

    def pin_button(self) -> Locator:
        return self.page.locator("#detail-toggle-pin")

    def read_button(self) -> Locator:
        """Mark read / unread (the person's own state)."""
        return self.page.locator("#detail-toggle-read")

    def archive_button(self) -> Locator:
        """Archive / unarchive (the person's own state)."""
        return self.page.locator("#detail-toggle-archive")

    def resolve_button(self) -> Locator:
        return self.page.locator("#detail-resolve")

    def resolved_mark(self) -> Locator:
        return self.page.locator("#detail-resolved")

    def team_menu(self) -> Locator:
        """The "For everyone" menu (an admin's): the team's state of the item."""
        return self.page.locator("#detail-team")

    def archive_for_everyone(self) -> None:
        self.team_menu().click()
        self.page.locator("#detail-team-archive").click()

    def resolve_from_team_menu(self) -> None:
        """Resolve an item that asks for no action (info, success): from the "For everyone" menu."""
        self.team_menu().click()
        self.page.locator("#detail-team-resolve").click()

    def pin_for_everyone(self) -> None:
        self.team_menu().click()
        self.page.locator("#detail-team-pin").click()

    def detail_updated(self) -> Locator:
        """The "Updated by the bot N×" line of an item the bot updated in place."""
        return self.page.locator("#detail-updated")

    def export_button(self, kind: str) -> Locator:
        """Export of the open view: view, csv, json."""
        return self.page.locator(f"#export-{kind}")

    # Moving an item ------------------------------------------------------------------------------
    def move_button(self) -> Locator:
        return self.page.locator("#detail-move")

    def move_popover(self) -> Locator:
        return self.page.locator("#move-popover")

    def move_teach(self) -> Locator:
        """The "Teach the rules" switch in the Move popover (a switch)."""
        return self.page.locator("#move-teach")

    def move_teach_hint(self) -> Locator:
        return self.page.locator("#move-teach-hint")

    def move_confirm(self) -> Locator:
        return self.page.locator("#move-confirm")

    def choose_move_target(self, name: str) -> None:
        """In the open Move to topic… popover, choose the topic shown as `name`."""
        target = self.page.locator("#move-target")
        target.click()
        self.page.get_by_role("option", name=name).click()
        expect(target).to_have_text(name)
        expect(self.listbox()).to_have_count(0)

    # Keyboard help ---------------------------------------------------------------------------------
    def key_hints(self) -> Locator:
        return self.page.locator("#key-hints")

    def all_shortcuts_hint(self) -> Locator:
        """The "? all shortcuts" hint of the detail pane while no item is open."""
        return self.page.locator("#all-shortcuts-hint")

    def open_an_item_hint(self) -> Locator:
        """What the detail pane says while no item is open: how to open one."""
        return self.page.locator("#open-an-item-hint")

    def shortcut_help(self) -> Locator:
        return self.page.locator("#shortcut-help")

    # Several items at once ----------------------------------------------------------------------
    def bulk_bar(self) -> Locator:
        return self.page.locator("#bulk-bar")

    def bulk_count(self) -> Locator:
        """The "N selected" count."""
        return self.page.locator("#bulk-count")

    def bulk_read(self) -> Locator:
        return self.page.locator("#bulk-read")

    def bulk_unread(self) -> Locator:
        return self.page.locator("#bulk-unread")

    def bulk_pin(self) -> Locator:
        return self.page.locator("#bulk-pin")

    def bulk_unpin(self) -> Locator:
        return self.page.locator("#bulk-unpin")

    def bulk_archive(self) -> Locator:
        return self.page.locator("#bulk-archive")

    def bulk_move_button(self) -> Locator:
        """Move… for the ticked items (opens the choice of topic)."""
        return self.page.locator("#bulk-move")

    def bulk_move_to(self, name: str) -> None:
        """Move… for the ticked items: choose the topic shown as `name` (not yet confirmed)."""
        self.page.locator("#bulk-move").click()
        self.page.locator("#bulk-move-target").click()
        self.page.get_by_role("option", name=name).click()

    def bulk_move_popover(self) -> Locator:
        """The bulk bar's Move… popover (the ticked items to a topic)."""
        return self.page.locator("#bulk-move-popover")

    def choose_bulk_move_target(self, name: str) -> None:
        """In the open bulk Move… popover, choose the topic shown as `name`."""
        self.page.locator("#bulk-move-target").click()
        self.page.get_by_role("option", name=name).click()

    def bulk_move_confirm(self) -> None:
        self.page.locator("#bulk-move-confirm").click()

    # Search and reading many -------------------------------------------------------------------
    def search(self, text: str) -> None:
        self.search_input().fill(text)
        if text:  # "Search: x", or "Search in <topic>: x" within a topic
            expect(self.heading()).to_have_text(re.compile(rf"^Search( in .+)?: {re.escape(text)}$"))
        else:
            expect(self.heading()).to_have_text("All items")

    def search_input(self) -> Locator:
        return self.page.locator("#search-input")

    def clear_search(self) -> None:
        self.search_clear().click()

    def search_clear(self) -> Locator:
        return self.page.locator("#search-clear")

    def mark_all_read(self, expected: int) -> None:
        """Asks first, naming how many; confirmed."""
        expect(self.ask_mark_all_read()).to_contain_text(f"Mark {expected} item{'s' if expected != 1 else ''} read")
        self.confirm_mark_all_read()

    def mark_all_read_button(self) -> Locator:
        return self.page.locator("#mark-all-read")

    def ask_mark_all_read(self) -> Locator:
        """Press "Mark all read"; returns the question it asks (how many, of what)."""
        self.mark_all_read_button().click()
        return self.mark_read_question()

    def mark_read_question(self) -> Locator:
        return self.page.locator("#mark-read-confirm")

    def confirm_mark_all_read(self) -> None:
        self.page.locator("#mark-read-ok").click()

    def mark_read_ok_button(self) -> Locator:
        """The question's "Mark read" (the confirmation)."""
        return self.page.locator("#mark-read-ok")

    def cancel_mark_all_read(self) -> None:
        self.page.locator("#mark-read-cancel").click()

    def undo(self) -> None:
        self.page.get_by_role("button", name="Undo").click()

    def toast(self, text: str) -> Locator:
        """The toast that says `text` (Sonner's, where Undo lives)."""
        return self.page.locator("[data-sonner-toast]").filter(has_text=text)

    @staticmethod
    def undo_in(toast: Locator) -> Locator:
        return toast.get_by_role("button", name="Undo")

    # The bot's switch ---------------------------------------------------------------------------
    def switch(self) -> Locator:
        return self.page.locator("#topic-enabled-switch")

    def switch_state(self) -> Locator:
        """The switch's state in words ("On", "Off"; a viewer's adds who changes it)."""
        return self.page.locator("#topic-enabled-state")

    def turn_delivery_off(self) -> None:
        """The switch, then "Turn off" in the question it asks (on is one click)."""
        self.switch().click()
        expect(self.delivery_off_confirm()).to_be_visible()
        self.page.locator("#delivery-off-ok").click()

    def delivery_off_confirm(self) -> Locator:
        """The "Turn off topic delivery for <bot>?" dialog the switch opens before turning delivery off."""
        return self.page.locator("#delivery-off-confirm")

    def delivery_off_banner(self) -> Locator:
        return self.page.locator("#delivery-off-banner")

    def expect_delivery(self, on: bool) -> None:
        expect(self.switch()).to_have_attribute("aria-checked", "true" if on else "false", timeout=LIVE_MS)
        expect(self.delivery_off_banner()).to_have_count(0 if on else 1, timeout=LIVE_MS)

    # Notifications --------------------------------------------------------------------------------
    def open_notifications(self) -> None:
        self.page.locator("#notify-button").click()

    def notify_enabled(self) -> Locator:
        return self.page.locator("#notify-enabled")

    def notify_sound(self) -> Locator:
        return self.page.locator("#notify-sound")

    def notify_topic(self, topic_key: str) -> Locator:
        """A topic's switch in the notification settings (on: notifies)."""
        return self.page.locator(f"#notify-topic-{topic_key}")

    def choose_notify_level(self, label: str) -> None:
        self.page.locator("#notify-level").click()
        self.page.get_by_role("option", name=label).click()

    def turn_on_notifications(self, mute: tuple[str, ...] = ()) -> None:
        self.open_notifications()
        self.notify_enabled().click()
        expect(self.notify_enabled()).to_have_attribute("aria-checked", "true")
        for topic_key in mute:
            self.notify_topic(topic_key).click()
            expect(self.notify_topic(topic_key)).to_have_attribute("aria-checked", "false")
        self.page.keyboard.press("Escape")
