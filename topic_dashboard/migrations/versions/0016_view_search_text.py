"""topic_item.view_text: a view's visible words, so search finds a table cell, a card's facts, a checklist step

The text is computed when an item is stored or rewritten (item_views/search_text.py); the rows stored before
get theirs here. Search reads it beside the title, content and tags: the SQLite FTS5 table (migration 0007) is
made again with a fourth column and its triggers watch it too; the PostgreSQL trigram index covers the new
expression (services/search.py `PG_SEARCH_TEXT`).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-05 22:10:00.000000
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

from topic_dashboard.item_views.search_text import view_search_text

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

_FTS_DROP = [
    "DROP TRIGGER IF EXISTS topic_item_fts_update",
    "DROP TRIGGER IF EXISTS topic_item_fts_delete",
    "DROP TRIGGER IF EXISTS topic_item_fts_insert",
    "DROP TABLE IF EXISTS topic_item_fts",
]


def _fts_create(columns: tuple[str, ...]) -> list[str]:
    """The FTS5 table over topic_item's `columns` and the triggers that keep it (as migration 0007 made it)."""
    names = ", ".join(columns)
    new = ", ".join(f"new.{column}" for column in columns)
    old = ", ".join(f"old.{column}" for column in columns)
    table = (
        f"CREATE VIRTUAL TABLE topic_item_fts USING fts5({names}, content='topic_item', content_rowid='id', "
        "tokenize='trigram')"
    )
    on_insert = (
        "CREATE TRIGGER topic_item_fts_insert AFTER INSERT ON topic_item BEGIN "
        f"INSERT INTO topic_item_fts(rowid, {names}) VALUES (new.id, {new}); END"
    )
    on_delete = (
        "CREATE TRIGGER topic_item_fts_delete AFTER DELETE ON topic_item BEGIN "
        f"INSERT INTO topic_item_fts(topic_item_fts, rowid, {names}) VALUES ('delete', old.id, {old}); END"
    )
    on_update = (
        f"CREATE TRIGGER topic_item_fts_update AFTER UPDATE OF {names} ON topic_item BEGIN "
        f"INSERT INTO topic_item_fts(topic_item_fts, rowid, {names}) VALUES ('delete', old.id, {old}); "
        f"INSERT INTO topic_item_fts(rowid, {names}) VALUES (new.id, {new}); END"
    )
    return [
        table,
        on_insert,
        on_delete,
        on_update,
        "INSERT INTO topic_item_fts(topic_item_fts) VALUES ('rebuild')",
    ]


_PG_EXPRESSION = "(title || ' ' || content || ' ' || coalesce(tags_json::text, '')"
PG_INDEX_OLD = (
    f"CREATE INDEX IF NOT EXISTS ix_topic_item_search_trgm ON topic_item USING gin ({_PG_EXPRESSION}) gin_trgm_ops)"
)
# Must be the very expression services/search.py matches with ILIKE, or the index is not used.
PG_INDEX_NEW = (
    "CREATE INDEX IF NOT EXISTS ix_topic_item_search_trgm ON topic_item USING gin "
    f"({_PG_EXPRESSION} || ' ' || view_text) gin_trgm_ops)"
)


def _backfill(bind: sa.engine.Connection) -> None:
    """Each stored item with a view gets its words, read and written 500 at a time by id (a large instance holds
    many: never all of them in memory at once)."""
    page = sa.text(
        "SELECT id, view_json FROM topic_item WHERE view_json IS NOT NULL AND id > :after ORDER BY id LIMIT 500"
    )
    update = sa.text("UPDATE topic_item SET view_text = :text WHERE id = :id")
    after = 0
    while rows := bind.execute(page, {"after": after}).fetchall():
        batch = []
        for item_id, raw in rows:
            text = view_search_text(json.loads(raw) if isinstance(raw, str) else raw)
            if text:
                batch.append({"id": item_id, "text": text})
        if batch:
            bind.execute(update, batch)
        after = rows[-1][0]


def _has_trigram_index(bind: sa.engine.Connection) -> bool:
    found = bind.execute(sa.text("SELECT 1 FROM pg_indexes WHERE indexname = 'ix_topic_item_search_trgm'"))
    return found.first() is not None


def upgrade() -> None:
    bind = op.get_bind()
    # Plain ADD COLUMN, not batch mode: a batch rebuilds the table on SQLite (see 0009).
    op.add_column("topic_item", sa.Column("view_text", sa.Text(), nullable=False, server_default=""))
    _backfill(bind)
    if bind.dialect.name == "sqlite":
        for statement in [*_FTS_DROP, *_fts_create(("title", "content", "tags_json", "view_text"))]:
            op.execute(statement)
    elif bind.dialect.name == "postgresql" and _has_trigram_index(bind):
        op.execute("DROP INDEX IF EXISTS ix_topic_item_search_trgm")
        op.execute(PG_INDEX_NEW)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        for statement in [*_FTS_DROP, *_fts_create(("title", "content", "tags_json"))]:
            op.execute(statement)
    elif bind.dialect.name == "postgresql" and _has_trigram_index(bind):
        op.execute("DROP INDEX IF EXISTS ix_topic_item_search_trgm")
        op.execute(PG_INDEX_OLD)
    op.drop_column("topic_item", "view_text")
