"""account password reset: user_account.must_change_password (set by a reset, cleared by a change)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 23:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (no batch rebuild of the table on SQLite); existing accounts keep their passwords.
    op.add_column(
        "user_account",
        sa.Column("must_change_password", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_column("user_account", "must_change_password")
