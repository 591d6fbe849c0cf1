"""The Audit page's pure parts: the day filters and a detail shown as indented plain text."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from topic_dashboard.audit_page.detail import pretty_detail
from topic_dashboard.audit_page.state import _day
from topic_dashboard.errors import AppError


def test_a_day_filter_is_a_utc_day_or_nothing() -> None:
    assert _day("", "since") is None
    assert _day(" 2026-12-01 ", "since") == datetime(2026, 12, 1, tzinfo=UTC)
    with pytest.raises(AppError) as refused:
        _day("yesterday", "until")
    assert (refused.value.code, refused.value.field) == ("validation_error", "until")


def test_a_detail_is_indented_json_and_a_cut_one_is_shown_as_stored() -> None:
    assert pretty_detail('{"name":{"before":"CI","after":"<b>Builds</b>"}}') == (
        '{\n  "name": {\n    "before": "CI",\n    "after": "<b>Builds</b>"\n  }\n}'
    )
    assert pretty_detail('{"text":"xx…[9000 chars]') == '{"text":"xx…[9000 chars]'
    assert pretty_detail(None) == ""


def test_a_tool_call_row_names_the_topic_and_item_it_reached() -> None:
    from topic_dashboard.audit_page.state import _call_target
    from topic_dashboard.services.audit import AuditPublic

    def call(topic_key: str | None, item_id: int | None) -> AuditPublic:
        return AuditPublic(
            id=1,
            bot_id="b",
            tool="topic_publish",
            outcome="ok",
            error_code=None,
            topic_key=topic_key,
            item_id=item_id,
            latency_ms=1.0,
            created_at=None,
        )

    assert _call_target(call("builds", 42)) == "item:42 in builds"
    assert _call_target(call("builds", None)) == "topic:builds"
    assert _call_target(call(None, None)) == ""


def test_a_bot_target_is_named_and_the_switch_says_its_new_state() -> None:
    """A walkthrough read "bot:d91d4143fa60" and had to open the Detail to learn whether delivery went on or off."""
    from topic_dashboard.audit_page.state import _target_text
    from topic_dashboard.services.audit import AuditPublic

    def action(tool: str, target: str, detail: str | None) -> AuditPublic:
        return AuditPublic(
            id=1,
            bot_id="d91d",
            tool=tool,
            outcome="ok",
            error_code=None,
            topic_key=None,
            item_id=None,
            latency_ms=0.0,
            created_at=None,
            actor_kind="user",
            actor="ada",
            target=target,
            detail=detail,
        )

    names = {"d91d": "Shop ops"}
    off = action("bot.set_topic_enabled", "bot:d91d", '{"topic_enabled": {"before": true, "after": false}}')
    assert _target_text(off, names) == "bot Shop ops: delivery off"
    on = action("bot.set_topic_enabled", "bot:d91d", '{"topic_enabled": {"before": false, "after": true}}')
    assert _target_text(on, names) == "bot Shop ops: delivery on"
    assert _target_text(action("bot.rotate_token", "bot:d91d", None), names) == "bot Shop ops"
    assert _target_text(action("bot.delete", "bot:gone", None), names) == "bot:gone"  # a bot no longer there
    assert (
        _target_text(action("bot.set_topic_enabled", "bot:d91d", '{"text":"xx…[9000 chars]'), names) == "bot Shop ops"
    )
