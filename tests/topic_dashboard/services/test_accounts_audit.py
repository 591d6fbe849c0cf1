"""Account actions leave audit rows (docs/DESIGN.md §3.6), on every backend: log-ins and failed log-ins,
log-outs, each account change by whoever made it, API tokens created and revoked. No row holds a
password, a one-time password or a token."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session, col, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import AuditLog
from topic_dashboard.services import accounts
from topic_dashboard.services.audit import ACTIONS, REFUSED_ROWS_PER_MINUTE, Actor

PASSWORD = "long enough password"
NEW_PASSWORD = "a brand new passphrase"
ADA = Actor("user", "ada")


def _rows(session: Session) -> list[AuditLog]:
    session.expire_all()
    return list(session.exec(select(AuditLog).order_by(col(AuditLog.id))))


def _trail(session: Session) -> list[tuple[str, str, str, str, str | None]]:
    return [(r.tool, r.actor_kind, r.actor or "", r.outcome, r.target) for r in _rows(session)]


@pytest.fixture
def team(session: Session) -> Session:
    accounts.create_user(session=session, username="ada", password=PASSWORD, role="admin")
    accounts.create_user(session=session, username="bob", password=PASSWORD, role="viewer")
    return session


def test_each_account_change_names_who_made_it_and_what_changed(team: Session) -> None:
    accounts.create_user(session=team, username="cy", password=PASSWORD, role="viewer", actor=ADA)
    accounts.set_user_role(session=team, username="cy", role="admin", actor=ADA)
    accounts.set_user_active(session=team, username="cy", active=False, actor=ADA)
    accounts.set_user_active(session=team, username="cy", active=True, actor=ADA)
    one_time = accounts.reset_password(session=team, username="cy", actor=ADA)
    accounts.log_out_everywhere(session=team, username="bob", actor=Actor("system", "cli:root"))
    accounts.delete_user(session=team, username="cy", actor=ADA)

    assert _trail(team) == [
        ("user.create", "user", "ada", "ok", "user:cy"),
        ("user.set_role", "user", "ada", "ok", "user:cy"),
        ("user.disable", "user", "ada", "ok", "user:cy"),
        ("user.enable", "user", "ada", "ok", "user:cy"),
        ("user.reset_password", "user", "ada", "ok", "user:cy"),
        ("user.log_out_everywhere", "system", "cli:root", "ok", "user:bob"),
        ("user.delete", "user", "ada", "ok", "user:cy"),
    ]
    rows = _rows(team)
    assert json.loads(rows[1].detail or "{}") == {"before": "viewer", "after": "admin"}
    assert json.loads(rows[0].detail or "{}") == {"role": "viewer", "one_time_password": False}
    assert all(one_time not in (row.detail or "") for row in rows)
    assert {row.tool for row in rows} <= set(ACTIONS)


def test_a_refused_change_leaves_no_row_and_changes_nothing(team: Session) -> None:
    with pytest.raises(AppError) as refused:
        accounts.set_user_role(session=team, username="ada", role="viewer", actor=Actor("system", "cli:root"))
    assert refused.value.code == "last_admin"
    assert _trail(team) == []


def test_log_in_log_out_and_failed_log_ins_are_in_the_trail_without_passwords(team: Session) -> None:
    _, token = accounts.log_in(session=team, username="bob", password=PASSWORD, ttl_hours=1, address="10.0.0.7")
    accounts.log_out(session=team, token=token)
    accounts.log_out(session=team, token=token)  # already ended: nothing more to record
    for username, password in (("bob", "wrong password!"), ("nobody", PASSWORD), ("hunter2 pass word", "x")):
        with pytest.raises(AppError):
            accounts.log_in(session=team, username=username, password=password, ttl_hours=1, address="10.0.0.8")

    assert _trail(team) == [
        ("auth.login", "user", "bob", "ok", "user:bob"),
        ("auth.logout", "user", "bob", "ok", "user:bob"),
        ("auth.login", "user", "bob", "refused", "user:bob"),
        ("auth.login", "user", "nobody", "refused", "user:nobody"),
        # what was typed could be a password typed into the wrong field: it is not kept
        ("auth.login", "user", "(not a username)", "refused", "user:(not a username)"),
    ]
    rows = _rows(team)
    assert rows[2].error_code == "invalid_credentials"
    assert json.loads(rows[0].detail or "{}")["address"] == "10.0.0.7"
    assert all(PASSWORD not in (row.detail or "") and "wrong password!" not in (row.detail or "") for row in rows)


def test_a_password_guessing_flood_is_capped_per_minute(team: Session) -> None:
    for _ in range(REFUSED_ROWS_PER_MINUTE + 5):
        with pytest.raises(AppError):
            accounts.log_in(session=team, username="mallory", password="guess guess", ttl_hours=1, address=None)
    rows = [row for row in _rows(team) if row.actor == "mallory"]
    # The account locks after a few failures (too_many_attempts): those refusals are rows too, capped alike.
    assert len(rows) <= REFUSED_ROWS_PER_MINUTE + 1
    assert {row.error_code for row in rows} <= {"invalid_credentials", "too_many_attempts", None}


def test_a_password_change_is_recorded_by_the_person_and_a_wrong_current_password_is_refused(team: Session) -> None:
    with pytest.raises(AppError):
        accounts.change_password(session=team, username="bob", old_password="not it at all", new_password=NEW_PASSWORD)
    accounts.change_password(session=team, username="bob", old_password=PASSWORD, new_password=NEW_PASSWORD)
    assert [(t, kind, actor, outcome) for t, kind, actor, outcome, _ in _trail(team)] == [
        ("user.change_password", "user", "bob", "refused"),
        ("user.change_password", "user", "bob", "ok"),
    ]
    assert all(NEW_PASSWORD not in (row.detail or "") for row in _rows(team))


def test_api_tokens_created_and_revoked_are_in_the_trail_never_the_secret(team: Session) -> None:
    created, secret = accounts.issue_api_token(session=team, name="ci", role="viewer", expires_days=7, actor=ADA)
    accounts.revoke_api_token(session=team, token_id=created.id, actor=ADA)
    accounts.revoke_api_token(session=team, token_id=created.id, actor=ADA)  # already revoked: no second row
    assert _trail(team) == [
        ("api_token.create", "user", "ada", "ok", f"api_token:{created.id}"),
        ("api_token.revoke", "user", "ada", "ok", f"api_token:{created.id}"),
    ]
    rows = _rows(team)
    assert json.loads(rows[0].detail or "{}") == {"name": "ci", "role": "viewer", "expires_days": 7}
    assert all(secret not in (row.detail or "") for row in rows)


def test_a_person_cannot_lock_themselves_out_but_another_admin_can(team: Session) -> None:
    accounts.create_user(session=team, username="eve", password=PASSWORD, role="admin")
    for change in (
        lambda: accounts.set_user_active(session=team, username="ada", active=False, actor=ADA),
        lambda: accounts.set_user_role(session=team, username="ada", role="viewer", actor=ADA),
        lambda: accounts.delete_user(session=team, username="ada", actor=ADA),
    ):
        with pytest.raises(AppError) as refused:
            change()
        assert refused.value.code == "own_account"
    assert _trail(team) == []
    assert next((u.username, u.role, u.is_active) for u in accounts.list_users(session=team)) == ("ada", "admin", True)
    accounts.set_user_role(session=team, username="ada", role="viewer", actor=Actor("user", "eve"))
    assert _trail(team) == [("user.set_role", "user", "eve", "ok", "user:ada")]
