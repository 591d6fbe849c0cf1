"""REST reads never take the write lock: they answer while another writer holds the database."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from sqlalchemy.engine import make_url
from sqlmodel import Session

from tests.support.server import LiveServer
from topic_dashboard.services.accounts import issue_api_token
from topic_dashboard.services.bots import create_bot

READS = (
    "/api/bots",
    "/api/bots/{bot}/topics",
    "/api/bots/{bot}/topic-settings",
    "/api/bots/{bot}/topic-items",
    "/api/bots/{bot}/conversations",
    "/api/audit",
)


@contextmanager
def _write_lock_held(database_url: str) -> Iterator[None]:
    """Another process's writer: BEGIN IMMEDIATE on the same SQLite file, held until the block ends."""
    connection = sqlite3.connect(make_url(database_url).database or "", timeout=1, isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
        yield
        connection.execute("ROLLBACK")
    finally:
        connection.close()


def test_reads_answer_while_a_writer_holds_the_database(server: LiveServer, server_session: Session) -> None:
    if not server.database_url.startswith("sqlite"):
        pytest.skip("PostgreSQL readers never wait for writers; the write lock is SQLite's")
    bot, _ = create_bot(session=server_session, name="reader")
    _, token = issue_api_token(session=server_session, name="read-lock", role="viewer")
    # A write session would wait for the lock (15 s busy timeout): the client gives up long before.
    with httpx.Client(base_url=server.base_url, headers={"authorization": f"Bearer {token}"}, timeout=5) as client:
        assert client.get("/api/bots").status_code == 200  # the token's first use is noted before the lock
        with _write_lock_held(server.database_url):
            for path in READS:
                response = client.get(path.format(bot=bot.bot_id))
                assert response.status_code == 200, (path, response.text)


def test_a_write_waits_for_the_lock_positive_control(server: LiveServer, server_session: Session) -> None:
    """The control: a write does wait for the other writer, so the read test above can fail."""
    if not server.database_url.startswith("sqlite"):
        pytest.skip("the write lock is SQLite's")
    bot, _ = create_bot(session=server_session, name="writer")
    _, token = issue_api_token(session=server_session, name="write-lock", role="admin")
    with httpx.Client(base_url=server.base_url, headers={"authorization": f"Bearer {token}"}, timeout=2) as client:
        assert client.get("/api/bots").status_code == 200
        with _write_lock_held(server.database_url), pytest.raises(httpx.ReadTimeout):
            client.put(f"/api/bots/{bot.bot_id}/topic-settings", json={"topic_enabled": False})
