"""People, login sessions (throttled log-ins), API tokens and the first-admin setup token."""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, SQLModel, col, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import ApiToken, LoginSession, LoginThrottle, SetupToken, User, iso_utc, utcnow
from topic_dashboard.security import (
    ACCOUNT_LOGIN_THROTTLE,
    ADDRESS_LOGIN_THROTTLE,
    API_TOKEN_PREFIX,
    DUMMY_PASSWORD_HASH,
    MIN_ADMIN_TOKEN_LENGTH,
    SESSION_TOKEN_PREFIX,
    SETUP_TOKEN_PREFIX,
    LoginThrottlePolicy,
    hash_password,
    hash_token,
    new_one_time_password,
    new_token,
    password_problems,
    token_matches,
    verify_password,
)
from topic_dashboard.services.audit import Actor, add_refusal, record

ROLES = ("admin", "viewer")
USERNAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
DEFAULT_API_TOKEN_DAYS = 90
MAX_API_TOKEN_DAYS = 3650
# last_used_at is for people ("used today?"): writing it on every request would make each read a write.
API_TOKEN_LAST_USED_RESOLUTION = timedelta(minutes=1)
INVALID_CREDENTIALS = "wrong username or password"

__all__ = ["password_problems"]  # re-exported: the UI shows the policy's reasons from here


@dataclass(frozen=True)
class Principal:
    """Who is making a request, and what they may do."""

    name: str
    role: str  # admin | viewer
    kind: str  # user | api_token | admin_token
    token_id: int | None = None  # the API token's id (kind api_token)
    user_id: int | None = None  # the person's id (kind user): whose reading state the panel shows
    must_change_password: bool = False  # kind user: an admin reset the password; only the change form opens
    last_use_due: bool = False  # the API token's last_used_at is older than its resolution: note_api_token_use

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


class UserPublic(SQLModel):
    id: int
    username: str
    role: str
    must_change_password: bool = False


class UserAccountPublic(SQLModel):
    """An account as admins see it listed: never its password hash."""

    id: int
    username: str
    role: str
    is_active: bool
    must_change_password: bool
    created_at: str
    last_login_at: str | None  # the newest login session's start; None: never logged in


class ApiTokenPublic(SQLModel):
    """An API token as admins see it listed: never its secret."""

    id: int
    name: str
    role: str
    created_at: str
    last_used_at: str | None
    expires_at: str
    revoked_at: str | None
    state: str  # active | expired | revoked


def require_admin(principal: Principal) -> None:
    """Raises AppError(forbidden) unless the principal is an admin."""
    if not principal.is_admin:
        raise AppError("forbidden", "Only admins can do this (see or change it); your account is a viewer's.")


def _check_role(role: str) -> None:
    if role not in ROLES:
        raise AppError("validation_error", f"role must be one of {', '.join(ROLES)}", field="role")


def create_user(
    *,
    session: Session,
    username: str,
    password: str,
    role: str,
    must_change_password: bool = False,
    actor: Actor | None = None,
) -> UserPublic:
    """Create an account; with `must_change_password`, `password` is a one-time password that logs in
    only to choose a new one. With `actor`, audited (`user.create`).
    Raises validation_error, weak_password (details: `problems`), user_exists."""
    username = username.strip()
    if not USERNAME_RE.match(username):
        raise AppError(
            "validation_error",
            "username: 1-64 letters, digits or . _ @ -, starting with a letter or digit",
            field="username",
        )
    _check_role(role)
    problems = password_problems(password, username)
    if problems:
        raise AppError("weak_password", "; ".join(problems), field="password", problems=problems)
    # Names are told apart regardless of case: "ALICE" beside the admin "alice" reads as the same person in the
    # audit log and the sidebar (a walkthrough created one). Login still takes the name as it was created.
    same = session.exec(select(User).where(sa.func.lower(User.username) == username.lower())).first()
    if same is not None:
        taken = "" if same.username == username else f" (as {same.username!r}: names must differ by more than case)"
        raise AppError("user_exists", f"a user named {username!r} already exists{taken}", field="username")
    user = User(
        username=username, password_hash=hash_password(password), role=role, must_change_password=must_change_password
    )
    session.add(user)
    if actor is not None:
        detail = {"role": role, "one_time_password": must_change_password}
        record(session=session, by=actor, action="user.create", target=f"user:{username}", detail=detail)
    session.commit()
    return _user_public(user)


def _user_public(user: User) -> UserPublic:
    return UserPublic(
        id=user.id or 0, username=user.username, role=user.role, must_change_password=user.must_change_password
    )


def count_users(*, session: Session) -> int:
    return session.exec(select(sa.func.count()).select_from(User)).one()


def log_in(
    *, session: Session, username: str, password: str, ttl_hours: int, address: str | None = None
) -> tuple[UserPublic, str]:
    """Check a password and open a new login session. Returns the user and the new session token.

    Failures are counted per username and per client `address` (None: per username only); past
    the limits the account or address is locked for a while that doubles with each further failure.
    The answers are the same whether the user exists or not. A success resets the username's count
    (not the address's: one valid account must not launder an address that guesses others').
    A user whose password an admin reset logs in with the one-time password and gets
    `must_change_password`: the UI guard then opens only the change-password form.
    Raises invalid_credentials, too_many_attempts (details: `retry_after_seconds`).
    """
    user = _authenticate(session, username.strip(), password, address, refusal=INVALID_CREDENTIALS, action="auth.login")
    now = utcnow()
    token = new_token(SESSION_TOKEN_PREFIX)
    session.add(
        LoginSession(
            token_hash=hash_token(token),
            user_id=user.id or 0,
            created_at=now,
            expires_at=now + timedelta(hours=ttl_hours),
        )
    )
    record(
        session=session,
        by=Actor("user", user.username),
        action="auth.login",
        target=f"user:{user.username}",
        detail={"address": address, "one_time_password": user.must_change_password},
    )
    session.commit()
    return _user_public(user), token


def _authenticate(
    session: Session, username: str, password: str, address: str | None, *, refusal: str, action: str
) -> User:
    """The active user `username` if `password` is theirs, throttled as a log-in (see `log_in`).

    A disabled account gets the same answer as a wrong password, after the same work, rather than
    a clear "account disabled": the answer must not tell someone guessing passwords which names exist
    or were disabled. The person whose account it is learns why from the admin who disabled it.
    Each refusal leaves a `refused` row of `action` naming the username typed (only when it could be
    one: a password typed into the username field is not kept), capped per minute like every refusal.
    Raises invalid_credentials (message `refusal`), too_many_attempts.
    """
    now = utcnow()
    throttles = _login_throttles(username, address)
    try:
        _refuse_while_locked(session, throttles, now)
    except AppError as locked:
        _audit_refused_login(session, username, address, action, locked.code)
        session.commit()
        raise
    user = session.exec(select(User).where(User.username == username)).first()
    if user is None or not user.is_active:
        verify_password(password, DUMMY_PASSWORD_HASH)  # the same work, so timing does not tell
        accepted = False
    else:
        accepted = verify_password(password, user.password_hash)
    if not accepted or user is None:
        _audit_refused_login(session, username, address, action, "invalid_credentials")
        _record_failure(session, throttles, now)
        raise AppError("invalid_credentials", refusal)
    session.exec(sa.delete(LoginThrottle).where(col(LoginThrottle.key) == throttles[0][0]))
    return user


def _audit_refused_login(session: Session, username: str, address: str | None, action: str, code: str) -> None:
    name = username if USERNAME_RE.match(username) else "(not a username)"
    detail = {"address": address}
    add_refusal(
        session=session, by=Actor("user", name), action=action, error_code=code, target=f"user:{name}", detail=detail
    )


def _address_group(address: str) -> str:
    """What one client is, for counting: an IPv4 address, or an IPv6 /64 (one host gets a whole /64)."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return address.strip()[:200]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def _login_throttles(username: str, address: str | None) -> list[tuple[str, LoginThrottlePolicy]]:
    """(key, policy) of each count a log-in attempt is subject to; the account's first."""
    throttles = [(hash_token(f"account:{username}"), ACCOUNT_LOGIN_THROTTLE)]
    if address and address.strip():
        throttles.append((hash_token(f"address:{_address_group(address)}"), ADDRESS_LOGIN_THROTTLE))
    return throttles


def _refuse_while_locked(session: Session, throttles: list[tuple[str, LoginThrottlePolicy]], now: datetime) -> None:
    """Raises too_many_attempts while any of the counts is locked, without checking the password."""
    keys = [key for key, _ in throttles]
    rows = session.exec(select(LoginThrottle).where(col(LoginThrottle.key).in_(keys)).with_for_update()).all()
    until = max(
        (row.locked_until for row in rows if row.locked_until is not None and row.locked_until > now), default=None
    )
    if until is None:
        return
    session.rollback()  # nothing to write: release the rows
    seconds = max(1, math.ceil((until - now).total_seconds()))
    raise AppError(
        "too_many_attempts", f"too many failed log-ins: try again in {seconds} seconds", retry_after_seconds=seconds
    )


def _record_failure(session: Session, throttles: list[tuple[str, LoginThrottlePolicy]], now: datetime) -> None:
    """Count one failure on each throttle (locking past the limit) and commit.

    Rows are created if missing and then locked (SELECT ... FOR UPDATE on PostgreSQL; SQLite's write
    transaction is exclusive already), so workers failing at once all count.
    """
    keys = [key for key, _ in throttles]
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    session.exec(
        insert(LoginThrottle)
        .values([{"key": key, "failures": 0, "last_failure_at": now} for key in keys])
        .on_conflict_do_nothing(index_elements=["key"])
    )
    rows = {
        row.key: row
        for row in session.exec(select(LoginThrottle).where(col(LoginThrottle.key).in_(keys)).with_for_update())
    }
    for key, policy in throttles:
        row = rows[key]
        quiet_since = max(row.last_failure_at, row.locked_until or row.last_failure_at)
        if now - quiet_since > policy.window:
            row.failures = 0
        row.failures += 1
        row.last_failure_at = now
        lock = policy.lock_for(row.failures)
        row.locked_until = now + lock if lock is not None else None
        session.add(row)
    # Forget counts that can no longer lock anything, so sprayed usernames do not pile up.
    longest = max(policy.window + policy.max_lock for policy in (ACCOUNT_LOGIN_THROTTLE, ADDRESS_LOGIN_THROTTLE))
    session.exec(
        sa.delete(LoginThrottle).where(
            col(LoginThrottle.last_failure_at) < now - longest,
            col(LoginThrottle.key).not_in(keys),
        )
    )
    session.commit()


def resolve_login(*, session: Session, token: str) -> Principal:
    """The principal behind a login session token. Raises unauthorized or session_expired."""
    if not token:
        raise AppError("unauthorized", "log in first")
    row = session.exec(
        select(LoginSession, User)
        .join(User, col(User.id) == col(LoginSession.user_id))
        .where(LoginSession.token_hash == hash_token(token))
    ).first()
    if row is None or not token_matches(token, row[0].token_hash) or row[0].revoked_at is not None:
        raise AppError("unauthorized", "log in first")
    login, user = row
    if login.expires_at <= utcnow() or not user.is_active:
        raise AppError("session_expired", "your session has expired; log in again")
    return Principal(
        name=user.username,
        role=user.role,
        kind="user",
        user_id=user.id,
        must_change_password=user.must_change_password,
    )


def log_out(*, session: Session, token: str) -> None:
    """End this login session on the server: its token no longer resolves, wherever it was copied to.
    Audited (`auth.logout`) when it was open."""
    login = session.exec(select(LoginSession).where(LoginSession.token_hash == hash_token(token))).first()
    if login is not None and login.revoked_at is None:
        login.revoked_at = utcnow()
        session.add(login)
        user = session.get(User, login.user_id)
        if user is not None:
            by = Actor("user", user.username)
            record(session=session, by=by, action="auth.logout", target=f"user:{user.username}")
        session.commit()


def log_out_everywhere(*, session: Session, username: str, actor: Actor | None = None) -> int:
    """End every open login session of a user (e.g. after a lost laptop). Returns how many ended.
    With `actor`, audited (`user.log_out_everywhere`).

    Raises user_not_found.
    """
    user = _find_user(session, username)
    ended = _end_login_sessions(session, user)
    _audit_account(session, actor, "user.log_out_everywhere", user, {"sessions_ended": ended})
    session.commit()
    return ended


def _audit_account(
    session: Session, actor: Actor | None, action: str, user: User, detail: Mapping[str, object] | None = None
) -> None:
    if actor is not None:
        record(session=session, by=actor, action=action, target=f"user:{user.username}", detail=detail)


def _find_user(session: Session, username: str, *, for_update: bool = False) -> User:
    """Raises user_not_found."""
    query = select(User).where(User.username == username.strip())
    user = session.exec(query.with_for_update() if for_update else query).first()
    if user is None:
        session.rollback()  # release what an earlier FOR UPDATE of this transaction holds
        raise AppError("user_not_found", f"no user named {username.strip()!r}", field="username")
    return user


def _end_login_sessions(session: Session, user: User, *, keep_token: str | None = None) -> int:
    """Revoke the user's open login sessions (but the one `keep_token` names), uncommitted. Returns how many."""
    query = sa.update(LoginSession).where(col(LoginSession.user_id) == user.id, col(LoginSession.revoked_at).is_(None))
    if keep_token:
        query = query.where(col(LoginSession.token_hash) != hash_token(keep_token))
    return int(session.exec(query.values(revoked_at=utcnow())).rowcount or 0)


# --- managing accounts (the `user` CLI commands; later the Accounts page) ------------------------------


def list_users(*, session: Session) -> list[UserAccountPublic]:
    """Every account by username, with when it last logged in (its newest login session's start)."""
    last_login = (
        select(col(LoginSession.user_id), sa.func.max(LoginSession.created_at).label("last_login_at"))
        .group_by(col(LoginSession.user_id))
        .subquery()
    )
    rows = session.exec(
        select(User, last_login.c.last_login_at)
        .outerjoin(last_login, last_login.c.user_id == col(User.id))
        .order_by(col(User.username))
    ).all()
    return [_account_public(user, last_login_at) for user, last_login_at in rows]


def _account_public(user: User, last_login_at: datetime | None = None) -> UserAccountPublic:
    return UserAccountPublic(
        id=user.id or 0,
        username=user.username,
        role=user.role,
        is_active=user.is_active,
        must_change_password=user.must_change_password,
        created_at=iso_utc(user.created_at) or "",
        last_login_at=iso_utc(last_login_at),
    )


def _lock_active_admins(session: Session) -> set[int]:
    """The active admins' ids, their rows locked in id order before any other row is (PostgreSQL;
    SQLite's write transaction is exclusive already): two admins disabling each other at once queue
    here, and the second sees the first's change, instead of both passing `_refuse_last_admin`."""
    query = (
        select(col(User.id))
        .where(User.role == "admin", col(User.is_active).is_(True))
        .order_by(col(User.id))
        .with_for_update()
    )
    return {user_id for user_id in session.exec(query).all() if user_id is not None}


def _refuse_last_admin(session: Session, user: User, active_admins: set[int], doing: str) -> None:
    """Raises last_admin when `user` is the only active admin: nobody could manage the dashboard after."""
    if user.role != "admin" or not user.is_active:
        return
    if active_admins <= {user.id}:
        session.rollback()  # release the locks
        raise AppError(
            "last_admin",
            f"{user.username!r} is the last active admin and cannot be {doing}: "
            "make another account an admin first (topic-dashboard user set-role NAME admin)",
            field="username",
        )


def _refuse_own_account(session: Session, actor: Actor | None, user: User, doing: str) -> None:
    """Raises own_account when a signed-in person would lock themselves out (another admin can do it)."""
    if actor is not None and actor.kind == "user" and actor.name == user.username:
        session.rollback()  # release the locks
        raise AppError("own_account", f"you cannot {doing} your own account; ask another admin", field="username")


def set_user_active(*, session: Session, username: str, active: bool, actor: Actor | None = None) -> UserAccountPublic:
    """Enable or disable an account. A disabled account cannot log in, and its login sessions end at once.
    With `actor`, audited (`user.enable` / `user.disable`).

    Raises user_not_found, last_admin (disabling the last active admin), own_account (a person
    disabling themselves).
    """
    admins = _lock_active_admins(session) if not active else set()
    user = _find_user(session, username, for_update=True)
    if not active:
        _refuse_own_account(session, actor, user, "disable")
        _refuse_last_admin(session, user, admins, "disabled")
        _end_login_sessions(session, user)
    before = user.is_active
    user.is_active = active
    session.add(user)
    _audit_account(session, actor, "user.enable" if active else "user.disable", user, {"was_active": before})
    session.commit()
    return _account_public(user)


def set_user_role(*, session: Session, username: str, role: str, actor: Actor | None = None) -> UserAccountPublic:
    """Make an account an admin or a viewer; open sessions have the new role on their next request.
    With `actor`, audited (`user.set_role`, before and after).

    Raises validation_error, user_not_found, last_admin (demoting the last active admin), own_account
    (a person demoting themselves).
    """
    _check_role(role)
    admins = _lock_active_admins(session) if role != "admin" else set()
    user = _find_user(session, username, for_update=True)
    if role != "admin" and user.role == "admin":
        _refuse_own_account(session, actor, user, "demote")
    if role != "admin":
        _refuse_last_admin(session, user, admins, "made a viewer")
    before = user.role
    user.role = role
    session.add(user)
    _audit_account(session, actor, "user.set_role", user, {"before": before, "after": role})
    session.commit()
    return _account_public(user)


def delete_user(*, session: Session, username: str, actor: Actor | None = None) -> None:
    """Delete an account with its login sessions and its own reading state (the database cascades).
    With `actor`, audited (`user.delete`).

    Raises user_not_found, last_admin (deleting the last active admin), own_account (a person deleting
    themselves).
    """
    admins = _lock_active_admins(session)
    user = _find_user(session, username, for_update=True)
    _refuse_own_account(session, actor, user, "delete")
    _refuse_last_admin(session, user, admins, "deleted")
    _audit_account(session, actor, "user.delete", user, {"role": user.role, "was_active": user.is_active})
    session.exec(sa.delete(User).where(col(User.id) == user.id))
    session.commit()


def reset_password(*, session: Session, username: str, actor: Actor | None = None) -> str:
    """Give an account a new random password and return it (shown once, stored hashed, never audited).
    With `actor`, audited (`user.reset_password`).

    The old password stops working and the account's login sessions end; the one-time password
    logs in only to choose a new one (`must_change_password`). Raises user_not_found.
    """
    user = _find_user(session, username, for_update=True)
    password = new_one_time_password(user.username)
    user.password_hash = hash_password(password)
    user.must_change_password = True
    ended = _end_login_sessions(session, user)
    session.add(user)
    _audit_account(session, actor, "user.reset_password", user, {"sessions_ended": ended})
    session.commit()
    return password


def change_password(
    *,
    session: Session,
    username: str,
    old_password: str,
    new_password: str,
    address: str | None = None,
    keep_token: str | None = None,
) -> UserPublic:
    """Replace a password the user knows, and clear `must_change_password`.

    A wrong `old_password` counts as a failed log-in (so a stolen session cannot guess it quickly).
    The user's other login sessions end; `keep_token` (the session asking) stays open.
    Audited (`user.change_password`, by the user); a wrong current password leaves a refused row.
    Raises weak_password (details: `problems`; also when the new password is the old one),
    invalid_credentials, too_many_attempts.
    """
    username = username.strip()
    problems = password_problems(new_password, username)
    if new_password == old_password:
        problems.append("the new password must differ from the current one")
    if problems:
        raise AppError("weak_password", "; ".join(problems), field="new_password", problems=problems)
    user = _authenticate(
        session,
        username,
        old_password,
        address,
        refusal="the current (or one-time) password is wrong",
        action="user.change_password",
    )
    was_one_time = user.must_change_password
    user.password_hash = hash_password(new_password)
    user.must_change_password = False
    ended = _end_login_sessions(session, user, keep_token=keep_token)
    session.add(user)
    detail = {"after_reset": was_one_time, "other_sessions_ended": ended}
    _audit_account(session, Actor("user", user.username), "user.change_password", user, detail)
    session.commit()
    return _user_public(user)


def admin_token_problem(admin_token: str) -> str | None:
    """Why the admin-token setting cannot be used (None when it can). A short one is never accepted."""
    if len(admin_token.strip()) < MIN_ADMIN_TOKEN_LENGTH:
        return (
            f"TOPIC_DASHBOARD_ADMIN_TOKEN is ignored: it must be at least {MIN_ADMIN_TOKEN_LENGTH} characters "
            "(e.g. the output of `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
        )
    return None


def _token_state(row: ApiToken, now: datetime) -> str:
    if row.revoked_at is not None:
        return "revoked"
    return "expired" if row.expires_at <= now else "active"


def _token_public(row: ApiToken, now: datetime) -> ApiTokenPublic:
    return ApiTokenPublic(
        id=row.id or 0,
        name=row.name,
        role=row.role,
        created_at=iso_utc(row.created_at) or "",
        last_used_at=iso_utc(row.last_used_at),
        expires_at=iso_utc(row.expires_at) or "",
        revoked_at=iso_utc(row.revoked_at),
        state=_token_state(row, now),
    )


def issue_api_token(
    *,
    session: Session,
    name: str,
    role: str = "admin",
    expires_days: int = DEFAULT_API_TOKEN_DAYS,
    actor: Actor | None = None,
) -> tuple[ApiTokenPublic, str]:
    """Create an API token that expires after `expires_days`. Returns it listed and its secret
    (shown once, stored hashed, never audited). With `actor`, audited (`api_token.create`).
    Raises validation_error."""
    name = name.strip()
    if not name or len(name) > 100:
        raise AppError("validation_error", "name: 1-100 characters", field="name")
    _check_role(role)
    if (
        isinstance(expires_days, bool)
        or not isinstance(expires_days, int)
        or not 1 <= expires_days <= MAX_API_TOKEN_DAYS
    ):
        raise AppError(
            "validation_error",
            f"expires_days: a whole number of days from 1 to {MAX_API_TOKEN_DAYS}",
            field="expires_days",
        )
    token = new_token(API_TOKEN_PREFIX)
    now = utcnow()
    row = ApiToken(
        name=name,
        token_hash=hash_token(token),
        role=role,
        created_at=now,
        expires_at=now + timedelta(days=expires_days),
    )
    session.add(row)
    if actor is not None:
        session.flush()  # the row's id names it in the trail
        detail = {"name": name, "role": role, "expires_days": expires_days}
        record(session=session, by=actor, action="api_token.create", target=f"api_token:{row.id}", detail=detail)
    session.commit()
    return _token_public(row, now), token


def create_api_token(
    *,
    session: Session,
    name: str,
    role: str = "admin",
    expires_days: int = DEFAULT_API_TOKEN_DAYS,
    actor: Actor | None = None,
) -> str:
    """`issue_api_token` for callers that need only the secret. Raises validation_error."""
    return issue_api_token(session=session, name=name, role=role, expires_days=expires_days, actor=actor)[1]


def list_api_tokens(*, session: Session) -> list[ApiTokenPublic]:
    """Every API token, oldest first, with its state (active, expired, revoked); never a secret."""
    now = utcnow()
    return [_token_public(row, now) for row in session.exec(select(ApiToken).order_by(col(ApiToken.id)))]


def revoke_api_token(*, session: Session, token_id: int, actor: Actor | None = None) -> ApiTokenPublic:
    """Revoke an API token at once (revoking it again changes nothing). With `actor`, audited
    (`api_token.revoke`). Raises api_token_not_found."""
    row = session.get(ApiToken, token_id)
    if row is None:
        raise AppError("api_token_not_found", f"no API token with id {token_id}")
    now = utcnow()
    if row.revoked_at is None:
        row.revoked_at = now
        session.add(row)
        if actor is not None:
            detail = {"name": row.name, "role": row.role}
            record(session=session, by=actor, action="api_token.revoke", target=f"api_token:{row.id}", detail=detail)
        session.commit()
    return _token_public(row, now)


def resolve_api_token(*, session: Session, token: str, admin_token: str | None) -> Principal:
    """The principal behind `Authorization: Bearer <token>`. Reads only: when the principal says
    `last_use_due`, the caller notes the use with `note_api_token_use` in a write session.

    `admin_token` is the admin-token setting; shorter than MIN_ADMIN_TOKEN_LENGTH it is never accepted.
    Raises unauthorized (unknown, revoked or expired token).
    """
    if admin_token and admin_token_problem(admin_token) is None and token_matches(token, hash_token(admin_token)):
        return Principal(name="admin-token", role="admin", kind="admin_token")
    if not token:
        raise AppError("unauthorized", "send Authorization: Bearer <api token>")
    row = session.exec(select(ApiToken).where(ApiToken.token_hash == hash_token(token))).first()
    if row is None or row.revoked_at is not None or not token_matches(token, row.token_hash):
        raise AppError("unauthorized", "unknown or revoked API token")
    now = utcnow()
    if row.expires_at <= now:
        raise AppError("unauthorized", f"this API token expired at {iso_utc(row.expires_at)}: create a new one")
    due = row.last_used_at is None or now - row.last_used_at >= API_TOKEN_LAST_USED_RESOLUTION
    return Principal(name=row.name, role=row.role, kind="api_token", token_id=row.id, last_use_due=due)


def note_api_token_use(*, session: Session, principal: Principal) -> None:
    """Record when an API token was last used (at most once per API_TOKEN_LAST_USED_RESOLUTION)."""
    if principal.token_id is None or not principal.last_use_due:
        return
    now = utcnow()
    session.exec(
        sa.update(ApiToken)
        .where(
            col(ApiToken.id) == principal.token_id,
            sa.or_(
                col(ApiToken.last_used_at).is_(None),
                col(ApiToken.last_used_at) <= now - API_TOKEN_LAST_USED_RESOLUTION,
            ),
        )
        .values(last_used_at=now)
    )
    session.commit()


def issue_setup_token(*, session: Session) -> str | None:
    """When nobody can log in yet, replace any earlier setup token by a new one and return it.

    The token lets the first admin create their account in the browser, once.
    """
    if count_users(session=session) > 0:
        return None
    session.exec(sa.delete(SetupToken).where(col(SetupToken.used_at).is_(None)))
    token = new_token(SETUP_TOKEN_PREFIX)
    session.add(SetupToken(token_hash=hash_token(token)))
    session.commit()
    return token


def redeem_setup_token(*, session: Session, token: str, username: str, password: str) -> UserPublic:
    """Create the first admin with a setup token. Raises unauthorized, setup_done, and create_user's errors."""
    if count_users(session=session) > 0:
        raise AppError("setup_done", "an admin already exists; log in instead")
    row = session.exec(select(SetupToken).where(SetupToken.token_hash == hash_token(token.strip()))).first()
    if row is None or row.used_at is not None:
        # most often a typo or an older token: the printed one still works, so say where it is before how to replace it
        raise AppError(
            "unauthorized",
            "that is not the current setup token: paste the last one the dashboard printed (it starts with "
            f"{SETUP_TOKEN_PREFIX}), or print a new one with `.venv/bin/topic-dashboard setup-token` (older ones stop working)",
        )
    row.used_at = utcnow()
    session.add(row)
    by = Actor("user", username.strip())  # the new admin, who holds the setup token
    return create_user(session=session, username=username, password=password, role="admin", actor=by)
