"""Fresh, migrated databases for tests: an SQLite file per test, and a PostgreSQL database per run."""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from topic_dashboard.db import dispose_engines
from topic_dashboard.migrate import upgrade_database

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL")
# TD_TEST_MIGRATE_EACH=1 migrates every test's database instead of copying a template: the old way,
# kept only to measure what the template saves (docs/PERFORMANCE.md, "The test suite").
MIGRATE_EACH = os.environ.get("TD_TEST_MIGRATE_EACH") == "1"


def backends() -> list[str]:
    """SQLite always; PostgreSQL when TEST_DATABASE_URL names a server."""
    return ["sqlite", "postgresql"] if TEST_DATABASE_URL else ["sqlite"]


def _psycopg(url: str) -> str:
    return "postgresql+psycopg://" + url.split("://", 1)[1] if url.startswith("postgresql://") else url


def _admin_engine() -> sa.Engine:
    assert TEST_DATABASE_URL
    return sa.create_engine(make_url(_psycopg(TEST_DATABASE_URL)), isolation_level="AUTOCOMMIT")


def _unique_name(kind: str) -> str:
    return f"td_{kind}_{os.getpid()}_{secrets.token_hex(4)}"


@contextmanager
def postgres_database(template: str | None = None) -> Iterator[str]:
    """Create a uniquely named database on the TEST_DATABASE_URL server (a copy of `template` if given);
    drop it afterwards."""
    admin_url = make_url(_psycopg(TEST_DATABASE_URL or ""))
    name = _unique_name("test")
    admin = _admin_engine()
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    try:
        yield admin_url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


# Migrating takes 65-130 ms; copying a migrated template takes a few. One template per backend and process
# (pytest-xdist workers are processes), made on first use and removed at exit.
_templates: dict[str, str] = {}


def _sqlite_template() -> str:
    if "sqlite" not in _templates:
        directory = tempfile.mkdtemp(prefix="td-template-")
        atexit.register(shutil.rmtree, directory, True)
        path = os.path.join(directory, "template.db")
        upgrade_database(f"sqlite:///{path}")
        dispose_engines()
        _templates["sqlite"] = path
    return _templates["sqlite"]


def _postgres_template() -> str:
    if "postgresql" not in _templates:
        name = _unique_name("template")
        admin = _admin_engine()
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        upgrade_database(
            make_url(_psycopg(TEST_DATABASE_URL or "")).set(database=name).render_as_string(hide_password=False)
        )
        dispose_engines()
        admin.dispose()

        def drop() -> None:
            engine = _admin_engine()
            with engine.connect() as conn:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            engine.dispose()

        atexit.register(drop)
        _templates["postgresql"] = name
    return _templates["postgresql"]


@contextmanager
def migrated_database(backend: str, tmp_dir: str) -> Iterator[str]:
    """A database URL of the given backend at the latest migration: a copy of a template migrated once."""
    if backend == "sqlite":
        path = os.path.join(tmp_dir, "topic_dashboard.db")
        if MIGRATE_EACH:
            upgrade_database(f"sqlite:///{path}")
            dispose_engines()
        else:
            shutil.copyfile(_sqlite_template(), path)
        yield f"sqlite:///{path}"
        return
    with postgres_database(template=None if MIGRATE_EACH else _postgres_template()) as url:
        if MIGRATE_EACH:
            upgrade_database(url)
            dispose_engines()
        yield url


@contextmanager
def empty_database(backend: str, tmp_path: Path) -> Iterator[str]:
    """A database with no schema yet, for a migration test: an SQLite file in `tmp_path`, or a PostgreSQL
    database of its own (dropped after)."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path}/upgrade.db"
        return
    with postgres_database() as url:
        yield url
