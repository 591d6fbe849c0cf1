"""audit of actions: audit_log.actor_kind, actor, target, detail, and indexes to filter the trail

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 23:45:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

INDEXES = (
    ("ix_audit_log_actor_id", ("actor", "id")),
    ("ix_audit_log_tool_id", ("tool", "id")),
    ("ix_audit_log_outcome_id", ("outcome", "id")),
    ("ix_audit_log_error_code_id", ("error_code", "id")),
)


def upgrade() -> None:
    # Plain ADD COLUMN, not batch mode (no table rebuild on SQLite). The rows so far are bots' MCP
    # tool calls: actor_kind "bot", and the bot's id as the actor.
    op.add_column(
        "audit_log",
        sa.Column("actor_kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False, server_default="bot"),
    )
    op.add_column("audit_log", sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True))
    op.add_column("audit_log", sa.Column("target", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True))
    op.add_column("audit_log", sa.Column("detail", sa.Text(), nullable=True))
    op.execute("UPDATE audit_log SET actor = bot_id WHERE actor IS NULL AND bot_id IS NOT NULL")
    for name, columns in INDEXES:
        op.create_index(name, "audit_log", list(columns))


def downgrade() -> None:
    for name, _ in reversed(INDEXES):
        op.drop_index(name, table_name="audit_log")
    for column in ("detail", "target", "actor", "actor_kind"):
        op.drop_column("audit_log", column)
