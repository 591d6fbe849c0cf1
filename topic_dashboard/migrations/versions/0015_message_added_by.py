"""message.added_by: the person who wrote an assistant, tool or system message into a conversation

A message an admin adds as the assistant looked exactly like the bot's own answer (a walkthrough
found it); the person's name now goes with it and the Conversations page marks it. Existing rows
keep NULL: who wrote them is in the audit log (conversation.add_message), not on the row.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-05 13:10:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("message") as batch:
        batch.add_column(sa.Column("added_by", sa.String(length=128), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("message") as batch:
        batch.drop_column("added_by")
