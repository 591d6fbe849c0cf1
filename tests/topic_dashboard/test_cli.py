"""The `topic-dashboard` console script, run as a user would run it."""

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import Session

from topic_dashboard.db import create_db_engine
from topic_dashboard.errors import AppError
from topic_dashboard.services import accounts
from topic_dashboard.services.bots import bot_id_for_token, get_bot

CLI = [str(Path(sys.executable).with_name("topic-dashboard"))]


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
