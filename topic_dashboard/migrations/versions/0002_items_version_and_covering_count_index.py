"""items version and covering count index

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 04:39:53.633599
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("topic_bot_settings", schema=None) as batch_op:
        batch_op.add_column(sa.Column("items_version", sa.Integer(), nullable=False, server_default="0"))

    with op.batch_alter_table("topic_item", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_topic_item_bot_topic_read"))
        batch_op.create_index(
            "ix_topic_item_bot_topic_archived_read", ["bot_id", "topic_key", "is_archived", "is_read"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("topic_item", schema=None) as batch_op:
        batch_op.drop_index("ix_topic_item_bot_topic_archived_read")
        batch_op.create_index(
            batch_op.f("ix_topic_item_bot_topic_read"), ["bot_id", "topic_key", "is_read"], unique=False
        )

    with op.batch_alter_table("topic_bot_settings", schema=None) as batch_op:
        batch_op.drop_column("items_version")
