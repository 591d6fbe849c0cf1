"""alerts: thresholds admins set (alert_rule), their episodes (alert_episode, at most one open per rule and
bot) and the evaluator's schedule (alert_schedule, one row)

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02 04:20:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    text = sqlmodel.sql.sqltypes.AutoString
    utc = sqlmodel.sql.sqltypes.UTCDateTime
    op.create_table(
        "alert_rule",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("bot_id", sa.String(64), sa.ForeignKey("bot.id", ondelete="CASCADE"), nullable=True),
        sa.Column("kind", text(length=32), nullable=False),
        sa.Column("threshold", sa.Float(), nullable=False),
        sa.Column("window_minutes", sa.Integer(), nullable=False),
        sa.Column("topic_key", text(length=64), nullable=True),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("created_by", text(length=100), nullable=False),
        sa.Column("created_at", utc(), nullable=False),
    )
    op.create_table(
        "alert_episode",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("rule_id", sa.Integer(), sa.ForeignKey("alert_rule.id", ondelete="CASCADE"), nullable=False),
        sa.Column("bot_id", sa.String(64), sa.ForeignKey("bot.id", ondelete="CASCADE"), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("started_at", utc(), nullable=False),
        sa.Column("ended_at", utc(), nullable=True),
        sa.Column("item_id", sa.Integer(), nullable=True),
        sa.Column("recovery_item_id", sa.Integer(), nullable=True),
    )
    op.create_index(
        "uq_alert_episode_open",
        "alert_episode",
        ["rule_id", "bot_id"],
        unique=True,
        sqlite_where=sa.text("ended_at IS NULL"),
        postgresql_where=sa.text("ended_at IS NULL"),
    )
    op.create_table(
        "alert_schedule",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("last_run_at", utc(), nullable=True),
    )
    op.execute("INSERT INTO alert_schedule (id, last_run_at) VALUES (1, NULL)")


def downgrade() -> None:
    op.drop_table("alert_schedule")
    op.drop_index("uq_alert_episode_open", table_name="alert_episode")
    op.drop_table("alert_episode")
    op.drop_table("alert_rule")
