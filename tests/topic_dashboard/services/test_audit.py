"""The audit of actions on every backend: a row joins the action's transaction, is bounded, never holds
a secret, refusals are capped per actor and minute, and the trail filters and pages in the database.
The services' hooks leave the rows the Audit page shows (docs/DESIGN.md §3.6)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from topic_dashboard.bot_config import LOCKED_SERVER, managed_entry
from topic_dashboard.models import AuditLog, TopicItem, utcnow
from topic_dashboard.services import audit, bots, chat, conversations, corrections, items, retention, topics
from topic_dashboard.services.audit import (
    ACTIONS,
    ACTOR_MAX_CHARS,
    FIELD_MAX_CHARS,
    REFUSED_ROWS_PER_MINUTE,
    SUPPRESSED,
    TARGET_MAX_CHARS,
    Actor,
    AuditPublic,
    hourly_counts,
    list_calls,
    record_action,
    record_refusal,
)
from topic_dashboard.services.audit_detail import DETAIL_MAX_CHARS, is_secret_key
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.settings import get_settings

ALICE = Actor("user", "alice")
SECRETS = ("hunter2-password", "tdb_bottoken", "sk-chat-key", "Bearer abc.def", "argon2$hash", "envsecret")


def _rows(session: Session, **filters: Any) -> list[AuditPublic]:
    session.expire_all()
    rows = list_calls(session=session, limit=500, **filters)
    session.commit()  # end the read: on SQLite this session's transactions hold the write lock
    return rows


def _actions(session: Session, **filters: Any) -> list[AuditPublic]:
    return [row for row in _rows(session, **filters) if row.actor_kind != "bot"]


def _one(session: Session, action: str) -> AuditPublic:
    [row] = _rows(session, tool=action)
    return row


def _detail(row: AuditPublic) -> Any:
    assert row.detail is not None
    return json.loads(row.detail)


# --- storage ---------------------------------------------------------------------------------------


def test_an_action_row_joins_the_callers_transaction(session: Session) -> None:
    record_action(session=session, actor_kind="user", actor="alice", action="bot.delete", target="bot:x")
    session.rollback()
    assert _rows(session) == []
    record_action(session=session, actor_kind="user", actor="alice", action="bot.delete", target="bot:x", bot_id="x")
    session.commit()
    [row] = _rows(session)
    assert (row.actor_kind, row.actor, row.tool, row.target, row.bot_id, row.outcome) == (
        "user",
        "alice",
        "bot.delete",
        "bot:x",
        "x",
        "ok",
    )


def test_an_unknown_actor_kind_is_a_programming_error(session: Session) -> None:
    with pytest.raises(ValueError):
        record_action(session=session, actor_kind="robot", actor="x", action="bot.delete", target=None)


def test_every_field_is_cut_to_its_bound_with_a_marker(session: Session) -> None:
    huge = {"text": "x" * 1_000_000, "ids": list(range(100_000)), "deep": {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}}
    huge.update({f"key{n}": n for n in range(1_000)})
    record_action(
        session=session,
        actor_kind="api_token",
        actor="a" * 5_000,
        action="x" * 4_000_000,
        target="t" * 10_000,
        detail=huge,
    )
    session.commit()
    [row] = _rows(session)
    assert len(row.actor or "") <= ACTOR_MAX_CHARS and "5000 chars" in (row.actor or "")
    assert len(row.target or "") <= TARGET_MAX_CHARS and "10000 chars" in (row.target or "")
    assert len(row.tool) <= FIELD_MAX_CHARS and "4000000" in row.tool
    assert row.detail is not None and len(row.detail) <= DETAIL_MAX_CHARS


@pytest.mark.parametrize("bad", ["nul\x00name", "lone\ud800surrogate", "\udfff"])
def test_nul_and_lone_surrogates_never_break_an_action_row(session: Session, bad: str) -> None:
    record_action(session=session, actor_kind="user", actor=bad, action=bad, target=bad, detail={"v": bad, bad: 1})
    session.commit()
    [row] = _rows(session)
    for value in (row.actor, row.tool, row.target, row.detail):
        assert value and "\x00" not in value
        value.encode("utf-8")


def test_secrets_are_masked_by_key_name_and_by_value(session: Session) -> None:
    detail = {
        "password": "hunter2-password",
        "new_password": "hunter2-password",
        "token": "tdb_bottoken",
        "token_hash": "argon2$hash",
        "chat_key": "sk-chat-key",
        "apiKey": "sk-chat-key",
        "servers": {"remote": {"headers": {"Authorization": "Bearer abc.def"}, "env": {"OPENAI": "envsecret"}}},
        "note": "tdb_bottoken",  # a token under an innocent name
        "auth": "Bearer abc.def",
        "topic_key": "ci",
        "key_set": True,
        "items": 3,
    }
    record_action(session=session, actor_kind="user", actor="alice", action="bot.create", target=None, detail=detail)
    session.commit()
    [row] = _rows(session)
    assert row.detail is not None
    for secret in SECRETS:
        assert secret not in row.detail, secret
    shown = _detail(row)
    assert (shown["topic_key"], shown["key_set"], shown["items"]) == ("ci", True, 3)
    assert shown["password"] == shown["token"] == shown["chat_key"] == "***"


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("password", True),
        ("Authorization", True),
        ("x-topic-mcp-token", True),
        ("api_key", True),
        ("OPENAI_API_KEY", True),
        ("key", True),
        ("token_hash", True),
        ("topic_key", False),
        ("key_set", False),
        ("dedupe_key", False),
        ("items", False),
        ("name", False),
    ],
)
def test_which_key_names_hold_secrets(name: str, secret: bool) -> None:
    assert is_secret_key(name) is secret


def test_refusals_beyond_the_allowance_are_counted_per_actor_and_minute(session: Session) -> None:
    for n in range(100):
        record_refusal(
            session=session, actor_kind="api_token", actor="flooder", action=f"topic.create{n}", error_code="forbidden"
        )
    record_refusal(session=session, actor_kind="user", actor="bob", action="bot.delete", error_code="forbidden")
    flood = _rows(session, actor="flooder")
    refused = [row for row in flood if row.outcome == "refused"]
    summaries = [row for row in flood if row.outcome == SUPPRESSED]
    # (a minute may turn during the loop: then each of the two has its allowance and its summary)
    assert REFUSED_ROWS_PER_MINUTE <= len(refused) <= 2 * REFUSED_ROWS_PER_MINUTE
    assert 1 <= len(summaries) <= 2
    assert len(refused) + sum(row.calls for row in summaries) == 100
    assert [row.actor for row in _rows(session, actor="bob")] == ["bob"]


# --- reading: filters and paging -------------------------------------------------------------------


def test_filters_and_keyset_paging(session: Session) -> None:
    audit.record_call(session=session, bot_id="b1", tool="topic_publish", outcome="ok")
    for n in range(5):
        record_action(
            session=session,
            actor_kind="user" if n % 2 else "api_token",
            actor=f"person{n % 2}",
            action="topic.update",
            target=f"topic:b1/t{n}",
            bot_id="b1" if n < 3 else "b2",
            outcome="refused" if n == 4 else "ok",
            error_code="forbidden" if n == 4 else None,
        )
    session.commit()
    assert [row.actor for row in _rows(session, bot_id="b1", tool="topic_publish")] == ["b1"]
    assert _rows(session, bot_id="b1", tool="topic_publish")[0].actor_kind == "bot"
    assert len(_rows(session, actor="person1")) == 2
    assert len(_rows(session, actor_kind="api_token")) == 3
    assert len(_rows(session, bot_id="b2")) == 2
    assert [row.target for row in _rows(session, error_code="forbidden")] == ["topic:b1/t4"]
    assert len(_rows(session, outcome="ok", tool="topic.update")) == 4
    everything = _rows(session)
    assert [row.id for row in everything] == sorted((row.id for row in everything), reverse=True)
    first = list_calls(session=session, limit=2)
    rest = list_calls(session=session, before_id=first[-1].id, limit=10)
    assert [row.id for row in first + rest] == [row.id for row in everything]
    now = utcnow()
    assert len(_rows(session, since=now - timedelta(minutes=5))) == 6
    assert _rows(session, until=now - timedelta(minutes=5)) == []
    assert _rows(session, since=(now + timedelta(minutes=5)).replace(tzinfo=None)) == []  # naive is UTC
    assert audit.get_call(session=session, audit_id=everything[0].id) == everything[0]
    assert audit.get_call(session=session, audit_id=2**63) is None


def test_the_csv_export_names_bots_and_defuses_formulas(session: Session) -> None:
    record_action(
        session=session,
        actor_kind="api_token",
        actor='=HYPERLINK("http://evil")',
        action="bot.create",
        target="bot:b1",
        bot_id="b1",
        detail={"name": "+cmd"},
    )
    session.commit()
    text = audit.as_csv(_rows(session), {"b1": "Builder 机器人"})
    assert text.startswith("\ufeff")
    [row] = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    assert row["actor"].startswith("'=") and row["bot"] == "Builder 机器人" and row["action"] == "bot.create"
    assert json.loads(row["detail"]) == {"name": "+cmd"}  # a JSON cell starts with "{": nothing to defuse


# --- the services' hooks ---------------------------------------------------------------------------


def _bot(session: Session, **kwargs: Any) -> str:
    bot, _ = bots.create_bot(session=session, name="audited", actor=ALICE, **kwargs)
    return bot.bot_id


def test_bot_actions_are_audited_without_their_tokens(session: Session) -> None:
    bot_id = _bot(session)
    token = bots.rotate_token(session=session, bot_id=bot_id, actor=ALICE)
    servers = {
        LOCKED_SERVER: managed_entry(mcp_url=get_settings().mcp_topic_url, token=token),
        "remote": {"type": "sse", "url": "https://mcp.example.com/sse", "headers": {"Authorization": "Bearer abc.def"}},
    }
    bots.put_mcp_config(session=session, bot_id=bot_id, servers=servers, actor=ALICE)
    chat.set_chat_endpoint(
        session=session, bot_id=bot_id, chat_url="http://127.0.0.1:8900", chat_key="sk-chat-key", actor=ALICE
    )
    topics.set_topic_enabled(session=session, bot_id=bot_id, enabled=False, actor=ALICE)
    topics.update_topic_settings(
        session=session, bot_id=bot_id, update=topics.TopicSettingsUpdate(publish_rate_per_minute=7), actor=ALICE
    )
    bots.delete_bot(session=session, bot_id=bot_id, actor=ALICE)
    rows = _actions(session, bot_id=bot_id)
    assert [row.tool for row in reversed(rows)] == [
        "bot.create",
        "bot.rotate_token",
        "bot.update_mcp_config",
        "bot.update_chat_endpoint",
        "bot.set_topic_enabled",
        "bot.update_settings",
        "bot.delete",
    ]
    assert {(row.actor_kind, row.actor, row.target) for row in rows} == {("user", "alice", f"bot:{bot_id}")}
    text = " ".join(row.detail or "" for row in rows)
    for secret in (token, "Bearer abc.def", "sk-chat-key"):
        assert secret not in text
    assert _detail(_one(session, "bot.set_topic_enabled")) == {"topic_enabled": {"before": True, "after": False}}
    assert _detail(_one(session, "bot.update_settings")) == {"publish_rate_per_minute": {"before": 60, "after": 7}}
    assert _detail(_one(session, "bot.update_mcp_config"))["servers"]["remote"]["before"] is None
    assert _detail(_one(session, "bot.delete"))["deleted"] == {"items": 0, "topics": 1, "conversations": 0}


def test_without_an_actor_nothing_is_audited(session: Session) -> None:
    bot, _ = bots.create_bot(session=session, name="quiet", write_config=False)
    topics.set_topic_enabled(session=session, bot_id=bot.bot_id, enabled=False)
    assert _rows(session) == []


def test_topic_changes_are_audited_with_what_changed(session: Session) -> None:
    bot_id = _bot(session, write_config=False)
    topics.create_topic(session=session, bot_id=bot_id, data=topics.TopicCreate(topic_key="ci", name="CI"), actor=ALICE)
    topics.update_topic(
        session=session, bot_id=bot_id, topic_key="ci", data=topics.TopicUpdate(name="Builds"), actor=ALICE
    )
    topics.delete_topic(session=session, bot_id=bot_id, topic_key="ci", actor="cli")  # a plain name: the system
    created, updated, deleted = (_one(session, f"topic.{verb}") for verb in ("create", "update", "delete"))
    assert (created.target, created.topic_key, created.actor) == (f"topic:{bot_id}/ci", "ci", "alice")
    assert _detail(updated) == {"name": {"before": "CI", "after": "Builds"}}
    assert (deleted.actor_kind, deleted.actor, _detail(deleted)["items"]) == ("system", "cli", 0)


def _items(session: Session, bot_id: str, count: int) -> list[int]:
    topics.update_topic_settings(
        session=session, bot_id=bot_id, update=topics.TopicSettingsUpdate(publish_rate_per_minute=1000)
    )
    for key in ("ci", "ops"):
        topics.create_topic(session=session, bot_id=bot_id, data=topics.TopicCreate(topic_key=key, name=key), actor="t")
    return [
        publish_item(
            session=session, bot_id=bot_id, request=PublishRequest(topic_key="ci", title=f"i{n}", content="c")
        ).item_id
        for n in range(count)
    ]


def test_item_actions_for_everyone_and_in_bulk_are_audited_and_ones_own_reading_is_not(session: Session) -> None:
    bot_id = _bot(session, write_config=False)
    ids = _items(session, bot_id, 4)
    from topic_dashboard.models import User

    reader = User(username="reader", password_hash="x", role="viewer")
    session.add(reader)
    session.commit()
    before = len(_actions(session))
    items.set_item_flags(session=session, bot_id=bot_id, item_id=ids[0], is_pinned=True, reader=reader.id, actor=ALICE)
    assert len(_actions(session)) == before  # one person's own pin: theirs alone
    items.set_item_flags(session=session, bot_id=bot_id, item_id=ids[0], is_pinned=True, actor=ALICE)
    items.set_resolved(session=session, bot_id=bot_id, item_id=ids[1], resolved=True, actor=ALICE)
    items.set_flags_many(
        session=session, bot_id=(bot_id,), item_ids=ids, flags={"is_archived": True}, reader=reader.id, actor=ALICE
    )
    items.set_read(
        session=session,
        bot_id=bot_id,
        item_ids=ids,
        is_read=True,
        reader=reader.id,
        actor=ALICE,
        action="item.mark_all_read",
    )
    pin = _one(session, "item.pin")
    assert (pin.target, pin.item_id, _detail(pin)["for"]) == (f"item:{ids[0]}", ids[0], "everyone")
    assert _one(session, "item.resolve").target == f"item:{ids[1]}"
    bulk = _detail(_one(session, "item.bulk_archive"))
    assert (bulk["for"], bulk["items"], sorted(bulk["ids"])) == ("self", 4, sorted(ids))
    assert _detail(_one(session, "item.mark_all_read"))["items"] == 4


def test_moves_and_their_undo_are_audited(session: Session) -> None:
    bot_id = _bot(session, write_config=False)
    ids = _items(session, bot_id, 3)
    move = corrections.move_item(
        session=session, bot_id=bot_id, item_id=ids[0], to_topic_key="ops", teach=True, actor=ALICE
    )
    corrections.undo_move(session=session, bot_id=bot_id, move=move, actor=ALICE)
    moved = corrections.move_items(session=session, bot_id=bot_id, item_ids=ids[1:], to_topic_key="ops", actor=ALICE)
    corrections.undo_moves(session=session, moves=moved, actor=ALICE)
    single = _detail(_one(session, "item.move"))
    assert (single["from"], single["to"], sorted(single["rules_changed"])) == ("ci", "ops", ["ci", "ops"])
    assert _detail(_one(session, "item.move_undo"))["rules_restored"] is True
    assert _detail(_one(session, "item.bulk_move"))["items"] == 2
    assert _detail(_one(session, "item.bulk_move_undo"))["items"] == 2
    taught = [row for row in _actions(session, tool="topic.update") if row.actor == "alice"]
    assert len(taught) == 4  # two rules taught, two restored


def _sessions(engine: Engine):  # type: ignore[no-untyped-def]
    @contextmanager
    def opened() -> Iterator[Session]:
        with Session(engine) as session:
            yield session

    return opened


def test_purges_are_audited_and_the_sweep_only_when_it_deleted_something(session: Session, engine: Engine) -> None:
    bot_id = _bot(session, write_config=False)
    ids = _items(session, bot_id, 5)
    session.exec(
        sa.update(TopicItem).where(col(TopicItem.id).in_(ids[:2])).values(created_at=utcnow() - timedelta(days=9))
    )
    topics.update_topic(
        session=session, bot_id=bot_id, topic_key="ci", data=topics.TopicUpdate(retention_days=3), actor=ALICE
    )
    session.commit()
    assert retention.purge_all(sessions=_sessions(engine)) == 2
    assert retention.purge_all(sessions=_sessions(engine)) == 0  # nothing left to purge: no row
    retention.purge_topic(sessions=_sessions(engine), bot_id=bot_id, topic_key="ci", actor=ALICE)
    rows = _rows(session, tool="retention.purge")
    assert [(row.actor_kind, row.actor, _detail(row)["items"]) for row in rows] == [
        ("user", "alice", 0),
        ("system", "retention", 2),
    ]


def test_conversation_actions_are_audited_without_what_people_wrote(session: Session) -> None:
    bot_id = _bot(session, write_config=False)
    talk = conversations.create_conversation(session=session, bot_id=bot_id, title="plans", actor=ALICE)
    conversations.add_message(
        session=session, conversation_id=talk.conversation_id, role="user", content="my secret plan", actor=ALICE
    )
    chat.send_message(session=session, conversation_id=talk.conversation_id, content="another secret", actor=ALICE)
    chat.retry(session=session, conversation_id=talk.conversation_id, actor=ALICE)
    conversations.rename_conversation(session=session, conversation_id=talk.conversation_id, title="Q3", actor=ALICE)
    conversations.delete_conversation(session=session, conversation_id=talk.conversation_id, actor=ALICE)
    rows = _actions(session, bot_id=bot_id, actor="alice")
    assert [row.tool for row in reversed(rows) if row.tool.startswith("conversation.")] == [
        "conversation.create",
        "conversation.add_message",
        "conversation.send",
        "conversation.retry",
        "conversation.rename",
        "conversation.delete",
    ]
    assert all("secret" not in (row.detail or "") for row in rows)
    assert _detail(_one(session, "conversation.send"))["chars"] == len("another secret")


def test_every_action_the_services_write_is_a_known_one(session: Session) -> None:
    """The Audit page's action filter lists ACTIONS: a service writing another name must add it there."""
    bot_id = _bot(session, write_config=False)
    ids = _items(session, bot_id, 2)
    items.set_flags_many(session=session, bot_id=bot_id, item_ids=ids, flags={"is_read": False}, actor=ALICE)
    written = {row.tool for row in _actions(session)}
    assert written and written <= set(ACTIONS)


def test_existing_tool_call_rows_become_bots_rows_on_upgrade(tmp_path: Path) -> None:
    from topic_dashboard.db import create_db_engine
    from topic_dashboard.migrate import upgrade_database

    url = f"sqlite:///{tmp_path / 'old.db'}"
    upgrade_database(url, revision="0010")
    engine = create_db_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO audit_log (bot_id, tool, outcome, latency_ms, created_at) "
            "VALUES ('b1', 'topic_publish', 'ok', 1.5, '2026-11-01 00:00:00')"
        )
    engine.dispose()
    upgrade_database(url)
    engine = create_db_engine(url)
    try:
        with Session(engine) as session:
            [row] = session.exec(select(AuditLog)).all()
            assert (row.actor_kind, row.actor, row.target, row.detail) == ("bot", "b1", None, None)
    finally:
        engine.dispose()


def test_hourly_counts_split_accepted_and_refused_per_hour_for_bots_only(session: Session) -> None:
    """The chart's numbers, counted in the database, on every backend: a suppressed row counts what it
    stands for, people's actions are not counted, rows older than the window are not either."""
    now = utcnow()
    hour_ago = now - timedelta(hours=1)
    rows = [
        AuditLog(bot_id="b1", tool="topic_publish", outcome="ok", created_at=now),
        AuditLog(bot_id="b1", tool="topic_publish", outcome="deduplicated", created_at=now),
        AuditLog(bot_id="b1", tool="topic_route", outcome="refused", created_at=now),
        AuditLog(bot_id="b1", tool="topic_publish", outcome="refused", error_code="filtered_noise", created_at=now),
        AuditLog(bot_id="b2", tool="*", outcome="suppressed", item_id=7, created_at=hour_ago),
        AuditLog(bot_id="b2", tool="topic_publish", outcome="ok", created_at=hour_ago),
        AuditLog(bot_id="b2", tool="topic_publish", outcome="ok", created_at=now - timedelta(hours=30)),
        AuditLog(tool="bot.create", outcome="ok", actor_kind="user", actor="ada", created_at=now),
    ]
    session.add_all(rows)
    session.commit()
    chart = hourly_counts(session=session)
    by_hour = {bucket["hour"]: bucket for bucket in chart}  # by label: the test may run across an hour's end
    assert len(chart) == len(by_hour) == 24
    # the filtered refusal (noise kept out) apart from the refusal, as Insights counts them
    assert by_hour[now.strftime("%H:00")] == {"hour": now.strftime("%H:00"), "ok": 2, "filtered": 1, "refused": 1}
    assert by_hour[hour_ago.strftime("%H:00")] == {
        "hour": hour_ago.strftime("%H:00"),
        "ok": 1,
        "filtered": 0,
        "refused": 7,
    }
    assert sum(int(str(b["ok"])) + int(str(b["filtered"])) + int(str(b["refused"])) for b in chart) == 12
    only_b2 = {bucket["hour"]: bucket for bucket in hourly_counts(session=session, bot_id="b2")}
    assert only_b2[now.strftime("%H:00")]["ok"] == 0
    assert only_b2[hour_ago.strftime("%H:00")] == {
        "hour": hour_ago.strftime("%H:00"),
        "ok": 1,
        "filtered": 0,
        "refused": 7,
    }


def test_outcome_failed_finds_the_rows_the_failure_rate_counts_and_nothing_else(session: Session) -> None:
    """Insights' "Failure rate per bot" opens the Audit page on `outcome=failed`: a refusal or error that says
    something went wrong, and the suppressed rows; a filtered refusal (chat kept out), an accepted call, another
    bot's failure are not among them. The other filters still apply beside it."""
    now = utcnow()
    session.add_all(
        [
            AuditLog(bot_id="b1", tool="topic_publish", outcome="ok", created_at=now),
            AuditLog(bot_id="b1", tool="topic_publish", outcome="deduplicated", created_at=now),
            AuditLog(bot_id="b1", tool="topic_route", outcome="refused", error_code="validation_error", created_at=now),
            AuditLog(bot_id="b1", tool="topic_publish", outcome="refused", error_code="filtered_noise", created_at=now),
            AuditLog(bot_id="b1", tool="topic_publish", outcome="error", error_code="internal_error", created_at=now),
            AuditLog(bot_id="b1", tool="*", outcome="suppressed", item_id=4, created_at=now),
            AuditLog(bot_id="b2", tool="topic_publish", outcome="refused", error_code="not_found", created_at=now),
        ]
    )
    session.commit()
    failed = list_calls(session=session, bot_id="b1", outcome=audit.FAILED)
    assert sorted((row.outcome, row.error_code) for row in failed) == [
        ("error", "internal_error"),
        ("refused", "validation_error"),
        ("suppressed", None),
    ]
    assert [row.tool for row in list_calls(session=session, bot_id="b1", outcome="failed", tool="topic_route")] == [
        "topic_route"
    ]
    assert len(list_calls(session=session, outcome="failed")) == 4  # b2's too, without a bot
    # a stored outcome is still matched as it is
    assert len(list_calls(session=session, bot_id="b1", outcome="refused")) == 2


# --- who reads what -------------------------------------------------------------------------------


def test_a_viewer_reads_the_trail_but_not_anothers_log_ins_accounts_or_tokens(session: Session) -> None:
    """A walkthrough's viewer read the admins' log-ins and the addresses they came from: account and security
    rows are an admin's to read; anyone else reads only their own, and everything else as before."""
    from topic_dashboard.services import accounts

    password = "a long pass phrase 1"
    accounts.create_user(session=session, username="ada", password=password, role="admin")
    accounts.create_user(session=session, username="vic", password=password, role="viewer", actor=Actor("user", "ada"))
    accounts.create_user(session=session, username="eve", password=password, role="viewer", actor=Actor("user", "ada"))
    for name in ("ada", "vic"):
        accounts.log_in(session=session, username=name, password=password, ttl_hours=1, address="203.0.113.7")
    with pytest.raises(Exception):  # a failed log-in under the admin's name: refused and recorded
        accounts.log_in(session=session, username="ada", password="wrong", ttl_hours=1, address="198.51.100.9")
    session.rollback()
    bot_id = _bot(session)
    viewer = audit.AuditReader(kind="user", name="vic", is_admin=False)
    admin = audit.AuditReader(kind="user", name="ada", is_admin=True)

    everything = _rows(session)
    seen = _rows(session, reader=viewer)
    account_rows = [row for row in everything if row.tool in audit.ACCOUNT_ACTIONS]
    assert {row.tool for row in account_rows} >= {"user.create", "auth.login"}
    assert _rows(session, reader=admin) == everything
    hidden = {row.id for row in everything} - {row.id for row in seen}
    assert hidden and all(
        row.tool in audit.ACCOUNT_ACTIONS and "vic" not in (row.actor, row.target)
        for row in everything
        if row.id in hidden
    )
    own = [row for row in seen if row.tool in audit.ACCOUNT_ACTIONS]
    assert own and all(row.actor == "vic" or row.target == "user:vic" for row in own)
    assert any(row.tool == "auth.login" and row.actor == "vic" for row in own)
    assert any(row.bot_id == bot_id for row in seen)  # the bots' and topics' rows are all there
    assert {row.id for row in seen if row.tool not in audit.ACCOUNT_ACTIONS} == {
        row.id for row in everything if row.tool not in audit.ACCOUNT_ACTIONS
    }
    # One row by its id: as if it were not there.
    [admins_login] = [
        row for row in everything if row.tool == "auth.login" and row.actor == "ada" and row.outcome == "ok"
    ]
    assert audit.get_call(session=session, audit_id=admins_login.id, reader=viewer) is None
    assert audit.get_call(session=session, audit_id=admins_login.id, reader=admin) is not None
    assert audit.get_call(session=session, audit_id=admins_login.id) is not None
