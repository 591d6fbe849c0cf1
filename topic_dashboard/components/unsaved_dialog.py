"""The question "Discard unsaved changes?" a page asks before a move would drop unsaved edits.

The page keeps where it was going (its State's `pending_url`, "" when nothing waits) and says whose edits
they are; Keep editing (or Escape) leaves everything as it was, Discard changes goes where it was going.
"""

from __future__ import annotations

import reflex as rx


def unsaved_dialog(
    *,
    is_open: rx.Var[bool],
    description: rx.Var[str],
    on_keep: rx.EventHandler,
    on_discard: rx.EventHandler,
    on_open_change: rx.EventHandler,
    id_prefix: str,
) -> rx.Component:
    """The dialog, open while `is_open`; its parts are `<id_prefix>-unsaved-dialog`, `-keep-editing`, `-discard`."""
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title("Discard unsaved changes?"),
            rx.alert_dialog.description(description),
            rx.hstack(
                rx.alert_dialog.cancel(
                    rx.button(
                        "Keep editing",
                        variant="soft",
                        color_scheme="gray",
                        on_click=on_keep,
                        id=f"{id_prefix}-keep-editing",
                    )
                ),
                rx.alert_dialog.action(
                    rx.button("Discard changes", color_scheme="red", on_click=on_discard, id=f"{id_prefix}-discard")
                ),
                justify="end",
                spacing="2",
                margin_top="1rem",
            ),
            id=f"{id_prefix}-unsaved-dialog",
        ),
        open=is_open,
        on_open_change=on_open_change,
    )
