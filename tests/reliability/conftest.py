"""What the fuzz tests share: a digest of everything stored, to show that a refused request changed nothing."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa
from sqlmodel import SQLModel

import topic_dashboard.models  # noqa: F401  (registers every table on SQLModel.metadata)
from tests.support.server import LiveServer
from topic_dashboard.db import create_db_engine

# The audit trail grows with every MCP call, refused ones included, and a token's last use is
# recorded on every request: neither is data a refusal may not change.
# The trail, and what is derived from it (the hourly rollup the Insights page reads).
IGNORED_TABLES = frozenset({"audit_log", "audit_hour", "audit_rollup"})
IGNORED_COLUMNS = frozenset({("api_token", "last_used_at")})


@pytest.fixture
def db_digest(server: LiveServer) -> Iterator[Callable[..., str]]:
    """A function returning a digest of every row of every table on the live server's database."""
    engine = create_db_engine(server.database_url)
    reader = engine.execution_options(sqlite_begin="DEFERRED")  # never hold SQLite's write lock while reading
    tables = sorted(
        (table for table in SQLModel.metadata.tables.values() if table.name not in IGNORED_TABLES),
        key=lambda table: table.name,
    )

    def digest(skip: tuple[str, ...] = (), skip_columns: tuple[tuple[str, str], ...] = ()) -> str:
        hashed = hashlib.sha256()
        with reader.connect() as conn:
            for table in tables:
                if table.name in skip:
                    continue
                columns = [c for c in table.columns if (table.name, c.name) not in IGNORED_COLUMNS.union(skip_columns)]
                for row in conn.execute(sa.select(*columns).order_by(*table.primary_key.columns)):
                    hashed.update(repr((table.name, tuple(row))).encode("utf-8", "surrogatepass"))
        return hashed.hexdigest()

    yield digest
    engine.dispose()
