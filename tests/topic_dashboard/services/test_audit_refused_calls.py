"""A refused MCP call's row keeps what the tool answered (its code, message and field) as its detail,
masked and bounded like every detail, so the Audit page can say why; an accepted call keeps none."""

from __future__ import annotations

import json

from sqlmodel import Session

from topic_dashboard.errors import CATALOGUE
from topic_dashboard.services import audit
from topic_dashboard.services.audit_detail import (
    DETAIL_MAX_CHARS,
    REFUSAL_MEANINGS,
    recorded_error,
    refusal_meaning,
)


def _only(session: Session) -> audit.AuditPublic:
    [row] = audit.list_calls(session=session, limit=10)
    return row


def test_a_refused_call_keeps_the_error_it_answered(session: Session) -> None:
    error = {"code": "invalid_view", "message": "view.rows[2] must be a list", "field": "view.rows[2]"}
    audit.record_call(
        session=session, bot_id="b1", tool="topic_publish", outcome="refused", error_code="invalid_view", error=error
    )
    row = _only(session)
    assert json.loads(row.detail or "") == {"error": error}
    assert recorded_error(row.detail) == {"message": "view.rows[2] must be a list", "field": "view.rows[2]"}


def test_the_kept_error_is_bounded_and_never_holds_a_secret(session: Session) -> None:
    error = {"code": "validation_error", "message": "x" * 100_000, "token": "tdb_secret", "echo": "tdb_0123abc"}
    audit.record_call(session=session, bot_id="b1", tool="topic_publish", outcome="refused", error=error)
    detail = _only(session).detail or ""
    assert len(detail) <= DETAIL_MAX_CHARS
    assert "tdb_" not in detail


def test_an_accepted_call_or_a_refusal_without_its_error_keeps_no_detail(session: Session) -> None:
    audit.record_call(session=session, bot_id="b1", tool="topic_route", outcome="ok")
    audit.record_call(session=session, bot_id="b1", tool="topic_publish", outcome="refused", error_code="rate_limited")
    assert [row.detail for row in audit.list_calls(session=session, limit=10)] == [None, None]
    assert recorded_error(None) == {} and recorded_error('{"error": "cut…[9000 chars]') == {}
    assert recorded_error('{"error":{"code":"x"}}') == {}  # no message to tell


def test_every_meaning_is_of_a_code_in_the_catalogue() -> None:
    assert set(REFUSAL_MEANINGS) <= set(CATALOGUE)
    assert refusal_meaning("filtered_progress").startswith("Progress updates never go to a topic")
    assert refusal_meaning(None) == refusal_meaning("no_such_code") == ""
