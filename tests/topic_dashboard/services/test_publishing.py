"""publish_item on every backend: what is stored, dedupe window, rate limit, fallback, refusals that store nothing."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from tests.support.topics import BAD_TABLE, CI_CONTENT, CI_RULE, TOO_MANY_TAGS, UNMATCHED_CONTENT, UNSAFE_LINK_CARD
from topic_dashboard.db import write_session
from topic_dashboard.errors import AppError
from topic_dashboard.item_views import LIMITS
from topic_dashboard.models import TopicBotSettings, TopicItem
from topic_dashboard.routing.noise import OVERRULED_BY, classify_item
from topic_dashboard.routing.text import normalize
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.publishing import PublishRequest, PublishResult, publish_item
from topic_dashboard.services.topics import (
    TopicCreate,
    TopicSettingsUpdate,
    TopicUpdate,
    create_topic,
    update_topic,
    update_topic_settings,
)


def _bot(session: Session, name: str = "publisher", **settings: Any) -> str:
    bot, _ = create_bot(session=session, name=name)
    create_topic(
        session=session,
        bot_id=bot.bot_id,
        actor="test",
        data=TopicCreate(topic_key="ci", name="CI", routing_json=CI_RULE),
    )
    if settings:
        update_topic_settings(session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(**settings))
    return bot.bot_id


def _publish(session: Session, bot_id: str, **fields: Any) -> PublishResult:
    request = PublishRequest(**{"title": "CI build #42 failed", "content": CI_CONTENT, "topic_key": "ci", **fields})
    return publish_item(session=session, bot_id=bot_id, request=request, source="mcp")


def _refused(session: Session, bot_id: str, **fields: Any) -> AppError:
    """Publish, expect a refusal, and roll back as write_session does when the call fails."""
    with pytest.raises(AppError) as excinfo:
        _publish(session, bot_id, **fields)
    session.rollback()
    return excinfo.value


def _items(session: Session, bot_id: str) -> list[TopicItem]:
    session.expire_all()
    return list(session.exec(select(TopicItem).where(TopicItem.bot_id == bot_id).order_by(TopicItem.id)))  # type: ignore[arg-type]


def _count_all(session: Session) -> int:
    return session.exec(select(sa.func.count()).select_from(TopicItem)).one()


def _age_items(session: Session, bot_id: str, seconds: int) -> None:
    """Move a bot's items back in time: how the passing of time looks to the database."""
    for item in _items(session, bot_id):
        item.created_at = item.created_at - timedelta(seconds=seconds)
        session.add(item)
    session.commit()


# --- what is stored -----------------------------------------------------------------------------


def test_an_item_is_stored_normalized_in_the_named_topic(session: Session) -> None:
    bot_id = _bot(session)
    result = _publish(
        session,
        bot_id,
        title="  CI build\n #42   failed ",
        level="ERROR",
        tags=["ci", "CI", "release"],
        view={"type": "metric", "label": "failing tests", "value": 3},
        dedupe_key=" ci-42 ",
        message_type="result",
    )
    [item] = _items(session, bot_id)
    assert result == PublishResult(
        item_id=item.id,
        topic_key="ci",
        deduplicated=False,
        fallback=False,
        notes=["title held line breaks; they were joined into one line: put the detail in content"],
    )
    assert (item.topic_key, item.title, item.content, item.level, item.tags_json) == (
        "ci",
        "CI build #42 failed",
        CI_CONTENT,
        "error",
        ["ci", "release"],
    )
    assert item.view_json is not None and item.view_json["type"] == "metric" and item.view_json["value"] == 3
    assert (item.dedupe_key, item.message_type, item.source, item.is_read) == ("ci-42", "result", "mcp", False)


def test_an_unknown_source_is_stored_as_system(session: Session) -> None:
    bot_id = _bot(session)
    request = PublishRequest(topic_key="ci", title="t", content=CI_CONTENT)
    publish_item(session=session, bot_id=bot_id, request=request, source="somewhere")
    assert [item.source for item in _items(session, bot_id)] == ["system"]


# --- dedupe window ------------------------------------------------------------------------------


def test_the_same_dedupe_key_within_the_window_returns_the_first_item(session: Session) -> None:
    bot_id = _bot(session)
    first = _publish(session, bot_id, dedupe_key="ci-42")
    again = _publish(session, bot_id, dedupe_key="ci-42", title="a retry with another title", topic_key="inbox")
    assert not first.deduplicated
    assert again == PublishResult(item_id=first.item_id, topic_key="ci", deduplicated=True)
    assert [item.title for item in _items(session, bot_id)] == ["CI build #42 failed"]


def test_a_dedupe_key_is_stored_again_once_the_window_has_passed(session: Session) -> None:
    bot_id = _bot(session, dedupe_window_seconds=60)
    first = _publish(session, bot_id, dedupe_key="ci-42")
    # Half a window back, then past it: seconds of slack either side for a loaded machine (at 59 s back, a
    # second of CI's load put the first item outside the window).
    _age_items(session, bot_id, 30)
    assert _publish(session, bot_id, dedupe_key="ci-42").deduplicated
    _age_items(session, bot_id, 40)
    later = _publish(session, bot_id, dedupe_key="ci-42")
    assert not later.deduplicated and later.item_id != first.item_id
    assert len(_items(session, bot_id)) == 2


def test_a_zero_dedupe_window_turns_dedupe_off(session: Session) -> None:
    bot_id = _bot(session, dedupe_window_seconds=0)
    results = [_publish(session, bot_id, dedupe_key="ci-42") for _ in range(2)]
    assert [r.deduplicated for r in results] == [False, False]
    assert len({r.item_id for r in results}) == 2


def test_the_same_result_again_without_a_key_within_the_window_is_not_stored_twice(session: Session) -> None:
    """A bot that retries a publish (a timeout, a restart) without a dedupe_key: the reader reads it once."""
    bot_id = _bot(session)
    view = {"type": "metric", "label": "failing tests", "value": 3}
    first = _publish(session, bot_id, tags=["ci"], view=view, level="error")
    again = _publish(session, bot_id, title=" CI build #42  failed ", tags=["ci"], view=dict(view), level="ERROR")
    assert not first.deduplicated
    assert again.deduplicated and (again.item_id, again.topic_key) == (first.item_id, "ci")
    assert again.notes and again.notes[0].startswith(f"identical to item {first.item_id} (same topic")
    assert "dedupe_key" in again.notes[0]
    assert len(_items(session, bot_id)) == 1


@pytest.mark.parametrize(
    "change",
    [
        {"content": CI_CONTENT + " (second run)"},
        {"title": "CI build #43 failed"},
        {"level": "warn"},
        {"tags": ["ci", "flaky"]},
        {"view": {"type": "metric", "label": "failing tests", "value": 4}},
        {"topic_key": "inbox"},
    ],
    ids=["content", "title", "level", "tags", "view", "topic"],
)
def test_a_result_that_differs_in_any_field_a_reader_sees_is_stored(session: Session, change: dict[str, Any]) -> None:
    bot_id = _bot(session)
    first = _publish(session, bot_id, tags=["ci"], view={"type": "metric", "label": "failing tests", "value": 3})
    base = {"tags": ["ci"], "view": {"type": "metric", "label": "failing tests", "value": 3}}
    other = _publish(session, bot_id, **{**base, **change})
    assert not other.deduplicated and other.item_id != first.item_id
    assert len(_items(session, bot_id)) == 2


def test_the_same_result_is_stored_again_once_the_window_has_passed_or_with_no_window(session: Session) -> None:
    bot_id = _bot(session, dedupe_window_seconds=60)
    _publish(session, bot_id)
    _age_items(session, bot_id, 90)  # tomorrow's identical nightly report is news again
    assert not _publish(session, bot_id).deduplicated
    no_window = _bot(session, name="no window", dedupe_window_seconds=0)
    assert [_publish(session, no_window).deduplicated for _ in range(2)] == [False, False]
    assert len(_items(session, bot_id)) == 2 and len(_items(session, no_window)) == 2


def test_the_same_result_from_the_system_or_an_update_is_not_taken_for_a_retry(session: Session) -> None:
    """Only a bot's publish is a retry: the system's own items (alerts about the instance) and updates in place
    keep their own rules."""
    bot_id = _bot(session)
    request = PublishRequest(topic_key="ci", title="t", content=CI_CONTENT)
    ids = {publish_item(session=session, bot_id=bot_id, request=request, source="system").item_id for _ in range(2)}
    assert len(ids) == 2
    first = _publish(session, bot_id, dedupe_key="ci-42")
    updated = _publish(session, bot_id, dedupe_key="ci-42", update=True)
    assert updated.updated and updated.item_id == first.item_id


def test_dedupe_keys_and_blank_keys_do_not_collide(session: Session) -> None:
    bot_id = _bot(session)
    other_bot = _bot(session, name="other")
    results = [
        _publish(session, bot_id, dedupe_key="ci-42"),
        _publish(session, bot_id, dedupe_key="ci-43"),
        _publish(session, other_bot, dedupe_key="ci-42"),  # dedupe is per bot
        _publish(session, bot_id, dedupe_key="   ", title="blank key"),  # blank means no key
        _publish(session, bot_id, dedupe_key="", title="empty key"),
    ]
    assert not any(r.deduplicated for r in results)
    assert len({r.item_id for r in results}) == 5
    assert [item.dedupe_key for item in _items(session, bot_id)] == ["ci-42", "ci-43", None, None]


def test_concurrent_duplicates_store_one_item(session: Session, engine: Engine) -> None:
    bot_id = _bot(session)
    workers = 8
    barrier = threading.Barrier(workers)

    def publish() -> PublishResult:
        barrier.wait()
        with write_session(engine) as own:
            return _publish(own, bot_id, dedupe_key="ci-42-concurrent")

    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(lambda _: publish(), range(workers)))

    [item] = _items(session, bot_id)
    assert {r.item_id for r in results} == {item.id}
    assert sorted(r.deduplicated for r in results) == [False] + [True] * (workers - 1)


# --- rate limit ---------------------------------------------------------------------------------


def test_the_rate_limit_refuses_with_retry_after_and_recovers_when_time_passes(session: Session) -> None:
    bot_id = _bot(session, publish_rate_per_minute=3)
    for n in range(3):
        _publish(session, bot_id, title=f"build {n}")
    error = _refused(session, bot_id, title="build 3")
    assert error.code == "rate_limited"
    assert 1 <= error.details["retry_after_seconds"] <= 60
    assert len(_items(session, bot_id)) == 3

    _age_items(session, bot_id, 61)
    assert not _publish(session, bot_id, title="build 3").deduplicated
    assert len(_items(session, bot_id)) == 4


def test_retry_after_counts_from_the_oldest_item_in_the_window(session: Session) -> None:
    bot_id = _bot(session, publish_rate_per_minute=2)
    _publish(session, bot_id, title="old")
    _age_items(session, bot_id, 45)  # the oldest item leaves the window in about 15 s
    _publish(session, bot_id, title="new")
    error = _refused(session, bot_id, title="refused")
    assert error.code == "rate_limited" and 14 <= error.details["retry_after_seconds"] <= 16


def test_a_duplicate_is_answered_even_while_rate_limited(session: Session) -> None:
    bot_id = _bot(session, publish_rate_per_minute=1)
    first = _publish(session, bot_id, dedupe_key="ci-42")
    assert _refused(session, bot_id, dedupe_key="ci-43").code == "rate_limited"
    assert _publish(session, bot_id, dedupe_key="ci-42") == PublishResult(
        item_id=first.item_id, topic_key="ci", deduplicated=True
    )


def test_the_rate_limit_is_per_bot(session: Session) -> None:
    limited = _bot(session, publish_rate_per_minute=1)
    other = _bot(session, name="other", publish_rate_per_minute=1)
    _publish(session, limited)
    assert _refused(session, limited, title="CI build #43 failed").code == "rate_limited"
    assert not _publish(session, other).deduplicated
    # the very same result again is a retry: answered with the first item, as a dedupe_key's would be
    assert _publish(session, limited).deduplicated


# --- topics and fallback ------------------------------------------------------------------------


@pytest.mark.parametrize("inactive", [False, True], ids=["unknown", "inactive"])
def test_an_unknown_or_inactive_topic_goes_to_the_fallback_under_policy_inbox(session: Session, inactive: bool) -> None:
    """What the rules place nowhere goes to the fallback (the inactive topic is the only one that fits here)."""
    bot_id = _bot(session)
    key = "ci" if inactive else "deploys"
    if inactive:
        update_topic(session=session, bot_id=bot_id, topic_key="ci", data=TopicUpdate(is_active=False), actor="test")
    content = CI_CONTENT if inactive else UNMATCHED_CONTENT
    result = _publish(session, bot_id, topic_key=key, title="Bakery sales", content=content)
    assert (result.topic_key, result.fallback) == ("inbox", True)
    assert result.fallback_reason and key in result.fallback_reason
    assert [item.topic_key for item in _items(session, bot_id)] == ["inbox"]


def test_a_result_sent_to_a_topic_that_does_not_exist_is_placed_by_the_rules(session: Session) -> None:
    """A walkthrough's bot named a key that did not exist and its result went straight to the inbox beside the
    topic it belonged in: the owner's rules place it, as topic_route would, and the bot is told."""
    bot_id = _bot(session)
    result = _publish(session, bot_id, topic_key="deploys")
    assert (result.topic_key, result.fallback, result.fallback_reason) == ("ci", False, None)
    assert result.notes and result.notes[0].startswith("there is no topic 'deploys': the rules placed it in 'ci'")
    assert [item.topic_key for item in _items(session, bot_id)] == ["ci"]
    # a view the placed topic does not take goes to the fallback rather than being refused
    update_topic(
        session=session,
        bot_id=bot_id,
        topic_key="ci",
        data=TopicUpdate(view_schema_json={"allowed_types": ["card"]}),
        actor="t",
    )
    table = {"type": "table", "columns": ["test"], "rows": [["test_login"]]}
    other = _publish(session, bot_id, topic_key="deploys", title="CI build #43 failed", view=table)
    assert (other.topic_key, other.fallback) == ("inbox", True)


@pytest.mark.parametrize("inactive", [False, True], ids=["unknown", "inactive"])
def test_an_unknown_or_inactive_topic_is_refused_under_policy_skip(session: Session, inactive: bool) -> None:
    bot_id = _bot(session, fallback_policy="skip")
    if inactive:
        update_topic(session=session, bot_id=bot_id, topic_key="ci", data=TopicUpdate(is_active=False), actor="test")
    error = _refused(session, bot_id, topic_key="ci" if inactive else "deploys")
    assert error.code == "topic_not_found"
    assert _items(session, bot_id) == []


@pytest.mark.parametrize("key", ["ci\x00", "CI", " ci\n"], ids=["nul", "upper-case", "padded"])
def test_a_malformed_topic_key_is_an_unknown_topic(session: Session, key: str) -> None:
    inbox_bot = _bot(session, name="inbox-policy")
    skip_bot = _bot(session, name="skip-policy", fallback_policy="skip")
    result = _publish(session, inbox_bot, topic_key=key)
    assert (result.topic_key, result.fallback) == ("ci", False)  # a CI result: named, or placed by the rules
    if key.strip() != "ci":
        assert result.notes[0].startswith("there is no topic")
        assert _refused(session, skip_bot, topic_key=key).code == "topic_not_found"
        assert _items(session, skip_bot) == []


def test_without_topic_key_the_rules_pick_a_clearly_matching_topic(session: Session) -> None:
    bot_id = _bot(session)
    result = _publish(session, bot_id, topic_key=None)
    assert (result.topic_key, result.fallback) == ("ci", False)


def test_without_topic_key_unmatched_content_goes_to_the_fallback_under_policy_inbox(session: Session) -> None:
    bot_id = _bot(session)
    result = _publish(session, bot_id, topic_key=None, title="Bakery sales report", content=UNMATCHED_CONTENT)
    assert (result.topic_key, result.fallback) == ("inbox", True) and result.fallback_reason
    assert [item.topic_key for item in _items(session, bot_id)] == ["inbox"]


def test_without_topic_key_what_routing_reads_as_talk_is_filtered_not_refused(session: Session) -> None:
    """A walkthrough's "Thanks, that fixed it!" (no topic_key) came back not_routed, which Insights counts as a
    refusal and the failure rate as a failure: talk kept out is filtered_noise, as with a topic named."""
    bot_id = _bot(session)
    title, content = "Thanks", "Thanks, that fixed it!"
    assert classify_item(normalize(title), normalize(content)) is None  # the model's reading, not a pattern's
    error = _refused(session, bot_id, topic_key=None, title=title, content=content)
    assert (error.code, error.details["noise_kind"]) == ("filtered_noise", "conversation")
    assert "reads as conversation" in error.message
    assert _items(session, bot_id) == []


def test_without_topic_key_a_pattern_verdict_keeps_its_own_kind(session: Session) -> None:
    """With a view the publish path's own pattern check does not run, so routing's verdict is the one refused: a
    greeting is named a greeting (the engine says which kind, not a guess from its reason's words)."""
    bot_id = _bot(session)
    view = {"type": "metric", "label": "open tickets", "value": 0}
    error = _refused(session, bot_id, topic_key=None, title="Hi", content="Good morning!", view=view)
    assert (error.code, error.details["noise_kind"]) == ("filtered_noise", "greeting")
    assert _items(session, bot_id) == []


def test_without_topic_key_unmatched_content_is_not_routed_under_policy_skip(session: Session) -> None:
    bot_id = _bot(session, fallback_policy="skip")
    error = _refused(session, bot_id, topic_key="  ", title="Bakery sales report", content=UNMATCHED_CONTENT)
    assert error.code == "not_routed"
    assert _items(session, bot_id) == []


def test_a_topic_of_another_bot_is_unknown(session: Session) -> None:
    owner = _bot(session, name="owner")
    create_topic(session=session, bot_id=owner, actor="test", data=TopicCreate(topic_key="secrets", name="Secrets"))
    intruder = _bot(session, name="intruder", fallback_policy="skip")
    assert _refused(session, intruder, topic_key="secrets").code == "topic_not_found"
    assert _items(session, owner) == [] and _items(session, intruder) == []


# --- refusals store nothing ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "code", "field"),
    [
        ({"message_type": "progress"}, "filtered_progress", None),
        ({"message_type": "tool_hint"}, "filtered_tool_hint", None),
        ({"message_type": "chat"}, "filtered_chat", None),
        ({"message_type": "thought"}, "invalid_argument", "message_type"),
        ({"title": "   "}, "validation_error", "title"),
        ({"title": "x" * (LIMITS.title_max_chars + 1)}, "validation_error", "title"),
        ({"title": "bell\x07"}, "validation_error", "title"),
        ({"content": "x" * (LIMITS.content_max_chars + 1)}, "validation_error", "content"),
        ({"level": "critical"}, "validation_error", "level"),
        ({"tags": TOO_MANY_TAGS}, "validation_error", "tags"),
        ({"tags": ["ok", "two words"]}, "validation_error", "tags[1]"),
        ({"dedupe_key": "k" * 201}, "validation_error", "dedupe_key"),
        ({"dedupe_key": "ci-42\x00"}, "validation_error", "dedupe_key"),
        ({"view": BAD_TABLE}, "invalid_view", "view.rows[1]"),
        ({"view": UNSAFE_LINK_CARD}, "invalid_view", "view.link.url"),
        ({"view": {"type": "html", "html": "<b>x</b>"}}, "invalid_view", "view.type"),
        ({"content": "x" * (LIMITS.payload_max_bytes + 1)}, "payload_too_large", None),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_refusals_name_the_problem_and_store_nothing(
    session: Session, fields: dict[str, Any], code: str, field: str | None
) -> None:
    bot_id = _bot(session)
    _publish(session, bot_id, title="already there")
    before = _count_all(session)
    error = _refused(session, bot_id, **fields)
    assert (error.code, error.field) == (code, field)
    assert _count_all(session) == before


@pytest.mark.parametrize("content", ["x", "Thanks!", "Still working on it, 3 of 8 done…"])
def test_a_bad_view_is_refused_for_itself_before_routing_judges_the_content(session: Session, content: str) -> None:
    # No topic_key: routing would refuse this content (not_routed); the bad view is the input's own
    # error and is named whatever routing would say.
    bot_id = _bot(session)
    error = _refused(session, bot_id, topic_key=None, title="refused", content=content, view=UNSAFE_LINK_CARD)
    assert (error.code, error.field) == ("invalid_view", "view.link.url")
    assert _items(session, bot_id) == []


def test_a_view_type_the_topic_does_not_allow_is_refused(session: Session) -> None:
    bot_id = _bot(session)
    update_topic(
        session=session,
        bot_id=bot_id,
        topic_key="ci",
        actor="test",
        data=TopicUpdate(view_schema_json={"allowed_types": ["table"]}),
    )
    error = _refused(session, bot_id, view={"type": "metric", "label": "failing", "value": 3})
    assert (error.code, error.field, error.details["allowed_types"]) == ("invalid_view", "view.type", ["table"])
    assert _items(session, bot_id) == []


def test_the_disabled_switch_refuses_everything_and_stores_nothing(session: Session) -> None:
    bot_id = _bot(session, topic_enabled=False)
    assert _refused(session, bot_id).code == "topic_disabled"
    assert _refused(session, bot_id, topic_key=None).code == "topic_disabled"
    assert _items(session, bot_id) == []
    update_topic_settings(session=session, bot_id=bot_id, update=TopicSettingsUpdate(topic_enabled=True))
    assert not _publish(session, bot_id).fallback


def test_an_unknown_bot_is_refused(session: Session) -> None:
    error = _refused(session, "no-such-bot")
    assert error.code == "bot_not_found"
    assert _count_all(session) == 0


# --- concurrency --------------------------------------------------------------------------------


def _concurrently(engine: Engine, workers: int, publish: Any) -> list[PublishResult | AppError]:
    """Run `publish(session, n)` in `workers` threads released together, each in its own write session."""
    barrier = threading.Barrier(workers)

    def run(n: int) -> PublishResult | AppError:
        barrier.wait()
        with write_session(engine) as own:
            try:
                return publish(own, n)
            except AppError as error:
                return error

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(run, range(workers)))


def test_concurrent_publishes_respect_the_rate_limit(session: Session, engine: Engine) -> None:
    bot_id = _bot(session, publish_rate_per_minute=3)
    outcomes = _concurrently(engine, 8, lambda own, n: _publish(own, bot_id, title=f"build {n}"))
    assert sorted(type(o).__name__ for o in outcomes) == ["AppError"] * 5 + ["PublishResult"] * 3
    assert {o.code for o in outcomes if isinstance(o, AppError)} == {"rate_limited"}
    assert len(_items(session, bot_id)) == 3


def test_every_new_item_bumps_the_bots_items_version_even_concurrently(session: Session, engine: Engine) -> None:
    bot_id = _bot(session)

    def items_version() -> int:
        session.expire_all()
        version = session.exec(select(TopicBotSettings.items_version).where(TopicBotSettings.bot_id == bot_id)).one()
        session.commit()
        return version

    before = items_version()
    outcomes = _concurrently(engine, 8, lambda own, n: _publish(own, bot_id, title=f"build {n}"))
    assert all(isinstance(o, PublishResult) for o in outcomes)
    assert items_version() == before + 8
    _publish(session, bot_id, dedupe_key="ci-42")
    _publish(session, bot_id, dedupe_key="ci-42")  # a duplicate stores nothing and changes nothing
    _refused(session, bot_id, level="fatal")
    assert items_version() == before + 9


# --- noise never reaches a topic, even unrouted ------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "content", "noise_kind"),
    [
        ("thanks", "thanks!", "ack"),
        ("收到", "好的，我马上处理", "progress"),
        ("Hi", "Hi there! How can I help you today?", "greeting"),
        ("Question", "Which policy did you mean — the home one or the auto one?", "question"),
        ("tool", 'web_search("fed rate decision")', "tool_hint"),
    ],
)
def test_a_bot_cannot_publish_what_topic_route_would_never_publish(
    session: Session, title: str, content: str, noise_kind: str
) -> None:
    """A walkthrough published "thanks!" straight to a topic (naming it, so nothing routed it): a bot
    that skips topic_route must still not fill topics with acknowledgements."""
    bot_id = _bot(session)
    _publish(session, bot_id, title="already there")
    before = _count_all(session)
    error = _refused(session, bot_id, title=title, content=content)
    assert (error.code, error.details["noise_kind"]) == ("filtered_noise", noise_kind)
    assert "keep it in the chat" in error.message
    assert _count_all(session) == before


@pytest.mark.parametrize(
    "content",
    [
        "查询结果：顺丰单号「SF1402938871」已于 3 月 5 日 14:20 由前台签收。",  # a tool call to the patterns
        "本季度销售目标已完成 112%，超额 ¥36,000。",
        "Received Acme's deposit ($5,000).",  # an acknowledgement to the patterns
        "您希望的 5 月 3 日晚 6 点那桌已经订上了，8 人包间，最低消费 ¥1,500。",  # a greeting to the patterns
        "已收到王总的尾款¥28000。需要我开发票吗？",  # a result, then an offer: a question back to the patterns
        "Digging into the March statement, I found a duplicate $89 charge from Adobe.",  # a lead-in: work to them
    ],
)
def test_a_result_topic_route_publishes_is_not_refused_as_work_or_conversation(session: Session, content: str) -> None:
    """The patterns take these for progress, a tool call or conversation; the stream or the noise model reads
    finished results and topic_route publishes them (tests/topic_dashboard/routing/test_routing_semantic.py,
    OVERRULED), so topic_publish stores them too, named or routed, under a title that adds nothing."""
    bot_id = _bot(session)
    assert classify_item(normalize("Update"), normalize(content)) in OVERRULED_BY
    named = _publish(session, bot_id, title="Update", content=content)
    assert named.topic_key == "ci"
    routed = _publish(session, bot_id, title="Update", content=content, topic_key=None, dedupe_key="routed")
    assert routed.item_id != named.item_id  # routed to a topic or the inbox: stored, not refused
    # work still going that the stream model does not read as a result stays refused
    error = _refused(session, bot_id, title="Update", content="已处理 37/120 条订单，还在跑，预计 10 分钟后全部导完")
    assert (error.code, error.details["noise_kind"]) == ("filtered_noise", "progress")
    # and so does conversation the noise model does not read as a result, titled and typed "result" or not
    # (the noise model is asked about the content alone: a title and the type would release "Got it.")
    for pleasantry in ("收到，已记下。", "Got it.", "Noted ✅"):
        for message_type in (None, "result"):
            error = _refused(session, bot_id, title="Update", content=pleasantry, message_type=message_type)
            assert (error.code, error.details["noise_kind"]) == ("filtered_noise", "ack"), (pleasantry, message_type)
    # a pleasantry that ends in an offer stays refused: what comes before the offer reads as conversation
    error = _refused(session, bot_id, title="Update", content="Happy to help with the trip! Want me to look at hotels?")
    assert error.code == "filtered_noise"


@pytest.mark.parametrize(
    ("fields", "source"),
    [
        ({"title": "Release 2.4 shipped", "content": "Done."}, "mcp"),  # the headline is the result
        (
            {"title": "Failing tests", "content": "ok", "view": {"type": "metric", "label": "failing", "value": 3}},
            "mcp",
        ),
        ({"title": "thanks", "content": "thanks!"}, "manual"),  # a person's own item is theirs to write
    ],
    ids=["headline", "view", "manual"],
)
def test_a_terse_result_with_a_headline_or_a_view_and_a_persons_own_item_are_stored(
    session: Session, fields: dict[str, Any], source: str
) -> None:
    bot_id = _bot(session)
    request = PublishRequest(**{"topic_key": "ci", **fields})
    result = publish_item(session=session, bot_id=bot_id, request=request, source=source)
    assert [item.id for item in _items(session, bot_id)] == [result.item_id]
