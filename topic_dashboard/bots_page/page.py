"""The Bots page: the bots (a table; on a phone each row is a card) and the dialogs; a bot's settings are
in bot_settings.py."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.auth.state import AuthState
from topic_dashboard.bots_page.bot_settings import config_editor
from topic_dashboard.bots_page.state import BotRow, BotsState
from topic_dashboard.components.confirm_dialog import confirm_dialog
from topic_dashboard.components.layout import empty_state, page_shell
from topic_dashboard.components.unsaved_dialog import unsaved_dialog

S = BotsState


# The columns, and each cell's label on a phone (where a row is a card and the header is hidden).
COLUMNS = ("Bot", "Delivery", "Token age", "Last MCP call", "Items today", "Items", "")

# Below 768 px a row is a card (the shared `card-rows` class in assets/styles.css): the bot's name across the
# top, its figures two by two with their labels, its actions across the bottom (they wrap). As a table the
# actions sat behind a sideways scroll at 390 px.


def _cell(label: str, *children: rx.Component | rx.Var | str, **props: object) -> rx.Component:
    """A figure's cell, labelled on a phone by its column's name."""
    return rx.table.cell(*children, custom_attrs={"data-label": label}, **props)


def _topics_link(bot: BotRow) -> rx.Component:
    """The bot's topics (the Topic panel): a link, or while settings are unsaved a button that asks first."""
    label = (rx.icon("rss", size=14), "Topics")
    return rx.cond(
        S.unsaved_sections != "",
        rx.button(
            *label,
            size="1",
            variant="soft",
            color_scheme="gray",
            on_click=S.go_to_topics(bot.id),
            id="topics-" + bot.id,
        ),
        rx.link(
            rx.button(*label, size="1", variant="soft", color_scheme="gray"),
            href="/?bot=" + bot.id,
            id="topics-" + bot.id,
        ),
    )


def _bot_row(bot: BotRow) -> rx.Component:
    return rx.table.row(
        rx.table.cell(
            rx.vstack(rx.text(bot.name, weight="medium"), rx.code(bot.id, size="1"), spacing="0"),
            class_name="bot-name card-wide",
        ),
        _cell(
            "Delivery",
            rx.cond(
                bot.topic_enabled,
                rx.badge("delivering", color_scheme="green", high_contrast=True, size="1"),
                rx.badge("delivery off", color_scheme="amber", size="1"),
            ),
        ),
        _cell("Token age", bot.token_age, white_space="nowrap"),
        _cell(
            "Last MCP call",
            rx.cond(bot.last_mcp_call_at != "", rx.moment(bot.last_mcp_call_at, from_now=True), "never"),
            white_space="nowrap",
        ),
        _cell("Items today", bot.items_today),
        _cell("Items", bot.items_total),
        rx.table.cell(
            rx.hstack(
                rx.button(
                    rx.icon("settings", size=14),
                    "Settings",
                    size="1",
                    variant="soft",
                    on_click=S.open_config(bot.id),
                    id="config-" + bot.id,
                ),
                _topics_link(bot),
                rx.cond(
                    AuthState.is_admin,
                    rx.hstack(
                        rx.button(
                            rx.icon("key-round", size=14),
                            "Rotate token",
                            size="1",
                            variant="soft",
                            color_scheme="amber",
                            high_contrast=True,
                            on_click=S.ask(bot.id, "rotate"),
                            id="rotate-" + bot.id,
                        ),
                        rx.icon_button(
                            rx.icon("trash-2", size=14),
                            size="1",
                            variant="soft",
                            color_scheme="red",
                            on_click=S.ask(bot.id, "delete"),
                            id="delete-" + bot.id,
                            aria_label="Delete bot",
                        ),
                        spacing="2",
                    ),
                ),
                spacing="2",
                wrap="wrap",
            ),
            class_name="bot-actions card-wide",
        ),
        id="bot-row-" + bot.id,
    )


def bots_table() -> rx.Component:
    return rx.table.root(
        rx.table.header(rx.table.row(*[rx.table.column_header_cell(h) for h in COLUMNS])),
        rx.table.body(rx.foreach(S.bots, _bot_row)),
        variant="surface",
        width="100%",
        id="bots-table",
        class_name="card-rows",
    )


def create_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("New bot"),
            rx.dialog.description(
                "The dashboard creates its inbox topic and writes topic_mcp into its nanobot config.",
                size="2",
                margin_bottom="1rem",
            ),
            rx.vstack(
                rx.text("Name", size="2", weight="medium"),
                rx.input(
                    value=S.new_name,
                    on_change=S.set_new_name,
                    placeholder="e.g. research",
                    id="new-bot-name",
                    width="100%",
                ),
                rx.text(
                    "Existing nanobot config.json to adopt (optional, absolute path inside the data directory)",
                    size="2",
                    weight="medium",
                ),
                rx.input(
                    value=S.new_config_path,
                    on_change=S.set_new_config_path,
                    width="100%",
                    placeholder="empty: a new workspace under the data directory",
                    id="new-bot-config-path",
                ),
                rx.cond(
                    S.new_config_path != "",
                    rx.el.label(
                        rx.hstack(
                            rx.checkbox(checked=S.adopt_existing, on_change=S.set_adopt_existing, id="new-bot-adopt"),
                            rx.text(
                                "The file exists already: add topic_mcp to it (nothing else in it changes)",
                                size="2",
                            ),
                            spacing="2",
                            align="center",
                        )
                    ),
                ),
                rx.cond(
                    S.create_error != "",
                    rx.callout(
                        S.create_error, color_scheme="red", icon="triangle-alert", size="1", id="create-bot-error"
                    ),
                ),
                rx.hstack(
                    rx.dialog.close(rx.button("Cancel", variant="soft", color_scheme="gray")),
                    rx.button("Create bot", on_click=S.create_bot, id="create-bot-submit"),
                    justify="end",
                    width="100%",
                ),
                spacing="2",
            ),
        ),
        open=S.create_open,
        on_open_change=S.set_create_open,
    )


def token_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Token for " + S.shown_bot_name),
            rx.callout(
                "Copy it now: it is shown only once. The dashboard stores only its hash.",
                icon="key-round",
                color_scheme="amber",
                size="1",
            ),
            rx.hstack(
                rx.code(S.shown_token, id="shown-token", word_break="break-all"),
                rx.icon_button(
                    rx.icon("copy", size=14),
                    size="1",
                    variant="soft",
                    on_click=rx.set_clipboard(S.shown_token),
                    aria_label="Copy token",
                ),
                align="center",
                margin_y="0.75rem",
            ),
            rx.cond(
                S.shown_config_path != "",
                rx.text("Written to ", rx.code(S.shown_config_path, id="shown-config-path"), " (mode 0600).", size="2"),
            ),
            rx.text(
                "The entries nanobot needs (tools.mcpServers: topic_mcp and ccweb):", size="2", margin_top="0.75rem"
            ),
            # Long lines wrap (the token is whole on screen) and the block scrolls: the buttons stay in view.
            rx.box(
                rx.code_block(
                    S.shown_snippet, language="json", width="100%", wrap_long_lines=True, id="config-snippet"
                ),
                max_height="min(24rem, 45vh)",
                overflow_y="auto",
                width="100%",
            ),
            rx.hstack(
                rx.button(
                    rx.icon("copy", size=14), "Copy config", variant="soft", on_click=rx.set_clipboard(S.shown_snippet)
                ),
                rx.dialog.close(rx.button("Done", id="token-done")),
                justify="end",
                width="100%",
                margin_top="0.75rem",
            ),
            max_width="44rem",
        ),
        open=S.token_open,
        on_open_change=S.set_token_open,
    )


def token_action_dialog() -> rx.Component:
    """Rotate a bot's token, or delete the bot: both ask first, saying what stops working."""
    return confirm_dialog(
        title=rx.cond(S.confirm_action == "rotate", "Rotate the token of ", "Delete ") + S.confirm_bot_name + "?",
        description=rx.cond(
            S.confirm_action == "rotate",
            "A new token is written into the bot's config.json. The old token stops working at once; "
            "a bot still running with it sees 'failed to connect' until it reloads its config.",
            "Its topics, settings, conversations and all " + S.confirm_items.to_string() + " items are deleted. "
            "Its config.json stays on disk, but its token no longer works. The audit trail is kept.",
        ),
        action_label=rx.cond(S.confirm_action == "rotate", "Rotate token", "Delete bot"),
        action_color=rx.cond(S.confirm_action == "rotate", "amber", "red"),
        on_confirm=S.confirm,
        action_id="confirm-action",
        is_open=S.confirm_open,
        on_open_change=S.set_confirm_open,
    )


def bots_page() -> rx.Component:
    return page_shell(
        rx.hstack(
            rx.heading("Bots", size="5", id="page-title"),
            rx.spacer(),
            rx.cond(
                AuthState.is_admin, rx.button(rx.icon("plus", size=14), "New bot", on_click=S.open_create, id="new-bot")
            ),
            width="100%",
            align="center",
            padding_bottom="1rem",
        ),
        rx.text(
            "Bots reach topic_mcp at ",
            rx.code(S.mcp_url, overflow_wrap="anywhere"),
            " with their own token.",
            size="2",
            color=rx.color("gray", 11),
            margin_bottom="1rem",
        ),
        rx.cond(
            S.loading,
            rx.skeleton(height="8rem", width="100%"),
            rx.cond(
                S.bots.length() > 0,
                bots_table(),
                empty_state(
                    "bot",
                    "No bots yet",
                    rx.cond(
                        AuthState.is_admin,
                        "Create one: it gets an inbox topic and a ready nanobot config.",
                        "An admin can create one.",
                    ),
                ),
            ),
        ),
        config_editor(),
        create_dialog(),
        token_dialog(),
        token_action_dialog(),
        # switching bots (another bot's Settings, a row's Topics, an address naming another bot) with edits unsaved
        unsaved_dialog(
            is_open=S.pending_url != "",
            description="Your changes to "
            + S.config_bot_name
            + "'s "
            + S.unsaved_sections
            + " are not saved. Discard them, or keep editing and save first.",
            on_keep=S.keep_editing,
            on_discard=S.discard_and_go,
            on_open_change=S.set_unsaved_open,
            id_prefix="bots",
        ),
        title="Bots",
    )
