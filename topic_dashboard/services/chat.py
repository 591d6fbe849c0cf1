"""The dashboard channel: a person writes to a bot in a conversation, the dashboard relays it to the
bot's chat endpoint (its `nanobot serve`) and stores the answer as it streams in.

Everything here is storage and decisions; the HTTP relay is `topic_dashboard.chat`. Every user
message is stored before anything is sent, and each relay is a `ChatRun` row:

    queued -> running -> done | failed | stopped          (retry: a new run for the same message)

A bot answers one run at a time: a run is claimed only while no other run of its bot is running
(the partial unique index `uq_chat_run_one_running_per_bot` makes a second claim fail). That is
what lets the dashboard know which conversation a bot is answering although nanobot sends the
same static MCP headers for every conversation: while a run is running, its conversation is the
bot's *source conversation* (`source_conversation_id`), read by `ccweb_list_user_inputs` and
linked to every item the bot publishes. A second conversation written to meanwhile waits
(`queued`) and runs next. See docs/ARCHITECTURE.md, "The chat path".
"""

from __future__ import annotations

import json
import os
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import sqlalchemy as sa
from pydantic import BaseModel
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import Bot, ChatRun, Conversation, Message, Topic, TopicItem, iso_utc, utcnow
from topic_dashboard.services.audit import Actor, record
from topic_dashboard.services.bots import bot_row
from topic_dashboard.services.conversations import (
    MessagePublic,
    _validated_card,
    add_message,
    conversation_row,
    submit_guide_card,
)
from topic_dashboard.text_policy import check_text, is_lookup_key

RUN_STATUSES = ("queued", "running", "done", "failed", "stopped")
ACTIVE = ("queued", "running")
KEEP = object()  # "leave the stored key as it is"
MAX_KEY_CHARS = 500
MAX_URL_CHARS = 500
MAX_ERROR_CHARS = 500
# A run still "running" after this long belongs to a worker that is gone (the relay's own
# timeout is far shorter): any worker fails it so the bot is free again.
STALE_RUN_AFTER = timedelta(minutes=30)
# The documented block a bot writes to show the person a form (docs/ARCHITECTURE.md):
#   ```guide_card
#   {"title": "...", "fields": [{"name": "scope", "label": "...", "type": "textarea"}]}
#   ```
GUIDE_CARD_BLOCK = re.compile(r"```[ \t]*guide[_-]card[ \t]*\n(?P<json>.*?)\n[ \t]*```", re.DOTALL | re.IGNORECASE)


class ChatEndpointPublic(BaseModel):
    bot_id: str
    chat_url: str | None
    key_set: bool


class ChatRunPublic(BaseModel):
    run_id: str
    bot_id: str
    conversation_id: str
    status: str
    error: str | None
    error_code: str | None
    user_message_id: str
    assistant_message_id: str | None
    created_at: str | None
    started_at: str | None
    finished_at: str | None


class PublishedGroup(BaseModel):
    """Items a bot published while answering a conversation, per topic."""

    topic_key: str
    topic_name: str
    count: int
    latest_item_id: int


@dataclass(frozen=True)
class RunJob:
    """What a worker needs to relay one run (the key travels only to the bot)."""

    run_id: str
    bot_id: str
    conversation_id: str
    text: str
    chat_url: str
    chat_key: str | None


def run_public(row: ChatRun) -> ChatRunPublic:
    return ChatRunPublic(
        run_id=row.id,
        bot_id=row.bot_id,
        conversation_id=row.conversation_id,
        status=row.status,
        error=row.error,
        error_code=row.error_code,
        user_message_id=row.user_message_id,
        assistant_message_id=row.assistant_message_id,
        created_at=iso_utc(row.created_at),
        started_at=iso_utc(row.started_at),
        finished_at=iso_utc(row.finished_at),
    )


# --- the bot's chat endpoint ------------------------------------------------------------------------


def check_chat_url(url: Any) -> str:
    """The normalised base URL of a bot's `nanobot serve` (no trailing slash, no `/v1`).
    Raises invalid_chat_url."""
    if not isinstance(url, str) or not url.strip():
        raise AppError("invalid_chat_url", "give the bot's chat URL, e.g. http://127.0.0.1:8900", field="chat_url")
    text = check_text(url, field="chat_url").strip()
    if len(text) > MAX_URL_CHARS:
        raise AppError("invalid_chat_url", f"the URL is longer than {MAX_URL_CHARS} characters", field="chat_url")
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AppError(
            "invalid_chat_url", "the chat URL must be http(s)://host:port (nanobot serve's address)", field="chat_url"
        )
    if parts.username or parts.password:
        raise AppError("invalid_chat_url", "put the key in the key field, not in the URL", field="chat_url")
    if parts.query or parts.fragment:
        raise AppError("invalid_chat_url", "the chat URL takes no query or fragment", field="chat_url")
    try:
        parts.port  # noqa: B018  (raises on a bad port)
    except ValueError as exc:
        raise AppError("invalid_chat_url", "the port is not a number from 1 to 65535", field="chat_url") from exc
    path = parts.path.rstrip("/")
    for suffix in ("/v1/chat/completions", "/v1"):
        path = path.removesuffix(suffix)
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def get_chat_endpoint(*, session: Session, bot_id: str) -> ChatEndpointPublic:
    """Raises bot_not_found."""
    bot = bot_row(session=session, bot_id=bot_id)
    return ChatEndpointPublic(bot_id=bot.id, chat_url=bot.chat_url, key_set=bool(bot.chat_key))


def set_chat_endpoint(
    *, session: Session, bot_id: str, chat_url: str | None, chat_key: Any = KEEP, actor: Actor | None = None
) -> ChatEndpointPublic:
    """Set (or with `chat_url=None` remove) where the dashboard reaches the bot. `chat_key`: KEEP leaves
    the stored key, "" or None removes it, a string replaces it (never shown back, never audited).
    With `actor`, audited in the same transaction.
    Raises bot_not_found, invalid_chat_url, validation_error."""
    bot = bot_row(session=session, bot_id=bot_id)
    before = {"chat_url": bot.chat_url, "key_set": bool(bot.chat_key)}
    bot.chat_url = None if chat_url is None or chat_url == "" else check_chat_url(chat_url)
    if chat_key is not KEEP:
        if chat_key is not None and not isinstance(chat_key, str):
            raise AppError("validation_error", "the key is text", field="chat_key")
        key = check_text(chat_key or "", field="chat_key").strip()
        if len(key) > MAX_KEY_CHARS or any(ch.isspace() for ch in key):
            raise AppError(
                "validation_error", f"the key is one word of at most {MAX_KEY_CHARS} characters", field="chat_key"
            )
        bot.chat_key = key or None
    if bot.chat_url is None:
        bot.chat_key = None
    bot.updated_at = utcnow()
    session.add(bot)
    if actor is not None:
        after = {"chat_url": bot.chat_url, "key_set": bool(bot.chat_key)}
        detail = {"before": before, "after": after, "key_replaced": isinstance(chat_key, str) and bool(bot.chat_key)}
        record(
            session=session,
            by=actor,
            action="bot.update_chat_endpoint",
            target=f"bot:{bot.id}",
            bot_id=bot.id,
            detail=detail,
        )
    session.commit()
    return ChatEndpointPublic(bot_id=bot.id, chat_url=bot.chat_url, key_set=bool(bot.chat_key))


def endpoint_secret(*, session: Session, bot_id: str) -> tuple[str | None, str | None]:
    """(chat_url, chat_key) for the relay and the connection test only. Raises bot_not_found."""
    bot = bot_row(session=session, bot_id=bot_id)
    return bot.chat_url, bot.chat_key


# --- writing to the bot -----------------------------------------------------------------------------


def _bump(conversation: Conversation, *, status: str | None = None, error: str | None = None) -> None:
    conversation.revision += 1
    conversation.updated_at = utcnow()
    if status is not None:
        conversation.run_status = status
        conversation.run_error = error


def _active_run(session: Session, conversation_id: str) -> ChatRun | None:
    return session.exec(
        select(ChatRun).where(ChatRun.conversation_id == conversation_id, col(ChatRun.status).in_(ACTIVE))
    ).first()


def _new_run(session: Session, conversation: Conversation, user_message_id: str) -> ChatRun:
    bot = session.get(Bot, conversation.bot_id)
    run = ChatRun(bot_id=conversation.bot_id, conversation_id=conversation.id, user_message_id=user_message_id)
    if bot is None or not bot.chat_url:
        run.status, run.error_code = "failed", "no_chat_endpoint"
        run.error = "this bot has no chat endpoint yet: an admin sets it on the Bots page (Chat endpoint)"
        run.finished_at = utcnow()
        _bump(conversation, status="failed", error=run.error)
    else:
        _bump(conversation, status="queued")
    session.add(run)
    session.add(conversation)
    return run


def send_message(
    *, session: Session, conversation_id: str, content: str, actor: Actor | None = None
) -> tuple[MessagePublic, ChatRunPublic]:
    """Store what the person wrote and queue its relay to the bot. The message is kept whatever
    happens next; a bot without a chat endpoint gives a failed run that says so (retry later).
    With `actor`, audited (the message's length, not its text) with the run.
    Raises conversation_not_found, validation_error, run_in_progress."""
    if not isinstance(content, str) or not content.strip():
        raise AppError("validation_error", "write a message first", field="content")
    content = content.rstrip()  # a trailing newline from the text box is not part of the message
    conversation = conversation_row(session=session, conversation_id=conversation_id, for_update=True)
    if _active_run(session, conversation.id) is not None:
        raise AppError("run_in_progress", "the bot is still answering this conversation: wait, or stop the run first")
    message = add_message(session=session, conversation_id=conversation.id, role="user", content=content)
    conversation = conversation_row(session=session, conversation_id=conversation_id, for_update=True)
    run = _new_run(session, conversation, message.message_id)
    if actor is not None:
        detail = {"seq": message.seq, "chars": len(content), "run": run.status}
        _audit(session, actor, "conversation.send", conversation, detail)
    session.commit()
    return message, run_public(run)


def _audit(session: Session, actor: Actor, action: str, conversation: Conversation, detail: dict[str, Any]) -> None:
    target = f"conversation:{conversation.id}"
    record(session=session, by=actor, action=action, target=target, bot_id=conversation.bot_id, detail=detail)


def submit_guide_card_to_bot(
    *, session: Session, conversation_id: str, message_id: str, answers: Any, actor: Actor | None = None
) -> tuple[MessagePublic, ChatRunPublic]:
    """Submit a guide card (it becomes the person's next message) and relay that message to the bot.
    With `actor`, audited (the fields answered, not the answers) with the run.
    Raises what conversations.submit_guide_card raises, and run_in_progress."""
    conversation = conversation_row(session=session, conversation_id=conversation_id)
    if _active_run(session, conversation.id) is not None:
        raise AppError("run_in_progress", "the bot is still answering this conversation: wait for it first")
    message = submit_guide_card(
        session=session, conversation_id=conversation_id, message_id=message_id, answers=answers
    )
    conversation = conversation_row(session=session, conversation_id=conversation_id, for_update=True)
    run = _new_run(session, conversation, message.message_id)
    if actor is not None:
        detail = {
            "message_id": message_id,
            "fields": sorted(answers) if isinstance(answers, dict) else [],
            "run": run.status,
        }
        _audit(session, actor, "conversation.submit_guide_card", conversation, detail)
    session.commit()
    return message, run_public(run)


def retry(*, session: Session, conversation_id: str, actor: Actor | None = None) -> ChatRunPublic:
    """Relay the conversation's last failed or stopped message again (a new run); with `actor`, audited.
    Raises conversation_not_found, run_in_progress, nothing_to_retry."""
    conversation = conversation_row(session=session, conversation_id=conversation_id, for_update=True)
    if _active_run(session, conversation.id) is not None:
        raise AppError("run_in_progress", "the bot is already answering this conversation")
    last = latest_run_row(session, conversation.id)
    if last is None or last.status not in ("failed", "stopped"):
        raise AppError("nothing_to_retry", "the last message was answered; there is nothing to retry")
    run = _new_run(session, conversation, last.user_message_id)
    if actor is not None:
        _audit(
            session, actor, "conversation.retry", conversation, {"message_id": last.user_message_id, "run": run.status}
        )
    session.commit()
    return run_public(run)


def stop(*, session: Session, conversation_id: str, actor: Actor | None = None) -> ChatRunPublic | None:
    """Stop the conversation's run: a queued run stops at once, a running one at the next streamed part
    (what arrived so far is kept). None when nothing runs. With `actor`, a stop is audited.
    Raises conversation_not_found."""
    conversation = conversation_row(session=session, conversation_id=conversation_id, for_update=True)
    run = _active_run(session, conversation.id)
    if run is None:
        return None
    if run.status == "queued":
        run.status, run.finished_at = "stopped", utcnow()
        run.error, run.error_code = "stopped before the bot started", None
        _bump(conversation, status="stopped", error=run.error)
        session.add(conversation)
    else:
        run.stop_requested = True
    session.add(run)
    if actor is not None:
        _audit(
            session,
            actor,
            "conversation.stop",
            conversation,
            {"run_id": run.id, "was": "queued" if run.status == "stopped" else "running"},
        )
    session.commit()
    return run_public(run)


def latest_run_row(session: Session, conversation_id: str) -> ChatRun | None:
    return session.exec(
        select(ChatRun)
        .where(ChatRun.conversation_id == conversation_id)
        .order_by(col(ChatRun.created_at).desc(), col(ChatRun.id).desc())
        .limit(1)
    ).first()


def latest_run(*, session: Session, conversation_id: str) -> ChatRunPublic | None:
    row = latest_run_row(session, conversation_id)
    return run_public(row) if row is not None else None


# --- the worker's side ------------------------------------------------------------------------------


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def has_queued_runs(*, session: Session) -> bool:
    """Is any run waiting? (One look-up on the status index; the worker asks before claiming.)"""
    return session.exec(select(ChatRun.id).where(ChatRun.status == "queued").limit(1)).first() is not None


def claim_next_run(*, session: Session, worker: str) -> RunJob | None:
    """Take the oldest queued run whose bot is not answering another one, or None when there is none.
    Runs that cannot start (their bot has no chat endpoint) fail on the way and the search goes on:
    a queue that starts with them never hides a run that can start."""
    for _ in range(CLAIM_ROUNDS):
        busy = select(ChatRun.bot_id).where(ChatRun.status == "running")
        candidates = session.exec(
            select(ChatRun)
            .where(ChatRun.status == "queued", col(ChatRun.bot_id).not_in(busy))
            .order_by(col(ChatRun.created_at), col(ChatRun.id))
            .limit(5)
        ).all()
        if not candidates:
            return None
        job = _claim_first(session, candidates, worker)
        if job is not None:
            return job
    return None


CLAIM_ROUNDS = 50  # batches of 5 looked at per call at most (each round fails or loses what it skips)


def _claim_first(session: Session, candidates: Sequence[ChatRun], worker: str) -> RunJob | None:
    for candidate in candidates:
        run_id = candidate.id
        try:
            claimed = session.execute(
                sa.update(ChatRun)
                .where(col(ChatRun.id) == run_id, col(ChatRun.status) == "queued")
                .values(status="running", started_at=utcnow(), worker=worker)
            )
            session.commit()
        except IntegrityError:  # another worker started a run of this bot first
            session.rollback()
            continue
        if claimed.rowcount != 1:  # type: ignore[attr-defined]
            continue
        run = session.get(ChatRun, run_id)
        if run is None:
            continue
        session.refresh(run)
        message = session.get(Message, run.user_message_id)
        bot = session.get(Bot, run.bot_id)
        conversation = session.get(Conversation, run.conversation_id)
        if message is None or bot is None or conversation is None:
            continue
        if not bot.chat_url:
            finish_failed(session=session, run_id=run.id, code="no_chat_endpoint", error="the bot has no chat endpoint")
            continue
        _bump(conversation, status="running")
        session.add(conversation)
        session.commit()
        text = _undelivered_text(session, conversation.id, message)
        return RunJob(run.id, run.bot_id, run.conversation_id, text, bot.chat_url, bot.chat_key)
    return None


def _undelivered_text(session: Session, conversation_id: str, message: Message) -> str:
    """What the bot must read for this run: this message and every earlier user message the bot never
    got (their runs failed or were stopped before any answer), oldest first, so a person who writes
    again after a failure instead of pressing Retry loses nothing."""
    delivered = session.exec(
        select(sa.func.max(Message.seq))
        .join(ChatRun, col(ChatRun.user_message_id) == col(Message.id))
        .where(
            ChatRun.conversation_id == conversation_id,
            sa.or_(col(ChatRun.status) == "done", col(ChatRun.assistant_message_id).is_not(None)),
        )
    ).one()
    pending = session.exec(
        select(Message.content)
        .where(
            Message.conversation_id == conversation_id,
            Message.role == "user",
            Message.kind == "text",
            Message.seq > (delivered or 0),
            Message.seq < message.seq,
        )
        .order_by(col(Message.seq))
    ).all()
    return "\n\n".join([*pending, message.content]) if pending else message.content


def _run_and_conversation(session: Session, run_id: str) -> tuple[ChatRun, Conversation]:
    run = session.get(ChatRun, run_id)
    if run is None:
        raise AppError("not_found", f"no chat run {run_id!r}")
    conversation = conversation_row(session=session, conversation_id=run.conversation_id, for_update=True)
    return run, conversation


def record_answer(*, session: Session, run_id: str, text: str) -> bool:
    """Store the answer so far (creating the streaming assistant message on the first part).
    Returns True when someone asked to stop the run."""
    run, conversation = _run_and_conversation(session, run_id)
    if run.assistant_message_id is None:
        conversation.last_seq += 1
        message = Message(
            conversation_id=conversation.id, seq=conversation.last_seq, role="assistant", content=text, streaming=True
        )
        session.add(message)
        session.flush()
        run.assistant_message_id = message.id
    else:
        message = session.get(Message, run.assistant_message_id)  # type: ignore[assignment]
        if message is not None:
            message.content = text
            session.add(message)
    _bump(conversation)
    session.add(run)
    session.add(conversation)
    session.commit()
    return run.stop_requested


def stop_requested(*, session: Session, run_id: str) -> bool:
    run = session.get(ChatRun, run_id)
    return run is None or run.stop_requested


def split_guide_card(text: str) -> tuple[str, dict[str, Any] | None]:
    """(the answer without its guide_card block, the validated card) - or (text, None) when the
    answer has no block or the block is not a valid card (then the answer is shown as written)."""
    match = GUIDE_CARD_BLOCK.search(text)
    if match is None:
        return text, None
    try:
        card = _validated_card(json.loads(match.group("json")))
    except (ValueError, AppError):
        return text, None
    rest = (text[: match.start()] + text[match.end() :]).strip()
    return rest, card


def finish_done(*, session: Session, run_id: str, text: str) -> None:
    """The bot answered: store the final text (a guide card block becomes the form), mark it unread."""
    run, conversation = _run_and_conversation(session, run_id)
    body, card = split_guide_card(text)
    message = session.get(Message, run.assistant_message_id) if run.assistant_message_id else None
    if message is None:
        conversation.last_seq += 1
        message = Message(conversation_id=conversation.id, seq=conversation.last_seq, role="assistant", content="")
        session.add(message)
        session.flush()
        run.assistant_message_id = message.id
    message.streaming = False
    if card is not None:
        message.kind, message.guide_card_json, message.guide_state = "guide_card", card, "pending"
        message.content = body or str(card.get("title") or "Please fill in this form")
    else:
        message.content = text if text.strip() else "(the bot answered with no text)"
    run.status, run.finished_at = "done", utcnow()
    conversation.unread = True
    _bump(conversation, status="idle")
    session.add_all([message, run, conversation])
    session.commit()


def finish_failed(*, session: Session, run_id: str, code: str, error: str, stopped: bool = False) -> None:
    """The run ended without a full answer: keep what arrived, say why."""
    run, conversation = _run_and_conversation(session, run_id)
    message = session.get(Message, run.assistant_message_id) if run.assistant_message_id else None
    if message is not None:  # a part of an answer: say that it is one
        message.streaming = False
        message.content = message.content.rstrip() + (
            "\n\n[stopped before the end]" if stopped else "\n\n[the answer broke off here]"
        )
        session.add(message)
    run.status = "stopped" if stopped else "failed"
    run.error, run.error_code, run.finished_at = error[:MAX_ERROR_CHARS], None if stopped else code, utcnow()
    _bump(conversation, status=run.status, error=run.error)
    session.add_all([run, conversation])
    session.commit()


def fail_stale_runs(*, session: Session, worker: str | None = None) -> int:
    """Fail runs whose worker is gone: any run running for longer than STALE_RUN_AFTER, and (at a
    worker's start) the runs an earlier process of this host left running. Returns how many."""
    now = utcnow()
    query = select(ChatRun).where(ChatRun.status == "running")
    failed = 0
    host = socket.gethostname() + ":"
    for run in session.exec(query).all():
        orphan = (
            worker is not None
            and run.worker is not None
            and run.worker.startswith(host)
            and run.worker != worker
            and not _pid_alive(run.worker[len(host) :])
        )
        if orphan or (run.started_at is not None and now - run.started_at > STALE_RUN_AFTER):
            finish_failed(
                session=session,
                run_id=run.id,
                code="bot_error",
                error="the dashboard restarted (or lost the run) while the bot was answering: retry",
            )
            failed += 1
    return failed


def _pid_alive(pid: str) -> bool:
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- what the bot is answering -----------------------------------------------------------------------


def source_conversation_id(*, session: Session, bot_id: str) -> str | None:
    """The conversation the bot is answering right now through the dashboard, if any."""
    if not is_lookup_key(bot_id):
        return None
    return session.exec(
        select(ChatRun.conversation_id).where(ChatRun.bot_id == bot_id, ChatRun.status == "running")
    ).first()


def published_from(*, session: Session, conversation_id: str) -> list[PublishedGroup]:
    """What the bot published while answering this conversation, per topic (newest topic first)."""
    rows = session.exec(
        select(TopicItem.topic_key, sa.func.count(), sa.func.max(TopicItem.id))
        .where(TopicItem.conversation_id == conversation_id)
        .group_by(TopicItem.topic_key)
        .order_by(sa.func.max(TopicItem.id).desc())
    ).all()
    if not rows:
        return []
    conversation = session.get(Conversation, conversation_id)
    names = dict(
        session.exec(
            select(Topic.topic_key, Topic.name).where(Topic.bot_id == (conversation.bot_id if conversation else ""))
        ).all()
    )
    return [
        PublishedGroup(topic_key=key, topic_name=names.get(key, key), count=count, latest_item_id=latest)
        for key, count, latest in rows
    ]
