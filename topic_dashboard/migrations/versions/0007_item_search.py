"""full-text search over items: SQLite FTS5 (trigram) kept by triggers; PostgreSQL pg_trgm index

Tags are now stored as UTF-8 text ("发布", not "\\u53d1\\u5e03": db.json_text), so that search and the
tag filter find Chinese tags in the stored text; the rows stored before are rewritten that way.
Neither search object is a model: search.py (services) queries them, and `search_schema_object` keeps
them out of the models-versus-migrations comparison.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 21:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

SQLITE_UP = [
    # An external-content FTS5 table over topic_item: it stores only the index; the trigram tokenizer
    # finds any 3+ character substring, Chinese or English, case-insensitively.
    (
        "CREATE VIRTUAL TABLE topic_item_fts USING fts5("
        "title, content, tags_json, content='topic_item', content_rowid='id', tokenize='trigram')"
    ),
    (
        "CREATE TRIGGER topic_item_fts_insert AFTER INSERT ON topic_item BEGIN "
        "INSERT INTO topic_item_fts(rowid, title, content, tags_json) "
        "VALUES (new.id, new.title, new.content, new.tags_json); END"
    ),
    (
        "CREATE TRIGGER topic_item_fts_delete AFTER DELETE ON topic_item BEGIN "
        "INSERT INTO topic_item_fts(topic_item_fts, rowid, title, content, tags_json) "
        "VALUES ('delete', old.id, old.title, old.content, old.tags_json); END"
    ),
    (
        "CREATE TRIGGER topic_item_fts_update AFTER UPDATE OF title, content, tags_json ON topic_item BEGIN "
        "INSERT INTO topic_item_fts(topic_item_fts, rowid, title, content, tags_json) "
        "VALUES ('delete', old.id, old.title, old.content, old.tags_json); "
        "INSERT INTO topic_item_fts(rowid, title, content, tags_json) "
        "VALUES (new.id, new.title, new.content, new.tags_json); END"
    ),
    "INSERT INTO topic_item_fts(topic_item_fts) VALUES ('rebuild')",  # the items already stored
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS topic_item_fts_update",
    "DROP TRIGGER IF EXISTS topic_item_fts_delete",
    "DROP TRIGGER IF EXISTS topic_item_fts_insert",
    "DROP TABLE IF EXISTS topic_item_fts",
]
# Must be the very expression services/search.py matches with ILIKE, or the index is not used.
PG_INDEX = (
    "CREATE INDEX IF NOT EXISTS ix_topic_item_search_trgm ON topic_item USING gin "
    "((title || ' ' || content || ' ' || coalesce(tags_json::text, '')) gin_trgm_ops)"
)


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        op.execute(
            "UPDATE topic_item SET tags_json = (SELECT json_group_array(value) FROM json_each(topic_item.tags_json)) "
            "WHERE instr(tags_json, '\\u') > 0"
        )
        for statement in SQLITE_UP:
            op.execute(statement)
    elif bind.dialect.name == "postgresql":
        op.execute(
            "UPDATE topic_item SET tags_json = (SELECT coalesce(json_agg(value), '[]'::json) "
            "FROM json_array_elements_text(topic_item.tags_json) AS value) WHERE strpos(tags_json::text, '\\u') > 0"
        )
        # pg_trgm ships with PostgreSQL's contrib and is a trusted extension (a database owner may
        # create it). Where it is missing or not allowed, search still works by scanning a bot's items.
        try:
            with bind.begin_nested():
                bind.execute(sa.text("CREATE EXTENSION IF NOT EXISTS pg_trgm"))
                bind.execute(sa.text(PG_INDEX))
        except sa.exc.DBAPIError as error:
            print(f"item search: no trigram index ({type(error.orig).__name__}); search scans instead")


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        for statement in SQLITE_DOWN:
            op.execute(statement)
    elif bind.dialect.name == "postgresql":
        op.execute("DROP INDEX IF EXISTS ix_topic_item_search_trgm")
