"""Fresh, migrated databases for tests: an SQLite file per test, and a PostgreSQL database per run."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from topic_dashboard.migrate import upgrade_database

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL")


def backends() -> list[str]:
    """SQLite always; PostgreSQL when TEST_DATABASE_URL names a server."""
    return ["sqlite", "postgresql"] if TEST_DATABASE_URL else ["sqlite"]


def _psycopg(url: str) -> str:
    return "postgresql+psycopg://" + url.split("://", 1)[1] if url.startswith("postgresql://") else url


@contextmanager
def postgres_database() -> Iterator[str]:
    """Create a uniquely named database on the TEST_DATABASE_URL server; drop it afterwards."""
    assert TEST_DATABASE_URL
    admin_url = make_url(_psycopg(TEST_DATABASE_URL))
    name = f"td_test_{os.getpid()}_{secrets.token_hex(4)}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield admin_url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@contextmanager
def migrated_database(backend: str, tmp_dir: str) -> Iterator[str]:
    """A database URL of the given backend at the latest migration."""
    if backend == "sqlite":
        url = f"sqlite:///{tmp_dir}/topic_dashboard.db"
        upgrade_database(url)
        yield url
        return
    with postgres_database() as url:
        upgrade_database(url)
        yield url
