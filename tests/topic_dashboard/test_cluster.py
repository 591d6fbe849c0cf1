"""`make run-cluster`'s pieces without starting it (tests/e2e/test_cluster.py starts the whole thing):
the nginx configuration Debian's nginx accepts, the settings it refuses, the database it creates."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.support.databases import TEST_DATABASE_URL, _admin_engine
from topic_dashboard.cluster import Cluster, ensure_database, from_settings, nginx_conf
from topic_dashboard.settings import Settings


@pytest.mark.skipif(not shutil.which("nginx") and not Path("/usr/sbin/nginx").exists(), reason="nginx not installed")
def test_nginx_accepts_the_configuration_the_cluster_writes(tmp_path: Path) -> None:
    (tmp_path / "nginx-tmp").mkdir()
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        nginx_conf(
            run_dir=tmp_path,
            listen="127.0.0.1:3999",
            worker_ports=[8101, 8102, 8103],
            client_dir=tmp_path / "client",
            max_body_bytes=4_194_304,
        )
    )
    text = conf.read_text()
    assert text.count("server 127.0.0.1:81") == 3
    assert "proxy_set_header Upgrade $http_upgrade;" in text and "proxy_buffering off;" in text
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    checked = subprocess.run([nginx, "-t", "-c", str(conf), "-p", str(tmp_path)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    assert "syntax is ok" in checked.stderr


@pytest.mark.parametrize(
    ("fields", "refusal"),
    [
        ({"database_url": None, "redis_url": "redis://127.0.0.1:6379/1"}, "needs PostgreSQL"),
        ({"database_url": "sqlite:///x.db", "redis_url": "redis://127.0.0.1:6379/1"}, "needs PostgreSQL"),
        ({"database_url": "postgresql://u@h/db", "redis_url": None}, "needs Redis"),
    ],
)
def test_the_cluster_refuses_sqlite_or_no_redis_with_what_to_set(fields: dict[str, str | None], refusal: str) -> None:
    with pytest.raises(SystemExit, match=refusal):
        from_settings(Settings(**fields), Path("/tmp/unused"))  # type: ignore[arg-type]


def test_the_workers_follow_the_first_port_and_the_proxy_takes_the_public_port(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TOPIC_DASHBOARD_PUBLIC_BASE_URL", raising=False)  # set by other tests' apps in CI
    settings = Settings(
        database_url="postgresql://u@h/db",
        redis_url="redis://127.0.0.1:6379/1",
        port=3100,
        cluster_workers=4,
        cluster_first_port=9001,
    )
    cluster = from_settings(settings, Path("/tmp/unused"))
    assert cluster.worker_ports == [9001, 9002, 9003, 9004]
    assert cluster.proxy_port == 3100
    env = cluster.worker_env(9002)
    assert env["TOPIC_DASHBOARD_PORT"] == "9002" and env["GRANIAN_WORKERS"] == "1"
    # Every worker is built for, and tells bots, the proxy's address, whatever this process's environment
    # says (a browser-suite worker has its own app's address there).
    assert env["TOPIC_DASHBOARD_PUBLIC_BASE_URL"] == "http://127.0.0.1:3100"
    named = from_settings(settings.model_copy(update={"public_base_url": "https://topics.example"}), Path("/tmp/x"))
    assert named.worker_env(9001)["TOPIC_DASHBOARD_PUBLIC_BASE_URL"] == "https://topics.example"


def test_the_workers_address_ignores_this_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOPIC_DASHBOARD_PUBLIC_BASE_URL", "http://127.0.0.1:55445")  # another app's
    cluster = Cluster(
        database_url="postgresql://u@h/db",
        redis_url="redis://127.0.0.1:6379/1",
        run_dir=Path("/tmp/unused"),
        proxy_port=46445,
        worker_ports=[8101],
        data_dir=Path("/tmp/unused"),
    )
    assert cluster.worker_env(8101)["TOPIC_DASHBOARD_PUBLIC_BASE_URL"] == "http://127.0.0.1:46445"


@pytest.mark.skipif(not TEST_DATABASE_URL, reason="needs PostgreSQL (TEST_DATABASE_URL)")
def test_ensure_database_creates_a_missing_database_once() -> None:
    assert TEST_DATABASE_URL
    name = f"td_cluster_{os.getpid()}_{secrets.token_hex(3)}"
    url = sa.make_url(TEST_DATABASE_URL).set(database=name).render_as_string(hide_password=False)
    try:
        assert ensure_database(url) is True
        assert ensure_database(url) is False
    finally:
        admin = _admin_engine()
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()
