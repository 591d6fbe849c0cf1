"""One audit row opened: what was done, by whom, to what, its outcome and, for a refusal, why.

Everything here is plain text for the page to show as text: a bot's message is never markup.
"""

from __future__ import annotations

import dataclasses
import json

from topic_dashboard.services.audit import NOT_ACCEPTED, SUPPRESSED, AuditPublic
from topic_dashboard.services.audit_detail import recorded_error, refusal_meaning

KIND_LABELS = {"bot": "bot", "user": "person", "api_token": "API token", "system": "system"}


@dataclasses.dataclass
class DetailFact:
    """One line of an opened row: `name` is stable (the element's id), `label` and `value` are shown."""

    name: str = ""
    label: str = ""
    value: str = ""


def opens(row: AuditPublic) -> bool:
    """Whether the row has more to show than its line in the table: a recorded detail, or a refusal's why."""
    return bool(row.detail) or row.outcome in NOT_ACCEPTED


def detail_facts(row: AuditPublic, *, bot_name: str, actor: str) -> list[DetailFact]:
    """The row's facts in reading order; a refusal's code, its message (when the row kept it) and what the
    code means. `bot_name` and `actor` are as the table shows them (a bot by its name)."""
    error = recorded_error(row.detail)
    kind = KIND_LABELS.get(row.actor_kind, row.actor_kind)
    bot = f"{bot_name} ({row.bot_id})" if row.bot_id and bot_name and bot_name != row.bot_id else (row.bot_id or "")
    outcome = f"{row.outcome} ×{row.calls}" if row.outcome == SUPPRESSED else row.outcome
    facts = [
        ("tool", "MCP tool" if row.actor_kind == "bot" else "Action", row.tool),
        ("actor", "By", "" if row.actor_kind == "bot" else f"{kind} {actor}".strip()),  # a bot: the Bot line
        ("bot", "Bot", bot),
        ("outcome", "Outcome", outcome),
        ("error_code", "Error code", row.error_code or ""),
        ("message", "Message", error.get("message", "")),
        ("field", "Field", error.get("field", "")),
        ("meaning", "What the code means", refusal_meaning(row.error_code)),
        ("target", "Target", row.target or ""),
        ("topic", "Topic", row.topic_key or ""),
        ("item", "Item", str(row.item_id) if row.item_id else ""),
        ("latency", "Latency", f"{row.latency_ms:g} ms" if row.actor_kind == "bot" and row.latency_ms else ""),
    ]
    return [DetailFact(name, label, value) for name, label, value in facts if value]


def pretty_detail(detail: str | None) -> str:
    """The stored JSON indented for reading (a detail cut to its bound is shown as stored)."""
    if not detail:
        return ""
    try:
        return json.dumps(json.loads(detail), ensure_ascii=False, indent=2)
    except ValueError:
        return detail


def detail_json(detail: str | None) -> str:
    """`pretty_detail`, unless the detail holds only the refusal the facts already say ("" then)."""
    try:
        parsed = json.loads(detail or "")
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and set(parsed) == {"error"} and recorded_error(detail):
        return ""
    return pretty_detail(detail)
