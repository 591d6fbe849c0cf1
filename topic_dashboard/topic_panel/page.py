"""The Topic panel: topics with unread counts, a live item stream, and a safe detail pane."""

from __future__ import annotations

from typing import Any

import reflex as rx

from topic_dashboard.auth.state import AuthState
from topic_dashboard.components.bot_choice import BotOption
from topic_dashboard.components.confirm_dialog import confirm_dialog
from topic_dashboard.components.keyboard import KEYBOARD_ONLY, hidden_button, key_hint, shortcuts
from topic_dashboard.components.layout import empty_state, page_shell
from topic_dashboard.item_views.limits import LEVELS
from topic_dashboard.topic_panel.move_control import bulk_move_control, move_control
from topic_dashboard.topic_panel.move_state import MoveItemState
from topic_dashboard.topic_panel.rows import ItemRow, TextPart, TopicRow
from topic_dashboard.topic_panel.state import LIVE_HEARTBEAT_MS, TopicPanelState
from topic_dashboard.topic_panel.view_renderers import level_color, level_swatch, safe_html, view_renderer

S = TopicPanelState
D = TopicPanelState.detail
BORDER = f"1px solid {rx.color('gray', 4)}"
# One line with an ellipsis (rx.text has no `truncate` prop: it would end up as a bogus CSS property).
ONE_LINE = {"white_space": "nowrap", "overflow": "hidden", "text_overflow": "ellipsis", "min_width": "0"}


def _bot_option(bot: BotOption) -> rx.Component:
    return rx.select.item(bot.label, value=bot.id)


def top_bar() -> rx.Component:
    return rx.hstack(
        rx.heading("Topics", size="5", id="page-title"),
        rx.select.root(
            rx.select.trigger(placeholder="Choose a bot", id="bot-select", min_width="12rem", aria_label="Bot"),
            rx.select.content(rx.foreach(S.bots, _bot_option)),
            value=S.bot_id,
            on_change=S.select_bot,
        ),
        rx.spacer(),
        notify_popover(),
        rx.cond(S.all_bots, rx.fragment(), _delivery_switch()),
        width="100%",
        align="center",
        spacing="4",
        wrap="wrap",
        padding_bottom="0.75rem",
    )


def _delivery_switch() -> rx.Component:
    return rx.tooltip(
        rx.hstack(
            rx.text("Topic Enabled", size="2", weight="medium"),
            rx.switch(
                checked=S.topic_enabled,
                on_change=S.ask_topic_enabled,
                disabled=~AuthState.is_admin,
                id="topic-enabled-switch",
                aria_label="Topic Enabled",
                color_scheme="green",
            ),
            # Said in words too: a viewer's switch is drawn disabled, washed out, and read as off when it was on.
            rx.text(
                rx.cond(S.topic_enabled, "On", "Off"),
                rx.cond(~AuthState.is_admin, " (admins change it)", ""),
                size="1",
                color=rx.color("gray", 11),
                id="topic-enabled-state",
            ),
            align="center",
            spacing="2",
        ),
        content=rx.cond(
            AuthState.is_admin, "Turn delivery of new items on or off for this bot", "Only admins can change this"
        ),
    )


def delivery_off_dialog() -> rx.Component:
    """Turning delivery off asks first: results the bot finishes meanwhile stay in the chat for good."""
    return confirm_dialog(
        title="Turn off topic delivery for " + S.bot_name + "?",
        description="Until it is on again, this bot's results are not published here: what it finishes stays in its "
        "chats and is not added here later. Everything already here stays readable, and the bot keeps its "
        "connection to the dashboard (topic_mcp).",
        description_size="2",
        cancel_label="Keep it on",
        cancel_id="delivery-off-cancel",
        action_label="Turn off",
        action_color="red",
        on_confirm=S.confirm_topic_off,
        action_id="delivery-off-ok",
        dialog_id="delivery-off-confirm",
        is_open=S.delivery_off_open,
        on_open_change=S.set_delivery_off_open,
    )


def _topic_notify_row(topic: TopicRow) -> rx.Component:
    return rx.hstack(
        rx.checkbox(
            checked=~S.notify.muted.contains(topic.key),
            on_change=lambda value: S.toggle_topic_notify(topic.key, value),
            id="notify-topic-" + topic.key,
        ),
        rx.text(topic.name, size="2"),
        align="center",
        spacing="2",
    )


def notify_popover() -> rx.Component:
    """Browser notifications, per person and browser: on/off, levels, topics, sound."""
    return rx.popover.root(
        rx.popover.trigger(
            rx.icon_button(
                rx.cond(S.notify.enabled, rx.icon("bell-ring", size=16), rx.icon("bell-off", size=16)),
                variant="soft",
                color_scheme=rx.cond(S.notify.enabled, "accent", "gray"),
                aria_label="Notifications",
                id="notify-button",
            ),
        ),
        rx.popover.content(
            rx.vstack(
                rx.hstack(
                    rx.switch(checked=S.notify.enabled, on_change=S.set_notify_enabled, id="notify-enabled"),
                    rx.text("Notify me in this browser", size="2", weight="medium"),
                    align="center",
                    spacing="2",
                ),
                rx.text(
                    "New items of the bots shown here, while this tab is in the background. Only you, only this browser.",
                    size="1",
                    color=rx.color("gray", 11),
                ),
                rx.select.root(
                    rx.select.trigger(id="notify-level"),
                    rx.select.content(
                        rx.select.item("Every level", value="all"),
                        rx.select.item("Warnings and errors", value="warn"),
                        rx.select.item("Errors only", value="error"),
                    ),
                    value=S.notify.level,
                    on_change=S.set_notify_level,
                    size="1",
                ),
                rx.text("Topics", size="1", weight="medium"),
                rx.cond(
                    S.all_bots,
                    rx.text(
                        "Every bot's items notify here; choose a bot to mute some of its topics.",
                        size="1",
                        color=rx.color("gray", 11),
                    ),
                    rx.vstack(
                        rx.foreach(S.topics, _topic_notify_row), spacing="1", max_height="12rem", overflow_y="auto"
                    ),
                ),
                rx.hstack(
                    rx.switch(checked=S.notify.sound, on_change=S.set_notify_sound, size="1", id="notify-sound"),
                    rx.text("Play a sound", size="2"),
                    align="center",
                    spacing="2",
                ),
                spacing="2",
                width="18rem",
            ),
        ),
    )


def delivery_banner() -> rx.Component:
    return rx.cond(
        ~S.topic_enabled,
        rx.callout(
            "Topic delivery is off for this bot: what it finishes stays in its chats and is not added here "
            "(topic_publish is refused, topic_route answers should_publish=false). History below stays readable.",
            icon="circle-pause",
            color_scheme="amber",
            high_contrast=True,  # amber's own text on amber fails WCAG contrast (as the Conversations banner did)
            id="delivery-off-banner",
            margin_bottom="0.75rem",
        ),
    )


def _nav_entry(label: str, value: str, icon: str, count: rx.Var | None, badge: bool) -> rx.Component:
    active = S.selection == value
    shown = (
        rx.fragment()
        if count is None
        else rx.cond(
            badge & (count > 0),
            rx.badge(count, variant="solid", radius="full", size="1"),
            rx.text(count, size="1", color=rx.color("gray", 11)),
        )
    )
    return rx.hstack(
        rx.icon(icon, size=15),
        rx.text(label, size="2", weight=rx.cond(active, "bold", "regular")),
        rx.spacer(),
        shown,
        on_click=S.select_view(value),
        **_keyboard_entry(active),
        cursor="pointer",
        padding_x="0.5rem",
        padding_y="0.35rem",
        border_radius="var(--radius-2)",
        background=rx.cond(active, rx.color("accent", 3), "transparent"),
        _hover={"background": rx.color("gray", 3)},
        width="100%",
        id=f"view-{value}",
    )


def _keyboard_entry(active: rx.Var[bool] | None = None) -> dict[str, Any]:
    """A sidebar entry a keyboard reaches: in the Tab order, a button to assistive technology (pressed when
    it is the view shown), and Enter or space selects it as a click does (assets/keyboard_shortcuts.js)."""
    attrs: dict[str, Any] = {"data-td-activate": "1"}
    if active is not None:
        attrs["aria-pressed"] = rx.cond(active, "true", "false")
    return {"role": "button", "tab_index": 0, "class_name": "side-entry", "custom_attrs": attrs}


def _topic_entry(topic: TopicRow) -> rx.Component:
    value = "topic:" + topic.key
    active = S.selection == value
    return rx.hstack(
        rx.cond(
            topic.is_fallback, rx.tooltip(rx.icon("inbox", size=15), content="Fallback topic"), rx.icon("hash", size=15)
        ),
        rx.text(topic.name, size="2", weight=rx.cond(active, "bold", "regular"), **ONE_LINE),
        rx.spacer(),
        rx.cond(
            topic.unread > 0,
            rx.badge(topic.unread, variant="solid", radius="full", size="1", id="unread-" + topic.key),
            _all_read(topic.total),
        ),
        on_click=S.select_view(value),
        **_keyboard_entry(active),
        cursor="pointer",
        opacity=rx.cond(topic.is_active, "1", "0.5"),
        title=rx.cond(topic.is_active, topic.key, topic.key + " (inactive)"),
        padding_x="0.5rem",
        padding_y="0.35rem",
        border_radius="var(--radius-2)",
        background=rx.cond(active, rx.color("accent", 3), "transparent"),
        _hover={"background": rx.color("gray", 3)},
        width="100%",
        id="topic-" + topic.key,
    )


def _all_read(total: rx.Var[int]) -> rx.Component:
    """Where nothing is unread: how many items there are, said as read ("11 read"), so a grey number is not
    taken for 11 unread (a walkthrough did); an empty topic shows 0."""
    return rx.text(total, rx.cond(total > 0, " read", ""), size="1", color=rx.color("gray", 11), white_space="nowrap")


def _bot_entry(bot: TopicRow) -> rx.Component:
    """The "All bots" view's sidebar: a bot, with its unread (or total) count; a click shows that bot."""
    return rx.hstack(
        rx.icon("bot", size=15),
        rx.text(bot.name, size="2", **ONE_LINE),
        rx.spacer(),
        rx.cond(
            bot.unread > 0,
            rx.badge(bot.unread, variant="solid", radius="full", size="1"),
            _all_read(bot.total),
        ),
        on_click=S.select_bot(bot.key),
        **_keyboard_entry(),
        cursor="pointer",
        padding_x="0.5rem",
        padding_y="0.35rem",
        border_radius="var(--radius-2)",
        _hover={"background": rx.color("gray", 3)},
        width="100%",
        title="Show only this bot",
        id="bot-" + bot.key,
    )


def topics_column() -> rx.Component:
    return rx.vstack(
        rx.cond(
            S.all_bots,
            rx.text("All bots", size="2", weight="bold", padding_x="0.5rem"),
            rx.input(
                placeholder="Filter topics",
                value=S.topic_query,
                on_change=S.set_topic_query,
                size="2",
                width="100%",
                id="topic-filter",
            ),
        ),
        _nav_entry("All", "all", "layers", S.item_total, False),
        _nav_entry("Unread", "unread", "circle-dot", S.unread_total, True),
        _nav_entry("Pinned", "pinned", "pin", S.pinned_total, False),
        rx.separator(size="4"),
        rx.cond(
            S.all_bots,
            rx.fragment(
                rx.text("Bots", size="1", weight="medium", color=rx.color("gray", 11), padding_x="0.5rem"),
                rx.foreach(S.bot_rows, _bot_entry),
            ),
            rx.foreach(S.visible_topics, _topic_entry),
        ),
        spacing="1",
        width="15rem",
        min_width="13rem",
        padding_right="0.75rem",
        border_right=BORDER,
        display=["none", "none", "flex"],
    )


def _tag(tag: rx.Var) -> rx.Component:
    return rx.el.button(
        tag, class_name="row-chip row-tag", on_click=S.filter_by_tag(tag).stop_propagation, title="Filter by this tag"
    )


def _row_tag(tag: rx.Var) -> rx.Component:
    """A row's tag: out of the Tab order (the list is one Tab stop); the open item's tags are in it."""
    return rx.el.button(
        tag,
        class_name="row-chip row-tag",
        on_click=S.filter_by_tag(tag).stop_propagation,
        title="Filter by this tag",
        tab_index=-1,
    )


def _row_level(level: rx.Var) -> rx.Component:
    """The level as a shape and a name for screen readers, beside its colour (styles.css)."""
    return rx.match(
        level,
        ("error", rx.icon("octagon-alert", size=13, class_name="row-level lvl-error", aria_label="error", role="img")),
        ("warn", rx.icon("triangle-alert", size=13, class_name="row-level lvl-warn", aria_label="warning", role="img")),
        (
            "success",
            rx.icon("circle-check", size=13, class_name="row-level lvl-success", aria_label="success", role="img"),
        ),
        rx.icon("info", size=13, class_name="row-level lvl-info", aria_label="info", role="img"),
    )


def _row(
    *,
    item_id: rx.Var,
    bot_id: rx.Var,
    bot_name: rx.Var,
    level: rx.Var,
    created_at: rx.Var,
    topic_name: rx.Var,
    tags: rx.Var,
    is_read: rx.Var,
    is_pinned: rx.Var,
    is_resolved: rx.Var,
    update_count: rx.Var,
    selected: rx.Var,
    is_open: rx.Var,
    all_bots: rx.Var,
    title: rx.Component | rx.Var,
    snippet: rx.Component | rx.Var,
) -> rx.Component:
    """One item row. Plain elements styled by assets/styles.css (.item-row ...), drawn from its own
    values only: in the stream each row is a memo (`_stream_row`) that the browser draws again only
    when its values change, so opening an item or ticking one re-draws one or two rows, not the list.
    The keyboard cursor is kept in the browser (assets/keyboard_shortcuts.js, where the Tab stop and the
    focus follow it) and drawn by styles.css; times are written there too (<time data-td-ago>)."""
    return rx.el.div(
        rx.el.input(
            type="checkbox",
            checked=selected,
            read_only=True,
            # A shift-click ticks the range from the last ticked row; the click never opens the row.
            on_click=lambda info: [rx.stop_propagation, S.toggle_select(item_id, info["shift_key"])],
            aria_label="Select",
            # In the Tab order only on the cursor's row (assets/keyboard_shortcuts.js), right after the row itself.
            tab_index=-1,
            custom_attrs={"data-td-select": "1"},
            class_name="row-select",
        ),
        rx.el.span(class_name="row-swatch lvl-" + level),
        # What m clicks for the cursor's row when no item is open (assets/keyboard_shortcuts.js): with rows
        # ticked, the State marks those instead.
        rx.el.button(
            on_click=[rx.stop_propagation, S.toggle_read_key(item_id)],
            custom_attrs={"data-td-toggle-read": "1", "aria-hidden": "true"},
            tab_index=-1,
            hidden=True,
        ),
        rx.el.div(
            rx.el.div(
                _row_level(level),
                rx.cond(~is_read, rx.el.span(class_name="unread-dot")),
                # A real link (open in a new tab, copy the address); a plain click opens it here.
                rx.el.a(
                    title,
                    href="/?bot=" + bot_id + "&item=" + item_id.to_string(),
                    on_click=rx.prevent_default,
                    class_name="item-title",
                    tab_index=-1,
                ),
                rx.cond(is_pinned, rx.icon("pin", size=13, class_name="row-pin")),
                rx.cond(
                    is_resolved,
                    rx.el.span("resolved", class_name="row-chip row-resolved"),
                    rx.cond(update_count > 0, rx.el.span("updated", class_name="row-chip row-updated")),
                ),
                # The machine form is for the script; people (and screen readers) get "5 min ago" (::after).
                rx.el.time(
                    rx.el.span(created_at, custom_attrs={"aria-hidden": "true"}),
                    date_time=created_at,
                    custom_attrs={"data-td-ago": "1"},
                ),
                class_name="row-line",
            ),
            rx.el.div(snippet, class_name="row-snippet"),
            rx.el.div(
                rx.cond(all_bots, rx.el.span(bot_name, class_name="row-chip row-bot")),
                rx.el.span(topic_name, class_name="row-chip row-topic"),
                rx.foreach(tags, _row_tag),
                class_name="row-chips",
            ),
            class_name="row-body",
        ),
        on_click=S.open_item(item_id),
        role="link",
        # One Tab stop for the whole list: assets/keyboard_shortcuts.js puts the cursor's row in the Tab
        # order (roving tabindex), the arrows and j / k move it, and Enter or space on a focused row opens it
        # (it clicks the row).
        tab_index=-1,
        custom_attrs={"aria-current": rx.cond(is_open, "true", "false"), "data-td-row": "1"},
        class_name=rx.cond(is_read, "item-row item-read", "item-row item-unread"),
        id="item-" + item_id.to_string(),
    )


TAG_SEPARATOR = "\x1f"  # rows.py ItemRow.tags_text joins the tags with it


@rx.memo
def _stream_row(
    item_id: rx.Var[int],
    bot_id: rx.Var[str],
    bot_name: rx.Var[str],
    title: rx.Var[str],
    preview: rx.Var[str],
    level: rx.Var[str],
    created_at: rx.Var[str],
    topic_name: rx.Var[str],
    tags_text: rx.Var[str],
    is_read: rx.Var[bool],
    is_pinned: rx.Var[bool],
    is_resolved: rx.Var[bool],
    update_count: rx.Var[int],
    selected: rx.Var[bool],
    is_open: rx.Var[bool],
    all_bots: rx.Var[bool],
) -> rx.Component:
    """A row of the stream, from plain values only (a list prop would be a new array on every update
    and defeat the memo): the tags travel as one string."""
    return _row(
        item_id=item_id,
        bot_id=bot_id,
        bot_name=bot_name,
        level=level,
        created_at=created_at,
        topic_name=topic_name,
        tags=rx.cond(tags_text == "", rx.Var.create([]), tags_text.split(TAG_SEPARATOR)),
        is_read=is_read,
        is_pinned=is_pinned,
        is_resolved=is_resolved,
        update_count=update_count,
        selected=selected,
        is_open=is_open,
        all_bots=all_bots,
        title=title,
        snippet=preview,
    )


def _row_values(item: ItemRow) -> dict[str, rx.Var]:
    """What a row shows of its item and of the view, as `_row` (and `_stream_row`) take them."""
    return {
        "item_id": item.id,
        "bot_id": item.bot_id,
        "bot_name": item.bot_name,
        "level": item.level,
        "created_at": item.created_at,
        "topic_name": item.topic_name,
        "is_read": item.is_read,
        "is_pinned": item.is_pinned,
        "is_resolved": item.is_resolved,
        "update_count": item.update_count,
        "selected": S.selected_ids.contains(item.id),
        "is_open": D.id == item.id,
        "all_bots": S.all_bots,
    }


def _item_row(item: ItemRow) -> rx.Component:
    return _stream_row(**_row_values(item), title=item.title, preview=item.preview, tags_text=item.tags_text)


def _search_row(item: ItemRow) -> rx.Component:
    """A search result: its title and snippet with the hits marked (a page or a few: not memoized)."""
    return _row(
        **_row_values(item),
        tags=item.tags,
        title=rx.cond(item.title_parts.length() > 0, rx.foreach(item.title_parts, _text_part), item.title),
        snippet=rx.cond(item.snippet_parts.length() > 0, rx.foreach(item.snippet_parts, _text_part), item.preview),
    )


def bulk_bar() -> rx.Component:
    """With rows ticked: what to do with all of them (each person's own reading state)."""

    def action(label: str, name: str, icon: str) -> rx.Component:
        return rx.button(
            rx.icon(icon, size=13), label, size="1", variant="soft", on_click=S.bulk(name), id=f"bulk-{name}"
        )

    return rx.cond(
        S.selected_ids.length() > 0,
        rx.hstack(
            rx.text(S.selected_ids.length().to_string() + " selected", size="2", weight="medium", id="bulk-count"),
            action("Read", "read", "mail-open"),
            action("Unread", "unread", "mail"),
            action("Pin", "pin", "pin"),
            action("Unpin", "unpin", "pin-off"),
            action("Archive", "archive", "archive"),
            rx.cond(AuthState.is_admin, bulk_move_control()),
            rx.button(
                "Clear", size="1", variant="ghost", color_scheme="gray", on_click=S.clear_selection, id="bulk-clear"
            ),
            spacing="2",
            align="center",
            wrap="wrap",
            padding="0.4rem 0.5rem",
            border_radius="var(--radius-2)",
            background=rx.color("accent", 3),
            width="100%",
            id="bulk-bar",
        ),
    )


def _text_part(part: TextPart) -> rx.Component:
    """A piece of a search result: a hit is marked. Text only: a bot's words never become markup."""
    return rx.cond(
        part.hit,
        # Theme colours (styles.css .search-hit): readable in light and dark (the browser's yellow is not).
        rx.el.mark(part.text, class_name="search-hit"),
        rx.fragment(part.text),
    )


def _search_box() -> rx.Component:
    return rx.hstack(
        rx.input(
            rx.input.slot(rx.icon("search", size=14)),
            rx.cond(
                S.searching,
                rx.input.slot(
                    rx.icon_button(
                        rx.icon("x", size=12),
                        size="1",
                        variant="ghost",
                        color_scheme="gray",
                        on_click=S.clear_search,
                        aria_label="Clear the search",
                        id="search-clear",
                    ),
                ),
            ),
            placeholder="Search titles, content and tags  ( / )",
            value=S.search_query,
            on_change=S.set_search_query,
            debounce_timeout=300,
            size="2",
            width="100%",
            id="search-input",
            aria_label="Search items",
            type="search",
        ),
        width="100%",
    )


def _level_icon(level: rx.Var) -> rx.Component:
    """The level as a shape and a name for screen readers, beside its colour."""
    return rx.match(
        level,
        ("error", rx.icon("octagon-alert", size=13, color=level_swatch(level), aria_label="error", role="img")),
        ("warn", rx.icon("triangle-alert", size=13, color=level_swatch(level), aria_label="warning", role="img")),
        ("success", rx.icon("circle-check", size=13, color=level_swatch(level), aria_label="success", role="img")),
        rx.icon("info", size=13, color=level_swatch(level), aria_label="info", role="img"),
    )


def _filters() -> rx.Component:
    return rx.hstack(
        rx.select.root(
            rx.select.trigger(placeholder="Level", id="level-filter", aria_label="Level"),
            rx.select.content(
                rx.select.item("Any level", value="any"),
                *[rx.select.item(level.capitalize(), value=level) for level in LEVELS],
            ),
            value=S.level_filter,
            on_change=S.set_level_filter,
            size="1",
        ),
        rx.input(
            placeholder="Tag",
            value=S.tag_filter,
            on_change=S.set_tag_filter,
            on_focus=S.load_tag_options,
            size="1",
            width="8rem",
            id="tag-filter",
            debounce_timeout=300,
            custom_attrs={"list": "tag-suggestions", "autoComplete": "off"},
        ),
        rx.el.datalist(rx.foreach(S.tag_options, lambda tag: rx.el.option(value=tag)), id="tag-suggestions"),
        # Each switch's words are its label: a click on them flips it (on a phone the switch alone is a small
        # target). Archived items are shown beside the others, so the words say "Show archived".
        rx.el.label(
            rx.switch(
                checked=S.unread_only, on_change=S.set_unread_only, size="1", id="unread-only", aria_label="Unread only"
            ),
            rx.text("Unread only", size="1"),
            class_name="switch-label",
        ),
        rx.el.label(
            rx.switch(
                checked=S.show_archived,
                on_change=S.set_show_archived,
                size="1",
                id="show-archived",
                aria_label="Show archived",
            ),
            rx.text("Show archived", size="1"),
            class_name="switch-label",
        ),
        spacing="3",
        align="center",
        wrap="wrap",
    )


def _loading_rows() -> rx.Component:
    return rx.vstack(*[rx.skeleton(height="3.5rem", width="100%") for _ in range(6)], spacing="2", width="100%")


def _hint_with_clear(hint: str) -> rx.Component:
    """An empty list's hint and the button that does what it says."""
    return rx.vstack(
        rx.text(hint, size="2", color=rx.color("gray", 11), text_align="center"),
        rx.button(
            rx.icon("filter-x", size=14), "Clear filters", variant="soft", on_click=S.clear_filters, id="clear-filters"
        ),
        align="center",
        spacing="2",
    )


def _empty_stream() -> rx.Component:
    return rx.cond(
        S.item_total == 0,
        empty_state(
            "inbox", "Nothing published yet", "Items appear here live when a bot calls topic_publish through topic_mcp."
        ),
        rx.cond(
            S.searching,
            empty_state(
                "search-x",
                "No items match the search",
                _hint_with_clear(
                    "Every word must appear in a title, the content or a tag. Try fewer words, or clear the filters."
                ),
            ),
            rx.cond(
                (S.selection == "unread") | S.unread_only,
                empty_state("circle-check-big", "All caught up", "Every item here is read."),
                empty_state("search-x", "No items match", _hint_with_clear("Try another topic or clear the filters.")),
            ),
        ),
    )


def _mobile_topic_picker() -> rx.Component:
    """On a phone the topics column is hidden: the same choices as a menu."""
    return rx.box(
        rx.select.root(
            # Named for screen readers: in the All bots view with a bot chosen, no item shows as its value.
            rx.select.trigger(width="100%", id="mobile-topic-picker", aria_label="Show"),
            rx.select.content(
                rx.select.item("All items", value="all"),
                rx.select.item(
                    rx.cond(S.unread_total > 0, "Unread (" + S.unread_total.to_string() + ")", "Unread"),
                    value="unread",
                ),
                rx.select.item("Pinned", value="pinned"),
                rx.cond(
                    S.all_bots,
                    rx.fragment(),
                    rx.foreach(
                        S.topics,
                        # with its unread count, as the sidebar's badge says it (a walkthrough's phone had none)
                        lambda topic: rx.select.item(
                            rx.cond(topic.unread > 0, topic.name + " (" + topic.unread.to_string() + ")", topic.name),
                            value="topic:" + topic.key,
                        ),
                    ),
                ),
                position="popper",  # under the trigger, as wide as it: the menu ran off a phone's right edge
                width="var(--radix-select-trigger-width)",
            ),
            value=S.selection,
            on_change=S.select_view,
        ),
        width="100%",
        display=["block", "block", "none"],
    )


def mark_read_dialog() -> rx.Component:
    """'Mark all read' asks first, naming how many items of this view it will read."""
    return confirm_dialog(
        title="Mark " + S.mark_read_count.to_string() + rx.cond(S.mark_read_count == 1, " item", " items") + " read?",
        description="Everything unread in " + S.heading + " with the filters you set, up to the newest item shown. "
        "You can undo it for a few seconds.",
        description_size="2",
        cancel_id="mark-read-cancel",
        action_label="Mark read",
        on_confirm=S.confirm_mark_read,
        action_id="mark-read-ok",
        dialog_id="mark-read-confirm",
        is_open=S.mark_read_open,
        on_open_change=S.set_mark_read_open,
    )


def _window_controls() -> rx.Component:
    """New items that did not join the list (it holds LIST_WINDOW rows, or you scrolled down): a pill
    that shows them; and after "Load more" let the newest rows go, the way back to them."""
    return rx.cond(
        S.new_count > 0,
        rx.button(
            rx.icon("arrow-up", size=14),
            S.new_count.to_string() + rx.cond(S.new_count == 1, " new item", " new items"),
            on_click=S.show_newest,
            radius="full",
            size="2",
            id="new-items-pill",
            align_self="center",
            box_shadow="var(--shadow-3)",
        ),
        rx.cond(
            S.hidden_newer,
            rx.button(
                rx.icon("arrow-up-to-line", size=14),
                "Back to newest",
                on_click=S.show_newest,
                variant="soft",
                color_scheme="gray",
                size="1",
                width="100%",
                id="back-to-newest",
            ),
        ),
    )


def _stream_header() -> rx.Component:
    """What the list is and what can be done with it (heading, export, mark all read, search, filters,
    the bulk bar, the new-items pill): it stays at the top of the column while the rows scroll under
    it, so a filter or the search is one click away wherever you are in a long list."""
    return rx.vstack(
        rx.hstack(
            rx.heading(S.heading, size="4", id="stream-heading"),
            rx.spacer(),
            rx.menu.root(
                rx.menu.trigger(
                    rx.button(
                        rx.icon("download", size=14),
                        "Export",
                        size="1",
                        variant="soft",
                        color_scheme="gray",
                        id="export-view",
                    ),
                ),
                rx.menu.content(
                    rx.menu.item("This view as CSV", on_click=S.export_view("csv"), id="export-csv"),
                    rx.menu.item("This view as JSON", on_click=S.export_view("json"), id="export-json"),
                ),
            ),
            rx.button(
                rx.icon("check-check", size=14),
                "Mark all read",
                size="1",
                variant="soft",
                on_click=S.mark_all_read,
                id="mark-all-read",
                title="Marks what this view shows read for you (no one else)",
            ),
            width="100%",
            align="center",
        ),
        _search_box(),
        _filters(),
        bulk_bar(),
        _window_controls(),
        spacing="3",
        width="100%",
        position="sticky",
        top="0",
        z_index="3",
        background_color="var(--color-background)",
        padding_bottom="0.25rem",
        id="stream-header",
    )


def items_column() -> rx.Component:
    return rx.vstack(
        _mobile_topic_picker(),
        mark_read_dialog(),
        delivery_off_dialog(),
        _stream_header(),
        rx.cond(
            S.loading,
            _loading_rows(),
            rx.cond(
                S.items.length() > 0,
                rx.vstack(
                    rx.cond(S.searching, rx.foreach(S.items, _search_row), rx.foreach(S.items, _item_row)),
                    rx.cond(
                        S.next_cursor != "",
                        rx.button(
                            "Load more", variant="soft", size="2", width="100%", on_click=S.load_more, id="load-more"
                        ),
                    ),
                    spacing="1",
                    width="100%",
                    id="item-list",
                ),
                _empty_stream(),
            ),
        ),
        spacing="3",
        flex="1",
        min_width=["0", "0", "18rem"],
        padding_x=["0", "0", "0.75rem"],
        max_height="calc(100vh - 9rem)",
        overflow_y="auto",
        # On a phone the open item takes the whole width; closing it brings the list back.
        display=rx.breakpoints(initial=rx.cond(S.has_detail, "none", "flex"), md="flex"),
        id="items-column",
    )


def _detail_actions() -> rx.Component:
    # Read, pinned and archived are each person's own; admins also pin and archive for everyone.
    return rx.hstack(
        _own_flag_buttons(),
        # Resolve is for what asks for action (a warning or an error) and for what is already resolved;
        # any other item is resolved from "For everyone" (a walkthrough found it on every research note).
        rx.cond(
            AuthState.is_admin & ((D.resolved_at != "") | (D.level == "warn") | (D.level == "error")),
            _resolve_button(),
        ),
        rx.cond(AuthState.is_admin, _team_flag_menu()),
        rx.spacer(),
        rx.icon_button(rx.icon("x", size=14), size="1", variant="ghost", on_click=S.close_detail, aria_label="Close"),
        width="100%",
        wrap="wrap",
    )


def _resolve_button() -> rx.Component:
    """Resolved (dealt with) is shared state: admins set it, everyone sees it."""
    return rx.cond(
        D.resolved_at != "",
        rx.button(
            rx.icon("rotate-ccw", size=14),
            "Reopen",
            size="1",
            variant="soft",
            color_scheme="gray",
            on_click=S.toggle_resolved(D.id),
            id="detail-resolve",
        ),
        rx.button(
            rx.icon("circle-check", size=14),
            "Resolve",
            size="1",
            variant="soft",
            color_scheme="green",
            high_contrast=True,
            on_click=S.toggle_resolved(D.id),
            id="detail-resolve",
        ),
    )


def _team_flag_menu() -> rx.Component:
    """Admins: pin or archive for everyone (the team's state; each person can still unpin for themselves)."""
    return rx.menu.root(
        rx.menu.trigger(
            rx.button(
                rx.icon("users", size=14),
                "For everyone",
                size="1",
                variant="soft",
                color_scheme="gray",
                id="detail-team",
            ),
        ),
        rx.menu.content(
            rx.menu.item(
                rx.cond(D.team_pinned, "Unpin for everyone", "Pin for everyone"),
                on_click=S.toggle_team_pin(D.id),
                id="detail-team-pin",
            ),
            rx.menu.item(
                rx.cond(D.team_archived, "Unarchive for everyone", "Archive for everyone"),
                on_click=S.toggle_team_archive(D.id),
                id="detail-team-archive",
            ),
            rx.cond(
                (D.resolved_at == "") & (D.level != "warn") & (D.level != "error"),
                rx.menu.item("Mark resolved", on_click=S.toggle_resolved(D.id), id="detail-team-resolve"),
            ),
        ),
    )


def _own_flag_buttons() -> rx.Component:
    return rx.hstack(
        rx.button(
            rx.cond(D.is_read, rx.icon("mail", size=14), rx.icon("mail-open", size=14)),
            rx.cond(D.is_read, "Mark unread", "Mark read"),
            size="1",
            variant="soft",
            on_click=S.toggle_read(D.id),
            id="detail-toggle-read",
        ),
        rx.button(
            rx.icon("pin", size=14),
            rx.cond(D.is_pinned, "Unpin", "Pin"),
            size="1",
            variant="soft",
            on_click=S.toggle_pin(D.id),
            id="detail-toggle-pin",
        ),
        rx.cond(
            D.team_archived,
            rx.badge(
                rx.icon("archive", size=12),
                "Archived for everyone",
                variant="soft",
                color_scheme="gray",
                id="detail-team-archived",
            ),
            rx.button(
                rx.icon("archive", size=14),
                rx.cond(D.is_archived, "Unarchive", "Archive"),
                size="1",
                variant="soft",
                on_click=S.toggle_archive(D.id),
                id="detail-toggle-archive",
            ),
        ),
        rx.cond(AuthState.is_admin, move_control()),
        wrap="wrap",
    )


def _content() -> rx.Component:
    folded = D.content_is_long & ~S.content_expanded
    return rx.vstack(
        rx.box(
            safe_html(D.content_html),
            max_height=rx.cond(folded, "18rem", "none"),
            overflow="hidden",
            mask_image=rx.cond(folded, "linear-gradient(to bottom, black 70%, transparent)", "none"),
            width="100%",
            id="detail-content",
        ),
        rx.cond(
            D.content_is_long,
            rx.button(
                rx.cond(S.content_expanded, "Show less", "Show more"),
                size="1",
                variant="ghost",
                on_click=S.toggle_expanded,
                id="detail-expand",
            ),
        ),
        width="100%",
        spacing="1",
    )


def _lifecycle() -> rx.Component:
    """An item the bot rewrote (an alert that changed) says so; a resolved one says by whom and when."""
    return rx.fragment(
        rx.cond(
            D.update_count > 0,
            rx.hstack(
                rx.icon("refresh-cw", size=12),
                rx.text("Updated by the bot " + D.update_count.to_string() + "× · last", size="1"),
                rx.moment(D.updated_at, from_now=True, font_size="var(--font-size-1)"),
                spacing="1",
                align="center",
                color=rx.color("gray", 11),
                id="detail-updated",
            ),
        ),
        rx.cond(
            D.resolved_at != "",
            rx.callout(
                rx.hstack(
                    rx.text("Resolved by " + D.resolved_by, size="1"),
                    rx.moment(D.resolved_at, from_now=True, font_size="var(--font-size-1)"),
                    spacing="1",
                    align="center",
                ),
                icon="circle-check",
                color_scheme="green",
                size="1",
                id="detail-resolved",
            ),
        ),
    )


def detail_column() -> rx.Component:
    return rx.box(
        rx.cond(
            S.has_detail,
            rx.vstack(
                # On a phone the open item has the whole width: the way back to the list is said, not only a ×.
                rx.button(
                    rx.icon("arrow-left", size=14),
                    rx.text("Back to " + S.heading, trim="both", overflow="hidden", text_overflow="ellipsis"),
                    on_click=S.close_detail,
                    variant="soft",
                    color_scheme="gray",
                    size="2",
                    max_width="100%",
                    white_space="nowrap",
                    display=["flex", "flex", "none"],
                    id="detail-back",
                ),
                _detail_actions(),
                rx.heading(D.title, size="5", id="detail-title"),
                rx.hstack(
                    rx.badge(
                        D.level,
                        color_scheme=level_color(D.level),
                        variant="soft",
                        high_contrast=True,
                        id="detail-level",
                    ),
                    rx.cond(
                        S.all_bots,
                        rx.badge(rx.icon("bot", size=11), S.detail_bot_name, variant="outline", color_scheme="gray"),
                    ),
                    rx.badge(D.topic_key, variant="soft", id="detail-topic"),
                    rx.foreach(D.tags, _tag),
                    rx.text("via " + D.source, size="1", color=rx.color("gray", 11)),
                    rx.cond(
                        D.conversation_href != "",
                        rx.link(
                            rx.hstack(
                                rx.icon("messages-square", size=12), "from a conversation", spacing="1", align="center"
                            ),
                            href=D.conversation_href,
                            size="1",
                            id="detail-conversation",
                        ),
                    ),
                    rx.moment(
                        D.created_at,
                        format="YYYY-MM-DD HH:mm",
                        font_size="var(--font-size-1)",
                        color=rx.color("gray", 11),
                    ),
                    spacing="2",
                    align="center",
                    wrap="wrap",
                ),
                _lifecycle(),
                _content(),
                rx.cond(D.view_type != "", rx.box(view_renderer(), width="100%", id="detail-view")),
                spacing="3",
                width="100%",
                id="item-detail",
            ),
            # The keys themselves are in the hints under the list (a walkthrough saw them twice): here only
            # where to find them all.
            rx.vstack(
                empty_state(
                    "mouse-pointer-click",
                    "Open an item",
                    rx.text(
                        "Click an item",
                        rx.el.span(", or move with j / k and open it with o", class_name=KEYBOARD_ONLY),
                        ".",
                        size="2",
                        color=rx.color("gray", 11),
                        text_align="center",
                        id="open-an-item-hint",
                    ),
                ),
                rx.hstack(
                    key_hint("?", "all shortcuts"),
                    justify="center",
                    width="100%",
                    id="all-shortcuts-hint",
                    class_name=KEYBOARD_ONLY,
                ),
                width="100%",
            ),
        ),
        # An open item gets 42%; with none open the list keeps the room (the pane only says how to open one).
        width=rx.breakpoints(initial="100%", md=rx.cond(S.has_detail, "42%", "26%")),
        min_width=["0", "0", "16rem"],
        padding_left=["0", "0", "0.75rem"],
        border_left=["none", "none", BORDER],
        max_height="calc(100vh - 9rem)",
        overflow_y="auto",
        display=rx.breakpoints(initial=rx.cond(S.has_detail, "block", "none"), md="block"),
        id="detail-column",
    )


def keyboard() -> rx.Component:
    return rx.fragment(
        shortcuts(
            {
                # j, k, o, Enter and x act on the list's cursor in the browser (assets/keyboard_shortcuts.js).
                "m": "kbd-toggle-read",
                "v": "kbd-move",
                "Escape": "kbd-close",
                "?": "kbd-help",
            }
        ),
        hidden_button("kbd-close", S.close_detail_key),
        hidden_button("td-history-close", S.close_detail_from_history),
        hidden_button("kbd-help", S.set_help_open(True)),
        help_dialog(),
        hidden_button("kbd-toggle-read", S.toggle_read_key(0)),
        # Only admins have the Move controls: for anyone else the key clicks nothing.
        rx.cond(AuthState.is_admin, hidden_button("kbd-move", MoveItemState.move_key)),
    )


SHORTCUTS = [
    ("/", "search titles, content and tags"),
    ("x", "select the item under the cursor (shift-click selects a range)"),
    ("j / k or ↓ / ↑", "next / previous item (the list scrolls with you)"),
    ("o or Enter", "open the item under the cursor"),
    ("Esc", "close the item"),
    ("m", "mark the selected items, or else the open one or the one under the cursor, read / unread (for you)"),
    ("v", "move the selected items, or else the open one, to a topic… (admins)"),
    ("Tab", "views, topics, the list (one stop, at its current item) and the open item; Enter or space opens"),
    ("?", "this help"),
]


def help_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Keyboard shortcuts"),
            rx.vstack(
                *[key_hint(keys, label) for keys, label in SHORTCUTS],
                spacing="2",
                padding_y="0.5rem",
            ),
            rx.hstack(rx.dialog.close(rx.button("Close", variant="soft", id="help-close")), justify="end"),
            id="shortcut-help",
        ),
        open=S.help_open,
        on_open_change=S.set_help_open,
    )


def no_bots() -> rx.Component:
    return empty_state(
        "bot",
        "No bots yet",
        rx.vstack(
            rx.text("A bot publishes results here through topic_mcp.", size="2", color=rx.color("gray", 11)),
            rx.cond(
                AuthState.is_admin,
                rx.link("Create a bot", href="/bots", id="create-bot-link"),
                rx.text("Ask an admin to create one.", size="2", color=rx.color("gray", 11)),
            ),
            align="center",
        ),
    )


def topic_panel_page() -> rx.Component:
    return page_shell(
        rx.cond(
            (S.bots.length() == 0) & ~S.loading,
            rx.fragment(rx.heading("Topics", size="5", id="page-title"), no_bots()),
            rx.fragment(
                top_bar(),
                delivery_banner(),
                rx.hstack(topics_column(), items_column(), detail_column(), align="start", width="100%", spacing="0"),
                rx.hstack(
                    key_hint("j / k", "move"),
                    key_hint("o", "open"),
                    key_hint("m", "read / unread"),
                    rx.cond(AuthState.is_admin, key_hint("v", "move to topic")),
                    spacing="4",
                    padding_top="0.5rem",
                    id="key-hints",
                    class_name=KEYBOARD_ONLY,
                ),
                keyboard(),
                # Updates are pushed (S.follow); this says when the page mounts and every few seconds
                # after that it is open.
                rx.moment(interval=LIVE_HEARTBEAT_MS, on_change=S.keep_live, on_mount=S.keep_live, display="none"),
            ),
        ),
        title="Topics",
    )
