"""Search over a bot's items (#15): Chinese and English, short and long terms, every term required,
ranked (a title hit first), highlighted as plain parts, paged, combined with the filters and a
person's reading state, following publishes, edits and deletions. On every backend."""

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from topic_dashboard.errors import AppError
from topic_dashboard.models import TopicItem, User
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.items import ItemFilters, set_item_flags
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.search import highlight, items_in_view, parse_query, search_items, snippet
from topic_dashboard.services.topics import TopicCreate, TopicSettingsUpdate, create_topic, update_topic_settings

ITEMS = [
    ("ci", "Build 42 failed", "3 tests failing in payments-service after the merge", ["nightly"]),
    ("ci", "部署完成", "订单服务已部署到生产环境，耗时 3 分钟", ["发布"]),
    ("ci", "Deploy finished", "orders service deployed to production", ["Release"]),
    ("alerts", "数据库延迟升高", "主库 p99 延迟 850ms，已通知值班", []),
    ("alerts", "CDN outage", "edge nodes in Frankfurt failing health checks; build pipeline unaffected", ["P0"]),
]


def _bot(session: Session) -> tuple[str, dict[str, int]]:
    bot, _ = create_bot(session=session, name="search", write_config=False)
    update_topic_settings(session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=1000))
    for key in ("ci", "alerts"):
        create_topic(session=session, bot_id=bot.bot_id, data=TopicCreate(topic_key=key, name=key.upper()), actor="t")
    ids = {}
    for topic, title, content, tags in ITEMS:
        result = publish_item(
            session=session,
            bot_id=bot.bot_id,
            request=PublishRequest(topic_key=topic, title=title, content=content, tags=tags, message_type="result"),
        )
        ids[title] = result.item_id
    return bot.bot_id, ids


def _titles(session: Session, bot_id: str, query: str, **kwargs: object) -> list[str]:
    page = search_items(session=session, bot_id=bot_id, query=query, **kwargs)  # type: ignore[arg-type]
    return [hit.item.title for hit in page.hits]


def test_search_finds_english_and_chinese_long_and_short_terms_in_titles_content_and_tags(session: Session) -> None:
    bot_id, _ = _bot(session)
    assert _titles(session, bot_id, "payments") == ["Build 42 failed"]
    assert _titles(session, bot_id, "PAYMENTS") == ["Build 42 failed"]  # any case
    assert _titles(session, bot_id, "部署") == ["部署完成"]  # two characters: shorter than a trigram
    assert _titles(session, bot_id, "生产环境") == ["部署完成"]
    assert _titles(session, bot_id, "延迟") == ["数据库延迟升高"]
    assert _titles(session, bot_id, "release") == ["Deploy finished"]  # a tag, any case
    assert _titles(session, bot_id, "发布") == ["部署完成"]  # a Chinese tag
    assert _titles(session, bot_id, "P0") == ["CDN outage"]
    assert _titles(session, bot_id, "nothing-like-this") == []


def test_every_term_must_occur_and_a_title_hit_ranks_first(session: Session) -> None:
    bot_id, _ = _bot(session)
    assert _titles(session, bot_id, "service production") == ["Deploy finished"]
    assert set(_titles(session, bot_id, "service")) == {"Deploy finished", "Build 42 failed"}
    # "build" is in one title and in another item's content: the title hit comes first.
    assert _titles(session, bot_id, "build") == ["Build 42 failed", "CDN outage"]
    assert _titles(session, bot_id, '"health checks"') == ["CDN outage"]
    assert _titles(session, bot_id, '"checks health"') == []


def test_search_combines_with_the_filters_and_a_persons_reading_state(session: Session) -> None:
    bot_id, ids = _bot(session)
    user = User(username="reader", password_hash="x", role="viewer")
    session.add(user)
    session.commit()
    assert user.id is not None
    assert _titles(session, bot_id, "failing", filters=ItemFilters(topic_key="alerts")) == ["CDN outage"]
    assert _titles(session, bot_id, "failing", filters=ItemFilters(level="info", topic_key="ci")) == ["Build 42 failed"]
    set_item_flags(session=session, bot_id=bot_id, item_id=ids["CDN outage"], is_read=True, reader=user.id)
    unread = ItemFilters(unread_only=True)
    assert _titles(session, bot_id, "failing", filters=unread, reader=user.id) == ["Build 42 failed"]
    assert len(_titles(session, bot_id, "failing", filters=unread)) == 2  # someone else: both unread
    set_item_flags(session=session, bot_id=bot_id, item_id=ids["Build 42 failed"], is_archived=True, reader=user.id)
    assert _titles(session, bot_id, "failing", reader=user.id) == ["CDN outage"]
    unread_only = ItemFilters(unread_only=True)
    assert items_in_view(session=session, bot_id=bot_id, filters=unread_only, query="failing", reader=user.id) == []
    assert sorted(
        i.id for i in items_in_view(session=session, bot_id=bot_id, filters=unread_only, query="failing")
    ) == sorted([ids["Build 42 failed"], ids["CDN outage"]])


def test_search_follows_publishes_edits_and_deletions(session: Session) -> None:
    bot_id, ids = _bot(session)
    publish_item(
        session=session,
        bot_id=bot_id,
        request=PublishRequest(topic_key="ci", title="Canary rollout", content="kiwi", message_type="result"),
    )
    assert _titles(session, bot_id, "kiwi") == ["Canary rollout"]
    item = session.get(TopicItem, ids["CDN outage"])
    assert item is not None
    item.content = "resolved: mango"
    session.add(item)
    session.commit()
    assert _titles(session, bot_id, "mango") == ["CDN outage"]
    assert _titles(session, bot_id, "frankfurt") == []
    session.exec(sa.delete(TopicItem).where(TopicItem.id == ids["部署完成"]))  # type: ignore[arg-type]
    session.commit()
    assert _titles(session, bot_id, "部署") == []


def test_search_pages_and_highlights_without_markup(session: Session) -> None:
    bot_id, _ = _bot(session)
    for index in range(7):
        publish_item(
            session=session,
            bot_id=bot_id,
            request=PublishRequest(
                topic_key="ci", title=f"<b>kiwi</b> {index}", content="a <script>kiwi</script>", message_type="result"
            ),
        )
    first = search_items(session=session, bot_id=bot_id, query="kiwi", limit=5)
    assert len(first.hits) == 5 and first.next_cursor
    second = search_items(session=session, bot_id=bot_id, query="kiwi", limit=5, cursor=first.next_cursor)
    assert len(second.hits) == 2 and second.next_cursor is None
    assert not {h.item.id for h in first.hits} & {h.item.id for h in second.hits}
    parts = first.hits[0].title_parts
    assert "".join(p.text for p in parts) == first.hits[0].item.title  # the text as it is, cut into parts
    assert [p.text for p in parts if p.hit] == ["kiwi"]
    assert [p.text for p in highlight("Kiwi and KIWI", ["kiwi"]) if p.hit] == ["Kiwi", "KIWI"]


def test_a_snippet_is_the_contents_words_without_their_markdown(session: Session) -> None:
    """A walkthrough saw a search result's snippet keep **bold**, # headings, [links](url) and backticks."""
    bot_id, _ = _bot(session)
    content = (
        "## Nightly *report*\n\n"
        "- [x] **kiwi** build [passed](https://ci.example/runs/7)\n"
        "- `make test` green\n\n"
        "> nothing else"
    )
    publish_item(
        session=session,
        bot_id=bot_id,
        request=PublishRequest(topic_key="ci", title="Nightly", content=content, message_type="result"),
    )
    [hit] = search_items(session=session, bot_id=bot_id, query="kiwi").hits
    assert "".join(p.text for p in hit.snippet_parts) == "Nightly report kiwi build passed make test green nothing else"
    assert [p.text for p in hit.snippet_parts if p.hit] == ["kiwi"]


def test_a_snippet_deep_in_a_long_item_is_cut_around_the_hit() -> None:
    blocks = [f"**Step {n}** [log](https://ci.example/{n}) ok" for n in range(400)]
    blocks[300] = "**Step 300** the *papaya* service failed"
    text = "\n\n".join(blocks)
    cut = snippet(text, ["papaya"], width=60)
    assert cut.startswith("…") and cut.endswith("…") and "papaya" in cut
    assert not set("*[]()") & set(cut) and "https" not in cut


def test_a_bad_search_is_refused_with_a_field() -> None:
    assert parse_query('  deploy  "health checks" Deploy ') == ["deploy", "health checks"]
    with pytest.raises(AppError) as error:
        parse_query("x" * 201)
    assert error.value.code == "validation_error" and error.value.field == "q"
    with pytest.raises(AppError):
        parse_query("a b c d e f g h i")
    with pytest.raises(AppError) as bad_cursor:
        search_items(session=None, bot_id="b", query="x", cursor="nope")  # type: ignore[arg-type]
    assert bad_cursor.value.code == "invalid_cursor"


def test_the_upgrade_indexes_the_items_already_stored_and_unescapes_their_tags(tmp_path: object) -> None:
    """Items stored before migration 0007 (tags as "\\u53d1\\u5e03") are searchable after it, by tag too."""
    from pathlib import Path

    from topic_dashboard.db import create_db_engine
    from topic_dashboard.migrate import upgrade_database
    from topic_dashboard.services.items import list_items

    url = f"sqlite:///{Path(str(tmp_path)) / 'old.db'}"
    upgrade_database(url, revision="0006")
    engine = create_db_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO bot (id, name, token_hash, token_created_at, created_at, updated_at) "
            "VALUES ('b1', 'old', 'h', '2026-11-01 00:00:00', '2026-11-01 00:00:00', '2026-11-01 00:00:00')"
        )
        conn.exec_driver_sql(
            "INSERT INTO topic_item (bot_id, topic_key, title, content, level, tags_json, source, "
            "is_read, is_pinned, is_archived, created_at) VALUES ('b1', 'inbox', 'Old deploy note', 'kept', "
            "'info', '[\"\\u53d1\\u5e03\", \"Night\"]', 'mcp', 0, 0, 0, '2026-11-01 00:00:00')"
        )
    engine.dispose()
    upgrade_database(url)
    engine = create_db_engine(url)
    try:
        with Session(engine) as session:
            assert [h.item.title for h in search_items(session=session, bot_id="b1", query="deploy").hits] == [
                "Old deploy note"
            ]
            assert [h.item.title for h in search_items(session=session, bot_id="b1", query="发布").hits] == [
                "Old deploy note"
            ]
            tagged = list_items(session=session, bot_id="b1", filters=ItemFilters(tag="night")).items
            assert [item.tags for item in tagged] == [["发布", "Night"]]
    finally:
        engine.dispose()


def test_the_tag_filter_ignores_case_and_suggests_the_tags_in_use(session: Session) -> None:
    from topic_dashboard.services.items import list_items, tag_suggestions

    bot_id, _ = _bot(session)
    assert [i.title for i in list_items(session=session, bot_id=bot_id, filters=ItemFilters(tag="RELEASE")).items] == [
        "Deploy finished"
    ]
    assert [i.title for i in list_items(session=session, bot_id=bot_id, filters=ItemFilters(tag="p0")).items] == [
        "CDN outage"
    ]
    assert tag_suggestions(session=session, bot_id=bot_id, prefix="") == ["nightly", "P0", "Release", "发布"]
    assert tag_suggestions(session=session, bot_id=bot_id, prefix="re") == ["Release"]
    assert tag_suggestions(session=session, bot_id=bot_id, prefix="N") == ["nightly"]


def test_pages_run_through_both_tiers_without_a_gap_or_a_repeat(session: Session) -> None:
    bot_id, _ = _bot(session)
    for index in range(9):
        in_title = index % 3 == 0
        publish_item(
            session=session,
            bot_id=bot_id,
            request=PublishRequest(
                topic_key="ci",
                title=f"melon {index}" if in_title else f"note {index}",
                content="plain" if in_title else "about a melon",
                message_type="result",
            ),
        )
    seen: list[str] = []
    cursor = None
    while True:
        page = search_items(session=session, bot_id=bot_id, query="melon", limit=2, cursor=cursor)
        seen += [hit.item.title for hit in page.hits]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == ["melon 6", "melon 3", "melon 0", "note 8", "note 7", "note 5", "note 4", "note 2", "note 1"]


def test_search_finds_the_words_of_a_view_and_follows_its_updates(session: Session) -> None:
    """A walkthrough searched for "Bauhaus", which stood only in an item's table, and found nothing: a view's
    visible words are searched too (its cells, a card's facts; never its JSON keys or a link's address), the
    snippet shows them, and an update in place that changes the view changes what is found."""
    bot_id, _ = _bot(session)
    table = {"type": "table", "columns": ["Supplier", "Total"], "rows": [["Bauhaus", "€412"], ["Obi", "€88"]]}
    request = PublishRequest(
        topic_key="ci",
        title="Materials ordered",
        content="Paint and tiles for the hall.",
        view=table,
        dedupe_key="materials",
        message_type="result",
    )
    publish_item(session=session, bot_id=bot_id, request=request)
    page = search_items(session=session, bot_id=bot_id, query="bauhaus")
    assert [hit.item.title for hit in page.hits] == ["Materials ordered"]
    assert any(part.hit and part.text.lower() == "bauhaus" for part in page.hits[0].snippet_parts)
    assert _titles(session, bot_id, "rows") == [] and _titles(session, bot_id, "table") == []  # no JSON keys
    assert _titles(session, bot_id, "obi") == ["Materials ordered"]  # a short term too
    updated = {**table, "rows": [["Hornbach", "€412"]]}
    publish_item(
        session=session,
        bot_id=bot_id,
        request=request.model_copy(update={"view": updated, "update": True}),
    )
    assert _titles(session, bot_id, "bauhaus") == []
    assert _titles(session, bot_id, "hornbach") == ["Materials ordered"]
