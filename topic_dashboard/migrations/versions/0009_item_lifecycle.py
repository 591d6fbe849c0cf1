"""item lifecycle: updated in place (updated_at, update_count) and resolved (resolved_at, resolved_by)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 22:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN, not batch mode: on SQLite a batch rebuilds the table, and that would drop
    # the search index's triggers on topic_item (migration 0007).
    op.add_column("topic_item", sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.add_column("topic_item", sa.Column("update_count", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("topic_item", sa.Column("resolved_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.add_column("topic_item", sa.Column("resolved_by", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True))


def downgrade() -> None:
    for column in ("resolved_by", "resolved_at", "update_count", "updated_at"):
        op.drop_column("topic_item", column)
