"""The `topic-dashboard` console script, run as a user would run it (the `user` management commands
in-process through click's runner, so that they run on every backend quickly)."""

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy.engine import Engine
from sqlmodel import Session

from topic_dashboard.cli import main
from topic_dashboard.db import create_db_engine
from topic_dashboard.errors import AppError
from topic_dashboard.services import accounts
from topic_dashboard.services.bots import bot_id_for_token, get_bot

CLI = [str(Path(sys.executable).with_name("topic-dashboard"))]
PASSWORD = "long enough password"


def run_cli(db_url: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TOPIC_DASHBOARD_DATABASE_URL": db_url}
    return subprocess.run([*CLI, *args], input=stdin, capture_output=True, text=True, env=env, timeout=60)


def test_db_upgrade_user_api_token_and_bot(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/cli.db"
    assert run_cli(url, "db", "upgrade").returncode == 0

    created = run_cli(
        url, "user", "create", "--admin", "--username", "ada", "--password-stdin", stdin="long enough password\n"
    )
    assert created.returncode == 0, created.stderr
    weak = run_cli(url, "user", "create", "--viewer", "--username", "bob", "--password-stdin", stdin="short\n")
    assert weak.returncode == 2 and "weak_password" in weak.stderr

    token_run = run_cli(url, "api-token", "create", "--name", "ci")
    assert token_run.returncode == 0
    token = token_run.stdout.strip().splitlines()[-1]

    bot_run = run_cli(url, "bot", "create", "--name", "Research")
    assert bot_run.returncode == 0, bot_run.stderr
    bot = json.loads(bot_run.stdout)

    engine = create_db_engine(url)
    with Session(engine) as session:
        assert accounts.resolve_api_token(session=session, token=token, admin_token=None).role == "admin"
        assert bot_id_for_token(session=session, token=bot["token"]) == bot["bot_id"]
        assert get_bot(session=session, bot_id=bot["bot_id"]).name == "Research"
        log_in = accounts.log_in(session=session, username="ada", password="long enough password", ttl_hours=1)
        assert log_in[0].role == "admin"
    engine.dispose()


def test_setup_token_is_printed_only_while_nobody_can_log_in(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/setup.db"
    run_cli(url, "db", "upgrade")
    first = run_cli(url, "setup-token").stdout.strip()
    assert first.startswith("tdsetup_")
    run_cli(url, "user", "create", "--admin", "--username", "ada", "--password-stdin", stdin="long enough password\n")
    assert "accounts exist already" in run_cli(url, "setup-token").stdout


def test_api_tokens_expire_are_listed_and_revoked(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/tokens.db"
    assert run_cli(url, "db", "upgrade").returncode == 0

    short = run_cli(url, "api-token", "create", "--name", "grafana", "--role", "viewer", "--expires-days", "7")
    assert short.returncode == 0, short.stderr
    assert "expires" in short.stdout
    short_token = short.stdout.strip().splitlines()[-1]
    default = run_cli(url, "api-token", "create", "--name", "deploy")
    default_token = default.stdout.strip().splitlines()[-1]
    refused = run_cli(url, "api-token", "create", "--name", "forever", "--expires-days", "0")
    assert refused.returncode == 2 and "validation_error" in refused.stderr

    listed = run_cli(url, "api-token", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert [(r["name"], r["role"], r["state"]) for r in rows] == [
        ("grafana", "viewer", "active"),
        ("deploy", "admin", "active"),
    ]
    created, expires = (datetime.fromisoformat(rows[0][k]) for k in ("created_at", "expires_at"))
    assert abs((expires - created) - timedelta(days=7)) < timedelta(seconds=5)
    created, expires = (datetime.fromisoformat(rows[1][k]) for k in ("created_at", "expires_at"))
    assert abs((expires - created) - timedelta(days=90)) < timedelta(seconds=5)
    assert short_token not in listed.stdout and default_token not in listed.stdout
    table = run_cli(url, "api-token", "list")
    assert table.returncode == 0 and "grafana" in table.stdout and "last used" in table.stdout

    revoked = run_cli(url, "api-token", "revoke", str(rows[0]["id"]))
    assert revoked.returncode == 0, revoked.stderr
    assert run_cli(url, "api-token", "revoke", "999").returncode == 2

    engine = create_db_engine(url)
    with Session(engine) as session:
        with pytest.raises(AppError) as excinfo:
            accounts.resolve_api_token(session=session, token=short_token, admin_token=None)
        assert excinfo.value.code == "unauthorized"
        assert accounts.resolve_api_token(session=session, token=default_token, admin_token=None).role == "admin"
    engine.dispose()
    assert json.loads(run_cli(url, "api-token", "list", "--json").stdout)[0]["state"] == "revoked"


def test_weak_passwords_are_refused_with_their_reasons(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/weak.db"
    run_cli(url, "db", "upgrade")
    for password in (" " * 10, "password1234", "carol-carol-carol"):
        weak = run_cli(
            url, "user", "create", "--viewer", "--username", "carol", "--password-stdin", stdin=password + "\n"
        )
        assert weak.returncode == 2 and "weak_password" in weak.stderr, (password, weak.stderr)
        assert accounts.password_problems(password, "carol")[0] in weak.stderr


def test_log_out_everywhere(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/sessions.db"
    run_cli(url, "db", "upgrade")
    run_cli(url, "user", "create", "--admin", "--username", "ada", "--password-stdin", stdin="long enough password\n")
    engine = create_db_engine(url)
    with Session(engine) as session:
        tokens = [
            accounts.log_in(
                session=session, username="ada", password="long enough password", ttl_hours=1, address=None
            )[1]
            for _ in range(2)
        ]
    ended = run_cli(url, "user", "log-out-everywhere", "ada")
    assert ended.returncode == 0, ended.stderr
    assert "2" in ended.stdout
    with Session(engine) as session:
        for token in tokens:
            with pytest.raises(AppError):
                accounts.resolve_login(session=session, token=token)
    engine.dispose()
    assert run_cli(url, "user", "log-out-everywhere", "nobody").returncode == 2


def user_cli(*args: str, stdin: str = "") -> Result:
    """A `topic-dashboard user` command in-process (click's runner), on the database the settings name."""
    return CliRunner().invoke(main, ["user", *args], input=stdin)


def test_user_management_commands(engine: Engine) -> None:
    """list, disable, enable, set-role, reset-password and delete, on every backend; the last admin stays."""
    for name, role in (("ada", "--admin"), ("bob", "--viewer")):
        created = user_cli("create", role, "--username", name, "--password-stdin", stdin=PASSWORD + "\n")
        assert created.exit_code == 0, created.output

    listed = user_cli("list", "--json")
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)
    assert [(r["username"], r["role"], r["is_active"], r["must_change_password"]) for r in rows] == [
        ("ada", "admin", True, False),
        ("bob", "viewer", True, False),
    ]
    assert rows[0]["last_login_at"] is None and "password_hash" not in rows[0]
    table = user_cli("list")
    assert table.exit_code == 0 and "last log-in" in table.stdout and "never" in table.stdout

    for args in (("disable", "ada"), ("set-role", "ada", "viewer"), ("delete", "ada", "--yes")):
        refused = user_cli(*args)
        assert refused.exit_code == 2 and "error [last_admin]" in refused.stderr, (args, refused.output)
    for args in (
        ("disable", "nobody"),
        ("enable", "nobody"),
        ("reset-password", "nobody"),
        ("delete", "nobody", "--yes"),
    ):
        unknown = user_cli(*args)
        assert unknown.exit_code == 2 and "error [user_not_found]" in unknown.stderr, (args, unknown.output)
    assert user_cli("set-role", "bob", "root").exit_code == 2  # not a role: a usage error

    with Session(engine) as session:
        _, bobs_session = _log_in(session, "bob", PASSWORD)
    assert user_cli("disable", "bob").exit_code == 0
    with Session(engine) as session:
        with pytest.raises(AppError):
            accounts.resolve_login(session=session, token=bobs_session)
        with pytest.raises(AppError) as excinfo:
            _log_in(session, "bob", PASSWORD)
        assert excinfo.value.code == "invalid_credentials"
    assert user_cli("enable", "bob").exit_code == 0

    promoted = user_cli("set-role", "bob", "admin")
    assert promoted.exit_code == 0 and "now admin" in promoted.stdout
    assert user_cli("set-role", "ada", "viewer").exit_code == 0  # bob is an admin now

    reset = user_cli("reset-password", "bob")
    assert reset.exit_code == 0, reset.output
    one_time = reset.stdout.strip().splitlines()[-1]
    with Session(engine) as session:
        with pytest.raises(AppError):
            _log_in(session, "bob", PASSWORD)
        user, _ = _log_in(session, "bob", one_time)
        assert user.must_change_password
    assert json.loads(user_cli("list", "--json").stdout)[1]["must_change_password"] is True

    kept = user_cli("delete", "ada", stdin="n\n")
    assert kept.exit_code == 1 and "Aborted" in kept.stderr
    deleted = user_cli("delete", "ada", stdin="y\n")
    assert deleted.exit_code == 0, deleted.output
    assert [r["username"] for r in json.loads(user_cli("list", "--json").stdout)] == ["bob"]


def _log_in(session: Session, username: str, password: str) -> tuple[accounts.UserPublic, str]:
    return accounts.log_in(session=session, username=username, password=password, ttl_hours=1, address=None)
