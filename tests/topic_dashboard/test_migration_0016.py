"""Migration 0016 (a view's words for search) on a database that already holds items: their words are filled
in, search finds them, and a downgrade leaves search on titles and content working. On every backend."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from sqlmodel import Session

from tests.support.databases import backends, empty_database
from topic_dashboard.db import create_db_engine
from topic_dashboard.migrate import alembic_config, upgrade_database
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.search import search_items

TABLE = {"type": "table", "columns": ["Supplier"], "rows": [["Bauhaus"]], "caption": "Hall"}


def _found(engine: sa.Engine, bot_id: str, query: str) -> list[str]:
    with Session(engine) as session:
        return [hit.item.title for hit in search_items(session=session, bot_id=bot_id, query=query).hits]


@pytest.mark.parametrize("backend", backends())
def test_items_stored_before_get_their_views_words_and_a_downgrade_keeps_search(backend: str, tmp_path: Path) -> None:
    with empty_database(backend, tmp_path) as url:
        upgrade_database(url, "0015")
        engine = create_db_engine(url)
        try:
            with Session(engine) as session:  # the models of bots and topics are as they were at 0015
                bot, _ = create_bot(session=session, name="b", write_config=False)
            with engine.begin() as conn:
                now = datetime(2026, 12, 1)
                # more than two of the backfill's pages of 500, then the two items the searches look for
                older = [(f"Week {n}", json.dumps({**TABLE, "rows": [["Obi"]]})) for n in range(1_100)]
                items = [*older, ("Materials ordered", json.dumps(TABLE)), ("Paint dried", None)]
                conn.execute(
                    sa.text(
                        "INSERT INTO topic_item (bot_id, topic_key, title, content, level, tags_json, view_json, "
                        "source, is_read, is_pinned, is_archived, created_at, update_count) VALUES (:bot, 'inbox', "
                        ":title, 'for the hall', 'info', '[]', :view, 'mcp', false, false, false, :t, 0)"
                    ),
                    [{"bot": bot.bot_id, "title": title, "view": view, "t": now} for title, view in items],
                )
            upgrade_database(url)
            with engine.connect() as conn:
                filled = conn.execute(sa.text("SELECT count(*) FROM topic_item WHERE view_text <> ''")).scalar()
            assert filled == 1_101  # every item with a view, across the pages; none without
            assert _found(engine, bot.bot_id, "bauhaus") == ["Materials ordered"]
            assert _found(engine, bot.bot_id, "hall")[:2] == ["Paint dried", "Materials ordered"]
            command.downgrade(alembic_config(url), "0015")
            assert "view_text" not in {c["name"] for c in sa.inspect(engine).get_columns("topic_item")}
            upgrade_database(url)
            assert _found(engine, bot.bot_id, "bauhaus") == ["Materials ordered"]
        finally:
            engine.dispose()
