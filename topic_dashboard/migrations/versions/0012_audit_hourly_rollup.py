"""the hourly rollup of bots' tool calls for the Insights page: audit_hour and its marker audit_rollup

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 04:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

BANDS = 13


def upgrade() -> None:
    text = sqlmodel.sql.sqltypes.AutoString
    op.create_table(
        "audit_hour",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("hour", text(length=13), nullable=False),
        sa.Column("bot_id", text(length=64), nullable=True),
        sa.Column("tool", text(length=64), nullable=False),
        sa.Column("outcome", text(length=32), nullable=False),
        sa.Column("error_code", text(length=64), nullable=True),
        sa.Column("topic_key", text(length=64), nullable=True),
        sa.Column("calls", sa.Integer(), nullable=False),
        *[sa.Column(f"l{band}", sa.Integer(), nullable=False) for band in range(BANDS)],
    )
    op.create_index("ix_audit_hour_hour_bot", "audit_hour", ["hour", "bot_id"])
    op.create_table(
        "audit_rollup",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("rolled_until", text(length=13), nullable=False),
    )
    op.execute("INSERT INTO audit_rollup (id, rolled_until) VALUES (1, '')")  # the one marker row


def downgrade() -> None:
    op.drop_table("audit_rollup")
    op.drop_index("ix_audit_hour_hour_bot", table_name="audit_hour")
    op.drop_table("audit_hour")
