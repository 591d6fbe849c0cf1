"""Renderers of the six declarative view types. Each reads only its declared fields; text is text."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.topic_panel.rows import CheckItem, LabelValue, TimelineEvent
from topic_dashboard.topic_panel.state import TopicPanelState

D = TopicPanelState.detail


def level_color(level: rx.Var) -> rx.Var:
    """The radix colour scheme of a level."""
    return rx.match(level, ("error", "red"), ("warn", "amber"), ("success", "green"), "blue")


def level_swatch(level: rx.Var, shade: int = 9) -> rx.Var:
    return rx.match(
        level,
        ("error", rx.color("red", shade)),
        ("warn", rx.color("amber", shade)),
        ("success", rx.color("green", shade)),
        rx.color("blue", shade),
    )


def safe_html(html: rx.Var, **props: object) -> rx.Component:
    """HTML produced by our markdown renderer and sanitized by nh3 (see views/markdown.py)."""
    return rx.box(rx.html(html), class_name="td-prose", **props)


def markdown_view() -> rx.Component:
    return rx.card(safe_html(D.view_html), id="view-markdown", width="100%")


def _card_field(field: LabelValue) -> rx.Component:
    return rx.data_list.item(rx.data_list.label(field.label), rx.data_list.value(field.value))


def card_view() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading(D.view_title, size="4"),
            rx.cond(D.view_subtitle != "", rx.text(D.view_subtitle, size="2", color=rx.color("gray", 11))),
            rx.cond(D.view_html != "", safe_html(D.view_html)),
            rx.cond(D.view_fields.length() > 0, rx.data_list.root(rx.foreach(D.view_fields, _card_field), size="2")),
            rx.cond(
                D.view_link_url != "",
                rx.link(
                    rx.hstack(
                        rx.icon("external-link", size=14), rx.text(D.view_link_label), spacing="1", align="center"
                    ),
                    href=D.view_link_url,
                    is_external=True,
                    rel="noopener noreferrer nofollow",
                ),
            ),
            spacing="3",
            align="start",
        ),
        id="view-card",
        width="100%",
    )


def table_view() -> rx.Component:
    return rx.vstack(
        rx.scroll_area(
            rx.table.root(
                rx.table.header(
                    rx.table.row(rx.foreach(D.view_columns, lambda column: rx.table.column_header_cell(column)))
                ),
                rx.table.body(
                    rx.foreach(D.view_rows, lambda row: rx.table.row(rx.foreach(row, lambda cell: rx.table.cell(cell))))
                ),
                variant="surface",
                size="1",
                width="100%",
            ),
            type="auto",
            scrollbars="horizontal",
            max_width="100%",
        ),
        rx.cond(D.view_caption != "", rx.text(D.view_caption, size="1", color=rx.color("gray", 11))),
        id="view-table",
        width="100%",
        spacing="1",
    )


def _check(item: CheckItem) -> rx.Component:
    return rx.hstack(
        rx.cond(
            item.done,
            rx.icon("circle-check", size=18, color=rx.color("green", 9)),
            rx.icon("circle", size=18, color=rx.color("gray", 8)),
        ),
        rx.text(
            item.text,
            size="2",
            text_decoration=rx.cond(item.done, "line-through", "none"),
            color=rx.cond(item.done, rx.color("gray", 11), rx.color("gray", 12)),
        ),
        align="center",
        spacing="2",
    )


def checklist_view() -> rx.Component:
    total = D.view_checks.length()
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.cond(D.view_title != "", rx.heading(D.view_title, size="3")),
                rx.spacer(),
                rx.text(
                    D.view_checks_done.to_string() + " / " + total.to_string(), size="1", color=rx.color("gray", 11)
                ),
                width="100%",
            ),
            rx.progress(
                value=rx.cond(total > 0, (D.view_checks_done * 100 / total).to(int), 0),
                size="1",
                aria_label="Checks done",
            ),
            rx.foreach(D.view_checks, _check),
            spacing="2",
            width="100%",
        ),
        id="view-checklist",
        width="100%",
    )


def metric_view() -> rx.Component:
    trend_icon = rx.match(
        D.metric_trend,
        ("up", rx.icon("trending-up", size=20)),
        ("down", rx.icon("trending-down", size=20)),
        ("flat", rx.icon("minus", size=20)),
        rx.fragment(),
    )
    return rx.card(
        rx.vstack(
            rx.text(D.view_title, size="2", color=rx.color("gray", 11), weight="medium"),
            rx.hstack(
                rx.text(D.metric_value, size="8", weight="bold", id="metric-value"),
                rx.text(D.metric_unit, size="4", color=rx.color("gray", 11)),
                align="baseline",
                spacing="1",
            ),
            rx.cond(
                (D.metric_delta != "") | (D.metric_trend != ""),
                rx.hstack(
                    trend_icon,
                    rx.text(D.metric_delta, size="2"),
                    align="center",
                    spacing="1",
                    color=rx.match(
                        D.level,
                        ("error", rx.color("red", 11)),
                        ("success", rx.color("green", 11)),
                        rx.color("gray", 11),
                    ),
                ),
            ),
            rx.cond(D.view_caption != "", rx.text(D.view_caption, size="1", color=rx.color("gray", 11))),
            spacing="1",
        ),
        id="view-metric",
        width="100%",
    )


def _event(event: TimelineEvent) -> rx.Component:
    return rx.hstack(
        rx.box(
            width="10px",
            height="10px",
            border_radius="50%",
            margin_top="0.35rem",
            flex_shrink="0",
            background=level_swatch(event.level),
        ),
        rx.vstack(
            rx.hstack(
                rx.text(event.title, size="2", weight="medium"),
                rx.cond(
                    event.time_iso != "",
                    rx.moment(
                        event.time_iso,
                        format="MMM D, HH:mm",
                        font_size="var(--font-size-1)",
                        color=rx.color("gray", 11),
                        class_name="event-time",
                        title=event.time,
                    ),
                    rx.text(event.time, size="1", color=rx.color("gray", 11), class_name="event-time"),
                ),
                spacing="2",
                align="baseline",
                wrap="wrap",
            ),
            rx.cond(event.detail != "", rx.text(event.detail, size="2", color=rx.color("gray", 11))),
            spacing="0",
        ),
        align="start",
        spacing="3",
        padding_left="0.25rem",
        border_left=f"2px solid {rx.color('gray', 5)}",
        padding_y="0.25rem",
    )


def timeline_view() -> rx.Component:
    return rx.vstack(rx.foreach(D.view_events, _event), spacing="1", id="view-timeline", width="100%")


def view_renderer() -> rx.Component:
    return rx.match(
        D.view_type,
        ("markdown", markdown_view()),
        ("card", card_view()),
        ("table", table_view()),
        ("checklist", checklist_view()),
        ("metric", metric_view()),
        ("timeline", timeline_view()),
        rx.fragment(),
    )
