"""REST: conversations of the dashboard channel, their messages and guide-card submissions."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from mcp_service.rest.deps import Admin, Reader, ReadSession, WriteSession
from mcp_service.rest.errors import ERROR_RESPONSES
from topic_dashboard.services import conversations
from topic_dashboard.services.audit import actor_of
from topic_dashboard.text_policy import INT64_MAX

router = APIRouter(tags=["conversations"], responses=ERROR_RESPONSES)


class ConversationCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a silent no-op

    title: str = ""


class MessageCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a silent no-op

    role: str = Field(description="user, assistant, tool or system")
    content: str
    kind: str = Field(default="text", description="text, or guide_card (assistant only)")
    guide_card: dict[str, Any] | None = Field(
        default=None,
        description="For kind guide_card: {title, fields: [{name, label, type, options, required}], submit_label}",
    )


class GuideCardSubmit(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a silent no-op

    answers: dict[str, Any]


@router.post("/bots/{bot_id}/conversations", response_model=conversations.ConversationPublic, status_code=201)
def create_conversation(
    bot_id: str, who: Admin, session: WriteSession, body: ConversationCreate | None = None
) -> conversations.ConversationPublic:
    return conversations.create_conversation(
        session=session, bot_id=bot_id, title=(body.title if body else ""), actor=actor_of(who)
    )


@router.get("/bots/{bot_id}/conversations", response_model=list[conversations.ConversationPublic])
def list_conversations(bot_id: str, _: Reader, session: ReadSession) -> list[conversations.ConversationPublic]:
    return conversations.list_conversations(session=session, bot_id=bot_id)


@router.get("/conversations/{conversation_id}", response_model=conversations.ConversationPublic)
def get_conversation(conversation_id: str, _: Reader, session: ReadSession) -> conversations.ConversationPublic:
    return conversations.get_conversation(session=session, conversation_id=conversation_id)


@router.get("/conversations/{conversation_id}/messages", response_model=list[conversations.MessagePublic])
def list_messages(
    conversation_id: str,
    _: Reader,
    session: ReadSession,
    after_seq: int = Query(default=0, ge=0, le=INT64_MAX),
    limit: int = Query(default=200, ge=1, le=conversations.MAX_PAGE),
) -> list[conversations.MessagePublic]:
    return conversations.list_messages(
        session=session, conversation_id=conversation_id, after_seq=after_seq, limit=limit
    )


@router.post("/conversations/{conversation_id}/messages", response_model=conversations.MessagePublic, status_code=201)
def add_message(
    conversation_id: str, body: MessageCreate, who: Admin, session: WriteSession
) -> conversations.MessagePublic:
    return conversations.add_message(
        session=session,
        conversation_id=conversation_id,
        role=body.role,
        content=body.content,
        kind=body.kind,
        guide_card=body.guide_card,
        actor=actor_of(who),
    )


@router.post(
    "/conversations/{conversation_id}/messages/{message_id}/submit",
    response_model=conversations.MessagePublic,
    status_code=201,
)
def submit_guide_card(
    conversation_id: str, message_id: str, body: GuideCardSubmit, who: Admin, session: WriteSession
) -> conversations.MessagePublic:
    return conversations.submit_guide_card(
        session=session,
        conversation_id=conversation_id,
        message_id=message_id,
        answers=body.answers,
        actor=actor_of(who),
    )
