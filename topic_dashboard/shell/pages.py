"""Pages whose features arrive in their own issues: for now the shell and an honest empty state."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.components.layout import empty_state, page_shell


def placeholder(title: str, icon: str, hint: str) -> rx.Component:
    return page_shell(
        rx.heading(title, size="6", margin_bottom="1rem", id="page-title"),
        empty_state(icon, f"No {title.lower()} yet", hint),
        title=title,
    )
