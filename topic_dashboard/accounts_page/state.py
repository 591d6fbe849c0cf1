"""The Accounts page's state (admins): people and API tokens, each change through the accounts service,
audited with the admin who made it. Secrets (a one-time password, a new token) are shown once and
leave the state when their dialog closes."""

from __future__ import annotations

import dataclasses

import reflex as rx

from topic_dashboard.auth.guard import SignedInState, admin_only
from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.security import new_one_time_password
from topic_dashboard.services import accounts
from topic_dashboard.services.audit import actor_of

# What `ask` may queue for the confirmation dialog: (action, what it does, the button's words).
CONFIRMABLE = {
    "disable": "Disable",
    "delete": "Delete",
    "reset_password": "Reset password",
    "log_out_everywhere": "Log out everywhere",
    "revoke_token": "Revoke",
}

# The new API token's boxes as the page labels them (accounts_page/page.py), and their errors name them so
# (a walkthrough read "expires in" beside the box and "expires_days: …" under it).
TOKEN_LABELS = {"name": "Name", "role": "Role", "expires_days": "Expires in (days)"}


def _token_error(error: AppError) -> str:
    """The service's message, its field ("expires_days: …") named as the form labels it."""
    field = error.field or ""
    label = TOKEN_LABELS.get(field)
    if label is None or not error.message.startswith(field):
        return error.message
    return label + error.message[len(field) :]


@dataclasses.dataclass
class AccountRow:
    username: str = ""
    role: str = ""
    is_active: bool = True
    must_change_password: bool = False
    created: str = ""  # "YYYY-MM-DD", UTC
    last_login: str = ""  # "YYYY-MM-DD HH:MM" UTC, or "never"
    is_you: bool = False


@dataclasses.dataclass
class TokenRow:
    id: int = 0
    name: str = ""
    role: str = ""
    created: str = ""
    last_used: str = ""
    expires: str = ""
    state: str = ""  # active | expired | revoked


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _minutes(iso: str | None, never: str = "never") -> str:
    return iso[:16].replace("T", " ") if iso else never


class AccountsState(SignedInState):
    allowed: bool = False  # an admin is looking (viewers get the page's explanation, no data)
    people: list[AccountRow] = []
    tokens: list[TokenRow] = []
    # a new person
    new_username: str = ""
    new_role: str = "viewer"
    new_user_error: str = ""
    # a new API token
    new_token_name: str = ""
    new_token_role: str = "viewer"
    new_token_days: str = str(accounts.DEFAULT_API_TOKEN_DAYS)
    new_token_error: str = ""
    # the confirmation dialog
    confirm_action: str = ""
    confirm_target: str = ""  # a username, or a token's id
    confirm_label: str = ""  # what the dialog names: the username or the token's name
    # a secret shown once (a one-time password or a token)
    secret_title: str = ""
    secret_hint: str = ""
    secret_value: str = ""

    @rx.var
    def confirm_open(self) -> bool:
        return self.confirm_action != ""

    @rx.var
    def confirm_button(self) -> str:
        return CONFIRMABLE.get(self.confirm_action, "")

    @rx.var
    def secret_open(self) -> bool:
        return self.secret_value != ""

    @rx.var
    def people_summary(self) -> str:
        admins = sum(1 for person in self.people if person.role == "admin" and person.is_active)
        return f"{_count(len(self.people), 'account')} · {_count(admins, 'active admin')}"

    @rx.event
    def load_page(self) -> None:
        self.allowed = self._is_admin()
        if self.allowed:
            self._load()
        else:
            self.people, self.tokens = [], []

    def _load(self) -> None:
        you = self._principal().name
        with read_session() as session:
            people = accounts.list_users(session=session)
            tokens = accounts.list_api_tokens(session=session)
        self.people = [
            AccountRow(
                username=p.username,
                role=p.role,
                is_active=p.is_active,
                must_change_password=p.must_change_password,
                created=p.created_at[:10],
                last_login=_minutes(p.last_login_at),
                is_you=p.username == you,
            )
            for p in people
        ]
        # Newest first: the token just made is on top; revoked and expired ones stay listed for the record.
        self.tokens = [
            TokenRow(
                id=t.id,
                name=t.name,
                role=t.role,
                created=t.created_at[:10],
                last_used=_minutes(t.last_used_at),
                expires=t.expires_at[:10],
                state=t.state,
            )
            for t in reversed(tokens)
        ]

    @rx.event
    @admin_only
    def refresh(self) -> None:
        self._load()

    # --- a new person ---------------------------------------------------------------------------

    @rx.event
    def set_new_username(self, value: str) -> None:
        self.new_username = value[:100]  # the service says when it is too long; nothing is cut silently
        self.new_user_error = ""

    @rx.event
    def set_new_role(self, value: str) -> None:
        self.new_role = value if value in accounts.ROLES else "viewer"

    @rx.event
    @admin_only
    def create_user(self) -> rx.event.EventSpec | None:
        """Create the account with a one-time password (shown once): the person chooses their own at
        their first log-in, so the admin never knows it."""
        username = self.new_username.strip()
        password = new_one_time_password(username or "x")
        try:
            with write_session() as session:
                created = accounts.create_user(
                    session=session,
                    username=username,
                    password=password,
                    role=self.new_role,
                    must_change_password=True,
                    actor=actor_of(self._principal()),
                )
        except AppError as error:
            self.new_user_error = error.message
            return None
        self.new_username, self.new_role, self.new_user_error = "", "viewer", ""
        self._load()
        self._show_secret(
            f"{created.username} can log in now",
            f"Give {created.username} this one-time password. It logs in once, to choose their own password, "
            "and is not shown again.",
            password,
        )
        return rx.toast.success(f"Created {created.role} {created.username!r}")

    # --- changes to a person ----------------------------------------------------------------------

    @rx.event
    @admin_only
    def set_role(self, username: str, role: str) -> rx.event.EventSpec | None:
        try:
            with write_session() as session:
                changed = accounts.set_user_role(
                    session=session, username=username, role=role, actor=actor_of(self._principal())
                )
        except AppError as error:
            self._load()  # the select shows the stored role again
            return rx.toast.error(error.message)
        self._load()
        return rx.toast.success(f"{changed.username!r} is now {changed.role}")

    @rx.event
    @admin_only
    def enable(self, username: str) -> rx.event.EventSpec | None:
        try:
            with write_session() as session:
                accounts.set_user_active(
                    session=session, username=username, active=True, actor=actor_of(self._principal())
                )
        except AppError as error:
            return rx.toast.error(error.message)
        self._load()
        return rx.toast.success(f"Enabled {username!r}: they can log in with their password")

    @rx.event
    def ask(self, action: str, target: str) -> None:
        """Queue an action for the confirmation dialog (nothing changes until `confirm`)."""
        if action not in CONFIRMABLE:
            return
        label = target
        if action == "revoke_token":
            label = next((t.name for t in self.tokens if str(t.id) == str(target)), str(target))
        self.confirm_action, self.confirm_target, self.confirm_label = action, str(target), label

    @rx.event
    def set_confirm_open(self, value: bool) -> None:
        if not value:
            self.confirm_action = self.confirm_target = self.confirm_label = ""

    @rx.event
    @admin_only
    def confirm(self) -> rx.event.EventSpec | None:
        action, target = self.confirm_action, self.confirm_target
        self.confirm_action = self.confirm_target = self.confirm_label = ""
        actor = actor_of(self._principal())
        password = ""
        try:
            with write_session() as session:
                if action == "disable":
                    accounts.set_user_active(session=session, username=target, active=False, actor=actor)
                    done = f"Disabled {target!r}: their sessions have ended"
                elif action == "delete":
                    accounts.delete_user(session=session, username=target, actor=actor)
                    done = f"Deleted {target!r}"
                elif action == "reset_password":
                    password = accounts.reset_password(session=session, username=target, actor=actor)
                    done = f"Reset the password of {target!r}"
                elif action == "log_out_everywhere":
                    ended = accounts.log_out_everywhere(session=session, username=target, actor=actor)
                    done = f"Ended {ended} login session(s) of {target!r}"
                elif action == "revoke_token":
                    revoked = accounts.revoke_api_token(session=session, token_id=_token_id(target), actor=actor)
                    done = f"Revoked the API token {revoked.name!r}: it stopped working"
                else:
                    return None
        except AppError as error:
            self._load()  # changed elsewhere meanwhile (another admin, the CLI): show what is stored now
            return rx.toast.error(error.message)
        self._load()
        if password:
            self._show_secret(
                f"New one-time password for {target}",
                f"Their sessions have ended. Give {target} this password: it logs in once, to choose a new "
                "password, and is not shown again.",
                password,
            )
        return rx.toast.success(done)

    # --- API tokens -------------------------------------------------------------------------------

    @rx.event
    def set_new_token_name(self, value: str) -> None:
        self.new_token_name = value[:100]
        self.new_token_error = ""

    @rx.event
    def set_new_token_role(self, value: str) -> None:
        self.new_token_role = value if value in accounts.ROLES else "viewer"

    @rx.event
    def set_new_token_days(self, value: str) -> None:
        self.new_token_days = value[:5]
        self.new_token_error = ""

    @rx.event
    @admin_only
    def create_token(self) -> rx.event.EventSpec | None:
        try:
            days = int(self.new_token_days.strip())
        except ValueError:
            label = TOKEN_LABELS["expires_days"]
            self.new_token_error = f"{label}: a whole number of days from 1 to {accounts.MAX_API_TOKEN_DAYS}"
            return None
        try:
            with write_session() as session:
                created, token = accounts.issue_api_token(
                    session=session,
                    name=self.new_token_name,
                    role=self.new_token_role,
                    expires_days=days,
                    actor=actor_of(self._principal()),
                )
        except AppError as error:
            self.new_token_error = _token_error(error)
            return None
        self.new_token_name, self.new_token_error, self.new_token_role = "", "", "viewer"
        self.new_token_days = str(accounts.DEFAULT_API_TOKEN_DAYS)
        self._load()
        self._show_secret(
            f"API token {created.name!r}",
            f"Send it as 'Authorization: Bearer <token>'. It works until {created.expires_at[:10]} with the "
            f"{created.role} role, and is not shown again: store it now.",
            token,
        )
        return None

    # --- the secret shown once --------------------------------------------------------------------

    def _show_secret(self, title: str, hint: str, value: str) -> None:
        self.secret_title, self.secret_hint, self.secret_value = title, hint, value

    @rx.event
    def set_secret_open(self, value: bool) -> None:
        if not value:  # shown once: nothing secret stays in the page's state after the dialog closes
            self.secret_title = self.secret_hint = self.secret_value = ""


def _token_id(target: str) -> int:
    """Raises api_token_not_found for anything that is not a token's id."""
    try:
        return int(target)
    except ValueError as exc:
        raise AppError("api_token_not_found", f"no API token with id {target!r}") from exc
