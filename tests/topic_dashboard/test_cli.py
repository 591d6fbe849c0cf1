"""The `topic-dashboard` console script, run as a user would run it."""

import json
import os
import subprocess
import sys
from pathlib import Path

from sqlmodel import Session

from topic_dashboard.db import create_db_engine
from topic_dashboard.services import accounts
from topic_dashboard.services.bots import bot_for_token

CLI = [str(Path(sys.executable).with_name("topic-dashboard"))]


def run_cli(db_url: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TOPIC_DASHBOARD_DATABASE_URL": db_url}
    return subprocess.run([*CLI, *args], input=stdin, capture_output=True, text=True, env=env, timeout=60)


def test_db_upgrade_user_api_token_and_bot(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/cli.db"
    assert run_cli(url, "db", "upgrade").returncode == 0

    created = run_cli(url, "user", "create", "--admin", "--username", "ada", "--password-stdin", stdin="long enough password\n")
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
        found = bot_for_token(session=session, token=bot["token"])
        assert found is not None and found.id == bot["bot_id"] and found.name == "Research"
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
