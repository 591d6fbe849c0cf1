"""The login page, the one-time first-admin form while no account exists, and the change-password page."""

from __future__ import annotations

import reflex as rx

from topic_dashboard.auth.state import AuthState
from topic_dashboard.security import MIN_PASSWORD_LENGTH

PASSWORD_POLICY = (
    f"At least {MIN_PASSWORD_LENGTH} characters, not only spaces, not containing your username, "
    "and not a common password. A passphrase of four or more words works well."
)


def _field(label: str | rx.Var[str], name: str, type_: str = "text", **props: object) -> rx.Component:
    input_id = f"login-{name.replace('_', '-')}"
    return rx.vstack(
        # a <label for=…>: it names the field for assistive technology, and a click on it focuses the field
        rx.text(label, as_="label", size="2", weight="medium", custom_attrs={"for": input_id}),
        rx.input(name=name, type=type_, id=input_id, width="100%", size="3", **props),
        spacing="1",
        width="100%",
    )


def _error() -> rx.Component:
    return rx.cond(
        AuthState.login_error != "",
        rx.callout(AuthState.login_error, icon="triangle-alert", color_scheme="red", size="1", id="login-error"),
    )


def _submit(label: str, id_: str) -> rx.Component:
    # The page is served pre-rendered: until Reflex has hydrated it, the form is a plain HTML form that the
    # browser would submit itself, as a GET with the password in the URL. Disabled until then, it cannot be.
    return rx.button(label, type="submit", width="100%", size="3", id=id_, disabled=~rx.State.is_hydrated)


def login_form() -> rx.Component:
    return rx.form(
        rx.vstack(
            _field("Username", "username", auto_focus=True, required=True, auto_complete="username"),
            _field("Password", "password", "password", required=True, auto_complete="current-password"),
            _error(),
            _submit("Log in", "login-submit"),
            spacing="4",
            width="100%",
        ),
        on_submit=AuthState.log_in,
        reset_on_submit=False,
    )


def setup_form() -> rx.Component:
    return rx.form(
        rx.vstack(
            rx.text(
                "No account exists yet. Paste the setup token that make run printed, and choose the first admin's name and password.",
                size="2",
                color=rx.color("gray", 11),
            ),
            _field("Setup token", "setup_token", required=True, auto_complete="off"),
            _field("Admin username", "username", required=True, auto_complete="username"),
            _field("Password", "password", "password", required=True, auto_complete="new-password"),
            rx.text(PASSWORD_POLICY, size="1", color=rx.color("gray", 11), id="password-policy"),
            _error(),
            _submit("Create admin and log in", "setup-submit"),
            spacing="4",
            width="100%",
        ),
        on_submit=AuthState.set_up_first_admin,
        reset_on_submit=False,
    )


def change_password_form() -> rx.Component:
    return rx.form(
        rx.vstack(
            rx.text(
                rx.cond(
                    AuthState.must_change_password,
                    "An admin gave you a one-time password. Choose your own to continue.",
                    "Choose a new password. Your other sessions will be logged out.",
                ),
                size="2",
                color=rx.color("gray", 11),
                id="change-password-reason",
            ),
            _field(
                rx.cond(AuthState.must_change_password, "One-time password", "Current password"),
                "old_password",
                "password",
                auto_focus=True,
                required=True,
                auto_complete="current-password",
            ),
            _field("New password", "new_password", "password", required=True, auto_complete="new-password"),
            _field("New password again", "confirm_password", "password", required=True, auto_complete="new-password"),
            rx.text(PASSWORD_POLICY, size="1", color=rx.color("gray", 11), id="password-policy"),
            _error(),
            _submit("Change password", "change-password-submit"),
            rx.button("Log out", type="button", variant="ghost", size="2", on_click=AuthState.log_out, id="logout"),
            spacing="4",
            width="100%",
        ),
        on_submit=AuthState.change_password,
        # A refused change keeps what was typed, so only the wrong field is typed again; a change that
        # goes through leaves the page.
        reset_on_submit=False,
    )


def _auth_card(*children: rx.Component) -> rx.Component:
    return rx.center(
        rx.card(
            rx.vstack(
                rx.hstack(
                    rx.icon("layers", size=24, color=rx.color("accent", 9)),
                    rx.heading("Topic Dashboard", size="6"),
                    align="center",
                ),
                *children,
                spacing="4",
                width="100%",
            ),
            width="min(420px, 92vw)",
            size="4",
        ),
        rx.box(
            rx.color_mode.button(size="1", variant="ghost", aria_label="Switch light or dark theme"),
            position="fixed",
            top="1rem",
            right="1rem",
        ),
        min_height="100vh",
        background=rx.color("gray", 2),
    )


def login_page() -> rx.Component:
    return _auth_card(
        rx.text("Read, route and trust what your bots produce.", size="2", color=rx.color("gray", 11)),
        rx.cond(AuthState.needs_setup, setup_form(), login_form()),
    )


def _back_to_topics() -> rx.Component:
    """The way back to the app without changing anything. Not while a reset's one-time password is in
    use: every page leads back here until a new password is chosen."""
    return rx.cond(
        ~AuthState.must_change_password,
        rx.link(
            rx.hstack(rx.icon("arrow-left", size=14), rx.text("Back to topics", size="2"), spacing="1", align="center"),
            href="/",
            id="back-to-topics",
        ),
    )


def change_password_page() -> rx.Component:
    return _auth_card(
        _back_to_topics(),
        rx.text(AuthState.username, size="2", weight="medium", id="current-user"),
        change_password_form(),
    )
