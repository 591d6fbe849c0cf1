"""Rows the Rules page shows."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class RuleTopicRow:
    key: str = ""
    name: str = ""
    is_active: bool = True
    is_fallback: bool = False
    priority: int = 50
    item_count: int = 0  # in the panel (archived left out)
    archived_count: int = 0
    last_item_at: str = ""


@dataclasses.dataclass
class ScoreRow:
    topic_key: str = ""
    score: float = 0.0
    score_pct: int = 0
    priority: int = 0
    matched: str = ""
    vetoed_by: str = ""
    chosen: bool = False
    meaning: str = ""  # the closest rule text in meaning and how close ("include_when[1] 0.82")
    bar_pct: int = 0  # the calibrated probability when the embedding model ran, else the rule score


@dataclasses.dataclass
class ChangeLine:
    """One field a change touched, as it read before and after ("" when it was missing)."""

    field: str = ""
    before: str = ""
    after: str = ""


@dataclasses.dataclass
class HistoryRow:
    id: int = 0
    actor: str = ""
    action: str = ""
    created_at: str = ""
    summary: str = ""
    before: str = ""
    after: str = ""
    changes: list[ChangeLine] = dataclasses.field(default_factory=list)
