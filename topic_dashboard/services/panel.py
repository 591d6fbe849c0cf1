"""What the Topic panel shows around its item list, assembled in one call (one read transaction)."""

from __future__ import annotations

from pydantic import BaseModel
from sqlmodel import Session

from topic_dashboard.services.items import pinned_count, topic_counts
from topic_dashboard.services.topics import get_topic_settings, list_topics
from topic_dashboard.services.versions import panel_signature


class PanelTopic(BaseModel):
    topic_key: str
    name: str
    unread: int
    total: int
    is_active: bool
    is_fallback: bool = False


class PanelSnapshot(BaseModel):
    """The switch, image policy, topic list with unread/total counts, pinned count and change signature.

    Items stay listed under a topic key that no longer exists (its topic was deleted with "keep
    items"): such keys appear after the bot's topics, inactive, named by their key.
    """

    topic_enabled: bool
    allow_remote_images: bool
    pinned_total: int
    topics: list[PanelTopic]
    items_version: int


def panel_snapshot(*, session: Session, bot_id: str, reader: int | None = None) -> PanelSnapshot:
    """As `reader` sees it (unread, totals and pinned count are per person). Raises bot_not_found."""
    settings = get_topic_settings(session=session, bot_id=bot_id)
    counts = topic_counts(session=session, bot_id=bot_id, reader=reader)
    topics = list_topics(session=session, bot_id=bot_id)
    items_version, _ = panel_signature(session=session, bot_id=bot_id)
    known = {topic.topic_key for topic in topics}
    rows = [
        PanelTopic(
            topic_key=topic.topic_key,
            name=topic.name,
            unread=counts.get(topic.topic_key, (0, 0))[0],
            total=counts.get(topic.topic_key, (0, 0))[1],
            is_active=topic.is_active,
            is_fallback=topic.is_default_fallback,
        )
        for topic in topics
    ] + [
        PanelTopic(topic_key=key, name=key, unread=unread, total=total, is_active=False)
        for key, (unread, total) in counts.items()
        if key not in known
    ]
    return PanelSnapshot(
        topic_enabled=settings.topic_enabled,
        allow_remote_images=settings.allow_remote_images,
        pinned_total=pinned_count(session=session, bot_id=bot_id, reader=reader),
        topics=rows,
        items_version=items_version,
    )
