"""Human summaries of rule changes (who changed what). Pure."""

from __future__ import annotations

import json
from typing import Any

from topic_dashboard.rules_editor.rows import ChangeLine, HistoryRow
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
    keys = sorted(
        k for k in set(rule_before) | set(rule_after) if _meant(rule_before.get(k)) != _meant(rule_after.get(k))
    )
    said = _example_changes(rule_before.get("examples"), rule_after.get("examples")) if keys == ["examples"] else []
    if said and not changed:  # only examples: say which (a move that taught the rule adds one)
        return "; ".join(said)
    changed += [f"rule.{key}" for key in keys]
    return "changed " + ", ".join(changed) if changed else "saved without changes"


def change_lines(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[ChangeLine]:
    """The fields an edit changed, each as it read before and after: what the history shows first, so that
    nobody has to compare two JSON dumps. A creation or a deletion lists nothing (the summary says it)."""
    if before is None or after is None:
        return []
    lines = [
        ChangeLine(label, _readable(before.get(key)), _readable(after.get(key)))
        for key, label in _LABELS.items()
        if _meant(before.get(key)) != _meant(after.get(key))
    ]
    rule_before, rule_after = before.get("routing_json") or {}, after.get("routing_json") or {}
    for key in sorted(set(rule_before) | set(rule_after)):
        old, new = _meant(rule_before.get(key)), _meant(rule_after.get(key))
        if key == "examples" and old != new:
            for kind in ("positive", "negative"):
                was, now = (old or {}).get(kind), (new or {}).get(kind)
                if was != now:
                    lines.append(_line(f"rule.examples.{kind}", was, now))
        elif old != new:
            lines.append(_line(f"rule.{key}", old, new))
    return lines


def _line(field: str, old: Any, new: Any) -> ChangeLine:
    """A list's entries marked as kept (•), taken out (−, before) or added (+, after)."""
    if isinstance(old, list) or isinstance(new, list):
        was, now = old if isinstance(old, list) else [], new if isinstance(new, list) else []
        return ChangeLine(
            field,
            "\n".join(_entry("•" if entry in now else "−", entry) for entry in was),
            "\n".join(_entry("•" if entry in was else "+", entry) for entry in now),
        )
    return ChangeLine(field, _readable(old), _readable(new))


def _entry(mark: str, entry: Any) -> str:
    """A list entry after its mark; the lines of a two-line example ("title\ncontent") indented under it."""
    return f"{mark} " + _readable(entry).replace("\n", "\n   ")


def _readable(value: Any) -> str:
    """A field's value as a line or a few: a list one entry per line, a mapping as JSON, nothing as ""."""
    if value in (None, "", [], {}):
        return ""
    if isinstance(value, list):
        return "\n".join(_entry("•", entry) for entry in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _meant(value: Any) -> Any:
    """A rule field as it reads: a missing field, an empty list and an empty text are the same (a move that
    taught the inbox stored "keywords": [] where there was none, and the history said keywords changed)."""
    if isinstance(value, dict):
        value = {k: v for k, v in ((k, _meant(v)) for k, v in value.items()) if v is not None}
    return None if value in (None, "", [], {}) else value


def _example_changes(before: Any, after: Any) -> list[str]:
    """'added positive example "…"', 'removed negative example "…"' (at most three, then how many more)."""
    before, after = before if isinstance(before, dict) else {}, after if isinstance(after, dict) else {}
    said: list[str] = []
    for kind in ("positive", "negative"):
        old, new = list(before.get(kind) or []), list(after.get(kind) or [])
        said += [f'added {kind} example "{_short(text)}"' for text in new if text not in old]
        said += [f'removed {kind} example "{_short(text)}"' for text in old if text not in new]
    return said[:3] + ([f"and {len(said) - 3} more"] if len(said) > 3 else [])


def _short(text: Any, limit: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def history_row(change: RuleChangePublic) -> HistoryRow:
    return HistoryRow(
        id=change.id,
        actor=change.actor,
        action=change.action,
        created_at=change.created_at or "",
        summary=change_summary(change.before, change.after),
        before=json.dumps(change.before, ensure_ascii=False, indent=2) if change.before else "",
        after=json.dumps(change.after, ensure_ascii=False, indent=2) if change.after else "",
        changes=change_lines(change.before, change.after),
    )
