"""topic_count: items per bot, topic and team read state (archived left out), kept by triggers

The panel's unread and total counts were a count over the bot's items (19 ms at 50,000 items on
PostgreSQL, growing with the items); they are now a look-up of a few rows. The database keeps the
rows itself, so every way an item is added, moved, read, archived or deleted (the services, a bulk
UPDATE, a cascade from a deleted bot, the retention purge) counts. SQLite: row triggers with an
upsert. PostgreSQL: statement triggers over transition tables, one aggregated upsert per statement
(marking 100,000 items read is one statement's work, not 100,000), after the bot's settings row
(the lock publish takes first), rows in key order: two writers never wait on each other crosswise.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03 04:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

_UPSERT_SQLITE = (
    "INSERT INTO topic_count (bot_id, topic_key, is_read, n) SELECT {p}.bot_id, {p}.topic_key, {p}.is_read, {d} "
    "WHERE NOT {p}.is_archived ON CONFLICT (bot_id, topic_key, is_read) DO UPDATE SET n = n + ({d});"
)
SQLITE_UP = [
    "CREATE TRIGGER topic_count_insert AFTER INSERT ON topic_item BEGIN "
    + _UPSERT_SQLITE.format(p="new", d="1")
    + " END",
    "CREATE TRIGGER topic_count_delete AFTER DELETE ON topic_item BEGIN "
    + _UPSERT_SQLITE.format(p="old", d="-1")
    + " END",
    "CREATE TRIGGER topic_count_update AFTER UPDATE OF bot_id, topic_key, is_read, is_archived ON topic_item BEGIN "
    + _UPSERT_SQLITE.format(p="old", d="-1")
    + " "
    + _UPSERT_SQLITE.format(p="new", d="1")
    + " END",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS topic_count_update",
    "DROP TRIGGER IF EXISTS topic_count_delete",
    "DROP TRIGGER IF EXISTS topic_count_insert",
]

_PG_APPLY = """
INSERT INTO topic_count AS c (bot_id, topic_key, is_read, n)
SELECT bot_id, topic_key, is_read, sum(d) FROM ({rows}) AS changed
GROUP BY bot_id, topic_key, is_read HAVING sum(d) <> 0 ORDER BY bot_id, topic_key, is_read
ON CONFLICT (bot_id, topic_key, is_read) DO UPDATE SET n = c.n + EXCLUDED.n;
"""
_OLD = "SELECT bot_id, topic_key, is_read, -1 AS d FROM old_rows WHERE NOT is_archived"
_NEW = "SELECT bot_id, topic_key, is_read, 1 AS d FROM new_rows WHERE NOT is_archived"


# The bot's write lock first (its settings row, which publish takes before inserting): a person
# marking items read while the bot publishes then waits in the same order, never crosswise
# (without it PostgreSQL reported a deadlock; tests/topic_dashboard/services/test_topic_counts.py).
_PG_LOCK = (
    "PERFORM 1 FROM topic_bot_settings WHERE bot_id IN (SELECT bot_id FROM ({rows}) AS touched) "
    "ORDER BY bot_id FOR UPDATE;"
)


def _pg_function(name: str, rows: str) -> str:
    return (
        f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        + _PG_LOCK.format(rows=rows)
        + _PG_APPLY.format(rows=rows)
        + " RETURN NULL; END $$"
    )


PG_UP = [
    _pg_function("topic_count_on_insert", _NEW),
    _pg_function("topic_count_on_delete", _OLD),
    _pg_function("topic_count_on_update", f"{_OLD} UNION ALL {_NEW}"),
    (
        "CREATE TRIGGER topic_count_insert AFTER INSERT ON topic_item REFERENCING NEW TABLE AS new_rows "
        "FOR EACH STATEMENT EXECUTE FUNCTION topic_count_on_insert()"
    ),
    (
        "CREATE TRIGGER topic_count_delete AFTER DELETE ON topic_item REFERENCING OLD TABLE AS old_rows "
        "FOR EACH STATEMENT EXECUTE FUNCTION topic_count_on_delete()"
    ),
    (
        "CREATE TRIGGER topic_count_update AFTER UPDATE ON topic_item REFERENCING OLD TABLE AS old_rows "
        "NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION topic_count_on_update()"
    ),
]
PG_DOWN = [
    "DROP TRIGGER IF EXISTS topic_count_update ON topic_item",
    "DROP TRIGGER IF EXISTS topic_count_delete ON topic_item",
    "DROP TRIGGER IF EXISTS topic_count_insert ON topic_item",
    "DROP FUNCTION IF EXISTS topic_count_on_update()",
    "DROP FUNCTION IF EXISTS topic_count_on_delete()",
    "DROP FUNCTION IF EXISTS topic_count_on_insert()",
]


def upgrade() -> None:
    op.create_table(
        "topic_count",
        sa.Column("bot_id", sa.String(64), primary_key=True),
        sa.Column("topic_key", sa.String(64), primary_key=True),
        sa.Column("is_read", sa.Boolean(), primary_key=True),
        sa.Column("n", sa.Integer(), nullable=False),
    )
    bind = op.get_bind()
    for statement in SQLITE_UP if bind.dialect.name == "sqlite" else PG_UP:
        op.execute(statement)
    op.execute(  # the items already stored
        "INSERT INTO topic_count (bot_id, topic_key, is_read, n) SELECT bot_id, topic_key, is_read, count(*) "
        "FROM topic_item WHERE NOT is_archived GROUP BY bot_id, topic_key, is_read"
    )


def downgrade() -> None:
    bind = op.get_bind()
    for statement in SQLITE_DOWN if bind.dialect.name == "sqlite" else PG_DOWN:
        op.execute(statement)
    op.drop_table("topic_count")
