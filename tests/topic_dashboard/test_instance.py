"""`topic-dashboard` commands act on the dashboard `make run` recorded, from a shell that has none of its
variables (run as the console script, as a person would in a second terminal)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from sqlmodel import Session, col, select

from topic_dashboard.db import create_db_engine
from topic_dashboard.instance import adopt_instance
from topic_dashboard.migrate import upgrade_database
from topic_dashboard.models import AuditLog
from topic_dashboard.services import accounts
from topic_dashboard.services.bots import list_bots

CLI = str(Path(sys.executable).with_name("topic-dashboard"))
PASSWORD = "long enough password"


def _bare_env(instance: Path, **extra: str) -> dict[str, str]:
    """A second terminal: no TOPIC_DASHBOARD_* variable but where the record is."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOPIC_DASHBOARD_")}
    return {**env, "TOPIC_DASHBOARD_INSTANCE_FILE": str(instance), **extra}


def _cli(env: dict[str, str], *args: str, stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, *args], input=stdin, capture_output=True, text=True, env=env, timeout=60, cwd=cwd)


def test_a_second_shell_acts_on_the_recorded_dashboard_and_says_so(tmp_path: Path) -> None:
    instance = tmp_path / "checkout" / ".topic-dashboard" / "instance.json"
    data_dir = tmp_path / "dashboard-data"
    started = _bare_env(
        instance,
        TOPIC_DASHBOARD_DATA_DIR=str(data_dir),
        TOPIC_DASHBOARD_PORT="8123",
        TOPIC_DASHBOARD_PUBLIC_BASE_URL="http://dash.lan:8123",
    )
    recorded = _cli(started, "instance", "record")
    assert recorded.returncode == 0, recorded.stderr
    assert stat.S_IMODE(instance.stat().st_mode) == 0o600  # it may hold a database password
    assert json.loads(instance.read_text())["settings"]["TOPIC_DASHBOARD_PORT"] == "8123"
    url = f"sqlite:///{data_dir.resolve()}/topic_dashboard.db"
    upgrade_database(url)

    elsewhere = tmp_path / "somewhere-else"
    elsewhere.mkdir()
    bare = _bare_env(instance)
    made = _cli(
        bare, "user", "create", "--admin", "--username", "ada", "--password-stdin", stdin=PASSWORD + "\n", cwd=elsewhere
    )
    assert made.returncode == 0, made.stderr
    assert "acting on the dashboard `make run` started at http://dash.lan:8123" in made.stderr
    assert str(data_dir.resolve()) in made.stderr
    bot = _cli(bare, "bot", "create", "--name", "far-away", cwd=elsewhere)
    assert bot.returncode == 0, bot.stderr
    assert not (elsewhere / "data").exists()  # nothing was written where the command happened to run

    engine = create_db_engine(url)
    try:
        with Session(engine) as session:
            assert [u.username for u in accounts.list_users(session=session)] == ["ada"]
            made_by = session.exec(
                select(AuditLog.tool, AuditLog.actor).where(col(AuditLog.actor_kind) == "system")
            ).all()
            assert {tool for tool, _ in made_by} == {"user.create", "bot.create"}
            assert all(actor.startswith("cli:") for _, actor in made_by)
            (created,) = list_bots(session=session)
            config = json.loads(Path(created.config_path or "").read_text())
        assert config["tools"]["mcpServers"]["topic_mcp"]["url"] == "http://dash.lan:8123/api/mcp/topic"
    finally:
        engine.dispose()

    # The recorded pid is the recorder's parent (run.sh, which then execs the dashboard): here this test.
    shown = _cli(bare, "instance", "show")
    assert shown.returncode == 0 and "http://dash.lan:8123" in shown.stdout
    assert f"running, pid {os.getpid()}" in shown.stdout


def test_a_variable_of_this_shell_wins_and_the_note_says_so(tmp_path: Path) -> None:
    instance = tmp_path / "instance.json"
    instance.write_text(
        json.dumps({"pid": 0, "settings": {"TOPIC_DASHBOARD_PORT": "8123", "TOPIC_DASHBOARD_DATA_DIR": "/srv/td"}})
    )
    environ = {"TOPIC_DASHBOARD_PORT": "9000"}
    note = adopt_instance(environ, instance)
    assert environ == {"TOPIC_DASHBOARD_PORT": "9000", "TOPIC_DASHBOARD_DATA_DIR": "/srv/td"}
    assert note is not None and "TOPIC_DASHBOARD_PORT differs and wins" in note and "not running now" in note
    assert adopt_instance({}, tmp_path / "missing.json") is None
    (tmp_path / "broken.json").write_text("{not json")
    assert adopt_instance({}, tmp_path / "broken.json") is None
