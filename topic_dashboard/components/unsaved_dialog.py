"""The question "Discard unsaved changes?" a page asks before a move would drop unsaved edits.

The page keeps where it was going (its State's `pending_url`, "" when nothing waits) and says whose edits
they are; Keep editing (or Escape) leaves everything as it was, Discard changes goes where it was going.
"""

from __future__ import annotations

import reflex as rx

from topic_dashboard.components.confirm_dialog import confirm_dialog


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
    return confirm_dialog(
        title="Discard unsaved changes?",
        description=description,
        cancel_label="Keep editing",
        on_cancel=on_keep,
        cancel_id=f"{id_prefix}-keep-editing",
        action_label="Discard changes",
        action_color="red",
        on_confirm=on_discard,
        action_id=f"{id_prefix}-discard",
        dialog_id=f"{id_prefix}-unsaved-dialog",
        is_open=is_open,
        on_open_change=on_open_change,
    )
