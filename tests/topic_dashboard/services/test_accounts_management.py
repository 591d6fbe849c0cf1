"""Managing accounts, on every backend: listing, disabling, roles, deleting, password resets and
changes, the last active admin who can never be locked out, and the migration that adds the reset flag."""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from tests.support.databases import backends, empty_database
from topic_dashboard.db import create_db_engine, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.migrate import alembic_config, upgrade_database
from topic_dashboard.models import ItemState, LoginSession, User, iso_utc
from topic_dashboard.security import hash_password, password_problems
from topic_dashboard.services import accounts

PASSWORD = "long enough password"
NEW_PASSWORD = "a brand new passphrase"


def _refused(code: str, fn: object, **kwargs: object) -> AppError:
    with pytest.raises(AppError) as excinfo:
        fn(**kwargs)  # type: ignore[operator]
    assert excinfo.value.code == code, excinfo.value
    return excinfo.value


def _log_in(session: Session, username: str, password: str = PASSWORD) -> tuple[accounts.UserPublic, str]:
    return accounts.log_in(session=session, username=username, password=password, ttl_hours=1, address=None)


def _user(session: Session, username: str) -> User:
    session.expire_all()
    return session.exec(select(User).where(User.username == username)).one()


@pytest.fixture
def team(session: Session) -> Session:
    """ada (admin), bob (viewer)."""
    accounts.create_user(session=session, username="ada", password=PASSWORD, role="admin")
    accounts.create_user(session=session, username="bob", password=PASSWORD, role="viewer")
    return session


# --- listing ---------------------------------------------------------------------------------------------


def test_list_users_shows_each_account_and_its_last_log_in_never_a_hash(team: Session) -> None:
    _log_in(team, "bob")
    _, latest = _log_in(team, "bob")
    listed = accounts.list_users(session=team)
    assert [(u.username, u.role, u.is_active, u.must_change_password) for u in listed] == [
        ("ada", "admin", True, False),
        ("bob", "viewer", True, False),
    ]
    ada, bob = listed
    assert ada.last_login_at is None
    newest = team.exec(select(LoginSession).order_by(sa.desc(LoginSession.id))).first()  # type: ignore[arg-type]
    assert newest is not None and bob.last_login_at is not None
    assert datetime.fromisoformat(bob.last_login_at) == datetime.fromisoformat(iso_utc(newest.created_at) or "")
    assert datetime.fromisoformat(ada.created_at).tzinfo is not None
    assert "argon2" not in str([u.model_dump() for u in listed])


# --- disabling ------------------------------------------------------------------------------------------


def test_a_disabled_user_cannot_log_in_and_their_sessions_stop_at_once(team: Session) -> None:
    _, token = _log_in(team, "bob")
    disabled = accounts.set_user_active(session=team, username="bob", active=False)
    assert disabled.is_active is False
    _refused("unauthorized", accounts.resolve_login, session=team, token=token)  # revoked, not only refused
    # The same answer as a wrong password: it does not tell a guesser that the account exists.
    error = _refused("invalid_credentials", _log_in, session=team, username="bob")
    assert error.message == accounts.INVALID_CREDENTIALS
    revoked = team.exec(select(LoginSession).where(LoginSession.user_id == _user(team, "bob").id)).one()
    assert revoked.revoked_at is not None  # ended, not only refused while disabled

    accounts.set_user_active(session=team, username="bob", active=True)
    _refused("unauthorized", accounts.resolve_login, session=team, token=token)  # the old session stays ended
    _, fresh = _log_in(team, "bob")
    assert accounts.resolve_login(session=team, token=fresh).name == "bob"


def test_the_last_active_admin_cannot_be_disabled_deleted_or_demoted(team: Session) -> None:
    _, token = _log_in(team, "ada")
    for fn, kwargs in (
        (accounts.set_user_active, {"active": False}),
        (accounts.delete_user, {}),
        (accounts.set_user_role, {"role": "viewer"}),
    ):
        error = _refused("last_admin", fn, session=team, username="ada", **kwargs)
        assert "last active admin" in error.message and error.status == 409
    ada = _user(team, "ada")
    assert (ada.role, ada.is_active) == ("admin", True)
    assert accounts.resolve_login(session=team, token=token).is_admin  # nothing was ended either


def test_a_disabled_admin_does_not_count_as_the_other_admin(team: Session) -> None:
    accounts.create_user(session=team, username="cy", password=PASSWORD, role="admin")
    accounts.set_user_active(session=team, username="cy", active=False)
    _refused("last_admin", accounts.set_user_active, session=team, username="ada", active=False)
    _refused("last_admin", accounts.delete_user, session=team, username="ada")
    accounts.set_user_active(session=team, username="cy", active=True)
    accounts.set_user_active(session=team, username="ada", active=False)  # cy is active now: allowed
    _refused("last_admin", accounts.set_user_role, session=team, username="cy", role="viewer")
    # A disabled admin is not the one keeping the dashboard manageable: it may be demoted or deleted.
    accounts.set_user_role(session=team, username="ada", role="viewer")
    accounts.delete_user(session=team, username="ada")
    assert [u.username for u in accounts.list_users(session=team)] == ["bob", "cy"]


def test_with_two_admins_one_can_be_disabled_then_the_other_is_the_last(team: Session) -> None:
    accounts.set_user_role(session=team, username="bob", role="admin")
    accounts.set_user_active(session=team, username="ada", active=False)
    _refused("last_admin", accounts.set_user_active, session=team, username="bob", active=False)
    assert _user(team, "bob").is_active


def test_two_admins_disabling_each_other_at_once_leave_one_admin(engine: Engine) -> None:
    with write_session(engine) as session:
        for name in ("ada", "cy"):
            accounts.create_user(session=session, username=name, password=PASSWORD, role="admin")
    start = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def disable(username: str) -> None:
        start.wait()
        try:
            with write_session(engine) as session:
                accounts.set_user_active(session=session, username=username, active=False)
            outcomes[username] = "disabled"
        except AppError as error:
            outcomes[username] = error.code

    threads = [threading.Thread(target=disable, args=(name,)) for name in ("ada", "cy")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes.values()) == ["disabled", "last_admin"], outcomes
    with Session(engine) as session:
        assert [u.username for u in accounts.list_users(session=session) if u.is_active] == [
            name for name, outcome in outcomes.items() if outcome == "last_admin"
        ]


# --- roles ------------------------------------------------------------------------------------------------


def test_a_role_change_applies_to_open_sessions_at_once(team: Session) -> None:
    _, token = _log_in(team, "bob")
    assert accounts.resolve_login(session=team, token=token).role == "viewer"
    promoted = accounts.set_user_role(session=team, username="bob", role="admin")
    assert promoted.role == "admin"
    assert accounts.resolve_login(session=team, token=token).is_admin
    accounts.set_user_role(session=team, username="ada", role="viewer")  # bob is an admin now
    assert _user(team, "ada").role == "viewer"
    _refused("validation_error", accounts.set_user_role, session=team, username="bob", role="root")
    assert _user(team, "bob").role == "admin"


# --- deleting --------------------------------------------------------------------------------------------


def test_deleting_a_user_removes_their_sessions_and_reading_state(team: Session) -> None:
    _, token = _log_in(team, "bob")
    bob_id = _user(team, "bob").id
    assert bob_id is not None
    accounts.delete_user(session=team, username="bob")
    assert [u.username for u in accounts.list_users(session=team)] == ["ada"]
    _refused("unauthorized", accounts.resolve_login, session=team, token=token)
    assert team.exec(select(LoginSession).where(LoginSession.user_id == bob_id)).all() == []
    assert team.exec(select(ItemState).where(ItemState.user_id == bob_id)).all() == []
    _refused("invalid_credentials", _log_in, session=team, username="bob")
    # The name is free again.
    accounts.create_user(session=team, username="bob", password=PASSWORD, role="viewer")


@pytest.mark.parametrize(
    ("fn", "kwargs"),
    [
        (accounts.set_user_active, {"active": False}),
        (accounts.set_user_active, {"active": True}),
        (accounts.set_user_role, {"role": "admin"}),
        (accounts.delete_user, {}),
        (accounts.reset_password, {}),
    ],
)
def test_unknown_users_are_reported(team: Session, fn: object, kwargs: dict[str, object]) -> None:
    _refused("user_not_found", fn, session=team, username="nobody", **kwargs)
    assert [u.username for u in accounts.list_users(session=team)] == ["ada", "bob"]


# --- password resets and changes -----------------------------------------------------------------------


def test_a_reset_ends_the_old_password_and_sessions_and_forces_a_change(team: Session) -> None:
    _, old_session = _log_in(team, "bob")
    one_time = accounts.reset_password(session=team, username="bob")
    assert password_problems(one_time, "bob") == []
    assert one_time not in _user(team, "bob").password_hash  # stored hashed
    _refused("invalid_credentials", _log_in, session=team, username="bob", password=PASSWORD)
    _refused("unauthorized", accounts.resolve_login, session=team, token=old_session)

    user, token = _log_in(team, "bob", one_time)
    assert user.must_change_password
    principal = accounts.resolve_login(session=team, token=token)
    assert principal.must_change_password  # the UI guard opens only the change-password form
    assert [u.must_change_password for u in accounts.list_users(session=team)] == [False, True]

    changed = accounts.change_password(
        session=team, username="bob", old_password=one_time, new_password=NEW_PASSWORD, keep_token=token
    )
    assert changed.must_change_password is False
    assert accounts.resolve_login(session=team, token=token).must_change_password is False  # this session goes on
    _refused("invalid_credentials", _log_in, session=team, username="bob", password=one_time)
    assert _log_in(team, "bob", NEW_PASSWORD)[0].must_change_password is False


def test_each_reset_draws_a_new_password(team: Session) -> None:
    first = accounts.reset_password(session=team, username="bob")
    second = accounts.reset_password(session=team, username="bob")
    assert first != second
    _refused("invalid_credentials", _log_in, session=team, username="bob", password=first)
    assert _log_in(team, "bob", second)[0].must_change_password


def test_changing_a_password_ends_the_other_sessions(team: Session) -> None:
    _, here = _log_in(team, "bob")
    _, elsewhere = _log_in(team, "bob")
    accounts.change_password(
        session=team, username="bob", old_password=PASSWORD, new_password=NEW_PASSWORD, keep_token=here
    )
    assert accounts.resolve_login(session=team, token=here).name == "bob"
    _refused("unauthorized", accounts.resolve_login, session=team, token=elsewhere)


@pytest.mark.parametrize(
    ("old", "new", "code"),
    [
        ("not the password at all", NEW_PASSWORD, "invalid_credentials"),
        (None, "short", "weak_password"),
        (None, "bob's new password is long", "weak_password"),
        (None, None, "weak_password"),  # the one-time password again
    ],
)
def test_bad_password_changes_are_refused_and_change_nothing(
    team: Session, old: str | None, new: str | None, code: str
) -> None:
    one_time = accounts.reset_password(session=team, username="bob")
    hashed = _user(team, "bob").password_hash
    error = _refused(
        code,
        accounts.change_password,
        session=team,
        username="bob",
        old_password=old or one_time,
        new_password=new or one_time,
    )
    if code == "weak_password":
        assert error.details["problems"]
    bob = _user(team, "bob")
    assert (bob.password_hash, bob.must_change_password) == (hashed, True)


def test_a_wrong_current_password_counts_as_a_failed_log_in(team: Session) -> None:
    for _ in range(5):
        _refused(
            "invalid_credentials",
            accounts.change_password,
            session=team,
            username="bob",
            old_password="not the password at all",
            new_password=NEW_PASSWORD,
        )
    error = _refused("too_many_attempts", _log_in, session=team, username="bob")
    assert error.details["retry_after_seconds"] > 0


def test_a_disabled_user_cannot_change_their_password(team: Session) -> None:
    accounts.set_user_active(session=team, username="bob", active=False)
    _refused(
        "invalid_credentials",
        accounts.change_password,
        session=team,
        username="bob",
        old_password=PASSWORD,
        new_password=NEW_PASSWORD,
    )


# --- the migration --------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", backends())
def test_the_upgrade_keeps_existing_accounts_and_their_passwords(backend: str, tmp_path: Path) -> None:
    with empty_database(backend, tmp_path) as url:
        upgrade_database(url, "0009")
        engine = create_db_engine(url)
        try:
            with engine.begin() as conn:
                conn.execute(
                    sa.text(
                        "INSERT INTO user_account (username, password_hash, role, is_active, created_at) "
                        "VALUES ('ada', :hash, 'admin', :active, :created)"
                    ),
                    {"hash": hash_password(PASSWORD), "active": True, "created": datetime(2026, 1, 1)},
                )
            upgrade_database(url)
            with Session(engine) as session:
                user, _ = _log_in(session, "ada")
                assert user.must_change_password is False
                assert accounts.reset_password(session=session, username="ada")
                assert _user(session, "ada").must_change_password is True
            command.downgrade(alembic_config(url), "0009")
            assert "must_change_password" not in {c["name"] for c in sa.inspect(engine).get_columns("user_account")}
            upgrade_database(url)
            with Session(engine) as session:
                assert _user(session, "ada").must_change_password is False
        finally:
            engine.dispose()
