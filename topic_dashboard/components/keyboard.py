"""Global keyboard shortcuts: a key press clicks a hidden button bound to a State event."""

from __future__ import annotations

import json

import reflex as rx

SCRIPT_SRC = "/keyboard_shortcuts.js"  # assets/keyboard_shortcuts.js, loaded once in the page head
# The class of what speaks of keys (the legend under the list, "? all shortcuts"): a touch screen, where
# there is no keyboard, does not show it (assets/styles.css).
KEYBOARD_ONLY = "keyboard-only"


def shortcuts(bindings: dict[str, str]) -> rx.Component:
    """`bindings` maps a key (as KeyboardEvent.key) to the id of a button to click.

    The listener lives in assets/keyboard_shortcuts.js (a file, so the Content-Security-Policy needs no
    inline-script exception, also after a client-side navigation); it reads the keys from this element.
    Keys typed into inputs, text areas and selects, or with Ctrl/Alt/Meta held, are left alone; so are
    keys inside open menus and listboxes, and Enter on a focused control.
    """
    return rx.el.div(custom_attrs={"data-td-shortcuts": json.dumps(bindings)}, display="none")


def hidden_button(id_: str, on_click: rx.EventHandler | rx.event.EventSpec) -> rx.Component:
    return rx.el.button(id=id_, on_click=on_click, style={"display": "none"}, tab_index=-1, aria_hidden="true")


def key_hint(keys: str, label: str) -> rx.Component:
    return rx.hstack(
        rx.code(keys, size="1", variant="outline"),
        rx.text(label, size="1", color=rx.color("gray", 11)),
        spacing="1",
        align="center",
    )
