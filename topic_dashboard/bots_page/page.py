"""The Bots page."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.auth.state import AuthState
from topic_dashboard.bots_page.state import SETTING_LABELS, BotRow, BotsState, ServerEntry
from topic_dashboard.components.layout import empty_state, page_shell

S = BotsState


def _bot_row(bot: BotRow) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.vstack(rx.text(bot.name, weight="medium"), rx.code(bot.id, size="1"), spacing="0")),
        rx.table.cell(
            rx.cond(
                bot.topic_enabled,
                rx.badge("delivering", color_scheme="green", high_contrast=True, size="1"),
                rx.badge("delivery off", color_scheme="amber", size="1"),
            )
        ),
        rx.table.cell(bot.token_age_days.to_string() + " d", white_space="nowrap"),
        rx.table.cell(
            rx.cond(bot.last_mcp_call_at != "", rx.moment(bot.last_mcp_call_at, from_now=True), "never"),
            white_space="nowrap",
        ),
        rx.table.cell(bot.items_today),
        rx.table.cell(bot.items_total),
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
                rx.link(
                    rx.button(rx.icon("rss", size=14), "Topics", size="1", variant="soft", color_scheme="gray"),
                    href="/?bot=" + bot.id,
                ),
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
            )
        ),
        id="bot-row-" + bot.id,
    )


def bots_table() -> rx.Component:
    return rx.table.root(
        rx.table.header(
            rx.table.row(
                *[
                    rx.table.column_header_cell(h)
                    for h in ("Bot", "Delivery", "Token age", "Last MCP call", "Items today", "Items", "")
                ]
            )
        ),
        rx.table.body(rx.foreach(S.bots, _bot_row)),
        variant="surface",
        width="100%",
        id="bots-table",
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


def confirm_dialog() -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title(
                rx.cond(S.confirm_action == "rotate", "Rotate the token of ", "Delete ") + S.confirm_bot_name + "?"
            ),
            rx.alert_dialog.description(
                rx.cond(
                    S.confirm_action == "rotate",
                    "A new token is written into the bot's config.json. The old token stops working at once; "
                    "a bot still running with it sees 'failed to connect' until it reloads its config.",
                    "Its topics, settings, conversations and all "
                    + S.confirm_items.to_string()
                    + " items are deleted. "
                    "Its config.json stays on disk, but its token no longer works. The audit trail is kept.",
                ),
            ),
            rx.hstack(
                rx.alert_dialog.cancel(rx.button("Cancel", variant="soft", color_scheme="gray")),
                rx.alert_dialog.action(
                    rx.button(
                        rx.cond(S.confirm_action == "rotate", "Rotate token", "Delete bot"),
                        color_scheme=rx.cond(S.confirm_action == "rotate", "amber", "red"),
                        on_click=S.confirm,
                        id="confirm-action",
                    )
                ),
                justify="end",
                spacing="2",
                margin_top="1rem",
            ),
        ),
        open=S.confirm_open,
        on_open_change=S.set_confirm_open,
    )


def _server_card(server: ServerEntry) -> rx.Component:
    return rx.card(
        rx.cond(
            server.locked,
            rx.vstack(
                rx.hstack(
                    rx.icon("lock", size=14),
                    rx.code(server.name),
                    rx.badge("locked", color_scheme="gray", size="1"),
                    rx.text(
                        "managed by the dashboard: it cannot be removed or redirected",
                        size="1",
                        color=rx.color("gray", 11),
                    ),
                    align="center",
                    spacing="2",
                    wrap="wrap",
                ),
                rx.data_list.root(
                    rx.data_list.item(rx.data_list.label("type"), rx.data_list.value(server.kind)),
                    rx.data_list.item(rx.data_list.label("url"), rx.data_list.value(rx.code(server.url))),
                    rx.data_list.item(rx.data_list.label("headers"), rx.data_list.value("x-topic-mcp-token: ***")),
                    size="1",
                ),
                rx.hstack(
                    rx.text("toolTimeout (s)", size="2"),
                    rx.input(
                        value=server.tool_timeout.to_string(),
                        on_change=lambda value: S.set_locked_timeout(server.name, value),
                        type="number",
                        min=1,
                        max=600,
                        width="6rem",
                        size="1",
                        read_only=~AuthState.is_admin,
                        id="locked-timeout-" + server.name,
                        debounce_timeout=300,
                    ),
                    align="center",
                    spacing="2",
                ),
                spacing="2",
                id="server-locked-" + server.name,
            ),
            rx.vstack(
                rx.hstack(
                    # Uncontrolled (default_value, keyed by the name): a controlled value without on_change
                    # would undo every keystroke, so the server could never be renamed.
                    rx.input(
                        default_value=server.name,
                        key=server.name,
                        on_blur=lambda v: S.rename_server(server.name, v),
                        size="1",
                        width="12rem",
                        read_only=~AuthState.is_admin,
                        id="server-name-" + server.name,
                    ),
                    rx.spacer(),
                    rx.cond(
                        AuthState.is_admin,
                        rx.icon_button(
                            rx.icon("trash-2", size=14),
                            size="1",
                            variant="ghost",
                            color_scheme="red",
                            on_click=S.remove_server(server.name),
                            aria_label="Remove server",
                            class_name="remove-server",
                        ),
                    ),
                    width="100%",
                    align="center",
                ),
                rx.text_area(
                    value=server.json_text,
                    on_change=lambda v: S.set_server_json(server.name, v),
                    rows="6",
                    font_family="var(--code-font-family)",
                    width="100%",
                    read_only=~AuthState.is_admin,
                    debounce_timeout=300,
                    id="server-json-" + server.name,
                ),
                spacing="2",
                width="100%",
            ),
        ),
        width="100%",
    )


def delivery_settings() -> rx.Component:
    read_only = ~AuthState.is_admin
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading("Delivery settings", size="3"),
                rx.spacer(),
                rx.cond(
                    AuthState.is_admin,
                    rx.button(
                        rx.icon("save", size=14),
                        "Save settings",
                        size="2",
                        on_click=S.save_settings,
                        id="save-settings",
                    ),
                ),
                width="100%",
                align="center",
            ),
            rx.grid(
                rx.vstack(
                    rx.text(SETTING_LABELS["fallback_policy"], size="2", weight="medium"),
                    rx.select.root(
                        rx.select.trigger(id="fallback-policy"),
                        rx.select.content(
                            rx.select.item("Deliver to the inbox topic", value="inbox"),
                            rx.select.item("Skip (don't publish)", value="skip"),
                        ),
                        value=S.fallback_policy,
                        on_change=S.set_fallback_policy,
                        disabled=read_only,
                    ),
                    spacing="1",
                ),
                rx.vstack(
                    rx.text(SETTING_LABELS["publish_rate_per_minute"], size="2", weight="medium"),
                    rx.input(
                        value=S.publish_rate,
                        on_change=S.set_publish_rate,
                        type="number",
                        min=1,
                        max=10000,
                        read_only=read_only,
                        id="publish-rate",
                    ),
                    spacing="1",
                ),
                rx.vstack(
                    rx.text(SETTING_LABELS["dedupe_window_seconds"], size="2", weight="medium"),
                    rx.input(
                        value=S.dedupe_window,
                        on_change=S.set_dedupe_window,
                        type="number",
                        min=0,
                        read_only=read_only,
                        id="dedupe-window",
                    ),
                    spacing="1",
                ),
                rx.vstack(
                    rx.text(SETTING_LABELS["allow_remote_images"], size="2", weight="medium"),
                    rx.hstack(
                        rx.switch(
                            checked=S.allow_images, on_change=S.set_allow_images, disabled=read_only, id="allow-images"
                        ),
                        rx.text("off: images from bots are not loaded", size="1", color=rx.color("gray", 11)),
                        align="center",
                        spacing="2",
                    ),
                    spacing="1",
                ),
                columns=rx.breakpoints(initial="1", md="4"),
                spacing="4",
                width="100%",
            ),
            rx.cond(
                S.settings_error != "",
                rx.callout(S.settings_error, color_scheme="red", icon="triangle-alert", size="1", id="settings-error"),
            ),
            spacing="3",
            width="100%",
        ),
        width="100%",
        id="delivery-settings",
    )


def chat_endpoint() -> rx.Component:
    """Where the dashboard reaches the bot to chat: its `nanobot serve` address and key."""
    read_only = ~AuthState.is_admin
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading("Chat endpoint", size="3"),
                rx.spacer(),
                rx.cond(
                    AuthState.is_admin,
                    rx.hstack(
                        rx.button(
                            rx.cond(S.chat_checking, rx.spinner(size="1"), rx.icon("plug-zap", size=14)),
                            "Test connection",
                            size="2",
                            variant="soft",
                            on_click=[S.set_chat_checking(True), S.test_chat_endpoint, S.set_chat_checking(False)],
                            id="test-chat-endpoint",
                        ),
                        rx.button(
                            rx.icon("save", size=14),
                            "Save",
                            size="2",
                            on_click=S.save_chat_endpoint,
                            id="save-chat-endpoint",
                        ),
                        spacing="2",
                    ),
                ),
                width="100%",
                align="center",
            ),
            rx.text(
                "The dashboard relays conversations to the bot's ",
                rx.code("nanobot serve"),
                " (OpenAI-compatible API). Start it with ",
                rx.code("nanobot serve -c <config.json> -p 8900"),
                " and put its address here.",
                size="2",
                color=rx.color("gray", 11),
            ),
            rx.hstack(
                rx.vstack(
                    rx.text("URL", size="1", weight="medium"),
                    rx.input(
                        value=S.chat_url,
                        on_change=S.set_chat_url,
                        placeholder="http://127.0.0.1:8900",
                        disabled=read_only,
                        width="100%",
                        id="chat-url",
                    ),
                    spacing="1",
                    flex="2",
                ),
                rx.vstack(
                    rx.text(
                        "Key ",
                        rx.cond(
                            S.chat_key_set,
                            rx.badge("set", size="1", color_scheme="green", high_contrast=True),
                            rx.badge("none", size="1", color_scheme="gray"),
                        ),
                        size="1",
                        weight="medium",
                    ),
                    rx.input(
                        value=S.chat_key_draft,
                        on_change=S.set_chat_key_draft,
                        type="password",
                        placeholder=rx.cond(
                            S.chat_key_set, "•••••• (type to replace)", "nanobot's api key, if it has one"
                        ),
                        disabled=read_only,
                        width="100%",
                        id="chat-key",
                        auto_complete="off",
                    ),
                    spacing="1",
                    flex="1",
                ),
                width="100%",
                spacing="3",
            ),
            rx.cond(
                S.chat_error != "",
                rx.callout(S.chat_error, color_scheme="red", icon="triangle-alert", size="1", id="chat-error"),
            ),
            rx.cond(
                S.chat_check != "",
                rx.callout(
                    S.chat_check,
                    color_scheme=rx.cond(S.chat_check_ok, "green", "red"),
                    icon=rx.cond(S.chat_check_ok, "check", "triangle-alert"),
                    size="1",
                    id="chat-check",
                    data_ok=rx.cond(S.chat_check_ok, "true", "false"),
                ),
            ),
            spacing="3",
            width="100%",
        ),
        width="100%",
        id="chat-endpoint",
    )


def config_editor() -> rx.Component:
    return rx.cond(
        S.config_bot_id != "",
        rx.vstack(
            delivery_settings(),
            chat_endpoint(),
            rx.hstack(
                rx.heading("MCP servers of " + S.config_bot_name, size="4"),
                rx.spacer(),
                rx.cond(
                    AuthState.is_admin,
                    rx.hstack(
                        rx.button(
                            rx.icon("plus", size=14),
                            "Add server",
                            size="2",
                            variant="soft",
                            on_click=S.add_server,
                            id="add-server",
                        ),
                        rx.button(
                            rx.icon("save", size=14), "Save config", size="2", on_click=S.save_config, id="save-config"
                        ),
                        spacing="2",
                    ),
                ),
                width="100%",
                align="center",
            ),
            rx.cond(
                S.config_error != "",
                rx.callout(S.config_error, color_scheme="red", icon="triangle-alert", size="1", id="config-error"),
            ),
            rx.cond(
                S.config_notice != "",
                rx.callout(S.config_notice, color_scheme="green", icon="check", size="1", id="config-notice"),
            ),
            rx.foreach(S.servers, _server_card),
            spacing="3",
            width="100%",
            id="config-editor",
            padding_top="1.5rem",
        ),
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
            rx.code(S.mcp_url),
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
        confirm_dialog(),
        title="Bots",
    )
