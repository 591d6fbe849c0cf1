"""dashboard channel: bots' chat endpoints, chat runs, streamed answers, items linked to conversations

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 17:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot") as batch:
        batch.add_column(sa.Column("chat_url", sa.String(length=500), nullable=True))
        batch.add_column(sa.Column("chat_key", sa.String(length=500), nullable=True))
    with op.batch_alter_table("conversation") as batch:
        batch.add_column(sa.Column("run_error", sa.String(length=500), nullable=True))
        batch.add_column(sa.Column("revision", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("message") as batch:
        batch.add_column(sa.Column("streaming", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("topic_item") as batch:
        batch.add_column(sa.Column("conversation_id", sa.String(length=64), nullable=True))
        batch.create_foreign_key(
            "fk_topic_item_conversation_id", "conversation", ["conversation_id"], ["id"], ondelete="SET NULL"
        )
        batch.create_index("ix_topic_item_conversation_id", ["conversation_id"])
    op.create_table(
        "chat_run",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("bot_id", sa.String(length=64), nullable=False),
        sa.Column("conversation_id", sa.String(length=64), nullable=False),
        sa.Column("user_message_id", sa.String(length=64), nullable=False),
        sa.Column("assistant_message_id", sa.String(length=64), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("stop_requested", sa.Boolean(), nullable=False),
        sa.Column("error", sa.String(length=500), nullable=True),
        sa.Column("error_code", sa.String(length=64), nullable=True),
        sa.Column("worker", sa.String(length=100), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("started_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("finished_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["conversation_id"], ["conversation.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_chat_run_status_created", "chat_run", ["status", "created_at"])
    op.create_index("ix_chat_run_conversation", "chat_run", ["conversation_id", "created_at"])
    op.create_index(
        "uq_chat_run_one_running_per_bot",
        "chat_run",
        ["bot_id"],
        unique=True,
        sqlite_where=sa.text("status = 'running'"),
        postgresql_where=sa.text("status = 'running'"),
    )


def downgrade() -> None:
    op.drop_table("chat_run")
    with op.batch_alter_table("topic_item") as batch:
        batch.drop_index("ix_topic_item_conversation_id")
        batch.drop_constraint("fk_topic_item_conversation_id", type_="foreignkey")
        batch.drop_column("conversation_id")
    with op.batch_alter_table("message") as batch:
        batch.drop_column("streaming")
    with op.batch_alter_table("conversation") as batch:
        batch.drop_column("revision")
        batch.drop_column("run_error")
    with op.batch_alter_table("bot") as batch:
        batch.drop_column("chat_key")
        batch.drop_column("chat_url")
