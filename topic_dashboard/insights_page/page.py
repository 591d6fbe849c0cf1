"""The Insights page: charts of how bots behave, for one bot or all."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reflex as rx

from topic_dashboard.components.layout import empty_state, page_shell
from topic_dashboard.insights_page.state import (
    ALL,
    AlertRuleRow,
    BotFailure,
    HotTopic,
    InsightsState,
    SeriesKey,
    ToolLatency,
)
from topic_dashboard.services.alerts import KINDS
from topic_dashboard.services.audit import FAILED

S = InsightsState
RANGE_LABELS = (("24h", "24 hours"), ("7d", "7 days"), ("12w", "12 weeks"))
NO_CALLS = "No tool calls in this range."
NOTHING_PUBLISHED = "Nothing was published in this range."


def _kpi(label: str, value: rx.Var[str] | rx.Var[int], hint: rx.Component | str, element_id: str) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.text(label, size="1", color=rx.color("gray", 11)),
            rx.heading(value, size="6", id=element_id),
            rx.text(hint, size="1", color=rx.color("gray", 11)) if isinstance(hint, str) else hint,
            spacing="1",
        ),
        flex="1",
        min_width="11rem",
    )


def header() -> rx.Component:
    return rx.hstack(
        rx.heading("Insights", size="5", id="page-title"),
        rx.select.root(
            rx.select.trigger(aria_label="Bot"),
            rx.select.content(
                rx.select.item("All bots", value=ALL),
                rx.foreach(S.bots, lambda b: rx.select.item(b.name, value=b.id)),
            ),
            value=S.bot_id,
            on_change=S.set_bot,
        ),
        rx.segmented_control.root(
            *[rx.segmented_control.item(label, value=key) for key, label in RANGE_LABELS],
            value=S.range_key,
            on_change=S.set_range,
            id="insights-range",
        ),
        rx.spacer(),
        rx.icon_button(rx.icon("refresh-cw", size=14), variant="soft", on_click=S.refresh, aria_label="Refresh"),
        width="100%",
        align="center",
        spacing="3",
        wrap="wrap",
        padding_bottom="1rem",
    )


def kpis() -> rx.Component:
    rules_link = rx.cond(
        S.fallback_count > 0,
        rx.link(
            "The bot named it, or no rule matched them (or the topic named does not exist): see the rules",
            href=rx.cond(S.bot_id == ALL, "/rules", "/rules?bot=" + S.bot_id),
            size="1",
            id="fallback-rules-link",
        ),
        rx.text("Every published result matched a topic's rule", size="1", color=rx.color("gray", 11)),
    )
    return rx.hstack(
        _kpi("Published", S.published, "results that reached a topic, new or updated in place", "kpi-published"),
        _kpi("Decisions", S.decided, "published, skipped, filtered, refused, errors", "kpi-decisions"),
        _kpi(
            "Failure rate",
            S.failure_rate,
            "refused or failed calls (chat and progress kept out are not failures)",
            "kpi-failure-rate",
        ),
        _kpi("In the fallback topic", S.fallback_share, rules_link, "kpi-fallback-share"),
        spacing="3",
        width="100%",
        wrap="wrap",
    )


def _series_bar(key: SeriesKey) -> rx.Component:
    return rx.recharts.bar(
        data_key=key.key, stack_id="topics", fill=rx.color(key.colour, 9), name=key.label, is_animation_active=False
    )


def publishes_chart() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.text("Published per topic", size="2", weight="medium"),
            rx.cond(
                S.published > 0,
                rx.recharts.bar_chart(
                    rx.foreach(S.series_keys, _series_bar),
                    rx.recharts.x_axis(data_key="bucket", font_size=11),
                    rx.recharts.y_axis(allow_decimals=False, font_size=11, width=36, interval=0),
                    rx.recharts.graphing_tooltip(),
                    rx.recharts.legend(),
                    data=S.series,
                    height=240,
                    width="100%",
                ),
                rx.text(NOTHING_PUBLISHED, size="2", color=rx.color("gray", 11)),
            ),
            width="100%",
        ),
        width="100%",
        id="chart-publishes",
    )


def decisions_chart() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.text("Decisions by outcome", size="2", weight="medium"),
            rx.recharts.bar_chart(
                rx.recharts.bar(data_key="count", fill=rx.color("accent", 9), name="calls", is_animation_active=False),
                rx.recharts.x_axis(type_="number", allow_decimals=False, font_size=11),
                rx.recharts.y_axis(data_key="decision", type_="category", width=190, font_size=11, interval=0),
                rx.recharts.graphing_tooltip(),
                data=S.decisions,
                layout="vertical",
                height=300,
                width="100%",
            ),
            width="100%",
        ),
        flex="1",
        min_width="20rem",
        id="chart-decisions",
    )


def _failure_row(row: BotFailure) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(rx.link(row.name, href="/audit?bot=" + row.bot_id + "&outcome=" + FAILED)),
        rx.table.cell(row.calls),
        rx.table.cell(row.failed),
        rx.table.cell(
            rx.hstack(
                rx.progress(
                    value=row.rate_value.to(int),
                    max=100,
                    width="5rem",
                    color_scheme="red",
                    aria_label="Failure rate of " + row.name,
                ),
                rx.text(row.rate, size="1"),
                align="center",
                spacing="2",
            )
        ),
    )


def _hot_row(row: HotTopic) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(rx.link(row.topic_name, href="/?bot=" + row.bot_id + "&view=topic:" + row.topic_key)),
        rx.table.cell(row.bot_name),
        rx.table.cell(row.published),
    )


def _latency_row(row: ToolLatency) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(rx.code(row.tool, size="1")),
        rx.table.cell(row.calls),
        rx.table.cell(row.p50),
        rx.table.cell(row.p95),
    )


def _table_card(
    title: str,
    headers: tuple[str, ...],
    rows: rx.Var,
    row: Callable[[Any], rx.Component],
    empty: str,
    table_id: str,
    *footer: rx.Component,
) -> rx.Component:
    """A card with a small table (or a sentence when the range has nothing)."""
    return rx.card(
        rx.vstack(
            rx.text(title, size="2", weight="medium"),
            rx.cond(
                rows.length() > 0,  # type: ignore[attr-defined]
                rx.table.root(
                    rx.table.header(rx.table.row(*[rx.table.column_header_cell(h) for h in headers])),
                    rx.table.body(rx.foreach(rows, row)),
                    size="1",
                    width="100%",
                    id=table_id,
                ),
                rx.text(empty, size="2", color=rx.color("gray", 11)),
            ),
            *footer,
            width="100%",
        ),
        flex="1",
        min_width="20rem",
    )


def failures_card() -> rx.Component:
    headers = ("Bot", "Calls", "Failed", "Rate")
    return _table_card("Failure rate per bot", headers, S.failures, _failure_row, NO_CALLS, "failures-table")


def hottest_card() -> rx.Component:
    headers = ("Topic", "Bot", "Published")
    return _table_card("Hottest topics", headers, S.hottest, _hot_row, NOTHING_PUBLISHED, "hottest-table")


def latency_card() -> rx.Component:
    bands = rx.text("Read from latency bands (1, 2, 5, 10, 20, 50 … 5000 ms).", size="1", color=rx.color("gray", 11))
    headers = ("Tool", "Calls", "p50", "p95")
    return _table_card("Tool latency", headers, S.latency, _latency_row, NO_CALLS, "latency-table", bands)


KIND_LABELS = {
    "failure_rate": "Failure rate over X% in N minutes",
    "topic_volume": "A topic over X items per hour",
    "silence": "A bot silent for X hours",
    "fallback_share": "Fallback share over X% in N minutes",
}


def _alert_row(rule: AlertRuleRow) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(rule.bot_name),
        rx.table.cell(rule.description),
        rx.table.cell(
            rx.cond(
                rule.going_on > 0,
                rx.badge("going on: " + rule.going_on.to_string(), color_scheme="red", size="1"),
                rx.badge("quiet", color_scheme="green", high_contrast=True, size="1"),
            )
        ),
        rx.table.cell(
            rx.cond(
                S.can_edit,
                rx.button(
                    rx.icon("trash-2", size=12),
                    size="1",
                    variant="soft",
                    color_scheme="red",
                    on_click=S.delete_alert(rule.id),
                    aria_label="Remove the alert " + rule.description,
                ),
            )
        ),
    )


def _alert_form() -> rx.Component:
    return rx.form(
        rx.hstack(
            rx.select.root(
                rx.select.trigger(aria_label="Alert on"),
                rx.select.content(*[rx.select.item(KIND_LABELS[k], value=k) for k in KINDS]),
                value=S.new_alert_kind,
                on_change=S.set_new_alert_kind,
            ),
            rx.select.root(
                rx.select.trigger(aria_label="For which bot"),
                rx.select.content(
                    rx.select.item("All bots", value=ALL),
                    rx.foreach(S.bots, lambda b: rx.select.item(b.name, value=b.id)),
                ),
                value=S.new_alert_bot,
                on_change=S.set_new_alert_bot,
            ),
            rx.input(
                value=S.new_alert_threshold,
                on_change=S.set_new_alert_threshold,
                aria_label="Threshold (X)",
                placeholder="X",
                width="5rem",
                id="alert-threshold",
            ),
            rx.cond(
                (S.new_alert_kind == "failure_rate") | (S.new_alert_kind == "fallback_share"),
                rx.input(
                    value=S.new_alert_window,
                    on_change=S.set_new_alert_window,
                    aria_label="Window in minutes (N)",
                    placeholder="N minutes",
                    width="6rem",
                    id="alert-window",
                ),
            ),
            rx.cond(
                S.new_alert_kind == "topic_volume",
                rx.input(
                    value=S.new_alert_topic,
                    on_change=S.set_new_alert_topic,
                    aria_label="Topic key (empty: any topic)",
                    placeholder="topic key (any)",
                    width="10rem",
                    id="alert-topic",
                ),
            ),
            rx.button(rx.icon("bell-plus", size=14), "Add alert", type="submit", id="create-alert"),
            spacing="2",
            align="center",
            wrap="wrap",
        ),
        rx.cond(S.alert_error != "", rx.text(S.alert_error, size="1", color=rx.color("red", 11), id="alert-error")),
        on_submit=lambda _: S.create_alert(),
        reset_on_submit=False,
    )


def alerts_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.text("Alerts", size="2", weight="medium"),
            rx.text(
                "Checked by the backend on a schedule (every minute unless TOPIC_DASHBOARD_ALERT_INTERVAL_SECONDS "
                "says otherwise). A crossing shows a banner on every page and puts one item into the bot's "
                "fallback topic; a recovery item follows when it clears.",
                size="1",
                color=rx.color("gray", 11),
            ),
            rx.cond(S.can_edit, _alert_form()),
            rx.cond(
                S.alert_rules.length() > 0,
                rx.table.root(
                    rx.table.header(
                        rx.table.row(*[rx.table.column_header_cell(h) for h in ("Bot", "When", "Now", "")])
                    ),
                    rx.table.body(rx.foreach(S.alert_rules, _alert_row)),
                    size="1",
                    width="100%",
                    id="alerts-table",
                ),
                rx.text("No alerts set.", size="2", color=rx.color("gray", 11), id="no-alerts"),
            ),
            width="100%",
            spacing="2",
        ),
        width="100%",
        id="alerts-card",
    )


def insights_page() -> rx.Component:
    return page_shell(
        header(),
        rx.cond(
            S.bots.length() > 0,
            rx.vstack(
                kpis(),
                publishes_chart(),
                rx.hstack(decisions_chart(), failures_card(), spacing="3", width="100%", wrap="wrap", align="start"),
                rx.hstack(hottest_card(), latency_card(), spacing="3", width="100%", wrap="wrap", align="start"),
                alerts_card(),
                spacing="3",
                width="100%",
            ),
            empty_state("chart-line", "No bots yet", "Create a bot on the Bots page; its tool calls show here."),
        ),
        title="Insights",
    )
