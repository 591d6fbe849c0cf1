"""The one shape of every question the dashboard asks before an action: a title, what will happen,
anything to choose, then the way back (Cancel, or Escape) and the action.

An alert dialog, not a plain one: a click beside it does not answer it. The action button is the
Radix `alert_dialog.action`, so it closes the dialog as it runs its event; the way back is the
`alert_dialog.cancel`, which closes it and changes nothing.
"""

from __future__ import annotations

from typing import Any

import reflex as rx


def confirm_dialog(
    *,
    title: Any,
    description: Any,
    action_label: Any,
    on_confirm: Any,
    is_open: rx.Var[bool],
    on_open_change: rx.EventHandler,
    action_color: Any = None,
    cancel_label: str = "Cancel",
    on_cancel: Any = None,
    body: rx.Component | None = None,
    action_id: str | None = None,
    cancel_id: str | None = None,
    dialog_id: str | None = None,
    description_size: str | None = None,
) -> rx.Component:
    """The dialog, open while `is_open`. `body` stands between the description and the buttons (a choice
    to make). `action_color` is a Radix colour name or a Var of one; without it the accent colour."""
    cancel_props: dict[str, Any] = {"variant": "soft", "color_scheme": "gray"}
    if on_cancel is not None:
        cancel_props["on_click"] = on_cancel
    if cancel_id:
        cancel_props["id"] = cancel_id
    action_props: dict[str, Any] = {"on_click": on_confirm}
    if action_color is not None:
        action_props["color_scheme"] = action_color
    if action_id:
        action_props["id"] = action_id
    description_props: dict[str, Any] = {"size": description_size} if description_size else {}
    content_props: dict[str, Any] = {"id": dialog_id} if dialog_id else {}
    parts: list[rx.Component] = [
        rx.alert_dialog.title(title),
        rx.alert_dialog.description(description, **description_props),
    ]
    if body is not None:
        parts.append(body)
    parts.append(
        rx.hstack(
            rx.alert_dialog.cancel(rx.button(cancel_label, **cancel_props)),
            rx.alert_dialog.action(rx.button(action_label, **action_props)),
            justify="end",
            spacing="2",
            margin_top="1rem",
        )
    )
    return rx.alert_dialog.root(
        rx.alert_dialog.content(*parts, **content_props),
        open=is_open,
        on_open_change=on_open_change,
    )
