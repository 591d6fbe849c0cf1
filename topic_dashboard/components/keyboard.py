"""Global keyboard shortcuts: a key press clicks a hidden button bound to a State event."""

from __future__ import annotations

import json

import reflex as rx


def shortcuts(bindings: dict[str, str]) -> rx.Component:
    """`bindings` maps a key (as KeyboardEvent.key) to the id of a button to click.

    Keys typed into inputs, text areas and selects, or with Ctrl/Alt/Meta held, are left alone;
    so are keys inside open menus and listboxes (their type-ahead), and Enter on a focused
    control (a button, link or switch keeps its own Enter).
    """
    script = (
        "(() => {"
        f"const keys = {json.dumps(bindings)};"
        "if (window.__tdShortcuts) { window.__tdShortcuts.keys = keys; return; }"
        "window.__tdShortcuts = { keys };"
        "document.addEventListener('keydown', (event) => {"
        "  if (event.ctrlKey || event.metaKey || event.altKey) return;"
        "  const target = event.target;"
        "  const tag = target && target.tagName ? target.tagName.toLowerCase() : '';"
        "  if (tag === 'input' || tag === 'textarea' || tag === 'select' || (target && target.isContentEditable)) return;"
        "  const inside = (selector) => Boolean(target && target.closest && target.closest(selector));"
        "  if (inside('[role=listbox], [role=menu]')) return;"
        "  const control = 'button, a[href], [role=button], [role=switch], [role=option], [role=tab]';"
        "  if (event.key === 'Enter' && inside(control)) return;"
        "  const id = window.__tdShortcuts.keys[event.key];"
        "  const button = id && document.getElementById(id);"
        "  if (button) { event.preventDefault(); button.click(); }"
        "});"
        "})();"
    )
    return rx.script(script)


def hidden_button(id_: str, on_click: rx.EventHandler | rx.event.EventSpec) -> rx.Component:
    return rx.el.button(id=id_, on_click=on_click, style={"display": "none"}, tab_index=-1, aria_hidden="true")


def key_hint(keys: str, label: str) -> rx.Component:
    return rx.hstack(
        rx.code(keys, size="1", variant="outline"),
        rx.text(label, size="1", color=rx.color("gray", 10)),
        spacing="1",
        align="center",
    )
