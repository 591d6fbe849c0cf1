"""A bot's settings on the Bots page: delivery, the chat endpoint and the MCP servers of its config.json.

Three sections, each saved on its own by a button that names it ("Save delivery settings", …), with what
the save did (or that something is unsaved, or why it was refused) beside that button. One Save for all
three would have to half-succeed or refuse everything for one section's error: they are stored in different
places (the database; the bot's config.json on disk) and take effect at different times.
"""

from __future__ import annotations

import reflex as rx

from topic_dashboard.auth.state import AuthState
from topic_dashboard.bots_page.state import SETTING_LABELS, BotsState, ServerEntry

S = BotsState


def _save_bar(
    label: str,
    on_click: rx.EventHandler,
    button_id: str,
    *,
    dirty: rx.Var[bool],
    notice: rx.Var[str],
    notice_id: str,
    error: rx.Var[str],
    error_id: str,
    before: rx.Component | None = None,
) -> rx.Component:
    """A section's foot: its refusal (if any), then its own Save, named for the section, and beside it
    whether the section has unsaved changes or what its last save did. Admins only."""
    status = rx.box(
        rx.cond(
            dirty,
            rx.text("Unsaved changes", size="2", color=rx.color("amber", 11), weight="medium"),
            rx.cond(
                notice != "",
                rx.hstack(
                    rx.icon("check", size=14, color=rx.color("green", 11)),
                    rx.text(notice, size="2", color=rx.color("green", 11)),
                    spacing="1",
                    align="center",
                    id=notice_id,
                ),
            ),
        ),
        # announced to a screen reader as it changes (the live region is there before it does)
        custom_attrs={"role": "status", "aria-live": "polite"},
        id=button_id + "-status",
    )
    return rx.cond(
        AuthState.is_admin,
        rx.vstack(
            rx.cond(
                error != "",
                rx.callout(error, color_scheme="red", icon="triangle-alert", size="1", id=error_id, width="100%"),
            ),
            rx.hstack(
                *([before] if before is not None else []),
                rx.button(rx.icon("save", size=14), label, size="2", on_click=on_click, id=button_id),
                status,
                align="center",
                spacing="3",
                wrap="wrap",
            ),
            spacing="2",
            width="100%",
        ),
        # a viewer sees a section's refusal only if an admin's save left one: nothing to show
    )


def _section_head(title: str, explanation: rx.Component | str) -> rx.Component:
    return rx.vstack(
        rx.heading(title, size="3"),
        rx.text(explanation, size="2", color=rx.color("gray", 11)) if isinstance(explanation, str) else explanation,
        spacing="1",
        width="100%",
    )


def delivery_settings() -> rx.Component:
    read_only = ~AuthState.is_admin
    return rx.card(
        rx.vstack(
            _section_head("Delivery settings", "How the bot's publishes are delivered; used from its next publish."),
            rx.grid(
                rx.vstack(
                    rx.text(SETTING_LABELS["fallback_policy"], size="2", weight="medium"),
                    rx.select.root(
                        rx.select.trigger(id="fallback-policy", aria_label=SETTING_LABELS["fallback_policy"]),
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
                        aria_label=SETTING_LABELS["publish_rate_per_minute"],
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
                        aria_label=SETTING_LABELS["dedupe_window_seconds"],
                    ),
                    spacing="1",
                ),
                rx.vstack(
                    rx.text(SETTING_LABELS["allow_remote_images"], size="2", weight="medium"),
                    rx.hstack(
                        rx.switch(
                            checked=S.allow_images,
                            on_change=S.set_allow_images,
                            disabled=read_only,
                            id="allow-images",
                            aria_label=SETTING_LABELS["allow_remote_images"],
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
            _save_bar(
                "Save delivery settings",
                S.save_settings,
                "save-settings",
                dirty=S.settings_dirty,
                notice=S.settings_notice,
                notice_id="settings-notice",
                error=S.settings_error,
                error_id="settings-error",
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
            _section_head(
                "Chat endpoint",
                rx.text(
                    "The dashboard relays conversations to the bot's ",
                    rx.code("nanobot serve"),
                    " (OpenAI-compatible API). Start it with ",
                    rx.code("nanobot serve -c <config.json> -p 8900", overflow_wrap="anywhere"),
                    " and put its address here.",
                    size="2",
                    color=rx.color("gray", 11),
                ),
            ),
            rx.flex(
                rx.vstack(
                    rx.text("URL", size="1", weight="medium"),
                    rx.input(
                        value=S.chat_url,
                        on_change=S.set_chat_url,
                        placeholder="http://127.0.0.1:8900",
                        disabled=read_only,
                        width="100%",
                        id="chat-url",
                        aria_label="Chat endpoint URL",
                    ),
                    spacing="1",
                    flex="2 1 14rem",
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
                        aria_label="Chat endpoint key",
                        auto_complete="off",
                    ),
                    spacing="1",
                    flex="1 1 10rem",
                ),
                width="100%",
                spacing="3",
                wrap="wrap",  # on a phone the key goes under the address
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
            _save_bar(
                "Save chat endpoint",
                S.save_chat_endpoint,
                "save-chat-endpoint",
                dirty=S.chat_dirty,
                notice=S.chat_notice,
                notice_id="chat-notice",
                error=S.chat_error,
                error_id="chat-error",
                before=rx.button(
                    rx.cond(S.chat_checking, rx.spinner(size="1"), rx.icon("plug-zap", size=14)),
                    "Test connection",
                    size="2",
                    variant="soft",
                    on_click=[S.set_chat_checking(True), S.test_chat_endpoint, S.set_chat_checking(False)],
                    id="test-chat-endpoint",
                ),
            ),
            spacing="3",
            width="100%",
        ),
        width="100%",
        id="chat-endpoint",
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
                    rx.data_list.item(
                        rx.data_list.label("url"), rx.data_list.value(rx.code(server.url, overflow_wrap="anywhere"))
                    ),
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
                        aria_label="toolTimeout (s) of " + server.name,
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
                        aria_label="Name of the MCP server " + server.name,
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
                    aria_label="Configuration of the MCP server " + server.name,
                ),
                spacing="2",
                width="100%",
            ),
        ),
        width="100%",
    )


def mcp_servers() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                _section_head(
                    "MCP servers",
                    "The tools.mcpServers of the bot's config.json; nanobot reads them when it starts.",
                ),
                rx.cond(
                    AuthState.is_admin,
                    rx.button(
                        rx.icon("plus", size=14),
                        "Add server",
                        size="2",
                        variant="soft",
                        on_click=S.add_server,
                        id="add-server",
                    ),
                ),
                width="100%",
                align="start",
                justify="between",
            ),
            rx.foreach(S.servers, _server_card),
            _save_bar(
                "Save MCP servers",
                S.save_config,
                "save-config",
                dirty=S.config_dirty,
                notice=S.config_notice,
                notice_id="config-notice",
                error=S.config_error,
                error_id="config-error",
            ),
            spacing="3",
            width="100%",
        ),
        width="100%",
        id="mcp-servers",
    )


def config_editor() -> rx.Component:
    return rx.cond(
        S.config_bot_id != "",
        rx.vstack(
            rx.heading("Settings of " + S.config_bot_name, size="4", id="config-title"),
            delivery_settings(),
            chat_endpoint(),
            mcp_servers(),
            spacing="3",
            width="100%",
            id="config-editor",
            padding_top="1.5rem",
        ),
    )
