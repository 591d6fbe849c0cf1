"""Apply Alembic migrations: the only way the schema changes."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from topic_dashboard.db import check_data_dir, check_database, check_database_url, create_db_engine, database_error
from topic_dashboard.settings import get_settings

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


# Made by migration 0007 for search, outside the models (an FTS5 table and its shadow tables on
# SQLite, a trigram expression index on PostgreSQL): not part of the models-versus-schema comparison.
SEARCH_OBJECTS = ("topic_item_fts", "ix_topic_item_search_trgm")


def include_object(_obj: object, name: str | None, _type: str, _reflected: bool, _compare_to: object) -> bool:
    """Alembic's filter for comparing the models with the database: everything but the search objects."""
    return not (name or "").startswith(SEARCH_OBJECTS)


def alembic_config(url: str | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # '%' must be escaped for ConfigParser interpolation.
    config.set_main_option("sqlalchemy.url", (url or get_settings().effective_database_url).replace("%", "%%"))
    return config


def upgrade_database(url: str | None = None, revision: str = "head") -> None:
    """Bring the database at `url` (default: the configured one, whose data dir is checked too) to `revision`.

    Raises data_dir_unavailable or database_unavailable, with a message that says what to do.
    """
    if url is None:
        settings = get_settings()
        check_data_dir(settings.data_dir)
        url = settings.effective_database_url
    if url.startswith("sqlite:///"):
        check_data_dir(Path(url.removeprefix("sqlite:///")).parent)
    check_database_url(url)
    engine = create_db_engine(url)
    try:
        check_database(engine, write=True)
        command.upgrade(alembic_config(url), revision)
    except sa.exc.DBAPIError as exc:  # lost or refused in the middle of a migration
        raise database_error(url, exc) from exc
    finally:
        engine.dispose()


def current_revision_is_head(url: str | None = None) -> bool:
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    config = alembic_config(url)
    head = ScriptDirectory.from_config(config).get_current_head()
    engine = create_db_engine(url or get_settings().effective_database_url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision() == head
    finally:
        engine.dispose()
