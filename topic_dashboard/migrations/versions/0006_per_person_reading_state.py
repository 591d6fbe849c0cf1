"""per-person reading state: item_state (read, pinned, archived per user where it differs from the team's)

Today's flags stay on topic_item as the team's state, which every person sees until they change
their own: so every existing user keeps exactly what they saw before the upgrade.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 20:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "item_state",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("is_read", sa.Boolean(), nullable=True),
        sa.Column("is_pinned", sa.Boolean(), nullable=True),
        sa.Column("is_archived", sa.Boolean(), nullable=True),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user_account.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["item_id"], ["topic_item.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("user_id", "item_id"),
    )
    op.create_index("ix_item_state_user_bot", "item_state", ["user_id", "bot_id"])
    op.create_index("ix_item_state_item", "item_state", ["item_id"])


def downgrade() -> None:
    op.drop_table("item_state")
