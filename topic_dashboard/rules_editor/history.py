"""Human summaries of rule changes (who changed what). Pure."""

from __future__ import annotations

import json
from typing import Any

from topic_dashboard.rules_editor.rows import HistoryRow
from topic_dashboard.services.topics import RuleChangePublic

_LABELS = {
    "name": "name",
    "description": "description",
    "is_active": "active",
    "view_schema_json": "view types",
}


def change_summary(before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    if before is None:
        return "created"
    if after is None:
        return "deleted"
    changed = [label for key, label in _LABELS.items() if before.get(key) != after.get(key)]
    rule_before, rule_after = before.get("routing_json") or {}, after.get("routing_json") or {}
    changed += [
        f"rule.{key}"
        for key in sorted(set(rule_before) | set(rule_after))
        if rule_before.get(key) != rule_after.get(key)
    ]
    return "changed " + ", ".join(changed) if changed else "saved without changes"


def history_row(change: RuleChangePublic) -> HistoryRow:
    return HistoryRow(
        id=change.id,
        actor=change.actor,
        action=change.action,
        created_at=change.created_at or "",
        summary=change_summary(change.before, change.after),
        before=json.dumps(change.before, ensure_ascii=False, indent=2) if change.before else "",
        after=json.dumps(change.after, ensure_ascii=False, indent=2) if change.after else "",
    )
