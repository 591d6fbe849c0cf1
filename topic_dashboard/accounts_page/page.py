"""The Accounts page (admins): people and API tokens."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.accounts_page.state import TOKEN_LABELS, AccountRow, AccountsState, TokenRow
from topic_dashboard.components.confirm_dialog import confirm_dialog
from topic_dashboard.components.layout import empty_state, page_shell
from topic_dashboard.services.accounts import MAX_API_TOKEN_DAYS, ROLES

S = AccountsState


def _role_select(
    value: rx.Var[str], on_change: rx.EventHandler | rx.event.EventSpec, label: rx.Var[str] | str, **props: str
) -> rx.Component:
    return rx.select.root(
        rx.select.trigger(aria_label=label, width="6rem", **props),
        rx.select.content(*[rx.select.item(role, value=role) for role in ROLES]),
        value=value,
        on_change=on_change,
        size="1",
    )


def _status(person: AccountRow) -> rx.Component:
    return rx.hstack(
        rx.cond(
            person.is_active,
            rx.badge("active", color_scheme="green", high_contrast=True, size="1"),
            rx.badge("disabled", color_scheme="red", size="1"),
        ),
        rx.cond(
            person.must_change_password,
            rx.badge(
                "must choose a password",
                color_scheme="amber",
                high_contrast=True,
                size="1",
                title="logs in with a one-time password, then chooses their own",
            ),
        ),
        spacing="1",
        wrap="wrap",
    )


def _person_actions(person: AccountRow) -> rx.Component:
    """One menu per row (it fits a phone and rows with long names); each item asks before it acts."""
    name = person.username
    return rx.cond(
        person.is_you,
        rx.text("you", size="1", color=rx.color("gray", 11)),
        rx.menu.root(
            rx.menu.trigger(
                rx.button(
                    "Actions",
                    rx.icon("chevron-down", size=12),
                    size="1",
                    variant="soft",
                    aria_label="Actions for " + name,
                )
            ),
            rx.menu.content(
                rx.cond(
                    person.is_active,
                    rx.menu.item("Disable", on_select=S.ask("disable", name), aria_label="Disable " + name),
                    rx.menu.item("Enable", on_select=S.enable(name), aria_label="Enable " + name),
                ),
                rx.menu.item(
                    "Reset password",
                    on_select=S.ask("reset_password", name),
                    aria_label="Reset the password of " + name,
                ),
                rx.menu.item(
                    "Log out everywhere",
                    on_select=S.ask("log_out_everywhere", name),
                    aria_label="Log " + name + " out everywhere",
                ),
                rx.menu.separator(),
                rx.menu.item("Delete", color="red", on_select=S.ask("delete", name), aria_label="Delete " + name),
            ),
        ),
    )


def _person_row(person: AccountRow) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(
            rx.vstack(
                rx.text(person.username, weight="medium"),
                rx.box(_status(person), display=["block", "block", "none"]),  # a phone has no Status column
                spacing="1",
                max_width=["9rem", "12rem", "16rem"],
                overflow_wrap="anywhere",
                word_break="break-all",
            ),
        ),
        rx.table.cell(
            rx.cond(
                person.is_you,
                rx.badge(person.role, variant="soft", size="1"),
                _role_select(person.role, lambda role: S.set_role(person.username, role), "Role of " + person.username),
            )
        ),
        rx.table.cell(_status(person), display=["none", "none", "table-cell"]),
        rx.table.cell(person.last_login, white_space="nowrap", display=["none", "none", "table-cell"]),
        rx.table.cell(person.created, white_space="nowrap", display=["none", "none", "table-cell"]),
        rx.table.cell(_person_actions(person)),
        id="person-" + person.username,
    )


def _create_form(
    fields: tuple[rx.Component, ...], error: rx.Var[str], error_id: str, submit: rx.EventHandler
) -> rx.Component:
    """A one-line form (fields, then its submit button) with its error under it; Enter submits."""
    return rx.form(
        rx.hstack(*fields, align="center", spacing="2", wrap="wrap"),
        rx.cond(error != "", rx.text(error, size="1", color=rx.color("red", 11), id=error_id, margin_top="0.25rem")),
        on_submit=lambda _: submit(),
        reset_on_submit=False,
    )


def _new_person() -> rx.Component:
    return _create_form(
        (
            rx.input(
                value=S.new_username,
                on_change=S.set_new_username,
                placeholder="username",
                aria_label="New username",
                max_length=64,
                id="new-username",
                width="14rem",
            ),
            _role_select(S.new_role, S.set_new_role, "Role of the new account"),
            rx.button(rx.icon("user-plus", size=14), "Add person", type="submit", id="create-user"),
            rx.text(
                "They get a one-time password and choose their own at their first log-in.",
                size="1",
                color=rx.color("gray", 11),
            ),
        ),
        S.new_user_error,
        "new-user-error",
        S.create_user,
    )


def people_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading("People", size="3"),
                rx.badge(S.people_summary, variant="soft", color_scheme="gray", id="people-summary"),
                align="center",
                spacing="2",
            ),
            rx.text(
                "Admins change bots, topics, rules and accounts; viewers read and keep their own reading state. "
                "The last active admin cannot be disabled, demoted or deleted, and nobody can lock themselves out here.",
                size="1",
                color=rx.color("gray", 11),
            ),
            _new_person(),
            rx.table.root(
                rx.table.header(
                    rx.table.row(
                        rx.table.column_header_cell("Username"),
                        rx.table.column_header_cell("Role"),
                        rx.table.column_header_cell("Status", display=["none", "none", "table-cell"]),
                        rx.table.column_header_cell("Last log-in (UTC)", display=["none", "none", "table-cell"]),
                        rx.table.column_header_cell("Created", display=["none", "none", "table-cell"]),
                        rx.table.column_header_cell(""),
                    )
                ),
                rx.table.body(rx.foreach(S.people, _person_row)),
                variant="surface",
                size="1",
                width="100%",
                id="people-table",
            ),
            spacing="3",
            width="100%",
        ),
        width="100%",
    )


def _token_state(token: TokenRow) -> rx.Component:
    return rx.match(
        token.state,
        ("active", rx.badge("active", color_scheme="green", high_contrast=True, size="1")),
        ("expired", rx.badge("expired", color_scheme="amber", high_contrast=True, size="1")),
        rx.badge(token.state, color_scheme="gray", size="1"),
    )


def _token_row(token: TokenRow) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(
            rx.text(token.name, weight="medium"), max_width="14rem", overflow_wrap="anywhere", word_break="break-all"
        ),
        rx.table.cell(rx.badge(token.role, variant="soft", size="1")),
        rx.table.cell(_token_state(token)),
        rx.table.cell(token.last_used, white_space="nowrap", display=["none", "none", "table-cell"]),
        rx.table.cell(token.created, white_space="nowrap", display=["none", "none", "table-cell"]),
        rx.table.cell(token.expires, white_space="nowrap"),
        rx.table.cell(
            rx.cond(
                token.state == "active",
                rx.button(
                    "Revoke",
                    size="1",
                    variant="soft",
                    color_scheme="red",
                    on_click=S.ask("revoke_token", token.id.to_string()),
                    aria_label="Revoke " + token.name,
                ),
            )
        ),
        id="token-" + token.id.to_string(),
    )


def _labelled(label: str, input_id: str, field: rx.Component) -> rx.Component:
    """A box with its label beside it (a <label for=…>: it names the box, and a click on it focuses it)."""
    return rx.hstack(
        rx.text(label, as_="label", size="2", custom_attrs={"for": input_id}),
        field,
        align="center",
        spacing="2",
    )


def _new_token() -> rx.Component:
    return _create_form(
        (
            _labelled(
                TOKEN_LABELS["name"],
                "new-token-name",
                rx.input(
                    value=S.new_token_name,
                    on_change=S.set_new_token_name,
                    placeholder="who uses it (e.g. ci-export)",
                    id="new-token-name",
                    width="14rem",
                ),
            ),
            _labelled(
                TOKEN_LABELS["role"],
                "new-token-role",
                _role_select(S.new_token_role, S.set_new_token_role, "Role of the new token", id="new-token-role"),
            ),
            _labelled(
                TOKEN_LABELS["expires_days"],
                "new-token-days",
                rx.input(
                    value=S.new_token_days,
                    on_change=S.set_new_token_days,
                    input_mode="numeric",
                    placeholder=f"1 to {MAX_API_TOKEN_DAYS}",
                    id="new-token-days",
                    width="5.5rem",
                ),
            ),
            rx.button(rx.icon("key-round", size=14), "Create token", type="submit", id="create-token"),
        ),
        S.new_token_error,
        "new-token-error",
        S.create_token,
    )


def tokens_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(rx.heading("API tokens", size="3"), align="center"),
            rx.text(
                "For scripts and other programs using the REST API (/api/openapi.json). A token is shown once, "
                "stored hashed, and stops working when it expires or is revoked.",
                size="1",
                color=rx.color("gray", 11),
            ),
            _new_token(),
            rx.cond(
                S.tokens.length() > 0,
                rx.table.root(
                    rx.table.header(
                        rx.table.row(
                            rx.table.column_header_cell("Name"),
                            rx.table.column_header_cell("Role"),
                            rx.table.column_header_cell("State"),
                            rx.table.column_header_cell("Last used (UTC)", display=["none", "none", "table-cell"]),
                            rx.table.column_header_cell("Created", display=["none", "none", "table-cell"]),
                            rx.table.column_header_cell("Expires"),
                            rx.table.column_header_cell(""),
                        )
                    ),
                    rx.table.body(rx.foreach(S.tokens, _token_row)),
                    variant="surface",
                    size="1",
                    width="100%",
                    id="tokens-table",
                ),
                rx.text("No API tokens yet.", size="2", color=rx.color("gray", 11), id="no-tokens"),
            ),
            spacing="3",
            width="100%",
        ),
        width="100%",
    )


def account_action_dialog() -> rx.Component:
    descriptions = rx.match(
        S.confirm_action,
        ("disable", "They cannot log in until an admin enables them again; their open sessions end now."),
        (
            "delete",
            "The account, its login sessions and its own reading state are deleted. The audit trail keeps its actions.",
        ),
        (
            "reset_password",
            "Their password stops working and their sessions end. You get a one-time password to give them.",
        ),
        ("log_out_everywhere", "Every open session of this account ends; they can log in again with their password."),
        ("revoke_token", "Programs using this token are refused from now on. This cannot be undone."),
        "",
    )
    return confirm_dialog(
        title=S.confirm_button + ": " + S.confirm_label + "?",
        description=descriptions,
        action_label=S.confirm_button,
        action_color=rx.cond(S.confirm_action == "log_out_everywhere", "amber", "red"),
        on_confirm=S.confirm,
        action_id="confirm-action",
        is_open=S.confirm_open,
        on_open_change=S.set_confirm_open,
    )


def secret_dialog() -> rx.Component:
    """Shown once: an alert dialog, so a click beside it does not throw the secret away; Done closes it."""
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title(S.secret_title),
            rx.alert_dialog.description(S.secret_hint, size="2"),
            rx.hstack(
                rx.code(S.secret_value, size="3", id="shown-secret", overflow_wrap="anywhere"),
                rx.icon_button(
                    rx.icon("copy", size=14),
                    variant="soft",
                    on_click=[rx.set_clipboard(S.secret_value), rx.toast.success("Copied")],
                    aria_label="Copy",
                ),
                align="center",
                spacing="2",
                margin_top="1rem",
            ),
            rx.hstack(
                rx.spacer(),
                rx.alert_dialog.action(rx.button("Done, I stored it", id="secret-done")),
                margin_top="1rem",
                width="100%",
            ),
        ),
        open=S.secret_open,
        on_open_change=S.set_secret_open,
    )


def accounts_page() -> rx.Component:
    return page_shell(
        rx.heading("Accounts", size="5", id="page-title", margin_bottom="1rem"),
        rx.cond(
            S.allowed,
            rx.vstack(people_card(), tokens_card(), spacing="4", width="100%"),
            empty_state(
                "users",
                "Only admins manage accounts",
                "Ask an admin to add a person, change a role or reset a password.",
            ),
        ),
        account_action_dialog(),
        secret_dialog(),
        title="Accounts",
    )
