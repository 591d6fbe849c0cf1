"""The dashboard channel's storage and decisions on every backend: messages kept before anything is
sent, runs claimed one per bot, the answer stored as it streams, guide cards from the bot, the
bot's source conversation, and items linked to the conversation that produced them."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import Bot, ChatRun, Message, TopicItem
from topic_dashboard.services import chat
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.conversations import create_conversation, get_conversation, list_messages
from topic_dashboard.services.publishing import PublishRequest, publish_item

URL = "http://127.0.0.1:8900"
CARD = {"title": "Before I start", "fields": [{"name": "scope", "label": "Scope", "type": "text", "required": True}]}


def _bot(session: Session, name: str = "b", url: str | None = URL) -> str:
    bot, _ = create_bot(session=session, name=name, write_config=False)
    if url is not None:
        chat.set_chat_endpoint(session=session, bot_id=bot.bot_id, chat_url=url, chat_key="sk-1")
    return bot.bot_id


def _conversation(session: Session, bot_id: str, title: str = "c") -> str:
    return create_conversation(session=session, bot_id=bot_id, title=title).conversation_id


def _refused(code: str, fn: Any, **kwargs: Any) -> AppError:
    with pytest.raises(AppError) as excinfo:
        fn(**kwargs)
    assert excinfo.value.code == code, excinfo.value
    return excinfo.value


# --- the endpoint ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("http://127.0.0.1:8900", "http://127.0.0.1:8900"),
        ("http://127.0.0.1:8900/", "http://127.0.0.1:8900"),
        ("http://127.0.0.1:8900/v1", "http://127.0.0.1:8900"),
        ("https://bots.example.com/alice/v1/chat/completions", "https://bots.example.com/alice"),
        ("  http://[::1]:8900  ", "http://[::1]:8900"),
    ],
)
def test_a_chat_url_is_stored_as_the_servers_base(session: Session, given: str, stored: str) -> None:
    bot_id = _bot(session, url=None)
    assert chat.set_chat_endpoint(session=session, bot_id=bot_id, chat_url=given).chat_url == stored


@pytest.mark.parametrize(
    "bad",
    ["   ", "ftp://host", "127.0.0.1:8900", "http://", "http://u:p@host:1", "http://h:99999", "http://h/?x=1", 5],
)
def test_a_bad_chat_url_is_refused_and_nothing_changes(session: Session, bad: Any) -> None:
    bot_id = _bot(session)
    _refused("invalid_chat_url", chat.set_chat_endpoint, session=session, bot_id=bot_id, chat_url=bad)
    session.rollback()
    assert chat.get_chat_endpoint(session=session, bot_id=bot_id).chat_url == URL


def test_the_key_is_write_only_kept_replaced_or_removed(session: Session) -> None:
    bot_id = _bot(session)
    shown = chat.get_chat_endpoint(session=session, bot_id=bot_id)
    assert shown.key_set and "sk-1" not in shown.model_dump_json()
    chat.set_chat_endpoint(session=session, bot_id=bot_id, chat_url=URL)  # KEEP
    assert chat.endpoint_secret(session=session, bot_id=bot_id) == (URL, "sk-1")
    chat.set_chat_endpoint(session=session, bot_id=bot_id, chat_url=URL, chat_key="sk-2")
    assert chat.endpoint_secret(session=session, bot_id=bot_id) == (URL, "sk-2")
    chat.set_chat_endpoint(session=session, bot_id=bot_id, chat_url=URL, chat_key="")
    assert chat.endpoint_secret(session=session, bot_id=bot_id) == (URL, None)
    _refused("validation_error", chat.set_chat_endpoint, session=session, bot_id=bot_id, chat_url=URL, chat_key="a b")


def test_removing_the_url_removes_the_key(session: Session) -> None:
    bot_id = _bot(session)
    assert chat.set_chat_endpoint(session=session, bot_id=bot_id, chat_url=None).key_set is False
    assert chat.endpoint_secret(session=session, bot_id=bot_id) == (None, None)


# --- sending -----------------------------------------------------------------------------------------


def test_a_message_is_stored_then_queued_for_the_bot(session: Session) -> None:
    bot_id = _bot(session)
    conversation_id = _conversation(session, bot_id)
    message, run = chat.send_message(session=session, conversation_id=conversation_id, content="run the build")
    assert (message.role, message.content) == ("user", "run the build")
    assert (run.status, run.user_message_id) == ("queued", message.message_id)
    assert get_conversation(session=session, conversation_id=conversation_id).run_status == "queued"


def test_without_an_endpoint_the_message_is_kept_and_the_run_says_why(session: Session) -> None:
    bot_id = _bot(session, url=None)
    conversation_id = _conversation(session, bot_id)
    message, run = chat.send_message(session=session, conversation_id=conversation_id, content="hello?")
    assert (run.status, run.error_code) == ("failed", "no_chat_endpoint")
    assert "Bots page" in (run.error or "")
    assert [m.content for m in list_messages(session=session, conversation_id=conversation_id)] == ["hello?"]
    conversation = get_conversation(session=session, conversation_id=conversation_id)
    assert (conversation.run_status, conversation.run_error) == ("failed", run.error)


def test_a_second_message_waits_for_the_run_and_an_empty_one_is_refused(session: Session) -> None:
    bot_id = _bot(session)
    conversation_id = _conversation(session, bot_id)
    chat.send_message(session=session, conversation_id=conversation_id, content="first")
    _refused("run_in_progress", chat.send_message, session=session, conversation_id=conversation_id, content="again")
    _refused("validation_error", chat.send_message, session=session, conversation_id=conversation_id, content="  ")
    assert len(list_messages(session=session, conversation_id=conversation_id)) == 1


# --- the worker's side -------------------------------------------------------------------------------


def test_a_bot_answers_one_run_at_a_time_other_bots_in_parallel(session: Session) -> None:
    first_bot, other_bot = _bot(session, "one"), _bot(session, "two")
    a, b = _conversation(session, first_bot, "a"), _conversation(session, first_bot, "b")
    c = _conversation(session, other_bot, "c")
    for conversation_id in (a, b, c):
        chat.send_message(session=session, conversation_id=conversation_id, content=f"hi {conversation_id}")

    job_a = chat.claim_next_run(session=session, worker="w1")
    job_c = chat.claim_next_run(session=session, worker="w2")
    assert job_a is not None and job_c is not None
    assert (job_a.conversation_id, job_c.conversation_id) == (a, c)
    assert (job_a.chat_url, job_a.chat_key, job_a.text) == (URL, "sk-1", f"hi {a}")
    assert chat.claim_next_run(session=session, worker="w3") is None  # b waits for a: same bot
    assert chat.source_conversation_id(session=session, bot_id=first_bot) == a
    assert chat.source_conversation_id(session=session, bot_id=other_bot) == c

    chat.finish_done(session=session, run_id=job_a.run_id, text="done")
    job_b = chat.claim_next_run(session=session, worker="w1")
    assert job_b is not None and job_b.conversation_id == b
    assert chat.source_conversation_id(session=session, bot_id=first_bot) == b


def test_the_index_refuses_a_second_running_run_of_one_bot(session: Session) -> None:
    """Even a worker that skipped the check cannot start two runs of one bot."""
    from sqlalchemy.exc import IntegrityError

    bot_id = _bot(session)
    a, b = _conversation(session, bot_id, "a"), _conversation(session, bot_id, "b")
    for conversation_id in (a, b):
        chat.send_message(session=session, conversation_id=conversation_id, content="x")
    runs = session.exec(select(ChatRun).where(ChatRun.bot_id == bot_id)).all()
    for run in runs:
        run.status = "running"
        session.add(run)
    with pytest.raises(IntegrityError):
        session.commit()


def test_the_answer_streams_into_one_message_and_the_end_marks_it_unread(session: Session) -> None:
    bot_id = _bot(session)
    conversation_id = _conversation(session, bot_id)
    chat.send_message(session=session, conversation_id=conversation_id, content="run the build")
    job = chat.claim_next_run(session=session, worker="w")
    assert job is not None
    before = get_conversation(session=session, conversation_id=conversation_id).revision

    assert chat.record_answer(session=session, run_id=job.run_id, text="Build") is False
    assert chat.record_answer(session=session, run_id=job.run_id, text="Build #88 passed") is False
    messages = list_messages(session=session, conversation_id=conversation_id)
    assert [(m.role, m.content, m.streaming) for m in messages][1:] == [("assistant", "Build #88 passed", True)]
    assert get_conversation(session=session, conversation_id=conversation_id).revision >= before + 2

    chat.finish_done(session=session, run_id=job.run_id, text="Build #88 passed in 4 min.")
    last = list_messages(session=session, conversation_id=conversation_id)[-1]
    assert (last.content, last.streaming) == ("Build #88 passed in 4 min.", False)
    conversation = get_conversation(session=session, conversation_id=conversation_id)
    assert (conversation.run_status, conversation.unread) == ("idle", True)
    assert chat.source_conversation_id(session=session, bot_id=bot_id) is None


def test_a_guide_card_block_becomes_the_form_and_its_answers_go_back_to_the_bot(session: Session) -> None:
    import json

    bot_id = _bot(session)
    conversation_id = _conversation(session, bot_id)
    chat.send_message(session=session, conversation_id=conversation_id, content="make a report")
    job = chat.claim_next_run(session=session, worker="w")
    assert job is not None
    answer = f"Sure. A few details first:\n```guide_card\n{json.dumps(CARD)}\n```"
    chat.finish_done(session=session, run_id=job.run_id, text=answer)
    card = list_messages(session=session, conversation_id=conversation_id)[-1]
    assert (card.kind, card.guide_state, card.content) == ("guide_card", "pending", "Sure. A few details first:")
    assert card.guide_card is not None and card.guide_card["title"] == "Before I start"

    message, run = chat.submit_guide_card_to_bot(
        session=session, conversation_id=conversation_id, message_id=card.message_id, answers={"scope": "Q3 sales"}
    )
    assert (message.role, run.status) == ("user", "queued")
    assert "Scope: Q3 sales" in message.content
    next_job = chat.claim_next_run(session=session, worker="w")
    assert next_job is not None and "Scope: Q3 sales" in next_job.text


@pytest.mark.parametrize(
    "answer",
    [
        "```guide_card\n{not json}\n```",
        '```guide_card\n{"title": "no fields", "fields": []}\n```',
        "plain answer with ``` fences ``` but no card",
    ],
)
def test_an_invalid_card_block_is_shown_as_written(answer: str) -> None:
    assert chat.split_guide_card(answer) == (answer, None)


def test_a_failure_keeps_what_arrived_and_retry_sends_the_same_message_again(session: Session) -> None:
    bot_id = _bot(session)
    conversation_id = _conversation(session, bot_id)
    message, _ = chat.send_message(session=session, conversation_id=conversation_id, content="deploy")
    job = chat.claim_next_run(session=session, worker="w")
    assert job is not None
    chat.record_answer(session=session, run_id=job.run_id, text="Deploying")
    chat.finish_failed(session=session, run_id=job.run_id, code="bot_timeout", error="the bot stopped answering")

    conversation = get_conversation(session=session, conversation_id=conversation_id)
    assert (conversation.run_status, conversation.run_error) == ("failed", "the bot stopped answering")
    partial = list_messages(session=session, conversation_id=conversation_id)[-1]
    assert (partial.content, partial.streaming) == ("Deploying\n\n[the answer broke off here]", False)

    again = chat.retry(session=session, conversation_id=conversation_id)
    assert (again.status, again.user_message_id) == ("queued", message.message_id)
    _refused("run_in_progress", chat.retry, session=session, conversation_id=conversation_id)
    retried = chat.claim_next_run(session=session, worker="w")
    assert retried is not None and retried.text == "deploy"
    chat.finish_done(session=session, run_id=retried.run_id, text="ok")
    _refused("nothing_to_retry", chat.retry, session=session, conversation_id=conversation_id)


def test_stop_ends_a_queued_run_at_once_and_flags_a_running_one(session: Session) -> None:
    bot_id = _bot(session)
    a, b = _conversation(session, bot_id, "a"), _conversation(session, bot_id, "b")
    chat.send_message(session=session, conversation_id=a, content="x")
    chat.send_message(session=session, conversation_id=b, content="y")
    job = chat.claim_next_run(session=session, worker="w")
    assert job is not None and job.conversation_id == a

    queued = chat.stop(session=session, conversation_id=b)
    assert queued is not None and queued.status == "stopped"
    running = chat.stop(session=session, conversation_id=a)
    assert running is not None and running.status == "running"
    assert chat.record_answer(session=session, run_id=job.run_id, text="partial") is True
    assert chat.stop_requested(session=session, run_id=job.run_id) is True
    chat.finish_failed(session=session, run_id=job.run_id, code="bot_error", error="stopped by a person", stopped=True)
    assert get_conversation(session=session, conversation_id=a).run_status == "stopped"
    assert chat.stop(session=session, conversation_id=a) is None


def test_runs_left_by_a_dead_process_are_failed_so_the_bot_is_free(session: Session) -> None:
    import socket

    bot_id = _bot(session)
    conversation_id = _conversation(session, bot_id)
    chat.send_message(session=session, conversation_id=conversation_id, content="x")
    dead = f"{socket.gethostname()}:999999999"
    assert chat.claim_next_run(session=session, worker=dead) is not None
    assert chat.fail_stale_runs(session=session, worker=chat.worker_name()) == 1
    conversation = get_conversation(session=session, conversation_id=conversation_id)
    assert conversation.run_status == "failed" and "retry" in (conversation.run_error or "")
    assert chat.source_conversation_id(session=session, bot_id=bot_id) is None


# --- results linked to the conversation ----------------------------------------------------------------


def test_items_published_while_answering_link_to_the_conversation(session: Session) -> None:
    bot_id = _bot(session)
    a, b = _conversation(session, bot_id, "a"), _conversation(session, bot_id, "b")
    chat.send_message(session=session, conversation_id=a, content="build")
    chat.send_message(session=session, conversation_id=b, content="later")
    before = publish_item(
        session=session, bot_id=bot_id, request=PublishRequest(topic_key="inbox", title="t0", content="before")
    )
    job = chat.claim_next_run(session=session, worker="w")
    assert job is not None and job.conversation_id == a
    during = [
        publish_item(
            session=session, bot_id=bot_id, request=PublishRequest(topic_key="inbox", title=f"t{i}", content="x")
        )
        for i in (1, 2)
    ]
    rows = {row.id: row.conversation_id for row in session.exec(select(TopicItem)).all()}
    assert rows[before.item_id] is None
    assert [rows[r.item_id] for r in during] == [a, a]
    groups = chat.published_from(session=session, conversation_id=a)
    assert [(g.topic_key, g.topic_name, g.count, g.latest_item_id) for g in groups] == [
        ("inbox", "Inbox", 2, during[-1].item_id)
    ]
    assert chat.published_from(session=session, conversation_id=b) == []


def test_deleting_a_conversation_keeps_its_items(session: Session) -> None:
    from topic_dashboard.models import Conversation

    bot_id = _bot(session)
    conversation_id = _conversation(session, bot_id)
    chat.send_message(session=session, conversation_id=conversation_id, content="x")
    assert chat.claim_next_run(session=session, worker="w") is not None
    result = publish_item(
        session=session, bot_id=bot_id, request=PublishRequest(topic_key="inbox", title="t", content="c")
    )
    session.delete(session.get(Conversation, conversation_id))
    session.commit()
    item = session.get(TopicItem, result.item_id)
    assert item is not None
    session.refresh(item)
    assert item.conversation_id is None
    assert session.exec(select(Message)).all() == [] and session.get(Bot, bot_id) is not None


def test_writing_again_after_a_failure_carries_the_undelivered_message_along(session: Session) -> None:
    """The person did not press Retry but wrote again: the bot gets both, oldest first."""
    bot_id = _bot(session)
    conversation_id = _conversation(session, bot_id)
    chat.send_message(session=session, conversation_id=conversation_id, content="first, while the bot was down")
    job = chat.claim_next_run(session=session, worker="w")
    assert job is not None
    chat.finish_failed(session=session, run_id=job.run_id, code="bot_unreachable", error="cannot connect")
    chat.send_message(session=session, conversation_id=conversation_id, content="second\n")
    job = chat.claim_next_run(session=session, worker="w")
    assert job is not None and job.text == "first, while the bot was down\n\nsecond"
    chat.finish_done(session=session, run_id=job.run_id, text="got both")
    chat.send_message(session=session, conversation_id=conversation_id, content="third")
    job = chat.claim_next_run(session=session, worker="w")
    assert job is not None and job.text == "third"  # delivered ones are not sent again


def test_a_conversation_is_renamed_and_deleted_but_not_while_the_bot_answers_it(session: Session) -> None:
    from topic_dashboard.services.conversations import delete_conversation, rename_conversation

    bot_id = _bot(session)
    conversation_id = _conversation(session, bot_id, "")
    assert rename_conversation(session=session, conversation_id=conversation_id, title="  Release 1.8 ").title == (
        "Release 1.8"
    )
    _refused("validation_error", rename_conversation, session=session, conversation_id=conversation_id, title="a\nb")
    chat.send_message(session=session, conversation_id=conversation_id, content="deploy")
    _refused("run_in_progress", delete_conversation, session=session, conversation_id=conversation_id)
    chat.stop(session=session, conversation_id=conversation_id)
    assert delete_conversation(session=session, conversation_id=conversation_id) == 1
    assert session.exec(select(ChatRun)).all() == [] and session.exec(select(Message)).all() == []
    _refused("conversation_not_found", delete_conversation, session=session, conversation_id=conversation_id)


def test_runs_that_cannot_start_never_hide_one_that_can(session: Session) -> None:
    """A queue that starts with more runs than one look takes (5), all of bots without a chat
    endpoint, still gives the worker the run that can start (the older ones fail on the way)."""
    stuck = [_bot(session, f"endpoint-gone-{n}") for n in range(7)]
    for bot_id in stuck:  # queued while the bot had an endpoint, which is gone by the time a worker looks
        chat.send_message(session=session, conversation_id=_conversation(session, bot_id), content="x")
        chat.set_chat_endpoint(session=session, bot_id=bot_id, chat_url=None)
    ready = _bot(session, "ready")
    conversation = _conversation(session, ready)
    chat.send_message(session=session, conversation_id=conversation, content="go")
    job = chat.claim_next_run(session=session, worker="w")
    assert job is not None and job.conversation_id == conversation
    failed = session.exec(select(ChatRun).where(ChatRun.status == "failed")).all()
    assert {run.bot_id for run in failed} >= set(stuck)
