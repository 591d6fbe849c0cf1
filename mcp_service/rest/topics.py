"""REST: topics, topic settings and topic items of a bot (docs/DESIGN.md §6.2)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel

from mcp_service.rest.deps import Admin, Reader, ReadSession, WriteSession
from mcp_service.rest.errors import ERROR_RESPONSES
from topic_dashboard.db import write_session
from topic_dashboard.services import items as item_service
from topic_dashboard.services import retention, topics
from topic_dashboard.services import search as search_service
from topic_dashboard.services.audit import actor_of
from topic_dashboard.services.bots import get_bot

router = APIRouter(tags=["topics"], responses=ERROR_RESPONSES)


class TopicDeleted(BaseModel):
    topic_key: str
    items: int
    items_action: str | None


class ReadResult(BaseModel):
    id: int
    is_read: bool


@router.get("/bots/{bot_id}/topics", response_model=list[topics.TopicPublic])
def list_topics(bot_id: str, _: Reader, session: ReadSession) -> list[topics.TopicPublic]:
    return topics.list_topics(session=session, bot_id=bot_id)


@router.post("/bots/{bot_id}/topics", response_model=topics.TopicPublic, status_code=201)
def create_topic(bot_id: str, body: topics.TopicCreate, who: Admin, session: WriteSession) -> topics.TopicPublic:
    return topics.create_topic(session=session, bot_id=bot_id, data=body, actor=actor_of(who))


@router.put("/bots/{bot_id}/topics/{topic_key}", response_model=topics.TopicPublic)
def update_topic(
    bot_id: str, topic_key: str, body: topics.TopicUpdate, who: Admin, session: WriteSession
) -> topics.TopicPublic:
    return topics.update_topic(session=session, bot_id=bot_id, topic_key=topic_key, data=body, actor=actor_of(who))


@router.delete("/bots/{bot_id}/topics/{topic_key}", response_model=TopicDeleted)
def delete_topic(
    bot_id: str,
    topic_key: str,
    who: Admin,
    session: WriteSession,
    items: Literal["move", "delete"] | None = Query(default=None, description="What to do with the topic's items."),
) -> TopicDeleted:
    count = topics.delete_topic(session=session, bot_id=bot_id, topic_key=topic_key, actor=actor_of(who), items=items)
    return TopicDeleted(topic_key=topic_key, items=count, items_action=items if count else None)


@router.post("/bots/{bot_id}/topics/{topic_key}/purge", response_model=retention.PurgeResult)
def purge_topic(
    bot_id: str,
    topic_key: str,
    who: Admin,
    session: ReadSession,
    dry_run: bool = Query(default=False, description="Only count what a purge would delete now."),
) -> retention.PurgeResult:
    """Apply the topic's retention now (what the background sweep does every few minutes): delete
    its items older than `retention_days` or beyond its newest `retention_items`, pinned ones kept,
    in batches of 500 (each its own short transaction). With `dry_run`, only count them."""
    if dry_run:
        return retention.count_purgeable(session=session, bot_id=bot_id, topic_key=topic_key)
    # Batches in write sessions of their own (this request's session stays unused: no lock held).
    return retention.purge_topic(sessions=write_session, bot_id=bot_id, topic_key=topic_key, actor=actor_of(who))


@router.get("/bots/{bot_id}/topic-settings", response_model=topics.TopicSettingsPublic)
def get_settings(bot_id: str, _: Reader, session: ReadSession) -> topics.TopicSettingsPublic:
    return topics.get_topic_settings(session=session, bot_id=bot_id)


@router.put("/bots/{bot_id}/topic-settings", response_model=topics.TopicSettingsPublic)
def put_settings(
    bot_id: str, body: topics.TopicSettingsUpdate, who: Admin, session: WriteSession
) -> topics.TopicSettingsPublic:
    return topics.update_topic_settings(session=session, bot_id=bot_id, update=body, actor=actor_of(who))


def item_filters(
    topic_key: str | None = None, unread_only: bool = False, level: str | None = None, tag: str | None = None
) -> item_service.ItemFilters:
    """The filters the item list and the search share, from the query string."""
    return item_service.ItemFilters(topic_key=topic_key, unread_only=unread_only, level=level, tag=tag)


Filters = Annotated[item_service.ItemFilters, Depends(item_filters)]
Limit = Annotated[int, Query(ge=1, le=item_service.MAX_PAGE)]


@router.get("/bots/{bot_id}/topic-items", response_model=item_service.ItemPage)
def list_items(
    bot_id: str,
    _: Reader,
    session: ReadSession,
    filters: Filters,
    cursor: str | None = None,
    limit: Limit = item_service.DEFAULT_PAGE,
) -> item_service.ItemPage:
    get_bot(session=session, bot_id=bot_id)
    return item_service.list_items(session=session, bot_id=bot_id, filters=filters, cursor=cursor, limit=limit)


@router.get("/bots/{bot_id}/topic-items/search", response_model=search_service.SearchPage)
def search_items(
    bot_id: str,
    _: Reader,
    session: ReadSession,
    q: str,
    filters: Filters,
    cursor: str | None = None,
    limit: Limit = item_service.DEFAULT_PAGE,
) -> search_service.SearchPage:
    """Full text over titles, content and tags (every word must occur; "quoted words" are one),
    best first: every word in the title, then the rest, newest first within each. Each hit carries
    its title and a snippet cut into plain-text parts, the words marked (`hit`). The team's
    reading state, as in the list above."""
    get_bot(session=session, bot_id=bot_id)
    return search_service.search_items(
        session=session, bot_id=bot_id, query=q, filters=filters, cursor=cursor, limit=limit
    )


@router.post("/bots/{bot_id}/topic-items/{item_id}/read", response_model=ReadResult)
def mark_read(bot_id: str, item_id: int, who: Admin, session: WriteSession) -> ReadResult:
    """Marks the item read for everyone (the team's state, which shows through for every person who
    has not changed their own in the panel). An API token is not a person, so REST reads and writes
    the team's state; as the panel's "for everyone" actions, only admins change it."""
    item = item_service.set_item_flags(
        session=session, bot_id=bot_id, item_id=item_id, is_read=True, actor=actor_of(who)
    )
    return ReadResult(id=item.id, is_read=item.is_read)
