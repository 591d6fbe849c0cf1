"""Conversations on every backend: message order under concurrent writers, guide cards and their answers,
and list_user_inputs reading a long conversation a few rows at a time through its index."""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import ORMExecuteState
from sqlmodel import Session, select

from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.models import Conversation, Message, iso_utc, utcnow
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.conversations import (
    add_message,
    answers_text,
    create_conversation,
    list_messages,
    list_user_inputs,
    submit_guide_card,
)

CARD = {
    "title": "Deploy request",
    "fields": [
        {"name": "service", "label": "Service", "type": "text", "required": True},
        {"name": "notes", "label": "Notes", "type": "textarea"},
        {"name": "region", "label": "Region", "type": "select", "options": ["eu", "us"]},
        {"name": "urgent", "label": "Urgent", "type": "checkbox"},
        {"name": "replicas", "label": "Replicas", "type": "number"},
    ],
}
INDEX = "ix_message_conversation_role_seq"


def _bot(session: Session, name: str = "talker") -> str:
    bot, _ = create_bot(session=session, name=name, write_config=False)
    return bot.bot_id


def _conversation(session: Session, bot_id: str) -> str:
    return create_conversation(session=session, bot_id=bot_id).conversation_id


def _refused(session: Session, fn: Any, **kwargs: Any) -> AppError:
    """Call a service, expect a refusal, and roll back as write_session does when a call fails."""
    with pytest.raises(AppError) as excinfo:
        fn(session=session, **kwargs)
    session.rollback()
    return excinfo.value


def _bulk_messages(session: Session, conversation_id: str, roles_and_contents: list[tuple[str, str]]) -> None:
    """Append many messages in one transaction (arranging a long conversation quickly)."""
    conversation = session.get(Conversation, conversation_id)
    assert conversation is not None
    start = utcnow() - timedelta(days=1)
    for offset, (role, content) in enumerate(roles_and_contents, start=1):
        session.add(
            Message(
                conversation_id=conversation_id,
                seq=conversation.last_seq + offset,
                role=role,
                content=content,
                created_at=start + timedelta(seconds=offset),
            )
        )
    conversation.last_seq += len(roles_and_contents)
    session.add(conversation)
    session.commit()


@contextmanager
def _message_reads(session: Session) -> Iterator[list[int]]:
    """Rows the database actually returns for each query on the message table, in order."""
    fetched: list[int] = []

    def count(state: ORMExecuteState) -> Any:
        froms = state.statement.get_final_froms()  # type: ignore[attr-defined]
        if not state.is_select or Message.__table__ not in froms:
            return None
        frozen = state.invoke_statement().freeze()
        fetched.append(len(frozen().all()))
        return frozen()

    event.listen(session, "do_orm_execute", count)
    try:
        yield fetched
    finally:
        event.remove(session, "do_orm_execute", count)


@contextmanager
def _statements(engine: Engine) -> Iterator[list[tuple[str, Any, Any]]]:
    """Every SQL statement sent to the database, with its parameters and execution context."""
    seen: list[tuple[str, Any, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, context: Any, _many: bool) -> None:
        seen.append((statement, parameters, context))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def _limit_of(context: Any, engine: Engine) -> int:
    """The LIMIT a compiled statement was sent with."""
    sql = str(context.compiled.statement.compile(dialect=engine.dialect, compile_kwargs={"literal_binds": True}))
    match = re.search(r"LIMIT (\d+)", sql)
    assert match, sql
    return int(match.group(1))


# --- message order ----------------------------------------------------------------------------------


def test_concurrent_appends_get_unique_consecutive_seqs(engine: Engine) -> None:
    """Writers on their own sessions and threads: SQLite queues them (BEGIN IMMEDIATE), PostgreSQL locks the row."""
    with write_session(engine) as session:
        conversation_id = _conversation(session, _bot(session))
    writers, each = 8, 12
    start = threading.Barrier(writers)

    def write(writer: int) -> list[int]:
        start.wait()
        seqs = []
        for number in range(each):
            with write_session(engine) as session:
                message = add_message(
                    session=session,
                    conversation_id=conversation_id,
                    role="user",
                    content=f"writer {writer} message {number}",
                )
                seqs.append(message.seq)
        return seqs

    with ThreadPoolExecutor(max_workers=writers) as pool:
        per_writer = list(pool.map(write, range(writers)))

    assert sorted(seq for seqs in per_writer for seq in seqs) == list(range(1, writers * each + 1))
    assert all(seqs == sorted(seqs) for seqs in per_writer)  # a writer's own messages stay in its order
    with read_session(engine) as session:
        messages = list_messages(session=session, conversation_id=conversation_id, limit=1000)
        conversation = session.get(Conversation, conversation_id)
        assert conversation is not None and conversation.last_seq == writers * each
    assert [message.seq for message in messages] == list(range(1, writers * each + 1))
    for writer, seqs in enumerate(per_writer):
        stored = [message for message in messages if message.content.startswith(f"writer {writer} ")]
        assert [message.seq for message in stored] == seqs
        assert [message.content for message in stored] == [f"writer {writer} message {n}" for n in range(each)]


def test_each_message_moves_updated_at_and_bot_messages_mark_unread(session: Session) -> None:
    conversation_id = _conversation(session, _bot(session))
    conversation = session.get(Conversation, conversation_id)
    assert conversation is not None
    stamps = [conversation.updated_at]
    for role, unread in (("user", False), ("assistant", True), ("user", True)):
        message = add_message(session=session, conversation_id=conversation_id, role=role, content=role)
        session.refresh(conversation)
        stamps.append(conversation.updated_at)
        assert conversation.unread is unread
        assert iso_utc(conversation.updated_at) == message.created_at
    assert all(earlier < later for earlier, later in itertools.pairwise(stamps))


def test_messages_need_a_known_conversation_and_a_known_role(session: Session) -> None:
    conversation_id = _conversation(session, _bot(session))
    unknown = _refused(session, add_message, conversation_id="nope", role="user", content="x")
    assert unknown.code == "conversation_not_found"
    assert _refused(session, add_message, conversation_id=conversation_id, role="bot", content="x").field == "role"
    too_long = _refused(session, add_message, conversation_id=conversation_id, role="user", content="x" * 100_001)
    assert too_long.field == "content"
    assert list_messages(session=session, conversation_id=conversation_id) == []


# --- guide cards ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "field"),
    [
        (None, "guide_card"),
        ([], "guide_card"),
        ({"fields": []}, "guide_card.fields"),
        ({"fields": [{"name": "a", "label": ""}]}, "guide_card.fields[0].label"),
        ({"fields": [{"name": "a b", "label": "A"}]}, "guide_card.fields[0].name"),
        (
            {"fields": [{"name": "a", "label": "A"}, {"name": "b", "label": "B", "type": "file"}]},
            "guide_card.fields[1].type",
        ),
        ({"fields": [{"name": "a", "label": "A", "type": "select", "options": []}]}, "guide_card.fields[0].options"),
        ({"title": "t" * 201, "fields": [{"name": "a", "label": "A"}]}, "guide_card.title"),
    ],
)
def test_invalid_guide_cards_are_refused_with_their_field(session: Session, card: Any, field: str) -> None:
    conversation_id = _conversation(session, _bot(session))
    error = _refused(
        session,
        add_message,
        conversation_id=conversation_id,
        role="assistant",
        content="form",
        kind="guide_card",
        guide_card=card,
    )
    assert (error.code, error.field) == ("validation_error", field)
    assert list_messages(session=session, conversation_id=conversation_id) == []


def test_only_an_assistant_message_is_a_guide_card(session: Session) -> None:
    conversation_id = _conversation(session, _bot(session))
    for role in ("user", "tool", "system"):
        error = _refused(
            session,
            add_message,
            conversation_id=conversation_id,
            role=role,
            content="form",
            kind="guide_card",
            guide_card=CARD,
        )
        assert error.field == "kind"
    error = _refused(
        session, add_message, conversation_id=conversation_id, role="assistant", content="x", guide_card=CARD
    )
    assert error.field == "guide_card"


def test_a_valid_card_is_stored_pending_with_its_defaults(session: Session) -> None:
    conversation_id = _conversation(session, _bot(session))
    card = add_message(
        session=session,
        conversation_id=conversation_id,
        role="assistant",
        content="form",
        kind="guide_card",
        guide_card=CARD,
    )
    assert card.guide_state == "pending" and card.guide_card is not None
    assert card.guide_card["submit_label"] == "Submit"
    assert [field["required"] for field in card.guide_card["fields"]] == [True, False, False, False, False]
    assert card.guide_card["fields"][0]["options"] == []


@pytest.mark.parametrize(
    ("answers", "text"),
    [
        (
            {"service": "api", "notes": "  two lines\nok ", "region": "us", "urgent": True, "replicas": 3},
            "Deploy request\nService: api\nNotes: two lines\n  ok\nRegion: us\nUrgent: yes\nReplicas: 3",
        ),
        ({"service": "api"}, "Deploy request\nService: api\nNotes: —\nRegion: —\nUrgent: no\nReplicas: —"),
        (
            {"service": "api", "notes": "", "urgent": False, "replicas": 0},
            "Deploy request\nService: api\nNotes: —\nRegion: —\nUrgent: no\nReplicas: 0",
        ),
        ({"service": "中文 😀"}, "Deploy request\nService: 中文 😀\nNotes: —\nRegion: —\nUrgent: no\nReplicas: —"),
    ],
)
def test_answers_text_is_one_readable_line_per_field(answers: dict[str, Any], text: str) -> None:
    assert answers_text(CARD, answers) == text


def test_answers_text_without_a_title_starts_with_the_fields() -> None:
    assert answers_text({"fields": CARD["fields"][:1]}, {"service": "x"}) == "Service: x"


def test_submitting_adds_the_next_user_message_and_marks_the_card(session: Session) -> None:
    conversation_id = _conversation(session, _bot(session))
    card = add_message(
        session=session,
        conversation_id=conversation_id,
        role="assistant",
        content="form",
        kind="guide_card",
        guide_card=CARD,
    )
    for answers, field in (
        ({"notes": "x"}, "answers.service"),
        ({"service": "x", "region": "mars"}, "answers.region"),
        ({"service": "x", "extra": 1}, "answers.extra"),
        (["service"], "answers"),
    ):
        error = _refused(
            session, submit_guide_card, conversation_id=conversation_id, message_id=card.message_id, answers=answers
        )
        assert (error.code, error.field) == ("validation_error", field)
    answer = submit_guide_card(
        session=session,
        conversation_id=conversation_id,
        message_id=card.message_id,
        answers={"service": "api", "urgent": True},
    )
    assert (answer.role, answer.kind, answer.seq) == ("user", "text", card.seq + 1)
    assert answer.content == answers_text(CARD, {"service": "api", "urgent": True})
    stored = list_messages(session=session, conversation_id=conversation_id)
    assert [message.guide_state for message in stored] == ["submitted", None]
    again = _refused(
        session,
        submit_guide_card,
        conversation_id=conversation_id,
        message_id=card.message_id,
        answers={"service": "api"},
    )
    assert again.code == "guide_card_already_submitted"


def test_concurrent_submissions_of_one_card_add_one_answer(engine: Engine) -> None:
    with write_session(engine) as session:
        conversation_id = _conversation(session, _bot(session))
        card = add_message(
            session=session,
            conversation_id=conversation_id,
            role="assistant",
            content="form",
            kind="guide_card",
            guide_card=CARD,
        )
    submitters = 6
    start = threading.Barrier(submitters)

    def submit(number: int) -> str:
        start.wait()
        with write_session(engine) as session:
            try:
                submit_guide_card(
                    session=session,
                    conversation_id=conversation_id,
                    message_id=card.message_id,
                    answers={"service": f"answer {number}"},
                )
            except AppError as error:
                return error.code
            return "ok"

    with ThreadPoolExecutor(max_workers=submitters) as pool:
        outcomes = sorted(pool.map(submit, range(submitters)))
    assert outcomes == ["guide_card_already_submitted"] * (submitters - 1) + ["ok"]
    with read_session(engine) as session:
        messages = list_messages(session=session, conversation_id=conversation_id)
    assert [(message.seq, message.role) for message in messages] == [(1, "assistant"), (2, "user")]


# --- list_user_inputs ---------------------------------------------------------------------------------


def test_a_long_conversation_is_read_a_few_rows_at_a_time(engine: Engine) -> None:
    with write_session(engine) as session:
        bot_id = _bot(session)
        conversation_id = _conversation(session, bot_id)
        _bulk_messages(
            session, conversation_id, [("user" if n % 2 == 0 else "assistant", f"message {n:04d}") for n in range(2000)]
        )
    with read_session(engine) as session, _message_reads(session) as fetched, _statements(engine) as statements:
        result = list_user_inputs(
            session=session, bot_id=bot_id, conversation_id=conversation_id, limit=3, max_chars=1000
        )
        assert not session.new and not session.dirty
    assert [item["content"] for item in result["items"]] == ["message 1994", "message 1996", "message 1998"]
    assert result["hasMore"] is True
    assert fetched == [4]  # one query on the message table, limit + 1 rows out of 2,000
    message_queries = [context for sql, _, context in statements if re.search(r"\bFROM message\b", sql)]
    assert [_limit_of(context, engine) for context in message_queries] == [4]
    assert all(sql.lstrip().upper().startswith(("SELECT", "BEGIN")) for sql, _, _ in statements)  # reads only


def test_blank_inputs_are_paged_past_in_batches_of_limit_plus_one(engine: Engine) -> None:
    with write_session(engine) as session:
        bot_id = _bot(session)
        conversation_id = _conversation(session, bot_id)
        _bulk_messages(
            session,
            conversation_id,
            [("user", f"early {n}") for n in range(500)]
            + [("user", "real 1"), ("user", "real 2"), ("user", "real 3"), ("user", "real 4")]
            + [("user", " \n") for _ in range(10)]
            + [("assistant", "done")],
        )
    with read_session(engine) as session, _message_reads(session) as fetched:
        result = list_user_inputs(
            session=session, bot_id=bot_id, conversation_id=conversation_id, limit=3, max_chars=1000
        )
    assert [item["content"] for item in result["items"]] == ["real 2", "real 3", "real 4"]
    assert result["hasMore"] is True
    # 10 blank rows, then the 3 candidates, then one more proving older inputs exist: 14 rows in pages of 4.
    assert fetched == [4, 4, 4, 4]


def test_the_query_reads_through_the_index(engine: Engine) -> None:
    with write_session(engine) as session:
        bot_id = _bot(session)
        conversation_id = _conversation(session, bot_id)
        _bulk_messages(session, conversation_id, [("user" if n % 3 else "assistant", f"m{n}") for n in range(300)])
    with read_session(engine) as session, _statements(engine) as statements:
        list_user_inputs(session=session, bot_id=bot_id, conversation_id=conversation_id, limit=5, max_chars=100)
    [(sql, parameters, _)] = [entry for entry in statements if re.search(r"\bFROM message\b", entry[0])]
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            plan = " ".join(str(row[-1]) for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, parameters))
            assert f"USING INDEX {INDEX}" in plan, plan
            assert "TEMP B-TREE" not in plan, plan  # the index gives the order: no sort of all rows
        else:
            conn.exec_driver_sql("SET LOCAL enable_seqscan = off")
            plan = " ".join(row[0] for row in conn.exec_driver_sql("EXPLAIN " + sql, parameters))
            assert INDEX in plan, plan
            assert "Sort" not in plan, plan
        conn.rollback()


def test_guide_cards_are_never_user_inputs_even_when_stored_as_user(session: Session) -> None:
    """Only `kind=text` rows count: a card row with role=user (which add_message refuses) is still left out."""
    bot_id = _bot(session)
    conversation_id = _conversation(session, bot_id)
    add_message(session=session, conversation_id=conversation_id, role="user", content="a real input")
    _bulk_messages(session, conversation_id, [("user", "placeholder")])
    row = session.exec(select(Message).where(Message.conversation_id == conversation_id, Message.seq == 2)).one()
    row.kind, row.guide_card_json, row.guide_state, row.content = "guide_card", CARD, "pending", "card text"
    session.add(row)
    session.commit()
    result = list_user_inputs(session=session, bot_id=bot_id, conversation_id=conversation_id, limit=15, max_chars=1000)
    assert [item["content"] for item in result["items"]] == ["a real input"]


def test_list_user_inputs_refuses_bad_ids_and_other_bots_conversations(session: Session) -> None:
    owner = _bot(session, "owner")
    other = _bot(session, "other")
    conversation_id = _conversation(session, owner)
    add_message(session=session, conversation_id=conversation_id, role="user", content="secret")
    for bad in ("", "../x", "a/b", "x" * 129):
        assert (
            _refused(session, list_user_inputs, bot_id=owner, conversation_id=bad, limit=15, max_chars=1000).code
            == "invalid_conversation_id"
        )
    for bot_id, conversation in ((other, conversation_id), (owner, "0" * 32)):
        assert (
            _refused(
                session, list_user_inputs, bot_id=bot_id, conversation_id=conversation, limit=15, max_chars=1000
            ).code
            == "conversation_not_found"
        )
    mine = list_user_inputs(
        session=session, bot_id=owner, conversation_id=f" {conversation_id} ", limit=15, max_chars=1000
    )
    assert mine["conversationId"] == conversation_id and [item["content"] for item in mine["items"]] == ["secret"]
    assert session.exec(select(sa.func.count()).select_from(Message)).one() == 1


# --- the text policy: what no surface may store ------------------------------------------------------


def _card_with(**changes: Any) -> dict[str, Any]:
    fields = [dict(field) for field in CARD["fields"]]
    for key, value in changes.items():
        if key.startswith("field_"):
            fields[0][key.removeprefix("field_")] = value
        elif key == "option":
            fields[2]["options"] = ["eu", value]
        else:
            return {**CARD, key: value}
    return {**CARD, "fields": fields}


@pytest.mark.parametrize(
    ("call", "arguments", "field"),
    [
        ("create", {"title": "deploys\x00"}, "title"),
        ("create", {"title": "deploys\ud800"}, "title"),
        ("create", {"title": "invoice\u202efdp.exe"}, "title"),
        ("create", {"title": "two\nlines"}, "title"),
        ("message", {"role": "user", "content": "hi\x00"}, "content"),
        ("message", {"role": "user", "content": "hi\ud800"}, "content"),
        ("message", {"role": "user", "content": "\x1b[2J"}, "content"),
        (
            "message",
            {
                "role": "assistant",
                "content": "form",
                "kind": "guide_card",
                "guide_card": _card_with(field_label="Ser\u202evice"),
            },
            "guide_card.fields[0].label",
        ),
        (
            "message",
            {"role": "assistant", "content": "form", "kind": "guide_card", "guide_card": _card_with(option="x" * 201)},
            "guide_card.fields[2].options[1]",
        ),
        (
            "message",
            {"role": "assistant", "content": "form", "kind": "guide_card", "guide_card": _card_with(title="\x00")},
            "guide_card.title",
        ),
        (
            "message",
            {"role": "assistant", "content": "form", "kind": "guide_card", "guide_card": {**CARD, "bad\nkey": 1}},
            "guide_card",
        ),
        ("answers", {"answers": {"service": "api\x00"}}, "answers.service"),
        ("answers", {"answers": {"service": ["api"]}}, "answers.service"),
        ("answers", {"answers": {"service": "api", "replicas": 10**400}}, "answers.replicas"),
        ("answers", {"answers": {"service": "x" * 100_001}}, "answers"),
        ("list", {"after_seq": 99999999999999999999}, "after_seq"),
        ("list", {"after_seq": -1}, "after_seq"),
        ("list", {"limit": 0}, "limit"),
    ],
    ids=lambda value: value if isinstance(value, str) and value.isidentifier() else None,
)
def test_text_the_policy_refuses_is_never_stored(
    session: Session, call: str, arguments: dict[str, Any], field: str
) -> None:
    bot_id = _bot(session)
    conversation_id = _conversation(session, bot_id)
    card = add_message(
        session=session,
        conversation_id=conversation_id,
        role="assistant",
        content="form",
        kind="guide_card",
        guide_card=CARD,
    )
    functions = {
        "create": (create_conversation, {"bot_id": bot_id}),
        "message": (add_message, {"conversation_id": conversation_id}),
        "answers": (submit_guide_card, {"conversation_id": conversation_id, "message_id": card.message_id}),
        "list": (list_messages, {"conversation_id": conversation_id}),
    }
    function, target = functions[call]
    error = _refused(session, function, **target, **arguments)
    assert (error.code, error.field) == ("validation_error", field)
    error.message.encode("utf-8")
    assert session.exec(select(sa.func.count()).select_from(Message)).one() == 1
    assert session.exec(select(sa.func.count()).select_from(Conversation)).one() == 1


@pytest.mark.parametrize("conversation_id", ["nul\x00", "tab\there", "\ud800"])
def test_an_id_no_row_can_have_is_not_found_without_asking_the_database(session: Session, conversation_id: str) -> None:
    """PostgreSQL cannot compare text holding NUL: such an id is simply not found."""
    _bot(session)
    assert _refused(session, list_messages, conversation_id=conversation_id).code == "conversation_not_found"
    assert (
        _refused(session, add_message, conversation_id=conversation_id, role="user", content="hi").code
        == "conversation_not_found"
    )


def test_a_message_a_person_writes_as_the_bot_names_them_and_the_bots_own_do_not(session: Session) -> None:
    """A walkthrough's "assistant" message, written by an admin, looked like the bot's own answer."""
    from topic_dashboard.services.audit import Actor

    conversation_id = _conversation(session, _bot(session))
    ann = Actor("user", "ann")
    written = {
        role: add_message(session=session, conversation_id=conversation_id, role=role, content=role, actor=ann)
        for role in ("user", "assistant", "tool", "system")
    }
    assert {role: m.added_by for role, m in written.items()} == {
        "user": None,
        "assistant": "ann",
        "tool": "ann",
        "system": "ann",
    }
    by_bot = add_message(
        session=session, conversation_id=conversation_id, role="assistant", content="hi", actor=Actor("bot", "b1")
    )
    unattributed = add_message(session=session, conversation_id=conversation_id, role="assistant", content="hi")
    assert by_bot.added_by is None and unattributed.added_by is None
    stored = session.exec(select(Message).where(Message.conversation_id == conversation_id)).all()
    assert sorted(m.added_by or "" for m in stored) == ["", "", "", "ann", "ann", "ann"]
