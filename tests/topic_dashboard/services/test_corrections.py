"""Moving an item to another topic, teaching the rules with it, and undoing both, on every backend."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session, col, select

from tests.support.topics import CI_CONTENT, CI_RULE
from topic_dashboard.errors import AppError
from topic_dashboard.models import TopicBotSettings, TopicItem, TopicRuleChange
from topic_dashboard.routing import RouteRequest
from topic_dashboard.routing.examples import example_text
from topic_dashboard.routing.rules import MAX_LIST_ITEMS
from topic_dashboard.rule_templates import TEMPLATES
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.corrections import ItemMovePublic, move_item, undo_move
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.routing_service import route_for_bot
from topic_dashboard.services.topics import (
    TopicCreate,
    TopicUpdate,
    create_topic,
    get_topic,
    rule_history,
    update_topic,
)

TITLE = "Build 42 failed"
TEXT = example_text(TITLE, CI_CONTENT)
FLAKY_RULE = {"include_when": ["flaky test reports"], "examples": {"positive": ["an older flaky test report"]}}


def _bot(session: Session) -> str:
    """A bot with `inbox`, `ci` (whose rule matches CI_CONTENT) and `flaky`."""
    bot, _ = create_bot(session=session, name="corrections", write_config=False)
    for key, rule in (("ci", CI_RULE), ("flaky", FLAKY_RULE)):
        create_topic(
            session=session,
            bot_id=bot.bot_id,
            actor="setup",
            data=TopicCreate(topic_key=key, name=key.title(), routing_json=rule),
        )
    return bot.bot_id


def _publish(
    session: Session, bot_id: str, topic_key: str, title: str = TITLE, content: str = CI_CONTENT, level: str = "info"
) -> int:
    request = PublishRequest(topic_key=topic_key, title=title, content=content, level=level)
    return publish_item(session=session, bot_id=bot_id, request=request).item_id


def _rule(session: Session, bot_id: str, topic_key: str) -> dict[str, Any]:
    session.expire_all()
    return dict(get_topic(session=session, bot_id=bot_id, topic_key=topic_key).routing_json)


def _item_topic(session: Session, item_id: int) -> str:
    session.expire_all()
    item = session.get(TopicItem, item_id)
    assert item is not None
    return item.topic_key


def _versions(session: Session, bot_id: str) -> tuple[int, int]:
    session.expire_all()
    row = session.exec(select(TopicBotSettings).where(TopicBotSettings.bot_id == bot_id)).one()
    return row.items_version, row.rules_version


def _route(session: Session, bot_id: str) -> str | None:
    request = RouteRequest(title=TITLE, content=CI_CONTENT, message_type="result")
    return route_for_bot(session=session, bot_id=bot_id, request=request).topic_key


def _move(session: Session, bot_id: str, item_id: int, to: str, *, teach: bool = True) -> ItemMovePublic:
    return move_item(session=session, bot_id=bot_id, item_id=item_id, to_topic_key=to, teach=teach, actor="ann")


def test_a_taught_move_makes_the_item_an_example_of_both_topics_and_the_next_route_follows(session: Session) -> None:
    bot_id = _bot(session)
    item_id = _publish(session, bot_id, "ci")
    ci_before, flaky_before = _rule(session, bot_id, "ci"), _rule(session, bot_id, "flaky")
    items_version, rules_version = _versions(session, bot_id)
    assert _route(session, bot_id) == "ci"

    move = _move(session, bot_id, item_id, "flaky")

    assert (move.from_topic_key, move.to_topic_key, move.taught) == ("ci", "flaky", True)
    assert (move.positive_added, move.negative_added) == (True, True)
    assert _item_topic(session, item_id) == "flaky"
    flaky, ci = _rule(session, bot_id, "flaky"), _rule(session, bot_id, "ci")
    assert flaky["examples"]["positive"] == ["an older flaky test report", TEXT]
    assert ci["examples"]["negative"] == [TEXT]
    assert {k: v for k, v in ci.items() if k != "examples"} == {k: v for k, v in ci_before.items() if k != "examples"}
    assert [(r.topic_key, r.before, r.after) for r in move.rule_revisions] == [
        ("flaky", flaky_before, flaky),
        ("ci", ci_before, ci),
    ]
    # Through the topic service: a history row per topic, by the admin; both versions moved.
    for key in ("flaky", "ci"):
        latest = rule_history(session=session, bot_id=bot_id, topic_key=key, limit=1)[0]
        assert (latest.actor, latest.action) == ("ann", "move")  # the rule's history says what taught it
        assert latest.after is not None and latest.after["routing_json"] == _rule(session, bot_id, key)
    new_items_version, new_rules_version = _versions(session, bot_id)
    assert new_items_version > items_version and new_rules_version > rules_version
    assert _route(session, bot_id) == "flaky"


def test_undo_moves_the_item_back_and_restores_both_rules_exactly(session: Session) -> None:
    bot_id = _bot(session)
    item_id = _publish(session, bot_id, "ci")
    ci_before, flaky_before = _rule(session, bot_id, "ci"), _rule(session, bot_id, "flaky")
    move = _move(session, bot_id, item_id, "flaky")
    items_version, rules_version = _versions(session, bot_id)

    undone = undo_move(session=session, bot_id=bot_id, move=move, actor="ann")

    assert (undone.topic_key, undone.rules_restored, undone.rules_changed_since) == ("ci", True, [])
    assert _item_topic(session, item_id) == "ci"
    assert _rule(session, bot_id, "ci") == ci_before
    assert _rule(session, bot_id, "flaky") == flaky_before
    history = rule_history(session=session, bot_id=bot_id, topic_key="ci")
    assert [(c.actor, c.action) for c in history] == [("ann", "undo move"), ("ann", "move"), ("setup", "create")]
    new_items_version, new_rules_version = _versions(session, bot_id)
    assert new_items_version > items_version and new_rules_version > rules_version
    assert _route(session, bot_id) == "ci"


def test_undo_leaves_rules_someone_changed_since_and_only_moves_the_item_back(session: Session) -> None:
    bot_id = _bot(session)
    item_id = _publish(session, bot_id, "ci")
    move = _move(session, bot_id, item_id, "flaky")
    edited = {**_rule(session, bot_id, "flaky"), "priority": 70}
    update_topic(session=session, bot_id=bot_id, topic_key="flaky", data=TopicUpdate(routing_json=edited), actor="bo")
    ci_taught = _rule(session, bot_id, "ci")
    history = len(rule_history(session=session, bot_id=bot_id))

    undone = undo_move(session=session, bot_id=bot_id, move=move, actor="ann")

    assert (undone.topic_key, undone.rules_restored, undone.rules_changed_since) == ("ci", False, ["flaky"])
    assert _item_topic(session, item_id) == "ci"
    assert _rule(session, bot_id, "flaky") == edited
    assert _rule(session, bot_id, "ci") == ci_taught  # not restored alone: both or neither
    assert len(rule_history(session=session, bot_id=bot_id)) == history


def test_a_move_without_teaching_changes_no_rule(session: Session) -> None:
    bot_id = _bot(session)
    item_id = _publish(session, bot_id, "ci")
    rules = {key: _rule(session, bot_id, key) for key in ("ci", "flaky")}
    items_version, rules_version = _versions(session, bot_id)

    move = _move(session, bot_id, item_id, "flaky", teach=False)

    assert (move.taught, move.positive_added, move.negative_added, move.rule_revisions) == (False, False, False, [])
    assert _item_topic(session, item_id) == "flaky"
    assert {key: _rule(session, bot_id, key) for key in rules} == rules
    assert _versions(session, bot_id) == (items_version + 1, rules_version)  # panels refresh, routing does not
    undone = undo_move(session=session, bot_id=bot_id, move=move, actor="ann")
    assert (undone.topic_key, undone.rules_restored, undone.rules_changed_since) == ("ci", False, [])


def test_an_item_from_the_fallback_teaches_no_negative(session: Session) -> None:
    bot_id = _bot(session)
    item_id = _publish(session, bot_id, "inbox")
    inbox = _rule(session, bot_id, "inbox")
    move = _move(session, bot_id, item_id, "ci")
    assert (move.positive_added, move.negative_added) == (True, False)
    assert [r.topic_key for r in move.rule_revisions] == ["ci"]
    assert _rule(session, bot_id, "inbox") == inbox
    assert _rule(session, bot_id, "ci")["examples"]["positive"] == [TEXT]


def test_examples_are_never_duplicated_and_a_move_back_turns_them_around(session: Session) -> None:
    bot_id = _bot(session)
    # the same title and content at another level: a second item (the very same result would be one item)
    first, twin = _publish(session, bot_id, "ci"), _publish(session, bot_id, "ci", level="warn")
    _move(session, bot_id, first, "flaky")
    again = _move(session, bot_id, twin, "flaky")  # same title and content: nothing left to teach
    assert (again.positive_added, again.negative_added, again.rule_revisions) == (False, False, [])
    assert _rule(session, bot_id, "flaky")["examples"]["positive"].count(TEXT) == 1
    assert _rule(session, bot_id, "ci")["examples"]["negative"] == [TEXT]

    back = _move(session, bot_id, first, "ci")  # the person changed their mind: the latest correction holds
    assert (back.positive_added, back.negative_added) == (True, True)
    assert _rule(session, bot_id, "ci")["examples"] == {"positive": [TEXT], "negative": []}
    flaky = _rule(session, bot_id, "flaky")["examples"]
    assert (flaky["positive"], flaky["negative"]) == (["an older flaky test report"], [TEXT])


def test_a_full_example_list_drops_its_oldest_and_a_long_item_is_trimmed(session: Session) -> None:
    bot_id = _bot(session)
    full = [f"flaky report number {n}" for n in range(MAX_LIST_ITEMS)]
    rule = {**FLAKY_RULE, "examples": {"positive": full}}
    update_topic(session=session, bot_id=bot_id, topic_key="flaky", data=TopicUpdate(routing_json=rule), actor="bo")
    item_id = _publish(session, bot_id, "ci", content="long report " + "x" * 4000)

    _move(session, bot_id, item_id, "flaky")

    positive = _rule(session, bot_id, "flaky")["examples"]["positive"]
    assert len(positive) == MAX_LIST_ITEMS and positive[:-1] == full[1:]
    assert positive[-1] == example_text(TITLE, "long report " + "x" * 4000) and len(positive[-1]) == 2000


@pytest.mark.parametrize(
    ("to", "code"),
    [("ci", "invalid_argument"), ("inactive", "invalid_argument"), ("nothing", "topic_not_found")],
)
def test_a_refused_move_changes_nothing(session: Session, to: str, code: str) -> None:
    bot_id = _bot(session)
    create_topic(
        session=session,
        bot_id=bot_id,
        actor="setup",
        data=TopicCreate(topic_key="inactive", name="Inactive", is_active=False),
    )
    item_id = _publish(session, bot_id, "ci")
    versions, changes = _versions(session, bot_id), len(rule_history(session=session, bot_id=bot_id))
    with pytest.raises(AppError) as info:
        _move(session, bot_id, item_id, to)
    assert info.value.code == code
    assert _item_topic(session, item_id) == "ci"
    assert (_versions(session, bot_id), len(rule_history(session=session, bot_id=bot_id))) == (versions, changes)


def test_another_bots_item_cannot_be_moved(session: Session) -> None:
    bot_id, other_id = _bot(session), _bot(session)
    item_id = _publish(session, other_id, "ci")
    with pytest.raises(AppError) as info:
        _move(session, bot_id, item_id, "flaky")
    assert info.value.code == "item_not_found"
    assert _item_topic(session, item_id) == "ci"


def test_undo_refuses_when_the_item_moved_again_since(session: Session) -> None:
    bot_id = _bot(session)
    item_id = _publish(session, bot_id, "ci")
    move = _move(session, bot_id, item_id, "flaky")
    _move(session, bot_id, item_id, "inbox", teach=False)
    with pytest.raises(AppError) as info:
        undo_move(session=session, bot_id=bot_id, move=move, actor="ann")
    assert info.value.code == "conflict"
    assert _item_topic(session, item_id) == "inbox"
    session.expire_all()
    changes = session.exec(select(TopicRuleChange).where(col(TopicRuleChange.actor) == "ann")).all()
    assert len(changes) == 2  # the move's teaching only


def test_a_bulk_move_moves_the_bots_items_teaches_nothing_and_its_undo_puts_back_what_is_still_there(
    session: Session,
) -> None:
    from topic_dashboard.services.corrections import move_items, undo_moves

    bot_id = _bot(session)
    first, second, third = (_publish(session, bot_id, "inbox", title=f"note {n}") for n in range(3))
    already = _publish(session, bot_id, "flaky", title="already flaky")
    other_bot, _ = create_bot(session=session, name="other", write_config=False)
    foreign = _publish(session, other_bot.bot_id, "inbox", title="not this bot's")
    rules_before = {
        key: get_topic(session=session, bot_id=bot_id, topic_key=key).routing_json for key in ("ci", "flaky")
    }

    moved = move_items(
        session=session, bot_id=bot_id, item_ids=[first, second, third, already, foreign, first], to_topic_key="flaky"
    )
    assert moved.moved == {first: "inbox", second: "inbox", third: "inbox"}
    assert moved.skipped == 2  # already there, and another bot's item
    topics = {row.id: row.topic_key for row in session.exec(select(TopicItem)).all()}
    assert topics[first] == topics[second] == topics[third] == "flaky" and topics[foreign] == "inbox"
    assert {
        key: get_topic(session=session, bot_id=bot_id, topic_key=key).routing_json for key in ("ci", "flaky")
    } == rules_before

    # One of them moves again before the undo: it stays where the person put it.
    move_items(session=session, bot_id=bot_id, item_ids=[third], to_topic_key="ci")
    assert undo_moves(session=session, moves=moved) == (2, 1)
    session.expire_all()
    topics = {row.id: row.topic_key for row in session.exec(select(TopicItem)).all()}
    assert topics[first] == topics[second] == "inbox" and topics[third] == "ci"


def test_a_bulk_move_to_an_inactive_or_unknown_topic_changes_nothing(session: Session) -> None:
    from topic_dashboard.services.corrections import move_items

    bot_id = _bot(session)
    item = _publish(session, bot_id, "inbox", title="stays")
    update_topic(session=session, bot_id=bot_id, topic_key="flaky", actor="t", data=TopicUpdate(is_active=False))
    for target, code in (("flaky", "invalid_argument"), ("nope", "topic_not_found")):
        with pytest.raises(AppError) as raised:
            move_items(session=session, bot_id=bot_id, item_ids=[item], to_topic_key=target)
        assert raised.value.code == code
    session.expire_all()
    assert session.get(TopicItem, item).topic_key == "inbox"  # type: ignore[union-attr]


def test_a_taught_move_to_the_inbox_is_followed_by_the_next_route(session: Session) -> None:
    """A walkthrough (the shipped Builds and 金融市场 templates) moved a cloud bill from 金融市场 to the inbox
    with teaching; the next route of the same text went to Builds, as the fallback topic's examples took no
    part in the choice by meaning."""
    bot, _ = create_bot(session=session, name="walkthrough", write_config=False)
    for key, template in (("builds", "build_results_en"), ("markets_cn", "finance_market_zh")):
        create_topic(
            session=session,
            bot_id=bot.bot_id,
            actor="setup",
            data=TopicCreate(
                topic_key=key, name=TEMPLATES[template]["name"], routing_json=TEMPLATES[template]["routing"]
            ),
        )
    title = "Cloud bill for November"
    content = "AWS spend rose 14% to $48,200 in November, mostly EC2 GPU instances for the nightly benchmark jobs."
    item_id = _publish(session, bot.bot_id, "markets_cn", title=title, content=content)
    move = _move(session, bot.bot_id, item_id, "inbox")
    assert (move.to_topic_key, move.positive_added) == ("inbox", True)
    for request in (RouteRequest(content=content), RouteRequest(title=title, content=content)):
        decision = route_for_bot(session=session, bot_id=bot.bot_id, request=request)
        assert (decision.topic_key, decision.fallback) == ("inbox", False), decision.reason


def test_a_move_to_a_topic_that_does_not_show_the_items_view_is_refused_and_changes_nothing(session: Session) -> None:
    """A walkthrough moved a metric alert to a topic without metric views; the move went through and the bot's
    next update of that alert (same dedupe_key) was refused as invalid_view. Now the move says why not."""
    from topic_dashboard.services.corrections import move_items

    bot_id = _bot(session)
    update_topic(
        session=session,
        bot_id=bot_id,
        topic_key="flaky",
        actor="t",
        data=TopicUpdate(view_schema_json={"allowed_types": ["markdown", "table"]}),
    )
    metric = {"type": "metric", "label": "Disk", "value": 97, "unit": "%"}
    request = PublishRequest(topic_key="ci", title="Disk 97%", content="disk almost full", view=metric)
    gauge = publish_item(session=session, bot_id=bot_id, request=request).item_id
    plain = _publish(session, bot_id, "ci", title="plain note")
    versions, changes = _versions(session, bot_id), len(rule_history(session=session, bot_id=bot_id))

    with pytest.raises(AppError) as one:
        _move(session, bot_id, gauge, "flaky")
    assert (one.value.code, one.value.field) == ("invalid_argument", "to_topic_key")
    assert "Flaky does not show metric views" in one.value.message and "Rules page" in one.value.message
    assert one.value.details["view_types"] == ["metric"]
    with pytest.raises(AppError) as bulk:
        move_items(session=session, bot_id=bot_id, item_ids=[plain, gauge], to_topic_key="flaky")
    assert "untick those items" in bulk.value.message
    assert (_item_topic(session, gauge), _item_topic(session, plain)) == ("ci", "ci")  # neither moved
    assert (_versions(session, bot_id), len(rule_history(session=session, bot_id=bot_id))) == (versions, changes)

    assert _move(session, bot_id, plain, "flaky").to_topic_key == "flaky"  # an item without a view moves
    assert _move(session, bot_id, gauge, "inbox").to_topic_key == "inbox"  # a topic showing all views takes it
    # an item already in the target does not stop a bulk move, whatever its view (it does not move)
    update_topic(
        session=session,
        bot_id=bot_id,
        topic_key="inbox",
        actor="t",
        data=TopicUpdate(view_schema_json={"allowed_types": ["markdown"]}),
    )
    moved = move_items(session=session, bot_id=bot_id, item_ids=[gauge, plain], to_topic_key="inbox")
    assert (moved.moved, moved.skipped) == ({plain: "flaky"}, 1)
