"""Vectors of routing rule texts, kept so a restart (or a second worker) does not embed them again."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from topic_dashboard.models._common import utcnow


class RuleVector(SQLModel, table=True):
    """One rule text's vector under one model: keyed by the model and the text's SHA-256, so the same
    text in several topics or bots is stored once, and a changed text simply gets a new row."""

    __tablename__ = "rule_vector"

    model_id: str = Field(sa_column=sa.Column(sa.String(100), primary_key=True))
    digest: str = Field(sa_column=sa.Column(sa.String(64), primary_key=True))
    vector: bytes = Field(sa_column=sa.Column(sa.LargeBinary(), nullable=False))  # float32, little-endian
    created_at: datetime = Field(default_factory=utcnow)
