"""login throttle and API token expiry

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 09:00:00.000000

Existing API tokens keep working for 90 days from the upgrade (not from their creation, which could
end them the moment the dashboard restarts), then expire like new ones.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

GRACE_FOR_EXISTING_TOKENS = timedelta(days=90)


def upgrade() -> None:
    op.create_table(
        "login_throttle",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_failure_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("locked_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key"),
    )
    with op.batch_alter_table("login_throttle", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_login_throttle_last_failure_at"), ["last_failure_at"], unique=False)

    with op.batch_alter_table("api_token", schema=None) as batch_op:
        batch_op.add_column(sa.Column("expires_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    api_token = sa.table("api_token", sa.column("expires_at", sqlmodel.sql.sqltypes.UTCDateTime()))
    op.execute(
        api_token.update()
        .where(api_token.c.expires_at.is_(None))
        .values(expires_at=datetime.now(UTC) + GRACE_FOR_EXISTING_TOKENS)
    )
    with op.batch_alter_table("api_token", schema=None) as batch_op:
        batch_op.alter_column("expires_at", existing_type=sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("api_token", schema=None) as batch_op:
        batch_op.drop_column("expires_at")

    with op.batch_alter_table("login_throttle", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_login_throttle_last_failure_at"))

    op.drop_table("login_throttle")
