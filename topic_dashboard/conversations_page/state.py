"""The Conversations page's state: a thin adapter over the conversations service."""

from __future__ import annotations

import dataclasses
import json
from typing import Any
from urllib.parse import urlencode

import reflex as rx

from topic_dashboard.auth.guard import SignedInState, admin_only, quiet_when_signed_out
from topic_dashboard.components.address_bar import set_address
from topic_dashboard.components.bot_choice import BotOption, bot_choice
from topic_dashboard.components.last_bot import land_on_bot, remember_bot
from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.services import chat as chat_service
from topic_dashboard.services import conversations as service
from topic_dashboard.services.audit import actor_of

# After the person sends, the conversation shows its end (where their message and the answer are).
STICK_TO_END = "window.__tdStickToEnd && window.__tdStickToEnd('messages')"
# The hidden form field that carries a guide card's message id (field names cannot start with "_").
CARD_ID_FIELD = "_card_message_id"
GUIDE_CARD_TEMPLATE = {
    "title": "Before I start",
    "fields": [
        {"name": "scope", "label": "What should I cover?", "type": "textarea", "required": True},
        {"name": "format", "label": "Format", "type": "select", "options": ["summary", "table", "report"]},
        {"name": "deadline", "label": "Deadline", "type": "text"},
        {"name": "notify", "label": "Notify me when done", "type": "checkbox"},
    ],
    "submit_label": "Start",
}


@dataclasses.dataclass
class ConversationRow:
    id: str = ""
    title: str = ""
    unread: bool = False
    run_status: str = "idle"
    message_count: int = 0
    updated_at: str = ""


@dataclasses.dataclass
class GuideFieldRow:
    name: str = ""
    label: str = ""
    type: str = "text"
    options: list[str] = dataclasses.field(default_factory=list)
    required: bool = False


@dataclasses.dataclass
class MessageRow:
    id: str = ""
    seq: int = 0
    role: str = "user"
    kind: str = "text"
    content: str = ""
    created_at: str = ""
    card_title: str = ""
    card_submit_label: str = ""
    card_fields: list[GuideFieldRow] = dataclasses.field(default_factory=list)
    card_submitted: bool = False
    streaming: bool = False
    added_by: str = ""  # a person who wrote it as the assistant, a tool or the system


@dataclasses.dataclass
class PublishedRow:
    topic_key: str = ""
    topic_name: str = ""
    count: int = 0
    href: str = ""


def message_row(message: service.MessagePublic) -> MessageRow:
    card = message.guide_card or {}
    return MessageRow(
        id=message.message_id,
        seq=message.seq,
        role=message.role,
        kind=message.kind,
        content=message.content,
        created_at=message.created_at or "",
        added_by=message.added_by or "",
        card_title=str(card.get("title", "")),
        card_submit_label=str(card.get("submit_label", "Submit")),
        card_fields=[
            GuideFieldRow(
                name=f["name"],
                label=f["label"],
                type=f.get("type", "text"),
                options=list(f.get("options", [])),
                required=bool(f.get("required")),
            )
            for f in card.get("fields", [])
        ],
        card_submitted=message.guide_state == "submitted",
        streaming=message.streaming,
    )


class ConversationsState(SignedInState):
    bots: list[BotOption] = []
    bot_id: str = ""
    conversations: list[ConversationRow] = []
    conversation_id: str = ""
    messages: list[MessageRow] = []
    draft: str = ""
    draft_role: str = "user"
    new_title: str = ""
    card_open: bool = False
    card_json: str = ""
    card_error: str = ""
    # The open conversation's run: idle | queued | running | failed | stopped, and why it failed.
    run_status: str = "idle"
    run_error: str = ""
    published: list[PublishedRow] = []
    chat_ready: bool = False  # the bot has a chat endpoint
    renaming: bool = False
    rename_value: str = ""
    delete_open: bool = False
    _revision: int = -1
    _list_signature: str = ""

    @rx.var
    def conversation_title(self) -> str:
        return next(
            (c.title or "Untitled conversation" for c in self.conversations if c.id == self.conversation_id), ""
        )

    @rx.event
    async def load_page(self) -> rx.event.EventSpec | None:
        """on_load: the bot the address names, else the one this person last chose (`land_on_bot`)."""
        params = self.router.url.query_parameters
        self.bots, self.bot_id = await land_on_bot(self, params.get("bot", ""))
        self.conversation_id, self.messages = "", []
        if self.bot_id:
            self._load_conversations()
            if params.get("conversation"):
                return self.open_conversation(params["conversation"])
        return None

    def _open_conversation_id(self) -> str:
        """The open conversation, checked to be the selected bot's (a crafted event could name any)."""
        with read_session() as session:
            conversation = service.get_conversation(session=session, conversation_id=self.conversation_id)
        if conversation.bot_id != self.bot_id:
            raise AppError("conversation_not_found", "that conversation belongs to another bot")
        return self.conversation_id

    def _load_conversations(self) -> None:
        with read_session() as session:
            rows = service.list_conversations(session=session, bot_id=self.bot_id)
            self.chat_ready = bool(chat_service.get_chat_endpoint(session=session, bot_id=self.bot_id).chat_url)
        self._list_signature = _signature(rows)
        self.conversations = [
            ConversationRow(
                id=r.conversation_id,
                title=r.title,
                unread=r.unread,
                run_status=r.run_status,
                message_count=r.message_count,
                updated_at=r.updated_at or "",
            )
            for r in rows
        ]

    @rx.event
    async def select_bot(self, bot_id: str) -> rx.event.EventSpec | None:
        """Another bot chosen: its conversations; the address names it, and it is the person's choice from now on."""
        if all(bot.id != bot_id for bot in self.bots):  # created since the page loaded, or no bot at all
            self.bots, chosen = bot_choice(bot_id, reader=self._principal().user_id, fallback=False)
            if chosen != bot_id:
                return rx.toast.error(f"There is no bot {str(bot_id)[:64]!r}")
        self.bot_id, self.conversation_id, self.messages = bot_id, "", []
        self._load_conversations()
        await remember_bot(self, bot_id)
        return set_address("/conversations?" + urlencode({"bot": bot_id}), push=False)

    @rx.event
    def set_new_title(self, value: str) -> None:
        self.new_title = value

    @rx.event
    @admin_only
    def create_conversation(self) -> rx.event.EventSpec | None:
        return self._create_conversation()

    @rx.event
    @admin_only
    def submit_new_conversation(self, form_data: dict[str, Any]) -> rx.event.EventSpec | None:
        """Enter in the title box, or its + button: the form's title is the one typed, whatever the debounce."""
        self.new_title = str(form_data.get("title", self.new_title))
        return self._create_conversation()

    def _create_conversation(self) -> rx.event.EventSpec | None:
        with write_session() as session:
            created = service.create_conversation(
                session=session, bot_id=self.bot_id, title=self.new_title, actor=actor_of(self._principal())
            )
        self.new_title = ""
        self._load_conversations()
        return self.open_conversation(created.conversation_id)

    @rx.event
    def open_conversation(self, conversation_id: str) -> rx.event.EventSpec | None:
        try:
            with write_session() as session:
                conversation = service.get_conversation(session=session, conversation_id=conversation_id)
                if conversation.bot_id != self.bot_id:
                    raise AppError("conversation_not_found", "that conversation belongs to another bot")
                messages = service.list_messages(session=session, conversation_id=conversation_id, limit=1000)
                if conversation.unread and self._is_admin():  # unread is shared: viewers only read
                    service.mark_conversation_read(session=session, conversation_id=conversation_id)
        except AppError as error:
            return rx.toast.error(error.message)
        self.conversation_id = conversation_id
        self.messages = [message_row(m) for m in messages]
        self._show_run(conversation)
        self._load_conversations()
        url = "/conversations?" + urlencode({"bot": self.bot_id, "conversation": conversation_id})
        return rx.call_script(f"window.history.replaceState(null, '', {json.dumps(url)})")

    def _reload_messages(self) -> None:
        """Show the open conversation again; the (admin) person is looking at it, so it is read."""
        with write_session() as session:
            self.messages = [
                message_row(m)
                for m in service.list_messages(session=session, conversation_id=self.conversation_id, limit=1000)
            ]
            conversation = service.get_conversation(session=session, conversation_id=self.conversation_id)
            if self._is_admin() and conversation.unread:
                service.mark_conversation_read(session=session, conversation_id=self.conversation_id)
        self._show_run(conversation)
        self._load_conversations()

    def _show_run(self, conversation: service.ConversationPublic) -> None:
        self._revision = conversation.revision
        self.run_status = conversation.run_status
        self.run_error = conversation.run_error or "" if conversation.run_status in ("failed", "stopped") else ""
        with read_session() as session:
            groups = chat_service.published_from(session=session, conversation_id=conversation.conversation_id)
        self.published = [
            PublishedRow(
                topic_key=g.topic_key,
                topic_name=g.topic_name,
                count=g.count,
                href="/?" + urlencode({"bot": self.bot_id, "view": f"topic:{g.topic_key}", "item": g.latest_item_id}),
            )
            for g in groups
        ]

    @rx.event
    @quiet_when_signed_out
    def poll(self, _tick: str = "") -> None:
        """Every open page polls: the bot's conversation list (one indexed query) and the open
        conversation's revision; what changed is reloaded, so answers stream in within a second."""
        if not self.bot_id:
            return
        with read_session() as session:
            rows = service.list_conversations(session=session, bot_id=self.bot_id)
        if _signature(rows) != self._list_signature:
            self._load_conversations()
        if self.conversation_id:
            current = next((r for r in rows if r.conversation_id == self.conversation_id), None)
            if current is not None and current.revision != self._revision:
                self._reload_messages()

    @rx.event
    def set_draft(self, value: str) -> None:
        self.draft = value

    @rx.event
    def set_draft_role(self, value: str) -> None:
        self.draft_role = value

    @rx.event
    @admin_only
    def send(self) -> rx.event.EventSpec | None:
        """A user message goes to the bot (stored first, then relayed); other roles are only stored."""
        if not self.draft.strip():
            return rx.toast.error("Type a message first")
        actor = actor_of(self._principal())
        try:
            with write_session() as session:
                if self.draft_role == "user":
                    chat_service.send_message(
                        session=session, conversation_id=self._open_conversation_id(), content=self.draft, actor=actor
                    )
                else:
                    service.add_message(
                        session=session,
                        conversation_id=self._open_conversation_id(),
                        role=self.draft_role,
                        content=self.draft,
                        actor=actor,
                    )
        except AppError as error:
            return rx.toast.error(error.message)
        self.draft = ""
        self.draft_role = "user"  # an added record is a one-off; the next message goes to the bot again
        self._reload_messages()
        return rx.call_script(STICK_TO_END)

    @rx.event
    @admin_only
    def stop_run(self) -> rx.event.EventSpec | None:
        with write_session() as session:
            stopped = chat_service.stop(
                session=session, conversation_id=self._open_conversation_id(), actor=actor_of(self._principal())
            )
        self._reload_messages()
        return rx.toast.info("Stopping the bot's answer" if stopped else "Nothing is running")

    @rx.event
    @admin_only
    def retry_run(self) -> rx.event.EventSpec | None:
        try:
            with write_session() as session:
                chat_service.retry(
                    session=session, conversation_id=self._open_conversation_id(), actor=actor_of(self._principal())
                )
        except AppError as error:
            return rx.toast.error(error.message)
        self._reload_messages()
        return rx.toast.info("Sent to the bot again")

    @rx.event
    def start_rename(self) -> None:
        self.rename_value, self.renaming = self.conversation_title, True

    @rx.event
    def set_rename_value(self, value: str) -> None:
        self.rename_value = value

    @rx.event
    def cancel_rename(self) -> None:
        self.renaming = False

    @rx.event
    @admin_only
    def save_rename(self) -> rx.event.EventSpec | None:
        try:
            with write_session() as session:
                service.rename_conversation(
                    session=session,
                    conversation_id=self._open_conversation_id(),
                    title=self.rename_value,
                    actor=actor_of(self._principal()),
                )
        except AppError as error:
            return rx.toast.error(error.message)
        self.renaming = False
        self._load_conversations()
        return None

    @rx.event
    def set_delete_open(self, value: bool) -> None:
        self.delete_open = value

    @rx.event
    @admin_only
    def delete_open_conversation(self) -> rx.event.EventSpec | None:
        self.delete_open = False
        try:
            with write_session() as session:
                removed = service.delete_conversation(
                    session=session, conversation_id=self._open_conversation_id(), actor=actor_of(self._principal())
                )
        except AppError as error:
            return rx.toast.error(error.message)
        self.conversation_id, self.messages, self.published = "", [], []
        self._load_conversations()
        url = "/conversations?" + urlencode({"bot": self.bot_id})
        return [
            rx.call_script(f"window.history.replaceState(null, '', {json.dumps(url)})"),
            rx.toast.success(f"Conversation deleted ({removed} message{'s' if removed != 1 else ''})"),
        ]  # type: ignore[return-value]

    @rx.event
    def open_card_editor(self) -> None:
        self.card_json, self.card_error, self.card_open = json.dumps(GUIDE_CARD_TEMPLATE, indent=2), "", True

    @rx.event
    def set_card_open(self, value: bool) -> None:
        self.card_open = value

    @rx.event
    def set_card_json(self, value: str) -> None:
        self.card_json = value

    @rx.event
    @admin_only
    def add_guide_card(self) -> rx.event.EventSpec | None:
        try:
            card = json.loads(self.card_json)
        except json.JSONDecodeError as exc:
            self.card_error = f"not valid JSON (line {exc.lineno}): {exc.msg}"
            return None
        try:
            with write_session() as session:
                service.add_message(
                    session=session,
                    conversation_id=self._open_conversation_id(),
                    role="assistant",
                    content=str(card.get("title") or "Please fill in this form"),
                    kind="guide_card",
                    guide_card=card,
                    actor=actor_of(self._principal()),
                )
        except AppError as error:
            self.card_error = error.message
            return None
        self.card_open = False
        self._reload_messages()
        return None

    @rx.event
    @admin_only
    def submit_card(self, form: dict[str, str]) -> rx.event.EventSpec:
        message_id = form.get(CARD_ID_FIELD, "")
        card = next((m for m in self.messages if m.id == message_id), None)
        if card is None:
            return rx.toast.error("That card is gone; reload the conversation")
        answers: dict[str, object] = {}
        for field in card.card_fields:
            value = form.get(field.name)
            answers[field.name] = (
                (value not in (None, "", "false", "off")) if field.type == "checkbox" else (value or "")
            )
        try:
            with write_session() as session:
                # The answers become the person's next message, relayed to the bot like any other.
                chat_service.submit_guide_card_to_bot(
                    session=session,
                    conversation_id=self._open_conversation_id(),
                    message_id=message_id,
                    answers=answers,
                    actor=actor_of(self._principal()),
                )
        except AppError as error:
            return rx.toast.error(error.message)
        self._reload_messages()
        return rx.toast.success("Submitted")


def _signature(rows: list[service.ConversationPublic]) -> str:
    """What the list shows, in one string: a change anywhere (new, unread, status, title) differs."""
    return "|".join(f"{r.conversation_id}:{r.revision}:{r.unread}:{r.run_status}:{r.title}" for r in rows)
