"""retention per topic: keep items N days and/or the newest N (pinned items are kept regardless)

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 21:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("topic_topic") as batch:
        batch.add_column(sa.Column("retention_days", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("retention_items", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("topic_topic") as batch:
        batch.drop_column("retention_items")
        batch.drop_column("retention_days")
