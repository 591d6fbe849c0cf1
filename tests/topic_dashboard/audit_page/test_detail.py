"""An opened audit row: a refused call says what was refused (tool, bot) and why (code, message, what the
code means), as plain text; the JSON is shown when it holds more than the facts say."""

from __future__ import annotations

import json

from topic_dashboard.audit_page.detail import detail_facts, detail_json, opens
from topic_dashboard.services.audit import AuditPublic


def _row(**fields: object) -> AuditPublic:
    values: dict[str, object] = {
        "id": 7,
        "bot_id": "b-1",
        "tool": "topic_publish",
        "outcome": "refused",
        "error_code": "topic_not_found",
        "topic_key": None,
        "item_id": None,
        "latency_ms": 3.5,
        "created_at": "2026-05-01T10:00:00Z",
    }
    return AuditPublic.model_validate(values | fields)


def _facts(row: AuditPublic) -> dict[str, str]:
    return {
        fact.name: f"{fact.label}: {fact.value}" for fact in detail_facts(row, bot_name="Research", actor="Research")
    }


def test_a_refused_call_says_what_was_refused_and_why() -> None:
    message = "there is no topic '<img src=x onerror=alert(1)>'; call topic_list_topics"
    error = {"code": "topic_not_found", "message": message}
    row = _row(detail=json.dumps({"error": error}))
    assert opens(row)
    assert _facts(row) == {
        "tool": "MCP tool: topic_publish",
        "bot": "Bot: Research (b-1)",
        "outcome": "Outcome: refused",
        "error_code": "Error code: topic_not_found",
        "message": f"Message: {message}",  # as text: the page shows it as text, never as markup
        "meaning": "What the code means: The topic named does not exist for this bot, or is inactive.",
        "latency": "Latency: 3.5 ms",
    }
    assert detail_json(row.detail) == ""  # the facts say all of it


def test_a_refusal_recorded_without_its_message_still_says_what_its_code_means() -> None:
    row = _row(error_code="filtered_progress", detail=None)
    assert opens(row)
    facts = _facts(row)
    assert "message" not in facts
    assert facts["meaning"].startswith("What the code means: Progress updates never go to a topic")


def test_an_accepted_call_opens_only_with_a_detail_and_an_action_shows_its_json() -> None:
    assert not opens(_row(outcome="ok", error_code=None))
    action = _row(
        actor_kind="user",
        actor="alice",
        tool="user.create",
        outcome="ok",
        error_code=None,
        bot_id=None,
        target="user:bob",
        detail='{"role":"viewer"}',
    )
    assert opens(action)
    facts = {fact.name: fact.value for fact in detail_facts(action, bot_name="", actor="alice")}
    assert facts == {"tool": "user.create", "actor": "person alice", "outcome": "ok", "target": "user:bob"}
    assert detail_json(action.detail) == '{\n  "role": "viewer"\n}'
    assert detail_json('{"error":{"code":"x"},"cut":"…') == '{"error":{"code":"x"},"cut":"…'
