"""Accounts, login sessions, API tokens and the first-admin setup token."""

from datetime import timedelta

import pytest
import sqlalchemy as sa
from sqlmodel import Session, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import LoginSession, User, utcnow
from topic_dashboard.services import accounts


def _code(excinfo: pytest.ExceptionInfo[AppError]) -> str:
    return excinfo.value.code


def test_passwords_are_stored_as_argon2id_hashes(session: Session) -> None:
    accounts.create_user(session=session, username="ada", password="correct horse battery", role="admin")
    stored = session.exec(select(User)).one()
    assert stored.password_hash.startswith("$argon2id$")
    assert "correct horse" not in stored.password_hash


@pytest.mark.parametrize(
    ("username", "password", "role", "code"),
    [
        ("ada", "short", "admin", "weak_password"),
        ("", "long enough password", "admin", "validation_error"),
        ("../etc", "long enough password", "admin", "validation_error"),
        ("ada", "long enough password", "root", "validation_error"),
    ],
)
def test_bad_accounts_are_refused_and_nothing_is_stored(
    session: Session, username: str, password: str, role: str, code: str
) -> None:
    with pytest.raises(AppError) as excinfo:
        accounts.create_user(session=session, username=username, password=password, role=role)
    assert _code(excinfo) == code
    assert accounts.count_users(session=session) == 0


def test_duplicate_usernames_are_refused(session: Session) -> None:
    accounts.create_user(session=session, username="ada", password="long enough password", role="viewer")
    with pytest.raises(AppError) as excinfo:
        accounts.create_user(session=session, username="ada", password="another long password", role="admin")
    assert _code(excinfo) == "user_exists"
    assert session.exec(select(User)).one().role == "viewer"


@pytest.mark.parametrize("twin", ["ADA", "Ada", " aDa "])
def test_a_name_that_differs_only_in_case_is_refused(session: Session, twin: str) -> None:
    """A walkthrough created "ALICE" beside the admin "alice": the two read as one person in the audit log."""
    accounts.create_user(session=session, username="ada", password="long enough password", role="admin")
    with pytest.raises(AppError) as excinfo:
        accounts.create_user(session=session, username=twin, password="another long password", role="viewer")
    assert _code(excinfo) == "user_exists"
    assert "as 'ada'" in excinfo.value.message
    assert [user.username for user in session.exec(select(User)).all()] == ["ada"]


def test_log_in_resolve_and_log_out(session: Session) -> None:
    accounts.create_user(session=session, username="ada", password="long enough password", role="viewer")
    user, token = accounts.log_in(session=session, username="ada", password="long enough password", ttl_hours=1)
    assert user.role == "viewer"
    principal = accounts.resolve_login(session=session, token=token)
    assert (principal.name, principal.role, principal.is_admin) == ("ada", "viewer", False)
    assert token not in str(session.exec(sa.text("SELECT token_hash FROM login_session")).all())  # type: ignore[call-overload]
    accounts.log_out(session=session, token=token)
    with pytest.raises(AppError) as excinfo:
        accounts.resolve_login(session=session, token=token)
    assert _code(excinfo) == "unauthorized"


@pytest.mark.parametrize(("username", "password"), [("ada", "wrong password!"), ("nobody", "long enough password")])
def test_wrong_credentials_get_one_answer(session: Session, username: str, password: str) -> None:
    accounts.create_user(session=session, username="ada", password="long enough password", role="admin")
    with pytest.raises(AppError) as excinfo:
        accounts.log_in(session=session, username=username, password=password, ttl_hours=1)
    assert (_code(excinfo), excinfo.value.message) == ("invalid_credentials", "wrong username or password")


def test_sessions_expire(session: Session) -> None:
    accounts.create_user(session=session, username="ada", password="long enough password", role="admin")
    _, token = accounts.log_in(session=session, username="ada", password="long enough password", ttl_hours=1)
    login = session.exec(select(LoginSession)).one()
    login.expires_at = utcnow() - timedelta(seconds=1)
    session.add(login)
    session.commit()
    with pytest.raises(AppError) as excinfo:
        accounts.resolve_login(session=session, token=token)
    assert _code(excinfo) == "session_expired"


def test_api_tokens_and_the_admin_token_setting(session: Session) -> None:
    viewer_token = accounts.create_api_token(session=session, name="grafana", role="viewer")
    principal = accounts.resolve_api_token(session=session, token=viewer_token, admin_token=None)
    assert (principal.name, principal.role) == ("grafana", "viewer")
    with pytest.raises(AppError) as excinfo:
        accounts.require_admin(principal)
    assert _code(excinfo) == "forbidden"
    master_key = "master-key-" + "0123456789" * 3  # the setting must be at least 32 characters
    master = accounts.resolve_api_token(session=session, token=master_key, admin_token=master_key)
    assert master.is_admin and master.kind == "admin_token"
    for bad in ("", "tda_unknown", viewer_token + "x"):
        with pytest.raises(AppError) as excinfo:
            accounts.resolve_api_token(session=session, token=bad, admin_token=master_key)
        assert _code(excinfo) == "unauthorized"


def test_setup_token_creates_the_first_admin_once(session: Session) -> None:
    first = accounts.issue_setup_token(session=session)
    token = accounts.issue_setup_token(session=session)  # a restart prints a new one; the old one dies
    assert first and token and first != token
    with pytest.raises(AppError) as excinfo:
        accounts.redeem_setup_token(session=session, token=first, username="ada", password="long enough password")
    assert _code(excinfo) == "unauthorized"
    # a typo or an older token: where the current one is, and how to get a new one without a restart
    assert "the last one the dashboard printed (it starts with tdsetup_)" in excinfo.value.message
    assert "topic-dashboard setup-token" in excinfo.value.message
    admin = accounts.redeem_setup_token(session=session, token=token, username="ada", password="long enough password")
    assert admin.role == "admin"
    assert accounts.issue_setup_token(session=session) is None
    with pytest.raises(AppError) as excinfo:
        accounts.redeem_setup_token(session=session, token=token, username="eve", password="long enough password")
    assert _code(excinfo) == "setup_done"
    assert accounts.count_users(session=session) == 1
