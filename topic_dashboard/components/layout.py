"""The page shell: navigation, who is logged in, theme switch."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.auth.state import AuthState
from topic_dashboard.components.alert_banner import alert_banner

NAV = [
    ("Topics", "/", "rss"),
    ("Rules", "/rules", "list-filter"),
    ("Bots", "/bots", "bot"),
    ("Conversations", "/conversations", "messages-square"),
    ("Audit", "/audit", "scroll-text"),
    ("Insights", "/insights", "chart-line"),
]
ADMIN_NAV = [("Accounts", "/accounts", "users")]  # shown to admins only (the page's events are admin-only too)


def _for_admins(link: rx.Component) -> rx.Component:
    return rx.cond(AuthState.role == "admin", link)


def _current(label: str, current: str) -> dict[str, str]:
    """The open page's link says so to screen readers too (each page names itself to `page_shell`)."""
    return {"aria-current": "page"} if label == current else {}


def _nav_link(label: str, href: str, icon: str, current: str) -> rx.Component:
    active = label == current
    return rx.link(
        rx.hstack(rx.icon(icon, size=16), rx.text(label, size="2"), spacing="2", align="center"),
        href=href,
        underline="none",
        padding_x="0.75rem",
        padding_y="0.5rem",
        border_radius="var(--radius-2)",
        color=rx.color("accent", 11) if active else rx.color("gray", 11),
        background=rx.color("accent", 3) if active else "transparent",
        font_weight="500" if active else "400",
        _hover={"background": rx.color("accent", 4) if active else rx.color("gray", 3)},
        id=f"nav-{label.lower()}",
        custom_attrs=_current(label, current),
    )


def _mobile_nav_link(label: str, href: str, icon: str, current: str) -> rx.Component:
    """Icons only (a phone's width): the open page's icon on the accent, as the sidebar marks it."""
    active = label == current
    return rx.link(
        rx.icon(icon, size=18),
        href=href,
        title=label,
        aria_label=label,
        padding="0.35rem",
        display="flex",
        border_radius="var(--radius-2)",
        color=rx.color("accent", 11) if active else rx.color("gray", 11),
        background=rx.color("accent", 4) if active else "transparent",
        custom_attrs=_current(label, current),
    )


def sidebar(current: str) -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.icon("layers", size=20, color=rx.color("accent", 9)),
            rx.heading("Topic Dashboard", size="3"),
            align="center",
        ),
        rx.el.nav(
            rx.vstack(
                *[_nav_link(*item, current) for item in NAV],
                *[_for_admins(_nav_link(*item, current)) for item in ADMIN_NAV],
                spacing="1",
                width="100%",
            ),
            aria_label="Pages",
            width="100%",
            margin_top="1rem",
        ),
        rx.spacer(),
        rx.hstack(
            rx.icon("circle-user", size=16),
            rx.text(AuthState.username, size="2", id="current-user"),
            rx.badge(AuthState.role, variant="soft", id="current-role"),
            align="center",
            spacing="2",
        ),
        rx.link(
            rx.hstack(rx.icon("key-round", size=14), rx.text("Change password", size="1"), spacing="1", align="center"),
            href="/change-password",
            color=rx.color("gray", 11),
            id="change-own-password",
        ),
        rx.hstack(
            rx.color_mode.button(size="1", variant="ghost", id="theme-toggle", aria_label="Switch light or dark theme"),
            rx.button(
                rx.icon("log-out", size=14),
                "Log out",
                size="1",
                variant="soft",
                on_click=AuthState.log_out,
                id="logout",
            ),
            spacing="2",
        ),
        padding="1rem",
        width="220px",
        min_width="220px",
        height="100vh",
        position="sticky",
        top="0",
        border_right=f"1px solid {rx.color('gray', 4)}",
        background=rx.color("gray", 1),
        display=["none", "none", "flex"],
    )


def mobile_nav(current: str) -> rx.Component:
    return rx.hstack(
        rx.el.nav(
            rx.hstack(
                *[_mobile_nav_link(*item, current) for item in NAV],
                *[_for_admins(_mobile_nav_link(*item, current)) for item in ADMIN_NAV],
                spacing="1",
                align="center",
            ),
            aria_label="Pages",
        ),
        rx.spacer(),
        rx.color_mode.button(size="1", variant="ghost", aria_label="Switch light or dark theme"),
        rx.icon_button(
            rx.icon("log-out", size=14), size="1", variant="soft", on_click=AuthState.log_out, aria_label="Log out"
        ),
        display=["flex", "flex", "none"],
        spacing="1",
        align="center",
        padding="0.5rem",
        border_bottom=f"1px solid {rx.color('gray', 4)}",
        width="100%",
    )


def page_shell(*children: rx.Component, title: str) -> rx.Component:
    """A logged-in page: sidebar, then the page's own content. `title` is the page's name in the
    navigation (NAV), whose link then marks it as the page open."""
    return rx.hstack(
        sidebar(current=title),
        rx.vstack(
            mobile_nav(current=title),
            rx.box(alert_banner(), *children, width="100%", padding=["0.75rem", "1rem", "1.5rem"]),
            flex="1",
            min_width="0",
            spacing="0",
            min_height="100vh",
        ),
        spacing="0",
        width="100%",
        align="start",
    )


def empty_state(icon: str, title: str, hint: str | rx.Component = "") -> rx.Component:
    return rx.center(
        rx.vstack(
            rx.icon(icon, size=36, color=rx.color("gray", 8)),
            rx.heading(title, size="4", color=rx.color("gray", 11)),
            rx.text(hint, size="2", color=rx.color("gray", 11), text_align="center") if isinstance(hint, str) else hint,
            align="center",
            spacing="2",
        ),
        padding="3rem",
        width="100%",
    )
