"""The Rules page: a bot's topics, the rule editor (form and JSON), test-this-message, history."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.auth.state import AuthState
from topic_dashboard.components.bot_choice import BotOption
from topic_dashboard.components.confirm_dialog import confirm_dialog
from topic_dashboard.components.keyboard import hidden_button
from topic_dashboard.components.layout import empty_state, page_shell
from topic_dashboard.components.unsaved_dialog import unsaved_dialog
from topic_dashboard.rules_editor.create_state import TEMPLATE_GROUPS, CreateTopicState
from topic_dashboard.rules_editor.delete_state import DeleteTopicState
from topic_dashboard.rules_editor.editor_state import RuleEditorState, RulePreviewState
from topic_dashboard.rules_editor.retention_state import RetentionState
from topic_dashboard.rules_editor.rows import ChangeLine, HistoryRow, RuleTopicRow, ScoreRow
from topic_dashboard.rules_editor.state import RulesState
from topic_dashboard.services.publishing import MESSAGE_TYPES

READ_ONLY = ~AuthState.is_admin


def _bot_option(bot: BotOption) -> rx.Component:
    return rx.select.item(bot.name, value=bot.id)


def _cell(label: str, *children: rx.Component | rx.Var, **props: object) -> rx.Component:
    """A cell labelled on a phone by its column's name (a row is a card there: CARD_ROWS)."""
    return rx.table.cell(*children, custom_attrs={"data-label": label}, **props)


# On a phone (assets/styles.css .card-rows) a topic is a card, three cells a line: its key and name, then its
# state, priority and items.
CARD_ROWS = "card-rows card-rows-3"


def _topic_row(row: RuleTopicRow) -> rx.Component:
    return rx.table.row(
        rx.table.cell(
            rx.hstack(
                rx.code(row.key, class_name="rule-key"),
                rx.cond(row.is_fallback, rx.badge("fallback", size="1", color_scheme="gray")),
                spacing="2",
                align="center",
                # the badge goes under the key rather than widen the column beside the editor
                wrap="wrap",
            )
        ),
        # The name is the row's button: Tab reaches each topic and Enter or space opens it (the row's click is
        # the mouse's way; the button stops its click there so the topic opens once).
        rx.table.cell(
            rx.el.button(
                row.name,
                on_click=[rx.stop_propagation, RuleEditorState.select_topic(row.key)],
                type="button",
                class_name="rule-open",
                aria_pressed=rx.cond(RuleEditorState.selected_key == row.key, "true", "false"),
            ),
            class_name="card-span-2",
        ),
        _cell(
            "State",
            rx.cond(
                row.is_active,
                rx.badge("active", color_scheme="green", high_contrast=True, size="1"),
                rx.badge("inactive", color_scheme="gray", size="1"),
            ),
        ),
        _cell("Priority", row.priority),
        # How many items, and when the last came, in one column: at a laptop's width beside the editor a
        # column of its own for "Last item" was cut off behind a sideways scroll; the time wraps between its
        # words for the same reason ("last 10 m…" was cut off for a viewer).
        _cell(
            "Items",
            rx.vstack(
                rx.text(row.item_count, size="2"),
                # The count is what the panel lists; items archived for everyone are the topic's too.
                rx.cond(
                    row.archived_count > 0,
                    rx.text(row.archived_count.to_string() + " archived", size="1", color=rx.color("gray", 11)),
                ),
                rx.cond(
                    row.last_item_at != "",
                    rx.text(
                        "last ",
                        rx.moment(row.last_item_at, from_now=True),
                        size="1",
                        color=rx.color("gray", 11),
                    ),
                ),
                spacing="0",
            ),
        ),
        on_click=RuleEditorState.select_topic(row.key),
        cursor="pointer",
        background=rx.cond(RuleEditorState.selected_key == row.key, rx.color("accent", 3), "transparent"),
        _hover={"background": rx.color("gray", 3)},
        id="rule-row-" + row.key,
    )


def topics_table() -> rx.Component:
    return rx.table.root(
        rx.table.header(
            rx.table.row(
                *[rx.table.column_header_cell(label) for label in ("Key", "Name", "State", "Priority", "Items")]
            )
        ),
        rx.table.body(rx.foreach(RulesState.topics, _topic_row)),
        variant="surface",
        size="1",
        width="100%",
        id="rules-table",
        class_name=CARD_ROWS,
    )


def _list_editor(
    label: str, field: str, json_field: str, values: rx.Var, placeholder: str, hint: str = "", add_id: str = ""
) -> rx.Component:
    def entry(value: rx.Var, index: rx.Var) -> rx.Component:
        invalid = RuleEditorState.error_field == json_field + "[" + index.to_string() + "]"
        number = (index + 1).to_string()
        field_props = {
            "value": value,
            "on_change": lambda v: RuleEditorState.set_list_item(field, index, v),
            "placeholder": placeholder,
            "width": "100%",
            "size": "2",
            "read_only": READ_ONLY,
            "color_scheme": rx.cond(invalid, "red", "gray"),
            "variant": rx.cond(invalid, "soft", "surface"),
            "debounce_timeout": 250,
            "aria_label": f"{label.removesuffix('s')} #" + number,
            "id": f"{field}-" + index.to_string(),
        }
        # An example is a message, often a title and its content on two lines (what Move to topic… teaches):
        # a one-line input showed them run together and, once edited, would have saved them so.
        box = (
            rx.text_area(rows="2", resize="vertical", **field_props)
            if json_field.startswith("examples.")
            else rx.input(**field_props)
        )
        return rx.hstack(
            box,
            rx.cond(
                AuthState.is_admin,
                rx.icon_button(
                    rx.icon("x", size=14),
                    size="1",
                    variant="ghost",
                    color_scheme="gray",
                    on_click=RuleEditorState.remove_list_item(field, index),
                    aria_label=f"Remove {label.lower().removesuffix('s')} #" + number,
                ),
            ),
            width="100%",
            align="center",
        )

    return rx.vstack(
        rx.hstack(
            rx.text(label, size="2", weight="medium"),
            rx.cond(hint != "", rx.text(hint, size="1", color=rx.color("gray", 11))),
            align="baseline",
            spacing="2",
        ),
        rx.foreach(values, entry),
        rx.cond(
            AuthState.is_admin,
            rx.button(
                rx.icon("plus", size=14),
                "Add",
                size="1",
                variant="soft",
                on_click=RuleEditorState.add_list_item(field),
                id=add_id or f"add-{field}",
            ),
        ),
        spacing="1",
        width="100%",
    )


def _view_type_toggle(kind: rx.Var) -> rx.Component:
    return rx.checkbox(
        kind,
        checked=RuleEditorState.draft.allowed_types.contains(kind),
        on_change=lambda on: RuleEditorState.toggle_view_type(kind, on),
        disabled=READ_ONLY,
        size="2",
    )


def rule_form() -> rx.Component:
    return rx.vstack(
        rx.vstack(
            rx.text("Purpose", size="2", weight="medium"),
            rx.text_area(
                value=RuleEditorState.draft.purpose,
                on_change=RuleEditorState.set_purpose,
                placeholder="What this topic collects, in a sentence",
                read_only=READ_ONLY,
                width="100%",
                rows="2",
                debounce_timeout=250,
                id="rule-purpose",
            ),
            spacing="1",
            width="100%",
        ),
        _list_editor(
            "Include when",
            "include_when",
            "include_when",
            RuleEditorState.draft.include_when,
            "e.g. 内容涉及股票/指数/外汇 or build / test results",
            "any one that matches counts",
        ),
        _list_editor(
            "Exclude when",
            "exclude_when",
            "exclude_when",
            RuleEditorState.draft.exclude_when,
            "e.g. 纯寒暄或无结论聊天",
            "a match vetoes this topic",
        ),
        rx.grid(
            # not add-positive/add-negative: those are the test panel's "Add as ... example" buttons
            _list_editor(
                "Positive examples",
                "positive",
                "examples.positive",
                RuleEditorState.draft.positive,
                "A message that belongs here",
                add_id="add-positive-row",
            ),
            _list_editor(
                "Negative examples",
                "negative",
                "examples.negative",
                RuleEditorState.draft.negative,
                "A message that does not",
                add_id="add-negative-row",
            ),
            columns=rx.breakpoints(initial="1", md="2"),
            spacing="4",
            width="100%",
        ),
        _list_editor(
            "Keywords", "keywords", "keywords", RuleEditorState.draft.keywords, "optional extra words", "optional"
        ),
        rx.hstack(
            rx.text("Priority", size="2", weight="medium"),
            rx.slider(
                value=[RuleEditorState.draft.priority],
                on_value_commit=RuleEditorState.set_priority,
                min=0,
                max=100,
                step=1,
                width="12rem",
                disabled=READ_ONLY,
                id="rule-priority",
            ),
            rx.badge(RuleEditorState.draft.priority, variant="outline", id="rule-priority-value"),
            rx.text("higher wins when several topics match", size="1", color=rx.color("gray", 11)),
            align="center",
            spacing="3",
            wrap="wrap",
        ),
        rx.hstack(
            rx.text("System filters", size="2", weight="medium"),
            rx.badge("progress", color_scheme="gray"),
            rx.badge("tool hints", color_scheme="gray"),
            rx.text("always on: never published", size="1", color=rx.color("gray", 11)),
            align="center",
            spacing="2",
        ),
        rx.hstack(
            rx.text("View types", size="2", weight="medium"),
            rx.foreach(RuleEditorState.view_type_choices, _view_type_toggle),
            align="center",
            spacing="3",
            wrap="wrap",
        ),
        spacing="4",
        width="100%",
    )


def rule_json() -> rx.Component:
    return rx.text_area(
        value=RuleEditorState.json_text,
        on_change=RuleEditorState.set_json_text,
        read_only=READ_ONLY,
        width="100%",
        rows="22",
        font_family="var(--code-font-family)",
        debounce_timeout=300,
        id="rule-json",
    )


def _error_callout() -> rx.Component:
    return rx.cond(
        RuleEditorState.error_message != "",
        rx.callout(
            rx.hstack(
                # the JSON view names the field as typed; the form's message names it as the form does
                rx.cond(
                    (RuleEditorState.error_field != "") & (RuleEditorState.mode == "json"),
                    rx.code(RuleEditorState.error_field),
                ),
                rx.text(RuleEditorState.error_message),
                spacing="2",
                wrap="wrap",
            ),
            icon="triangle-alert",
            color_scheme="red",
            size="1",
            id="rule-error",
        ),
    )


def editor_header() -> rx.Component:
    return rx.hstack(
        rx.heading(RuleEditorState.name, size="4"),
        rx.code(RuleEditorState.selected_key, id="editor-key"),
        rx.cond(RuleEditorState.is_fallback, rx.badge("fallback", color_scheme="gray")),
        rx.spacer(),
        rx.tooltip(
            rx.hstack(
                # a locked switch is drawn grey, which reads as off: the label says it is on for good
                rx.text(
                    rx.cond(RuleEditorState.is_fallback, "Always active", "Active"), size="2", id="rule-active-label"
                ),
                rx.switch(
                    checked=RuleEditorState.is_active,
                    on_change=RuleEditorState.set_topic_active,
                    disabled=READ_ONLY | RuleEditorState.is_fallback,
                    id="rule-active-switch",
                ),
                # said in words to those who cannot change it: their switch is greyed, and read as off when on
                rx.cond(
                    READ_ONLY & ~RuleEditorState.is_fallback,
                    rx.text(
                        rx.cond(RuleEditorState.is_active, "On", "Off"),
                        " (admins change it)",
                        size="1",
                        color=rx.color("gray", 11),
                        id="rule-active-state",
                    ),
                ),
                align="center",
                spacing="2",
            ),
            content=rx.cond(
                RuleEditorState.is_fallback, "The fallback topic is always active", "Inactive topics receive nothing"
            ),
        ),
        rx.cond(
            AuthState.is_admin,
            rx.hstack(
                rx.button(
                    "Revert",
                    variant="soft",
                    color_scheme="gray",
                    size="2",
                    on_click=RuleEditorState.revert,
                    disabled=~RuleEditorState.dirty,
                ),
                rx.button(
                    rx.icon("save", size=14),
                    "Save",
                    size="2",
                    on_click=RuleEditorState.save,
                    disabled=~RuleEditorState.dirty | (RuleEditorState.error_message != ""),
                    id="rule-save",
                ),
                rx.button(
                    rx.icon("archive-restore", size=14),
                    "Retention",
                    variant="soft",
                    color_scheme="gray",
                    size="2",
                    on_click=RetentionState.open_retention,
                    id="rule-retention",
                ),
                rx.tooltip(
                    rx.icon_button(
                        rx.icon("trash-2", size=14),
                        size="2",
                        variant="soft",
                        color_scheme="red",
                        on_click=DeleteTopicState.open_delete,
                        id="rule-delete",
                        aria_label="Delete topic",
                    ),
                    content=rx.cond(
                        RuleEditorState.is_fallback, "The fallback topic cannot be deleted", "Delete this topic"
                    ),
                ),
                spacing="2",
            ),
        ),
        width="100%",
        align="center",
        wrap="wrap",
    )


def _score_row(row: ScoreRow) -> rx.Component:
    return rx.table.row(
        _cell(
            "Topic",
            rx.hstack(
                rx.code(row.topic_key, class_name="rule-key"),
                rx.cond(row.chosen, rx.icon("check", size=14, color=rx.color("green", 10))),
                spacing="1",
                align="center",
            ),
            class_name="card-wide",
        ),
        _cell(
            "Belief",
            rx.hstack(
                rx.progress(
                    value=row.bar_pct,
                    width=["3rem", "5rem"],
                    size="1",
                    # grey when the message is not published: which topic it would suit, not where it goes
                    color_scheme=rx.cond(RulePreviewState.decision_publish, "accent", "gray"),
                    aria_label="Score of " + row.topic_key,
                ),
                rx.text(row.bar_pct.to_string() + "%", size="1"),
                align="center",
                spacing="2",
            ),
        ),
        _cell("Priority", row.priority),
        _cell(
            "Why",
            rx.vstack(
                rx.cond(
                    row.vetoed_by != "",
                    rx.text("vetoed: " + row.vetoed_by, color=rx.color("red", 11), size="1"),
                    rx.text(row.matched, size="1"),
                ),
                rx.cond(row.meaning != "", rx.text("meaning: " + row.meaning, size="1", color_scheme="gray")),
                spacing="0",
            ),
            # beside the form the reasons keep room to read (squeezed, they wrapped letter by letter);
            # on a phone a score is a card and the reasons take its whole width
            min_width="14rem",
            class_name="card-wide",
        ),
    )


def test_panel() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.icon("flask-conical", size=16),
                rx.heading("Test this message", size="3"),
                rx.text("live, against the rules as edited (before saving)", size="1", color=rx.color("gray", 11)),
                align="center",
                spacing="2",
                wrap="wrap",
            ),
            rx.input(
                value=RulePreviewState.test_title,
                on_change=RulePreviewState.set_test_title,
                placeholder="Title (optional, as the bot would publish it)",
                aria_label="Test message title",
                width="100%",
                debounce_timeout=250,
                id="test-title",
            ),
            rx.text_area(
                value=RulePreviewState.test_message,
                on_change=RulePreviewState.set_test_message,
                placeholder="Paste a message a bot might publish",
                aria_label="Message to test",
                rows="3",
                width="100%",
                debounce_timeout=250,
                id="test-message",
            ),
            rx.hstack(
                rx.text("Message type", size="1"),
                rx.select(
                    list(MESSAGE_TYPES),
                    value=RulePreviewState.test_type,
                    on_change=RulePreviewState.set_test_type,
                    size="1",
                ),
                spacing="2",
                align="center",
            ),
            rx.cond(
                RulePreviewState.decision_reason != "",
                rx.vstack(
                    rx.hstack(
                        rx.cond(
                            RulePreviewState.decision_publish,
                            rx.badge(
                                "publish", color_scheme="green", high_contrast=True, size="2", id="decision-publish"
                            ),
                            rx.badge("don't publish", color_scheme="gray", size="2", id="decision-publish"),
                        ),
                        rx.cond(
                            RulePreviewState.decision_topic != "",
                            rx.badge(
                                "→ " + RulePreviewState.decision_topic, variant="outline", size="2", id="decision-topic"
                            ),
                        ),
                        rx.text(
                            "confidence " + RulePreviewState.decision_confidence.to_string() + "%",
                            size="1",
                            id="decision-confidence",
                        ),
                        align="center",
                        spacing="2",
                        wrap="wrap",
                    ),
                    rx.text(RulePreviewState.decision_reason, size="2", id="decision-reason"),
                    rx.table.root(
                        rx.table.header(
                            rx.table.row(
                                *[rx.table.column_header_cell(h) for h in ("Topic", "Belief", "Priority", "Why")]
                            )
                        ),
                        rx.table.body(rx.foreach(RulePreviewState.scores, _score_row)),
                        size="1",
                        width="100%",
                        id="decision-scores",
                        # on a phone a score is a card: its topic, its belief and priority, why
                        class_name="card-rows",
                    ),
                    rx.cond(
                        ~RulePreviewState.decision_publish,
                        rx.text(
                            "Not published, so no topic gets it: the beliefs say which topic it would suit "
                            "if it were a result.",
                            size="1",
                            color=rx.color("gray", 11),
                            id="decision-scores-note",
                        ),
                    ),
                    rx.cond(
                        AuthState.is_admin & (RuleEditorState.selected_key != ""),
                        rx.hstack(
                            rx.button(
                                rx.icon("thumbs-up", size=14),
                                "Add as positive example",
                                size="1",
                                variant="soft",
                                on_click=RulePreviewState.add_test_as_example(True),
                                id="add-positive",
                            ),
                            rx.button(
                                rx.icon("thumbs-down", size=14),
                                "Add as negative example",
                                size="1",
                                variant="soft",
                                color_scheme="gray",
                                on_click=RulePreviewState.add_test_as_example(False),
                                id="add-negative",
                            ),
                            spacing="2",
                            wrap="wrap",
                        ),
                    ),
                    spacing="2",
                    width="100%",
                ),
            ),
            spacing="3",
            width="100%",
        ),
        width="100%",
    )


def _history_row(row: HistoryRow) -> rx.Component:
    # The summary line flows as text: a change that names many fields wraps like a sentence, the badge,
    # who and when stay on its lines (in a flex row they used to stack on lines of their own).
    return rx.el.details(
        rx.el.summary(
            rx.badge(row.action, size="1", margin_right="0.5rem", vertical_align="baseline"),
            rx.text.span(row.summary, size="2"),
            rx.text.span(" by " + row.actor, size="1", margin_left="0.5rem"),
            rx.text.span(
                rx.moment(row.created_at, from_now=True),
                size="1",
                color=rx.color("gray", 11),
                margin_left="0.5rem",
                white_space="nowrap",
            ),
            cursor="pointer",
            overflow_wrap="anywhere",
        ),
        rx.cond(
            row.changes.length() > 0,
            rx.table.root(
                rx.table.header(rx.table.row(*[rx.table.column_header_cell(h) for h in ("Field", "Before", "After")])),
                rx.table.body(rx.foreach(row.changes, _change_line)),
                size="1",
                width="100%",
                class_name="history-changes",
            ),
        ),
        rx.el.details(
            rx.el.summary(rx.text.span("Full rule, before and after (JSON)", size="1"), cursor="pointer"),
            _json_versions(row),
            class_name="history-json",
        ),
        padding_y="0.25rem",
    )


def _change_line(line: ChangeLine) -> rx.Component:
    """One changed field: what it said, what it says (a list one entry per line)."""
    return rx.table.row(
        rx.table.cell(rx.code(line.field, size="1"), white_space="nowrap"),
        rx.table.cell(
            rx.cond(
                line.before != "", rx.text(line.before, size="1"), rx.text("(none)", size="1", color_scheme="gray")
            ),
            white_space="pre-wrap",
            overflow_wrap="anywhere",
            background=rx.color("red", 2),
        ),
        rx.table.cell(
            rx.cond(line.after != "", rx.text(line.after, size="1"), rx.text("(none)", size="1", color_scheme="gray")),
            white_space="pre-wrap",
            overflow_wrap="anywhere",
            background=rx.color("green", 2),
        ),
    )


def _json_versions(row: HistoryRow) -> rx.Component:
    return rx.grid(
        # width 100% on the pre: without it the long JSON lines overflow into the other column
        rx.vstack(
            rx.text("Before", size="1", weight="medium"),
            rx.el.pre(row.before, font_size="11px", overflow="auto", max_height="16rem", width="100%", margin="0"),
            min_width="0",
            width="100%",
        ),
        rx.vstack(
            rx.text("After", size="1", weight="medium"),
            rx.el.pre(row.after, font_size="11px", overflow="auto", max_height="16rem", width="100%", margin="0"),
            min_width="0",
            width="100%",
        ),
        columns="2",
        spacing="3",
        width="100%",
    )


def history_panel() -> rx.Component:
    return rx.vstack(
        rx.heading("Change history", size="3"),
        rx.cond(
            RuleEditorState.history.length() > 0,
            rx.vstack(rx.foreach(RuleEditorState.history, _history_row), spacing="1", width="100%", id="rule-history"),
            rx.text("No changes recorded yet.", size="2", color=rx.color("gray", 11)),
        ),
        spacing="2",
        width="100%",
    )


def editor() -> rx.Component:
    return rx.vstack(
        editor_header(),
        rx.grid(
            rx.vstack(
                rx.text("Name", size="2", weight="medium"),
                rx.input(
                    value=RuleEditorState.name,
                    on_change=RuleEditorState.set_name,
                    read_only=READ_ONLY,
                    width="100%",
                    debounce_timeout=250,
                    id="rule-name",
                ),
                spacing="1",
            ),
            rx.vstack(
                rx.text("Description", size="2", weight="medium"),
                rx.input(
                    value=RuleEditorState.description,
                    on_change=RuleEditorState.set_description,
                    read_only=READ_ONLY,
                    width="100%",
                    debounce_timeout=250,
                    id="rule-description",
                ),
                spacing="1",
            ),
            columns="2",
            spacing="3",
            width="100%",
        ),
        rx.segmented_control.root(
            rx.segmented_control.item("Form", value="form"),
            rx.segmented_control.item("JSON", value="json"),
            value=RuleEditorState.mode,
            on_change=RuleEditorState.set_mode,
            size="1",
            id="rule-mode",
        ),
        _error_callout(),
        rx.cond(RuleEditorState.mode == "form", rule_form(), rule_json()),
        test_panel(),
        history_panel(),
        spacing="4",
        width="100%",
        min_width="0",
    )


def _template_groups() -> list[rx.Component]:
    """The templates under a heading per family, after "Blank rule"; arrows and typing move through them all."""
    parts: list[rx.Component] = []
    for family, choices in TEMPLATE_GROUPS:
        items = [rx.select.item(label, value=key) for key, label in choices]
        parts += [rx.select.separator(), rx.select.group(rx.select.label(family), *items)]
    return parts


def create_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("New topic"),
            # a form, so Enter in a box creates as Create does (a walkthrough pressed Enter and nothing happened)
            rx.form(
                rx.vstack(
                    rx.text("Start from", size="2", weight="medium"),
                    rx.select.root(
                        rx.select.trigger(id="new-template"),
                        rx.select.content(
                            rx.select.item("Blank rule", value="blank"),
                            *_template_groups(),
                        ),
                        value=CreateTopicState.new_template,
                        on_change=CreateTopicState.set_new_template,
                    ),
                    rx.text("Key (lower-case letters, digits, _; cannot change later)", size="2", weight="medium"),
                    rx.input(
                        value=CreateTopicState.new_key,
                        on_change=CreateTopicState.set_new_key,
                        placeholder="e.g. finance_market",
                        id="new-key",
                        name="key",
                    ),
                    rx.text("Name", size="2", weight="medium"),
                    rx.input(
                        value=CreateTopicState.new_name,
                        on_change=CreateTopicState.set_new_name,
                        placeholder="e.g. Markets",
                        id="new-name",
                        name="name",
                    ),
                    rx.cond(
                        CreateTopicState.new_error != "",
                        rx.callout(
                            CreateTopicState.new_error,
                            color_scheme="red",
                            icon="triangle-alert",
                            size="1",
                            id="new-error",
                        ),
                    ),
                    rx.hstack(
                        rx.dialog.close(rx.button("Cancel", variant="soft", color_scheme="gray", type="button")),
                        rx.button("Create", type="submit", id="new-create"),
                        justify="end",
                        width="100%",
                    ),
                    spacing="2",
                ),
                on_submit=CreateTopicState.submit_create,
                reset_on_submit=False,
                id="new-topic-form",
            ),
        ),
        open=CreateTopicState.create_open,
        on_open_change=CreateTopicState.set_create_open,
    )


def rules_unsaved_dialog() -> rx.Component:
    """Unsaved edits stop opening another topic, another bot, New topic or Back until the person chooses."""
    return unsaved_dialog(
        is_open=RulesState.pending_url != "",
        description="Your changes to " + RulesState.pending_topic + " are not saved. Discard them, or keep editing "
        "and save first.",
        on_keep=RulesState.keep_editing,
        on_discard=RulesState.discard_and_go,
        on_open_change=RulesState.set_unsaved_open,
        id_prefix="rules",
    )


def delete_dialog() -> rx.Component:
    return confirm_dialog(
        title="Delete topic " + RuleEditorState.selected_key + "?",
        description=rx.cond(
            DeleteTopicState.delete_item_count > 0,
            "It has " + DeleteTopicState.delete_item_count.to_string() + " items. What should happen to them?",
            "It has no items. Bots can no longer publish to it; its rule's history is kept.",
        ),
        body=rx.cond(
            DeleteTopicState.delete_item_count > 0,
            rx.radio_group.root(
                rx.vstack(
                    rx.radio_group.item("Move them to the fallback topic", value="move"),
                    rx.radio_group.item("Delete them", value="delete"),
                ),
                value=DeleteTopicState.delete_items,
                on_change=DeleteTopicState.set_delete_items,
                id="delete-items-choice",
            ),
        ),
        action_label="Delete topic",
        action_color="red",
        on_confirm=DeleteTopicState.confirm_delete,
        action_id="delete-confirm",
        is_open=DeleteTopicState.delete_open,
        on_open_change=DeleteTopicState.set_delete_open,
    )


def _limit_input(label: str, value: rx.Var, on_change: rx.EventHandler, unit: str, input_id: str) -> rx.Component:
    return rx.hstack(
        rx.text(label, size="2", width="7rem"),
        rx.input(
            value=value,
            on_change=on_change,
            placeholder="no limit",
            input_mode="numeric",
            width="8rem",
            id=input_id,
            aria_label=label,
        ),
        rx.text(unit, size="2", color=rx.color("gray", 11)),
        align="center",
        spacing="2",
    )


def retention_dialog() -> rx.Component:
    """Keep N days and/or the newest N items; the dry-run count; Purge now (admins)."""
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Retention of " + RuleEditorState.selected_key),
            rx.dialog.description(
                "Older items are deleted in the background every few minutes, in small batches. "
                "Pinned items are kept regardless. Leave a box empty for no limit.",
                size="2",
            ),
            rx.vstack(
                _limit_input("Keep for", RetentionState.keep_days, RetentionState.set_keep_days, "days", "keep-days"),
                _limit_input(
                    "Keep at most", RetentionState.keep_items, RetentionState.set_keep_items, "items", "keep-items"
                ),
                rx.cond(
                    RetentionState.retention_error != "",
                    rx.callout(
                        RetentionState.retention_error,
                        icon="triangle-alert",
                        color_scheme="red",
                        size="1",
                        id="retention-error",
                    ),
                ),
                rx.callout(
                    rx.cond(
                        (RetentionState.saved_days == 0) & (RetentionState.saved_items == 0),
                        "This topic keeps everything.",
                        rx.cond(
                            RetentionState.would_purge > 0,
                            RetentionState.would_purge.to_string()
                            + rx.cond(RetentionState.would_purge == 1, " item is", " items are")
                            + " outside the saved retention now and will be deleted by the next purge.",
                            "Nothing is outside the saved retention now.",
                        ),
                    ),
                    icon="info",
                    size="1",
                    id="retention-dry-run",
                ),
                spacing="3",
                margin_top="1rem",
                width="100%",
            ),
            rx.hstack(
                rx.cond(
                    AuthState.is_admin,
                    rx.button(
                        rx.icon("trash-2", size=14),
                        "Delete " + RetentionState.would_purge.to_string() + " now",
                        color_scheme="red",
                        variant="soft",
                        on_click=RetentionState.purge_now,
                        disabled=RetentionState.would_purge == 0,
                        id="retention-purge",
                    ),
                ),
                rx.spacer(),
                rx.dialog.close(rx.button("Close", variant="soft", color_scheme="gray", id="retention-close")),
                rx.cond(
                    AuthState.is_admin,
                    rx.button("Save", on_click=RetentionState.save_retention, id="retention-save"),
                ),
                spacing="2",
                margin_top="1rem",
                width="100%",
            ),
        ),
        open=RetentionState.retention_open,
        on_open_change=RetentionState.set_retention_open,
    )


def rules_page() -> rx.Component:
    return page_shell(
        rx.hstack(
            rx.heading("Rules", size="5", id="page-title"),
            rx.select.root(
                rx.select.trigger(placeholder="Choose a bot", id="rules-bot-select", aria_label="Bot"),
                rx.select.content(rx.foreach(RulesState.bots, _bot_option)),
                value=RulesState.bot_id,
                on_change=RulesState.select_bot,
            ),
            rx.spacer(),
            rx.cond(
                AuthState.is_admin & (RulesState.bot_id != ""),
                rx.button(rx.icon("plus", size=14), "New topic", on_click=CreateTopicState.open_create, id="new-topic"),
            ),
            width="100%",
            align="center",
            spacing="4",
            # a long bot name pushed New topic off a phone's screen
            wrap="wrap",
            padding_bottom="1rem",
        ),
        # A link that named a topic this page cannot open says so here (and opens nothing), never an error page.
        rx.cond(
            RulesState.link_note != "",
            rx.callout(
                RulesState.link_note,
                icon="info",
                color_scheme="amber",
                size="1",
                width="100%",
                margin_bottom="1rem",
                id="rules-link-note",
            ),
        ),
        rx.cond(
            RulesState.bots.length() == 0,
            empty_state("bot", "No bots yet", "Create a bot first; its topics and rules are edited here."),
            rx.grid(
                rx.vstack(
                    topics_table(),
                    rx.cond(
                        READ_ONLY,
                        rx.callout(
                            "You can read the rules; only admins change them.",
                            icon="eye",
                            size="1",
                            id="read-only-note",
                        ),
                    ),
                    width="100%",
                    # Side by side, the topics stay in view while a long rule, its test and its history scroll.
                    position=rx.breakpoints(initial="static", lg="sticky"),
                    top="0",
                    align_self="start",
                    id="rules-topics-column",
                ),
                rx.cond(
                    RuleEditorState.has_selection,
                    editor(),
                    empty_state(
                        "mouse-pointer-click", "Choose a topic", "Its rule, a live test and its history appear here."
                    ),
                ),
                # the topics never narrower than their table's words (a name squeezed beside the editor broke
                # mid-word, the last item's time was cut off)
                grid_template_columns=rx.breakpoints(
                    initial="minmax(0, 1fr)", lg="minmax(min-content, 2fr) minmax(0, 3fr)"
                ),
                spacing="5",
                width="100%",
            ),
        ),
        create_dialog(),
        delete_dialog(),
        rules_unsaved_dialog(),
        retention_dialog(),
        # pressed on Back/Forward within the page (state.FOLLOW_HISTORY), with the address it went to
        hidden_button("rules-history-sync", RulesState.follow_address(rx.Var("window.location.search").to(str))),
        title="Rules",
    )
