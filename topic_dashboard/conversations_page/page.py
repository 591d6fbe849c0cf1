"""The Conversations page."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.auth.state import AuthState
from topic_dashboard.components.confirm_dialog import confirm_dialog
from topic_dashboard.components.layout import empty_state, page_shell
from topic_dashboard.conversations_page.state import (
    CARD_ID_FIELD,
    ConversationRow,
    ConversationsState,
    GuideFieldRow,
    MessageRow,
    PublishedRow,
)

RUN_LABELS = {
    "queued": ("waiting for the bot", "amber"),
    "running": ("the bot is answering", "blue"),
    "failed": ("not answered", "red"),
    "stopped": ("stopped", "gray"),
}

S = ConversationsState
BORDER = f"1px solid {rx.color('gray', 4)}"


def _conversation(row: ConversationRow) -> rx.Component:
    active = S.conversation_id == row.id
    return rx.hstack(
        rx.cond(row.unread, rx.box(width="8px", height="8px", border_radius="50%", background=rx.color("accent", 9))),
        rx.vstack(
            rx.text(
                rx.cond(row.title != "", row.title, "Untitled conversation"),
                size="2",
                weight=rx.cond(row.unread, "bold", "regular"),
                truncate=True,
            ),
            rx.hstack(
                rx.badge(
                    rx.match(
                        row.run_status,
                        *[(key, label) for key, (label, _color) in RUN_LABELS.items()],
                        "ready",
                    ),
                    size="1",
                    variant="soft",
                    color_scheme=rx.match(
                        row.run_status, *[(key, color) for key, (_label, color) in RUN_LABELS.items()], "gray"
                    ),
                ),
                rx.text(
                    row.message_count.to_string() + rx.cond(row.message_count == 1, " message", " messages"),
                    size="1",
                    color=rx.color("gray", 11),
                ),
                rx.moment(row.updated_at, from_now=True, font_size="var(--font-size-1)", color=rx.color("gray", 11)),
                spacing="2",
                align="center",
            ),
            spacing="1",
            min_width="0",
        ),
        on_click=S.open_conversation(row.id),
        cursor="pointer",
        padding="0.5rem",
        border_radius="var(--radius-2)",
        background=rx.cond(active, rx.color("accent", 3), "transparent"),
        _hover={"background": rx.color("gray", 3)},
        width="100%",
        align="center",
        id="conversation-" + row.id,
    )


def _field(field: GuideFieldRow, disabled: rx.Var) -> rx.Component:
    control = rx.match(
        field.type,
        ("textarea", rx.text_area(name=field.name, required=field.required, disabled=disabled, width="100%")),
        ("select", rx.select(field.options, name=field.name, required=field.required, disabled=disabled, width="100%")),
        ("checkbox", rx.checkbox(name=field.name, disabled=disabled)),
        ("number", rx.input(name=field.name, type="number", required=field.required, disabled=disabled, width="100%")),
        rx.input(name=field.name, required=field.required, disabled=disabled, width="100%"),
    )
    return rx.vstack(
        rx.text(field.label + rx.cond(field.required, " *", ""), size="2", weight="medium"),
        control,
        spacing="1",
        width="100%",
    )


def _guide_card(message: MessageRow) -> rx.Component:
    return rx.card(
        rx.form(
            rx.vstack(
                rx.hstack(
                    rx.icon("clipboard-list", size=16),
                    rx.text(message.card_title, weight="bold"),
                    rx.cond(
                        message.card_submitted,
                        rx.badge("submitted", color_scheme="green", high_contrast=True, size="1"),
                    ),
                    align="center",
                    spacing="2",
                ),
                rx.cond(
                    (message.content != "") & (message.content != message.card_title),
                    rx.text(message.content, size="2", white_space="pre-wrap", class_name="guide-card-text"),
                ),
                rx.cond(
                    message.card_submitted,
                    rx.text("The answers were sent as the user's next message.", size="2", color=rx.color("gray", 11)),
                    rx.fragment(
                        rx.foreach(
                            message.card_fields, lambda f: _field(f, message.card_submitted | ~AuthState.is_admin)
                        ),
                        rx.cond(
                            AuthState.is_admin,
                            rx.button(
                                message.card_submit_label, type="submit", size="2", class_name="guide-card-submit"
                            ),
                            rx.text("Only admins answer forms.", size="1", color=rx.color("gray", 11)),
                        ),
                    ),
                ),
                # The submit handler is a hook outside the foreach, where `message` does not exist:
                # the card's id travels in the form data instead (no field name can start with "_").
                rx.el.input(type="hidden", name=CARD_ID_FIELD, value=message.id),
                spacing="3",
                width="100%",
            ),
            on_submit=S.submit_card,
            reset_on_submit=False,
        ),
        width="min(100%, 30rem)",
        class_name="guide-card",
        id="card-" + message.id,
    )


def _message(message: MessageRow) -> rx.Component:
    bubble = rx.match(
        message.role,
        (
            "user",
            rx.box(
                rx.text(message.content, white_space="pre-wrap", size="2"),
                background=rx.color("accent", 4),
                padding="0.5rem 0.75rem",
                border_radius="12px 12px 2px 12px",
                max_width="75%",
                class_name="msg-user",
            ),
        ),
        (
            "assistant",
            rx.cond(
                message.kind == "guide_card",
                _guide_card(message),
                rx.box(
                    rx.text(message.content, white_space="pre-wrap", size="2"),
                    rx.cond(
                        message.streaming,
                        rx.hstack(
                            rx.spinner(size="1"),
                            rx.text("answering…", size="1", color=rx.color("gray", 11)),
                            spacing="1",
                            align="center",
                            class_name="msg-streaming",
                        ),
                    ),
                    background=rx.color("gray", 3),
                    padding="0.5rem 0.75rem",
                    border_radius="12px 12px 12px 2px",
                    max_width="75%",
                    class_name="msg-assistant",
                ),
            ),
        ),
        (
            "tool",
            rx.box(
                rx.hstack(rx.icon("wrench", size=12), rx.text("tool", size="1", weight="medium"), spacing="1"),
                rx.el.pre(message.content, font_size="12px", white_space="pre-wrap", margin="0"),
                border=BORDER,
                padding="0.4rem 0.6rem",
                border_radius="6px",
                max_width="75%",
                class_name="msg-tool",
            ),
        ),
        rx.text(
            message.content,
            size="1",
            color=rx.color("gray", 11),
            font_style="italic",
            text_align="center",
            width="100%",
            class_name="msg-system",
        ),
    )
    # A message a person wrote as the assistant, a tool or the system says so: it is not the bot's.
    marked = rx.vstack(
        bubble,
        rx.hstack(
            rx.icon("pencil", size=11, color=rx.color("gray", 11)),
            rx.text("added by " + message.added_by + ", not the bot", size="1", color=rx.color("gray", 11)),
            spacing="1",
            align="center",
            class_name="msg-added-by",
        ),
        spacing="1",
        align=rx.match(message.role, ("system", "center"), "start"),
        width="100%",
    )
    return rx.hstack(
        rx.cond(message.added_by != "", marked, bubble),
        width="100%",
        justify=rx.match(message.role, ("user", "end"), ("system", "center"), "start"),
        id="message-" + message.seq.to_string(),
    )


def conversation_header() -> rx.Component:
    """The open conversation's title; admins rename it in place or delete it (after a confirmation)."""
    return rx.hstack(
        rx.cond(
            S.renaming,
            rx.hstack(
                rx.input(
                    value=S.rename_value, on_change=S.set_rename_value, size="2", width="20rem", id="rename-input"
                ),
                rx.button("Save", size="1", on_click=S.save_rename, id="rename-save"),
                rx.button("Cancel", size="1", variant="soft", color_scheme="gray", on_click=S.cancel_rename),
                spacing="2",
                align="center",
            ),
            rx.heading(S.conversation_title, size="4", id="conversation-title"),
        ),
        rx.spacer(),
        rx.cond(
            AuthState.is_admin & ~S.renaming,
            rx.hstack(
                rx.icon_button(
                    rx.icon("pencil", size=14),
                    size="1",
                    variant="ghost",
                    on_click=S.start_rename,
                    aria_label="Rename conversation",
                    id="rename-conversation",
                ),
                rx.icon_button(
                    rx.icon("trash-2", size=14),
                    size="1",
                    variant="ghost",
                    color_scheme="red",
                    on_click=S.set_delete_open(True),
                    aria_label="Delete conversation",
                    id="delete-conversation",
                ),
                spacing="2",
            ),
        ),
        confirm_dialog(
            title="Delete this conversation?",
            description="Its messages go; results the bot published from it stay in their topics.",
            description_size="2",
            action_label="Delete",
            action_color="red",
            on_confirm=S.delete_open_conversation,
            action_id="delete-confirm",
            is_open=S.delete_open,
            on_open_change=S.set_delete_open,
        ),
        width="100%",
        align="center",
    )


def run_bar() -> rx.Component:
    """The open conversation's run: what the bot is doing, why it failed, stop and retry."""
    status = rx.match(
        S.run_status,
        *[
            (key, rx.badge(label, color_scheme=color, variant="soft", id="run-status", data_status=key))
            for key, (label, color) in RUN_LABELS.items()
        ],
        rx.badge("ready", color_scheme="gray", variant="soft", id="run-status", data_status="idle"),
    )
    return rx.vstack(
        rx.hstack(
            status,
            rx.cond(S.run_status == "running", rx.spinner(size="1")),
            rx.spacer(),
            rx.cond(
                AuthState.is_admin & ((S.run_status == "running") | (S.run_status == "queued")),
                rx.button(
                    rx.icon("square", size=12),
                    "Stop",
                    size="1",
                    variant="soft",
                    color_scheme="red",
                    on_click=S.stop_run,
                    id="stop-run",
                ),
            ),
            rx.cond(
                AuthState.is_admin & ((S.run_status == "failed") | (S.run_status == "stopped")),
                rx.button(
                    rx.icon("rotate-ccw", size=12),
                    "Retry",
                    size="1",
                    variant="soft",
                    on_click=S.retry_run,
                    id="retry-run",
                ),
            ),
            width="100%",
            align="center",
            spacing="2",
        ),
        rx.cond(
            S.run_error != "",
            rx.callout(
                S.run_error
                + rx.cond(
                    AuthState.is_admin, " — your message is kept; Retry sends it again.", " — an admin can retry it."
                ),
                color_scheme=rx.cond(S.run_status == "failed", "red", "gray"),
                icon="triangle-alert",
                size="1",
                id="run-error",
                width="100%",
            ),
        ),
        rx.cond(
            S.published.length() > 0,
            rx.hstack(
                rx.icon("rss", size=14, color=rx.color("accent", 10)),
                rx.text("Published from this conversation:", size="1", color=rx.color("gray", 11)),
                rx.foreach(S.published, _published),
                spacing="2",
                align="center",
                wrap="wrap",
                id="published-results",
            ),
        ),
        width="100%",
        spacing="2",
    )


def _published(row: PublishedRow) -> rx.Component:
    return rx.link(
        rx.badge(
            row.count.to_string() + rx.cond(row.count == 1, " result", " results") + " to " + row.topic_name,
            variant="surface",
            size="1",
        ),
        href=row.href,
        class_name="published-link",
    )


def composer() -> rx.Component:
    return rx.cond(
        AuthState.is_admin,
        rx.vstack(
            rx.text_area(
                value=S.draft,
                on_change=S.set_draft,
                placeholder="Write a message… (Ctrl+Enter sends)",
                rows="3",
                width="100%",
                id="message-draft",
                custom_attrs={"data-td-send": "send-message"},
            ),
            rx.hstack(
                rx.select(
                    ["user", "assistant", "tool", "system"],
                    value=S.draft_role,
                    on_change=S.set_draft_role,
                    size="2",
                    id="message-role",
                ),
                rx.text(
                    rx.cond(
                        S.draft_role == "user",
                        rx.cond(
                            (S.run_status == "running") | (S.run_status == "queued"),
                            "the bot is answering: wait, or Stop it",
                            rx.cond(
                                S.chat_ready,
                                "relayed to the bot",
                                rx.fragment(
                                    "this bot has no chat endpoint yet: the message is kept, not sent. ",
                                    rx.link(
                                        "Set its chat endpoint",
                                        href="/bots?bot=" + S.bot_id,
                                        id="chat-endpoint-link",
                                        underline="always",
                                    ),
                                ),
                            ),
                        ),
                        "added to the record only; the bot does not see it",
                    ),
                    size="1",
                    color=rx.color("gray", 11),
                    id="send-hint",
                ),
                rx.spacer(),
                rx.button(
                    rx.icon("clipboard-list", size=14),
                    "Add guide card",
                    variant="soft",
                    on_click=S.open_card_editor,
                    id="add-guide-card",
                ),
                rx.button(
                    rx.icon("send", size=14),
                    rx.cond(S.draft_role == "user", "Send to bot", "Add to conversation"),
                    on_click=S.send,
                    disabled=(S.draft_role == "user") & ((S.run_status == "running") | (S.run_status == "queued")),
                    id="send-message",
                ),
                width="100%",
                align="center",
                spacing="2",
                wrap="wrap",  # on a phone the buttons go under the hint instead of off the screen
            ),
            width="100%",
            padding_top="0.75rem",
            border_top=BORDER,
        ),
        rx.text(
            "Viewers read conversations; only admins write.",
            rx.cond(
                ~S.chat_ready,
                rx.el.span(
                    " This bot has no chat endpoint yet: an admin sets it in the bot's settings on the Bots page; "
                    "until then messages are kept, not sent.",
                    id="chat-endpoint-note",
                ),
            ),
            size="1",
            color=rx.color("gray", 11),
        ),
    )


def card_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Guide card"),
            rx.dialog.description(
                "The assistant asks the user to fill in a form. Fields: name, label, type "
                "(text, textarea, select, checkbox, number), options, required.",
                size="2",
            ),
            rx.text_area(
                value=S.card_json,
                on_change=S.set_card_json,
                rows="16",
                width="100%",
                font_family="var(--code-font-family)",
                id="guide-card-json",
                margin_y="0.75rem",
            ),
            rx.cond(
                S.card_error != "",
                rx.callout(S.card_error, color_scheme="red", icon="triangle-alert", size="1", id="guide-card-error"),
            ),
            rx.hstack(
                rx.dialog.close(rx.button("Cancel", variant="soft", color_scheme="gray")),
                rx.button("Add card", on_click=S.add_guide_card, id="guide-card-create"),
                justify="end",
                width="100%",
            ),
            max_width="40rem",
        ),
        open=S.card_open,
        on_open_change=S.set_card_open,
    )


def conversations_page() -> rx.Component:
    return page_shell(
        rx.hstack(
            rx.heading("Conversations", size="5", id="page-title"),
            rx.select.root(
                rx.select.trigger(placeholder="Choose a bot", id="conversations-bot-select", aria_label="Bot"),
                rx.select.content(rx.foreach(S.bots, lambda b: rx.select.item(b.name, value=b.id))),
                value=S.bot_id,
                on_change=S.select_bot,
            ),
            width="100%",
            align="center",
            spacing="4",
            wrap="wrap",  # a long bot name goes under the title on a phone
            padding_bottom="1rem",
        ),
        rx.cond(
            (S.bots.length() > 0) & ~S.chat_ready,
            # said before anyone writes (a walkthrough learned it only after sending): messages are kept, not sent
            rx.callout(
                rx.fragment(
                    "This bot has no chat endpoint yet: what you write here is kept in the record, not sent to the "
                    "bot. ",
                    rx.cond(
                        AuthState.is_admin,
                        rx.link(
                            "Set its chat endpoint",
                            href="/bots?bot=" + S.bot_id,
                            underline="always",
                            color="inherit",  # the callout's own text colour: the accent on amber fails contrast
                            weight="medium",
                        ),
                        "An admin sets it on the Bots page.",
                    ),
                ),
                icon="unplug",
                color_scheme="amber",
                high_contrast=True,  # amber's own text on amber fails WCAG contrast (the accessibility flow)
                size="1",
                id="chat-endpoint-banner",
                margin_bottom="0.75rem",
                width="100%",
            ),
        ),
        rx.cond(
            S.bots.length() == 0,
            empty_state("bot", "No bots yet", "Conversations belong to a bot."),
            rx.hstack(
                rx.vstack(
                    rx.cond(
                        AuthState.is_admin,
                        # a form: Enter in the title creates the conversation, as the + button does
                        rx.form(
                            rx.hstack(
                                rx.input(
                                    value=S.new_title,
                                    on_change=S.set_new_title,
                                    placeholder="New conversation title",
                                    name="title",
                                    size="2",
                                    width="100%",
                                    id="new-conversation-title",
                                ),
                                rx.icon_button(
                                    rx.icon("plus", size=14),
                                    type="submit",
                                    id="new-conversation",
                                    aria_label="New conversation",
                                ),
                                width="100%",
                            ),
                            on_submit=S.submit_new_conversation,
                            reset_on_submit=False,
                            width="100%",
                        ),
                    ),
                    rx.cond(
                        S.conversations.length() > 0,
                        rx.foreach(S.conversations, _conversation),
                        rx.text("No conversations yet.", size="2", color=rx.color("gray", 11)),
                    ),
                    # on a phone the list sits above the open conversation, full width (it pushed the page
                    # to 463 px beside it); from a tablet up, beside it
                    width=["100%", "100%", "18rem"],
                    min_width=["0", "0", "14rem"],
                    spacing="1",
                    padding_right=["0", "0", "0.75rem"],
                    padding_bottom=["0.75rem", "0.75rem", "0"],
                    border_right=["none", "none", BORDER],
                    border_bottom=[BORDER, BORDER, "none"],
                ),
                rx.cond(
                    S.conversation_id != "",
                    rx.vstack(
                        conversation_header(),
                        run_bar(),
                        rx.vstack(
                            rx.foreach(S.messages, _message),
                            spacing="2",
                            width="100%",
                            id="messages",
                            max_height="calc(100vh - 16rem)",
                            overflow_y="auto",
                            # Follows new messages and a streaming answer while the reader is at the end
                            # (assets/keyboard_shortcuts.js); scrolled up to read, it stays put.
                            custom_attrs={"data-td-stick-bottom": "1"},
                        ),
                        composer(),
                        flex="1",
                        min_width="0",
                        width="100%",
                        spacing="3",
                        padding_left=["0", "0", "0.75rem"],
                        padding_top=["0.75rem", "0.75rem", "0"],
                    ),
                    empty_state(
                        "messages-square",
                        "Open a conversation",
                        "Messages, guide cards and a box to reply appear here.",
                    ),
                ),
                width="100%",
                align="start",
                spacing="0",
                flex_direction=["column", "column", "row"],
            ),
        ),
        card_dialog(),
        rx.moment(interval=600, on_change=S.poll, display="none"),
        title="Conversations",
    )
