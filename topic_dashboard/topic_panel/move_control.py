"""The detail pane's Move to topic… control (admins only): a topic, Teach the rules, Move; and the
bulk bar's Move… for the ticked items."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.topic_panel.move_state import MoveItemState
from topic_dashboard.topic_panel.rows import TopicRow

M = MoveItemState
D = MoveItemState.detail


def _choice(topic: TopicRow) -> rx.Component:
    return rx.select.item(
        rx.cond(topic.is_fallback, topic.name + " (fallback)", topic.name), value=topic.key, id="move-to-" + topic.key
    )


def _target_select(choices: rx.Var, value: rx.Var, on_change: rx.EventHandler, trigger_id: str) -> rx.Component:
    return rx.select.root(
        rx.select.trigger(placeholder="Choose a topic", width="100%", id=trigger_id),
        rx.select.content(rx.foreach(choices, _choice), position="popper"),
        value=value,
        on_change=on_change,
    )


def _move_buttons(on_move: object, disabled: rx.Var, confirm_id: str) -> rx.Component:
    return rx.hstack(
        rx.popover.close(rx.button("Cancel", size="2", variant="soft", color_scheme="gray")),
        rx.button(
            rx.icon("folder-input", size=14), "Move", size="2", on_click=on_move, disabled=disabled, id=confirm_id
        ),
        justify="end",
        width="100%",
    )


def _form() -> rx.Component:
    return rx.vstack(
        _target_select(M.move_choices, M.move_target, M.set_move_target, "move-target"),
        rx.el.label(
            rx.hstack(
                rx.switch(checked=M.teach, on_change=M.set_teach, id="move-teach", color_scheme="green"),
                rx.text("Teach the rules", size="2", weight="medium"),
                align="center",
                spacing="2",
            ),
            cursor="pointer",
        ),
        rx.text(M.teach_hint, size="1", color=rx.color("gray", 11), id="move-teach-hint"),
        _move_buttons(M.move_item(D.id), M.move_target == "", "move-confirm"),
        spacing="3",
        width="100%",
    )


def move_control() -> rx.Component:
    return rx.popover.root(
        rx.popover.trigger(
            rx.button(rx.icon("folder-input", size=14), "Move to topic…", size="1", variant="soft", id="detail-move"),
        ),
        rx.popover.content(
            rx.vstack(
                rx.hstack(
                    rx.text("Move to topic", size="2", weight="bold"),
                    rx.spacer(),
                    rx.text("from ", rx.code(D.topic_key, size="1"), size="1", color=rx.color("gray", 11)),
                    width="100%",
                    align="center",
                ),
                rx.cond(
                    M.move_choices.length() > 0,
                    _form(),
                    rx.text(
                        "This bot has no other active topic: create one on the Rules page.",
                        size="2",
                        color=rx.color("gray", 11),
                    ),
                ),
                spacing="3",
                width="100%",
            ),
            width="20rem",
            side="bottom",
            align="start",
            id="move-popover",
            aria_label="Move to topic",
        ),
        open=M.move_open,
        on_open_change=M.show_move,
    )


def bulk_move_control() -> rx.Component:
    """The bulk bar's Move… (admins): the ticked items, all of one bot, to one of its topics."""
    return rx.popover.root(
        rx.popover.trigger(
            rx.button(
                rx.icon("folder-input", size=13),
                "Move…",
                size="1",
                variant="soft",
                disabled=M.bulk_move_bot == "",
                title=rx.cond(
                    M.bulk_move_bot == "", "Tick items of one bot: topics belong to a bot", "Move to a topic"
                ),
                id="bulk-move",
            ),
        ),
        rx.popover.content(
            rx.vstack(
                rx.text(
                    "Move "
                    + M.selected_ids.length().to_string()
                    + rx.cond(M.selected_ids.length() == 1, " item to", " items to"),
                    size="2",
                    weight="bold",
                ),
                _target_select(M.bulk_move_choices, M.bulk_move_target, M.set_bulk_move_target, "bulk-move-target"),
                rx.text(
                    "Only the items move; the rules stay as they are (move one item from its detail to teach them).",
                    size="1",
                    color=rx.color("gray", 11),
                ),
                _move_buttons(M.bulk_move, M.bulk_move_target == "", "bulk-move-confirm"),
                spacing="3",
                width="100%",
            ),
            width="20rem",
            side="bottom",
            align="start",
            id="bulk-move-popover",
            aria_label="Move the ticked items to a topic",
        ),
        open=M.bulk_move_open,
        on_open_change=M.show_bulk_move,
    )
