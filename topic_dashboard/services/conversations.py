"""Conversations of the dashboard channel: messages in order, guide cards, and the user's inputs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel, Field
from sqlmodel import Session, col, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import Bot, ChatRun, Conversation, Message, iso_utc, utcnow
from topic_dashboard.services.audit import Actor, record
from topic_dashboard.text_policy import INT64_MAX, check_int, check_json, check_line, check_text, is_lookup_key
from topic_dashboard.user_inputs import UserInput, clean_conversation_id, select_user_inputs

ROLES = ("user", "assistant", "tool", "system")
KINDS = ("text", "guide_card")
FIELD_TYPES = ("text", "textarea", "select", "checkbox", "number")
MAX_CONTENT_CHARS = 100_000
MAX_TITLE_CHARS = 200
MAX_OPTIONS = 50
MAX_OPTION_CHARS = 200
MAX_PAGE = 1000


class GuideField(BaseModel):
    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
    label: str = Field(min_length=1, max_length=200)
    type: str = "text"
    options: list[str] = Field(default_factory=list, max_length=MAX_OPTIONS)
    required: bool = False


class GuideCard(BaseModel):
    """The form an assistant asks the user to fill in."""

    title: str = Field(default="", max_length=200)
    fields: list[GuideField] = Field(min_length=1, max_length=30)
    submit_label: str = Field(default="Submit", max_length=50)


class ConversationPublic(BaseModel):
    conversation_id: str
    bot_id: str
    title: str
    unread: bool
    run_status: str
    run_error: str | None = None
    revision: int = 0
    message_count: int
    created_at: str | None
    updated_at: str | None


class MessagePublic(BaseModel):
    message_id: str
    conversation_id: str
    seq: int
    role: str
    content: str
    kind: str
    guide_card: dict[str, Any] | None
    guide_state: str | None
    streaming: bool = False
    created_at: str | None
    added_by: str | None = None  # a person who wrote this assistant, tool or system message: not the bot


def conversation_public(row: Conversation) -> ConversationPublic:
    return ConversationPublic(
        conversation_id=row.id,
        bot_id=row.bot_id,
        title=row.title,
        unread=row.unread,
        run_status=row.run_status,
        run_error=row.run_error,
        revision=row.revision,
        message_count=row.last_seq,
        created_at=iso_utc(row.created_at),
        updated_at=iso_utc(row.updated_at),
    )


def message_public(row: Message) -> MessagePublic:
    return MessagePublic(
        message_id=row.id,
        conversation_id=row.conversation_id,
        seq=row.seq,
        role=row.role,
        content=row.content,
        kind=row.kind,
        guide_card=row.guide_card_json,
        guide_state=row.guide_state,
        streaming=row.streaming,
        created_at=iso_utc(row.created_at),
        added_by=row.added_by,
    )


def create_conversation(
    *, session: Session, bot_id: str, title: str = "", actor: Actor | None = None
) -> ConversationPublic:
    """With `actor`, audited in the same transaction. Raises bot_not_found, validation_error."""
    if not is_lookup_key(bot_id) or session.get(Bot, bot_id) is None:
        raise AppError("bot_not_found", f"no bot with id {bot_id!r}")
    title = check_text(title or "", field="title").strip()
    check_line(title, field="title")
    if len(title) > MAX_TITLE_CHARS:
        raise AppError("validation_error", f"title is longer than {MAX_TITLE_CHARS} characters", field="title")
    row = Conversation(bot_id=bot_id, title=title)
    session.add(row)
    if actor is not None:
        _audit(session, actor, "conversation.create", row, {"title": title})
    session.commit()
    return conversation_public(row)


def _audit(session: Session, actor: Actor, action: str, conversation: Conversation, detail: dict[str, Any]) -> None:
    """The conversation's audit row, in the caller's transaction (what people wrote is never in it)."""
    target = f"conversation:{conversation.id}"
    record(session=session, by=actor, action=action, target=target, bot_id=conversation.bot_id, detail=detail)


def conversation_row(
    *, session: Session, conversation_id: str, bot_id: str | None = None, for_update: bool = False
) -> Conversation:
    """The conversation's row (for the services), when it exists (and belongs to `bot_id` if given).
    Raises conversation_not_found."""
    query = select(Conversation).where(Conversation.id == conversation_id)
    if for_update:
        query = query.with_for_update()
    row = session.exec(query).first() if is_lookup_key(conversation_id) else None
    if row is None or (bot_id is not None and row.bot_id != bot_id):
        raise AppError("conversation_not_found", f"no conversation {conversation_id!r}")
    return row


def get_conversation(*, session: Session, conversation_id: str, bot_id: str | None = None) -> ConversationPublic:
    """The conversation (belonging to `bot_id` if given). Raises conversation_not_found."""
    return conversation_public(conversation_row(session=session, conversation_id=conversation_id, bot_id=bot_id))


def list_conversations(*, session: Session, bot_id: str, limit: int = 100) -> list[ConversationPublic]:
    if not is_lookup_key(bot_id):
        return []
    query = (
        select(Conversation)
        .where(Conversation.bot_id == bot_id)
        .order_by(col(Conversation.updated_at).desc())
        .limit(limit)
    )
    return [conversation_public(row) for row in session.exec(query)]


def add_message(
    *,
    session: Session,
    conversation_id: str,
    role: str,
    content: str,
    kind: str = "text",
    guide_card: Any = None,
    actor: Actor | None = None,
) -> MessagePublic:
    """Append a message with the next sequence number; with `actor`, audited (its role, kind and
    length, not its text) in the same transaction. Raises conversation_not_found, validation_error."""
    if role not in ROLES:
        raise AppError("validation_error", f"role must be one of {', '.join(ROLES)}", field="role")
    if kind not in KINDS:
        raise AppError("validation_error", f"kind must be one of {', '.join(KINDS)}", field="kind")
    if not isinstance(content, str) or len(content) > MAX_CONTENT_CHARS:
        raise AppError(
            "validation_error", f"content must be text of at most {MAX_CONTENT_CHARS} characters", field="content"
        )
    check_text(content, field="content")
    card: dict[str, Any] | None = None
    if kind == "guide_card":
        if role != "assistant":
            raise AppError("validation_error", "only an assistant message can be a guide card", field="kind")
        card = _validated_card(guide_card)
    elif guide_card is not None:
        raise AppError("validation_error", "guide_card belongs to messages of kind guide_card", field="guide_card")
    conversation = conversation_row(session=session, conversation_id=conversation_id, for_update=True)
    if actor is not None:
        detail = {"role": role, "kind": kind, "seq": conversation.last_seq + 1, "chars": len(content)}
        _audit(session, actor, "conversation.add_message", conversation, detail)
    # A person writing as the bot, a tool or the system is marked so (a walkthrough's "assistant" message read as
    # the bot's own answer); the bot's own messages and a person's user messages need no mark.
    added_by = actor.name if actor is not None and actor.kind in ("user", "api_token") and role != "user" else None
    return _append(session, conversation, role=role, content=content, kind=kind, card=card, added_by=added_by)


def _validated_card(guide_card: Any) -> dict[str, Any]:
    from pydantic import ValidationError

    check_json(guide_card, field="guide_card")  # before the model, whose errors would echo a bad key
    try:
        card = GuideCard.model_validate(guide_card)
    except ValidationError as exc:
        first = exc.errors()[0]
        # A JSON path like the other checks below (`guide_card.fields[0].name`), `guide_card` itself when not an object.
        where = "guide_card" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"])
        raise AppError("validation_error", f"{where}: {first['msg']}", field=where) from exc
    for index, field in enumerate(card.fields):
        if field.type not in FIELD_TYPES:
            raise AppError(
                "validation_error",
                f"guide_card.fields[{index}].type must be one of {', '.join(FIELD_TYPES)}",
                field=f"guide_card.fields[{index}].type",
            )
        if field.type == "select" and not field.options:
            raise AppError(
                "validation_error", "a select field needs options", field=f"guide_card.fields[{index}].options"
            )
        check_line(field.label, field=f"guide_card.fields[{index}].label")
        for number, option in enumerate(field.options):
            check_line(option, field=f"guide_card.fields[{index}].options[{number}]", max_chars=MAX_OPTION_CHARS)
    check_line(card.title, field="guide_card.title")
    check_line(card.submit_label, field="guide_card.submit_label")
    return card.model_dump()


def _append(
    session: Session,
    conversation: Conversation,
    *,
    role: str,
    content: str,
    kind: str,
    card: dict[str, Any] | None,
    added_by: str | None = None,
) -> MessagePublic:
    conversation.last_seq += 1
    now = utcnow()
    message = Message(
        conversation_id=conversation.id,
        seq=conversation.last_seq,
        role=role,
        content=content,
        kind=kind,
        guide_card_json=card,
        guide_state="pending" if kind == "guide_card" else None,
        created_at=now,
        added_by=added_by,
    )
    conversation.updated_at = now
    conversation.revision += 1
    if role != "user":
        conversation.unread = True
    session.add(conversation)
    session.add(message)
    session.commit()
    return message_public(message)


def list_messages(
    *, session: Session, conversation_id: str, after_seq: int = 0, limit: int = 200
) -> list[MessagePublic]:
    """Messages in order. Raises conversation_not_found, validation_error (after_seq or limit out of range)."""
    check_int(after_seq, field="after_seq", lo=0, hi=INT64_MAX)
    check_int(limit, field="limit", lo=1, hi=MAX_PAGE)
    conversation_row(session=session, conversation_id=conversation_id)
    query = (
        select(Message)
        .where(Message.conversation_id == conversation_id, Message.seq > after_seq)
        .order_by(col(Message.seq))
        .limit(limit)
    )
    return [message_public(row) for row in session.exec(query)]


def answers_text(card: dict[str, Any], answers: dict[str, Any]) -> str:
    """The readable text of a submitted guide card: one "Label: answer" line per field."""
    lines = []
    for field in card["fields"]:
        value = answers.get(field["name"])
        if field["type"] == "checkbox":
            shown = "yes" if value else "no"
        else:
            shown = "" if value is None else str(value).strip()
        # One "Label: answer" line per field; a multi-line answer continues on indented lines.
        lines.append(f"{field['label']}: " + ("\n  ".join(shown.splitlines()) if shown else "—"))
    title = (card.get("title") or "").strip()
    return "\n".join([title, *lines] if title else lines)


def submit_guide_card(
    *, session: Session, conversation_id: str, message_id: str, answers: Any, actor: Actor | None = None
) -> MessagePublic:
    """Submit a guide card once: adds an ordinary user message with the answers, marks the card submitted.
    With `actor`, audited (the fields answered, not the answers) in the same transaction.

    Raises conversation_not_found, message_not_found, not_a_guide_card, guide_card_already_submitted, validation_error.
    """
    conversation = conversation_row(session=session, conversation_id=conversation_id, for_update=True)
    card_row = (
        session.exec(
            select(Message).where(Message.id == message_id, Message.conversation_id == conversation_id)
        ).first()
        if is_lookup_key(message_id)
        else None
    )
    if card_row is None:
        raise AppError("message_not_found", f"conversation {conversation_id!r} has no message {message_id!r}")
    if card_row.kind != "guide_card" or not card_row.guide_card_json:
        raise AppError("not_a_guide_card", "only a guide card can be submitted")
    if card_row.guide_state == "submitted":
        raise AppError("guide_card_already_submitted", "this guide card was submitted already")
    if not isinstance(answers, dict):
        raise AppError("validation_error", "answers must be an object of field name to value", field="answers")
    check_json(answers, field="answers")  # the answers become the text of a message
    for name, value in answers.items():
        if isinstance(value, (dict, list)):
            raise AppError(
                "validation_error", "an answer is text, a number, true/false or null", field=f"answers.{name}"
            )
    card = card_row.guide_card_json
    names = {field["name"] for field in card["fields"]}
    unknown = sorted(set(answers) - names)
    if unknown:
        raise AppError("validation_error", f"the card has no field {unknown[0]!r}", field=f"answers.{unknown[0]}")
    for field in card["fields"]:
        value = answers.get(field["name"])
        if field["required"] and (value is None or (isinstance(value, str) and not value.strip())):
            raise AppError("validation_error", f"{field['label']} is required", field=f"answers.{field['name']}")
        if field["type"] == "select" and value not in (None, "") and value not in field["options"]:
            raise AppError(
                "validation_error", f"{field['label']}: choose one of the options", field=f"answers.{field['name']}"
            )
    content = answers_text(card, answers)
    if len(content) > MAX_CONTENT_CHARS:
        raise AppError(
            "validation_error", f"the answers are longer than {MAX_CONTENT_CHARS} characters", field="answers"
        )
    card_row.guide_state = "submitted"
    session.add(card_row)
    if actor is not None:
        detail = {"message_id": message_id, "fields": sorted(answers)}
        _audit(session, actor, "conversation.submit_guide_card", conversation, detail)
    return _append(session, conversation, role="user", content=content, kind="text", card=None)


def rename_conversation(
    *, session: Session, conversation_id: str, title: str, actor: Actor | None = None
) -> ConversationPublic:
    """With `actor`, audited in the same transaction. Raises conversation_not_found, validation_error."""
    conversation = conversation_row(session=session, conversation_id=conversation_id, for_update=True)
    title = check_text(title or "", field="title").strip()
    check_line(title, field="title")
    if len(title) > MAX_TITLE_CHARS:
        raise AppError("validation_error", f"title is longer than {MAX_TITLE_CHARS} characters", field="title")
    if actor is not None:
        _audit(
            session,
            actor,
            "conversation.rename",
            conversation,
            {"title": {"before": conversation.title, "after": title}},
        )
    conversation.title = title
    conversation.revision += 1
    conversation.updated_at = utcnow()
    session.add(conversation)
    session.commit()
    return conversation_public(conversation)


def delete_conversation(*, session: Session, conversation_id: str, actor: Actor | None = None) -> int:
    """Delete a conversation with its messages and runs (items it produced stay, unlinked). Refused
    while the bot is answering it. Returns how many messages went. With `actor`, audited in the same
    transaction. Raises conversation_not_found,
    run_in_progress."""
    conversation = conversation_row(session=session, conversation_id=conversation_id, for_update=True)
    active = session.exec(
        select(ChatRun.id).where(
            ChatRun.conversation_id == conversation_id, col(ChatRun.status).in_(("queued", "running"))
        )
    ).first()
    if active is not None:
        raise AppError("run_in_progress", "the bot is answering this conversation: stop the run first")
    count = conversation.last_seq
    if actor is not None:
        _audit(session, actor, "conversation.delete", conversation, {"title": conversation.title, "messages": count})
    session.delete(conversation)
    session.commit()
    return count


def mark_conversation_read(*, session: Session, conversation_id: str) -> None:
    conversation = conversation_row(session=session, conversation_id=conversation_id)
    conversation.unread = False
    session.add(conversation)
    session.commit()


def _user_inputs_newest_first(session: Session, conversation_id: str, batch: int) -> Iterator[UserInput]:
    """The conversation's user text messages, newest first, fetched through the index a batch at a time."""
    before: int | None = None
    while True:
        query = select(Message.id, Message.seq, Message.created_at, Message.content).where(
            Message.conversation_id == conversation_id, Message.role == "user", Message.kind == "text"
        )
        if before is not None:
            query = query.where(Message.seq < before)
        rows = session.exec(query.order_by(col(Message.seq).desc()).limit(batch)).all()
        for message_id, seq, created_at, content in rows:
            before = seq
            yield UserInput(message_id=message_id, created_at=created_at, content=content)
        if len(rows) < batch:
            return


def list_user_inputs(
    *, session: Session, bot_id: str, conversation_id: str, limit: int, max_chars: int
) -> dict[str, Any]:
    """The `ccweb_list_user_inputs` result (docs/DESIGN.md §7.4) for a bot's conversation. Read-only.

    `limit`/`max_chars` must already be clamped. Raises invalid_conversation_id, conversation_not_found.
    """
    cleaned = clean_conversation_id(conversation_id)
    if cleaned is None:
        raise AppError("invalid_conversation_id", "conversationId is not a valid conversation id")
    exists = session.exec(
        select(sa.literal(1)).where(Conversation.id == cleaned, Conversation.bot_id == bot_id)
    ).first()
    if exists is None:
        raise AppError("conversation_not_found", f"no conversation {cleaned!r} for this bot")
    return select_user_inputs(
        _user_inputs_newest_first(session, cleaned, batch=limit + 1),
        conversation_id=cleaned,
        limit=limit,
        max_chars=max_chars,
    )
