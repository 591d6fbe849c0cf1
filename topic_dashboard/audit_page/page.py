"""The Audit page."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.audit_page.state import AuditRow, AuditState
from topic_dashboard.components.layout import empty_state, page_shell

S = AuditState
TOOLS = ["all", "topic_list_topics", "topic_get_schema", "topic_route", "topic_publish", "ccweb_list_user_inputs"]


def _row(row: AuditRow) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.moment(row.created_at, format="YYYY-MM-DD HH:mm:ss"), white_space="nowrap"),
        rx.table.cell(rx.code(row.bot_id, size="1")),
        rx.table.cell(row.tool),
        rx.table.cell(
            rx.match(
                row.outcome,
                ("ok", rx.badge("ok", color_scheme="green", high_contrast=True, size="1")),
                ("deduplicated", rx.badge("deduplicated", color_scheme="blue", size="1")),
                ("updated", rx.badge("updated", color_scheme="cyan", size="1")),
                (
                    "suppressed",
                    rx.badge(
                        "suppressed ×" + row.calls.to_string(),
                        color_scheme="orange",
                        size="1",
                        title="refused calls beyond the per-minute cap, counted in one row",
                    ),
                ),
                rx.badge(row.outcome, color_scheme="red", size="1"),
            )
        ),
        rx.table.cell(rx.cond(row.error_code != "", rx.code(row.error_code, size="1", color_scheme="red"), "")),
        rx.table.cell(row.topic_key),
        rx.table.cell(
            rx.cond(row.item_id != "", rx.link(row.item_id, href="/?bot=" + row.bot_id + "&item=" + row.item_id), "")
        ),
        rx.table.cell(row.latency_ms.to_string() + " ms", white_space="nowrap"),
    )


def chart() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.text("Tool calls per hour, last 24 h", size="2", weight="medium"),
            rx.recharts.bar_chart(
                rx.recharts.bar(data_key="ok", stack_id="a", fill=rx.color("green", 8), name="accepted"),
                rx.recharts.bar(data_key="refused", stack_id="a", fill=rx.color("red", 8), name="refused"),
                rx.recharts.x_axis(data_key="hour", font_size=11),
                rx.recharts.y_axis(allow_decimals=False, font_size=11, width=30),
                rx.recharts.graphing_tooltip(),
                rx.recharts.legend(),
                data=S.chart,
                height=180,
                width="100%",
            ),
            width="100%",
        ),
        width="100%",
        id="audit-chart",
    )


def audit_page() -> rx.Component:
    return page_shell(
        rx.hstack(
            rx.heading("Audit", size="5", id="page-title"),
            rx.select.root(
                rx.select.trigger(),
                rx.select.content(
                    rx.select.item("All bots", value="all"),
                    rx.foreach(S.bots, lambda b: rx.select.item(b.name, value=b.id)),
                ),
                value=S.bot_id,
                on_change=S.set_bot,
            ),
            rx.select.root(
                rx.select.trigger(),
                rx.select.content(*[rx.select.item("All tools" if t == "all" else t, value=t) for t in TOOLS]),
                value=S.tool,
                on_change=S.set_tool,
            ),
            rx.select.root(
                rx.select.trigger(),
                rx.select.content(
                    *[
                        rx.select.item(label, value=value)
                        for value, label in (
                            ("all", "All outcomes"),
                            ("ok", "ok"),
                            ("deduplicated", "deduplicated"),
                            ("updated", "updated"),
                            ("refused", "refused"),
                        )
                    ]
                ),
                value=S.outcome,
                on_change=S.set_outcome,
            ),
            rx.spacer(),
            rx.icon_button(rx.icon("refresh-cw", size=14), variant="soft", on_click=S.refresh, aria_label="Refresh"),
            width="100%",
            align="center",
            spacing="3",
            wrap="wrap",
            padding_bottom="1rem",
        ),
        chart(),
        rx.cond(
            S.rows.length() > 0,
            rx.vstack(
                rx.table.root(
                    rx.table.header(
                        rx.table.row(
                            *[
                                rx.table.column_header_cell(h)
                                for h in ("Time", "Bot", "Tool", "Outcome", "Error", "Topic", "Item", "Latency")
                            ]
                        )
                    ),
                    rx.table.body(rx.foreach(S.rows, _row)),
                    variant="surface",
                    size="1",
                    width="100%",
                    id="audit-table",
                ),
                rx.cond(S.has_more, rx.button("Load more", variant="soft", on_click=S.load_more, width="100%")),
                width="100%",
                margin_top="1rem",
            ),
            empty_state("scroll-text", "No tool calls yet", "Every topic_mcp and ccweb tool call is recorded here."),
        ),
        title="Audit",
    )
