"""The Audit page."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.audit_page.detail import KIND_LABELS, DetailFact
from topic_dashboard.audit_page.state import ALL, OUTCOMES, AuditRow, AuditState
from topic_dashboard.auth.state import AuthState
from topic_dashboard.components.layout import empty_state, page_shell
from topic_dashboard.services.audit import ACTIONS, FAILED, MCP_TOOLS

S = AuditState
# the rows Insights' failure rate counts: refused or error (a filtered refusal is not a failure) and suppressed
OUTCOME_CHOICES = [(o, o) for o in OUTCOMES] + [(FAILED, "failures (as Insights counts)")]


def _outcome(row: AuditRow) -> rx.Component:
    return rx.match(
        row.outcome,
        ("ok", rx.badge("ok", color_scheme="green", high_contrast=True, size="1")),
        ("deduplicated", rx.badge("deduplicated", color_scheme="blue", high_contrast=True, size="1")),
        # blue, cyan and orange text on their own tint fall short of AA contrast in the light theme (axe)
        ("updated", rx.badge("updated", color_scheme="cyan", high_contrast=True, size="1")),
        (
            "suppressed",
            rx.badge(
                "suppressed ×" + row.calls.to_string(),
                color_scheme="orange",
                high_contrast=True,
                size="1",
                title="refusals beyond the per-minute cap, counted in one row",
            ),
        ),
        rx.cond(
            row.filtered,
            # chat, progress or noise kept out: the product doing its job, not a failure (as Insights counts it)
            rx.badge("refused: filtered", color_scheme="gray", size="1", title="kept out of the topics: not a failure"),
            rx.badge(row.outcome, color_scheme="red", size="1"),
        ),
    )


def _actor(row: AuditRow) -> rx.Component:
    return rx.hstack(
        rx.badge(
            rx.match(row.actor_kind, *[(kind, label) for kind, label in KIND_LABELS.items()], row.actor_kind),
            variant="soft",
            color_scheme="gray",
            size="1",
        ),
        rx.text(row.actor, size="1"),
        spacing="1",
        align="center",
        # the kind and the name as two pieces, each whole (on a phone the name goes under the kind)
        wrap="wrap",
        white_space="nowrap",
    )


def _cell(label: str, *children: rx.Component | rx.Var | str, **props: object) -> rx.Component:
    """A cell labelled on a phone by its column's name (a row is a card there: assets/styles.css .card-rows)."""
    return rx.table.cell(*children, custom_attrs={"data-label": label}, **props)


def _row(row: AuditRow) -> rx.Component:
    return rx.table.row(
        _cell("Time (UTC)", row.created_at, white_space="nowrap"),
        _cell("Actor", _actor(row)),
        _cell("Bot", row.bot_name, overflow_wrap="break-word"),
        _cell("Action", rx.code(row.tool, size="1")),
        _cell(
            "Target",
            rx.cond(
                row.item_id != "",
                rx.link(row.target, href="/?bot=" + row.bot_id + "&item=" + row.item_id),
                row.target,
            ),
            max_width="16rem",
            overflow_wrap="anywhere",
            class_name="card-wide",
        ),
        _cell("Outcome", _outcome(row)),
        _cell("Error", rx.cond(row.error_code != "", rx.code(row.error_code, size="1", color_scheme="red"), "")),
        rx.table.cell(
            rx.cond(
                row.has_detail,
                rx.button(
                    "Detail",
                    size="1",
                    variant="soft",
                    on_click=S.open_detail(row.id),
                    aria_label="Detail of audit row " + row.id.to_string(),
                ),
                rx.cond(row.actor_kind == "bot", row.latency_ms.to_string() + " ms", ""),
            ),
            white_space="nowrap",
        ),
    )


def chart() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.text("Tool calls per hour, last 24 h", size="2", weight="medium"),
            rx.recharts.bar_chart(
                rx.recharts.bar(data_key="ok", stack_id="a", fill=rx.color("green", 8), name="accepted"),
                rx.recharts.bar(data_key="filtered", stack_id="a", fill=rx.color("gray", 8), name="filtered"),
                rx.recharts.bar(data_key="refused", stack_id="a", fill=rx.color("red", 8), name="refused"),
                rx.recharts.x_axis(data_key="hour", font_size=11),
                rx.recharts.y_axis(allow_decimals=False, font_size=11, width=30, interval=0),
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


def _select(value: rx.Var[str], on_change: rx.EventHandler, label: str, options: list[tuple[str, str]]) -> rx.Component:
    return rx.select.root(
        rx.select.trigger(aria_label=label),
        rx.select.content(rx.select.item(label, value=ALL), *[rx.select.item(text, value=v) for v, text in options]),
        value=value,
        on_change=on_change,
    )


def _text_filter(value: rx.Var[str], on_change: rx.EventHandler, placeholder: str, element_id: str) -> rx.Component:
    return rx.input(
        value=value,
        on_change=on_change,
        placeholder=placeholder,
        aria_label=placeholder,
        debounce_timeout=400,
        width="10rem",
        id=element_id,
    )


def filters() -> rx.Component:
    actions = [(tool, tool) for tool in MCP_TOOLS] + [(action, action) for action in ACTIONS]
    return rx.vstack(
        rx.hstack(
            rx.heading("Audit", size="5", id="page-title"),
            rx.select.root(
                rx.select.trigger(aria_label="Bot"),
                rx.select.content(
                    rx.select.item("All bots", value=ALL),
                    rx.foreach(S.bots, lambda b: rx.select.item(b.name, value=b.id)),
                ),
                value=S.bot_id,
                on_change=S.set_bot,
            ),
            _select(S.tool, S.set_tool, "All actions", actions),
            _select(S.outcome, S.set_outcome, "All outcomes", OUTCOME_CHOICES),
            rx.spacer(),
            rx.button(rx.icon("download", size=14), "CSV", variant="soft", on_click=S.export_csv, id="audit-export"),
            rx.icon_button(rx.icon("refresh-cw", size=14), variant="soft", on_click=S.refresh, aria_label="Refresh"),
            width="100%",
            align="center",
            spacing="3",
            wrap="wrap",
        ),
        rx.hstack(
            _text_filter(S.actor, S.set_actor, "Actor (exact name)", "audit-actor"),
            _text_filter(S.error_code, S.set_error_code, "Error code", "audit-error-code"),
            rx.text("From", size="2"),
            rx.input(type="date", value=S.since, on_change=S.set_since, aria_label="From day (UTC)", id="audit-since"),
            rx.text("to", size="2"),
            rx.input(type="date", value=S.until, on_change=S.set_until, aria_label="To day (UTC)", id="audit-until"),
            rx.text("(UTC)", size="1", color=rx.color("gray", 11)),
            rx.button("Clear", variant="ghost", size="1", on_click=S.clear_filters),
            align="center",
            spacing="2",
            wrap="wrap",
        ),
        rx.cond(S.filter_error != "", rx.callout(S.filter_error, icon="triangle-alert", color_scheme="red", size="1")),
        width="100%",
        spacing="2",
        padding_bottom="1rem",
    )


def _fact(fact: DetailFact) -> rx.Component:
    return rx.data_list.item(
        rx.data_list.label(fact.label, min_width="9rem"),
        # text, never markup: a message can quote what a bot sent
        rx.data_list.value(rx.text(fact.value, size="2", overflow_wrap="anywhere", white_space="pre-wrap")),
        id="audit-fact-" + fact.name,
    )


def detail_dialog() -> rx.Component:
    """A row opened: its facts (for a refusal: what was refused, the code, the message and what the code
    means), then the recorded detail's JSON. All plain text, never interpreted as HTML or Markdown."""
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(S.detail_title),
            rx.vstack(
                rx.data_list.root(
                    rx.foreach(S.detail_facts, _fact),
                    size="2",
                    width="100%",
                    orientation=rx.breakpoints(initial="vertical", sm="horizontal"),
                    id="audit-detail-facts",
                ),
                rx.cond(
                    S.detail_text != "",
                    rx.vstack(
                        rx.text("Recorded detail", size="2", weight="medium"),
                        rx.el.pre(
                            S.detail_text,
                            font_size="12px",
                            white_space="pre-wrap",
                            overflow_wrap="anywhere",
                            overflow="auto",
                            max_height="50vh",
                            margin="0",
                            width="100%",
                            id="audit-detail-text",
                        ),
                        spacing="1",
                        width="100%",
                    ),
                ),
                spacing="4",
                width="100%",
                id="audit-detail",
            ),
            rx.hstack(
                rx.spacer(),
                rx.dialog.close(rx.button("Close", variant="soft", color_scheme="gray")),
                margin_top="1rem",
                width="100%",
            ),
            max_width="48rem",
        ),
        open=S.detail_open,
        on_open_change=S.set_detail_open,
    )


def _viewer_note() -> rx.Component:
    """A viewer's trail leaves out others' log-ins, accounts and API tokens: said, so nothing looks lost."""
    return rx.cond(
        AuthState.is_admin,
        rx.fragment(),
        rx.text(
            "Log-ins, accounts and API tokens are shown to admins; you see your own.",
            size="1",
            color=rx.color("gray", 11),
            id="audit-viewer-note",
        ),
    )


def audit_page() -> rx.Component:
    return page_shell(
        filters(),
        _viewer_note(),
        chart(),
        rx.cond(
            S.rows.length() > 0,
            rx.vstack(
                rx.table.root(
                    rx.table.header(
                        rx.table.row(
                            *[
                                rx.table.column_header_cell(h)
                                for h in ("Time (UTC)", "Actor", "Bot", "Action", "Target", "Outcome", "Error", "")
                            ]
                        )
                    ),
                    rx.table.body(rx.foreach(S.rows, _row)),
                    variant="surface",
                    size="1",
                    width="100%",
                    id="audit-table",
                    # on a phone each row is a card, two values a line: Bot, Action and Outcome were off screen
                    class_name="card-rows",
                ),
                rx.cond(S.has_more, rx.button("Load more", variant="soft", on_click=S.load_more, width="100%")),
                width="100%",
                margin_top="1rem",
            ),
            empty_state(
                "scroll-text",
                "Nothing recorded",
                "Every MCP tool call, and every change a person, an API token or the system makes, is recorded here.",
            ),
        ),
        detail_dialog(),
        title="Audit",
    )
