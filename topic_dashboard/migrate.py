"""Apply Alembic migrations: the only way the schema changes."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from topic_dashboard.settings import get_settings

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def alembic_config(url: str | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # '%' must be escaped for ConfigParser interpolation.
    config.set_main_option("sqlalchemy.url", (url or get_settings().effective_database_url).replace("%", "%%"))
    return config


def upgrade_database(url: str | None = None, revision: str = "head") -> None:
    """Bring the database at `url` (default: the configured one) to `revision`."""
    url = url or get_settings().effective_database_url
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(url), revision)


def current_revision_is_head(url: str | None = None) -> bool:
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from topic_dashboard.db import create_db_engine

    config = alembic_config(url)
    head = ScriptDirectory.from_config(config).get_current_head()
    engine = create_db_engine(url or get_settings().effective_database_url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision() == head
    finally:
        engine.dispose()
