"""REST over real HTTP: a bot's topics, topic settings, topic items (paging with a cursor) and marking read."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlmodel import Session, select

from tests.support.rest import rest_error
from tests.support.server import LiveServer
from topic_dashboard.models import TopicRuleChange
from topic_dashboard.services.accounts import create_api_token
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.items import encode_cursor
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicSettingsUpdate, update_topic_settings

CI_TOPIC = {
    "topic_key": "ci",
    "name": "CI",
    "description": "Build and test results",
    "routing_json": {"purpose": "CI results", "include_when": ["CI build or test results"], "priority": 5},
    "view_schema_json": {"allowed_types": ["table"]},
}


@pytest.fixture
def admin(server: LiveServer, server_session: Session) -> Iterator[httpx.Client]:
    token = create_api_token(session=server_session, name="rest-admin", role="admin")
    with httpx.Client(base_url=server.base_url, headers={"authorization": f"Bearer {token}"}, timeout=30) as client:
        yield client


@pytest.fixture
def bot_id(server_session: Session) -> str:
    bot, _ = create_bot(session=server_session, name="topics")
    # Paging tests publish more than the default per-minute allowance.
    update_topic_settings(
        session=server_session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=1000)
    )
    return bot.bot_id


def _publish(session: Session, bot_id: str, n: int, topic_key: str = "inbox", prefix: str = "item") -> list[int]:
    return [
        publish_item(
            session=session,
            bot_id=bot_id,
            request=PublishRequest(title=f"{prefix} {i}", content=f"{prefix} {i} content", topic_key=topic_key),
        ).item_id
        for i in range(n)
    ]


def _topics(admin: httpx.Client, bot_id: str) -> dict[str, dict[str, Any]]:
    response = admin.get(f"/api/bots/{bot_id}/topics")
    assert response.status_code == 200, response.text
    return {topic["topic_key"]: topic for topic in response.json()}


def _item_ids(admin: httpx.Client, bot_id: str, **params: Any) -> list[int]:
    response = admin.get(f"/api/bots/{bot_id}/topic-items", params={"limit": 200, **params})
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()["items"]]


# --- topics ----------------------------------------------------------------------------------------------


def test_a_new_bot_has_only_the_fallback_topic(admin: httpx.Client, bot_id: str) -> None:
    response = admin.get(f"/api/bots/{bot_id}/topics")
    assert response.status_code == 200
    [inbox] = response.json()
    assert (inbox["topic_key"], inbox["is_default_fallback"], inbox["is_active"]) == ("inbox", True, True)
    assert isinstance(inbox["routing_json"], dict) and isinstance(inbox["view_schema_json"], dict)


def test_create_update_and_list_a_topic(admin: httpx.Client, bot_id: str, server_session: Session) -> None:
    created = admin.post(f"/api/bots/{bot_id}/topics", json=CI_TOPIC)

    assert created.status_code == 201, created.text
    body = created.json()
    assert {k: body[k] for k in ("topic_key", "name", "description", "is_active", "is_default_fallback")} == {
        "topic_key": "ci",
        "name": "CI",
        "description": "Build and test results",
        "is_active": True,
        "is_default_fallback": False,
    }
    assert body["routing_json"]["purpose"] == "CI results"
    assert body["routing_json"]["include_when"] == ["CI build or test results"]
    assert body["routing_json"]["priority"] == 5
    assert body["view_schema_json"] == {"allowed_types": ["table"]}

    updated = admin.put(
        f"/api/bots/{bot_id}/topics/ci",
        json={
            "name": "Continuous integration",
            "is_active": False,
            "topic_key": "ci",
            "is_default_fallback": False,
            "routing_json": {"purpose": "CI", "include_when": ["failing builds"]},
        },
    )

    assert updated.status_code == 200, updated.text
    assert updated.json()["name"] == "Continuous integration" and updated.json()["is_active"] is False
    assert updated.json()["description"] == "Build and test results"  # not sent, not changed
    assert updated.json()["routing_json"]["include_when"] == ["failing builds"]
    assert list(_topics(admin, bot_id)) == ["inbox", "ci"]
    assert _topics(admin, bot_id)["ci"] == updated.json()
    actors = server_session.exec(
        select(TopicRuleChange.actor, TopicRuleChange.action)
        .where(TopicRuleChange.bot_id == bot_id)
        .order_by(TopicRuleChange.id)
    ).all()
    server_session.rollback()
    assert [action for _, action in actors] == ["create", "update"]
    assert {actor for actor, _ in actors} == {"rest-admin"}


def test_the_fallback_topic_may_be_renamed(admin: httpx.Client, bot_id: str) -> None:
    response = admin.put(f"/api/bots/{bot_id}/topics/inbox", json={"name": "Everything else", "is_active": True})
    assert response.status_code == 200, response.text
    assert response.json()["name"] == "Everything else" and response.json()["is_default_fallback"] is True


def test_the_fallback_topic_cannot_be_deactivated_or_deleted(
    admin: httpx.Client, bot_id: str, server_session: Session
) -> None:
    _publish(server_session, bot_id, 1)
    before = _topics(admin, bot_id)

    response = admin.put(f"/api/bots/{bot_id}/topics/inbox", json={"is_active": False})
    rest_error(response, 409, "fallback_protected", "is_active")
    for query in ("", "?items=move", "?items=delete"):
        rest_error(admin.delete(f"/api/bots/{bot_id}/topics/inbox{query}"), 409, "fallback_protected")

    assert _topics(admin, bot_id) == before
    assert len(_item_ids(admin, bot_id)) == 1


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({**CI_TOPIC, "topic_key": "Bad-Key"}, 422, "invalid_topic_key", "topic_key"),
        ({**CI_TOPIC, "topic_key": "1ci"}, 422, "invalid_topic_key", "topic_key"),
        ({**CI_TOPIC, "topic_key": "c" * 65}, 422, "invalid_topic_key", "topic_key"),
        ({**CI_TOPIC, "topic_key": ""}, 422, "invalid_topic_key", "topic_key"),
        ({**CI_TOPIC, "topic_key": "inbox"}, 409, "topic_exists", "topic_key"),
        ({**CI_TOPIC, "name": "  "}, 422, "validation_error", "name"),
        ({**CI_TOPIC, "name": "n" * 101}, 422, "validation_error", "name"),
        ({"topic_key": "ci"}, 422, "validation_error", "name"),
        ({"name": "CI"}, 422, "validation_error", "topic_key"),
        ({**CI_TOPIC, "is_active": "maybe"}, 422, "validation_error", "is_active"),
        ({**CI_TOPIC, "routing_json": ["not", "an", "object"]}, 422, "validation_error", "routing_json"),
        ({**CI_TOPIC, "routing_json": {"bogus": 1}}, 422, "invalid_rule", "bogus"),
        ({**CI_TOPIC, "routing_json": {"include_when": [5]}}, 422, "invalid_rule", "include_when[0]"),
        ({**CI_TOPIC, "routing_json": {"include_when": {"a": 1}}}, 422, "invalid_rule", "include_when"),
        ({**CI_TOPIC, "routing_json": {"examples": {"positive": 5}}}, 422, "invalid_rule", "examples.positive"),
        ({**CI_TOPIC, "routing_json": {"priority": "high"}}, 422, "invalid_rule", "priority"),
        ({**CI_TOPIC, "view_schema_json": "table"}, 422, "validation_error", "view_schema_json"),
        (
            {**CI_TOPIC, "view_schema_json": {"allowed_types": ["hologram"]}},
            422,
            "validation_error",
            "view_schema_json.allowed_types[0]",
        ),
        ({**CI_TOPIC, "view_schema_json": {"colour": "red"}}, 422, "validation_error", "view_schema_json.colour"),
    ],
)
def test_create_refusals_name_the_field_and_store_nothing(
    admin: httpx.Client, bot_id: str, body: dict[str, Any], status: int, code: str, field: str
) -> None:
    rest_error(admin.post(f"/api/bots/{bot_id}/topics", json=body), status, code, field)
    assert list(_topics(admin, bot_id)) == ["inbox"]


def test_a_duplicate_topic_is_409(admin: httpx.Client, bot_id: str) -> None:
    assert admin.post(f"/api/bots/{bot_id}/topics", json=CI_TOPIC).status_code == 201
    response = admin.post(f"/api/bots/{bot_id}/topics", json={**CI_TOPIC, "name": "Other"})
    rest_error(response, 409, "topic_exists", "topic_key")
    assert _topics(admin, bot_id)["ci"]["name"] == "CI"


@pytest.mark.parametrize(
    ("topic_key", "body", "status", "code", "field"),
    [
        ("ci", {"topic_key": "builds"}, 422, "immutable_field", "topic_key"),
        ("ci", {"is_default_fallback": True}, 422, "immutable_field", "is_default_fallback"),
        ("inbox", {"is_default_fallback": False}, 422, "immutable_field", "is_default_fallback"),
        ("inbox", {"topic_key": "other"}, 422, "immutable_field", "topic_key"),
        ("ci", {"name": ""}, 422, "validation_error", "name"),
        ("ci", {"description": "d" * 2001}, 422, "validation_error", "description"),
        ("ci", {"routing_json": {"include_when": [5]}}, 422, "invalid_rule", "include_when[0]"),
        ("ci", {"routing_json": 7}, 422, "validation_error", "routing_json"),
        (
            "ci",
            {"view_schema_json": {"allowed_types": "table"}},
            422,
            "validation_error",
            "view_schema_json.allowed_types",
        ),
        ("nope", {"name": "x"}, 404, "topic_not_found", None),
    ],
)
def test_update_refusals_change_nothing(
    admin: httpx.Client, bot_id: str, topic_key: str, body: dict[str, Any], status: int, code: str, field: str | None
) -> None:
    assert admin.post(f"/api/bots/{bot_id}/topics", json=CI_TOPIC).status_code == 201
    before = _topics(admin, bot_id)
    rest_error(admin.put(f"/api/bots/{bot_id}/topics/{topic_key}", json=body), status, code, field)
    assert _topics(admin, bot_id) == before


def test_delete_an_empty_topic(admin: httpx.Client, bot_id: str) -> None:
    assert admin.post(f"/api/bots/{bot_id}/topics", json=CI_TOPIC).status_code == 201
    response = admin.delete(f"/api/bots/{bot_id}/topics/ci")
    assert response.status_code == 200, response.text
    assert response.json() == {"topic_key": "ci", "items": 0, "items_action": None}
    assert list(_topics(admin, bot_id)) == ["inbox"]
    rest_error(admin.delete(f"/api/bots/{bot_id}/topics/ci"), 404, "topic_not_found")


def test_deleting_a_topic_with_items_needs_to_be_told_what_to_do_with_them(
    admin: httpx.Client, bot_id: str, server_session: Session
) -> None:
    assert admin.post(f"/api/bots/{bot_id}/topics", json=CI_TOPIC).status_code == 201
    ci_items = _publish(server_session, bot_id, 3, "ci")

    error = rest_error(admin.delete(f"/api/bots/{bot_id}/topics/ci"), 409, "conflict", "items")
    assert error["item_count"] == 3
    assert "ci" in _topics(admin, bot_id) and sorted(_item_ids(admin, bot_id, topic_key="ci")) == ci_items
    rest_error(admin.delete(f"/api/bots/{bot_id}/topics/ci?items=archive"), 422, "validation_error", "items")

    response = admin.delete(f"/api/bots/{bot_id}/topics/ci", params={"items": "move"})

    assert response.status_code == 200, response.text
    assert response.json() == {"topic_key": "ci", "items": 3, "items_action": "move"}
    assert list(_topics(admin, bot_id)) == ["inbox"]
    assert sorted(_item_ids(admin, bot_id, topic_key="inbox")) == ci_items


def test_deleting_a_topic_with_items_delete_removes_them(
    admin: httpx.Client, bot_id: str, server_session: Session
) -> None:
    assert admin.post(f"/api/bots/{bot_id}/topics", json=CI_TOPIC).status_code == 201
    _publish(server_session, bot_id, 2, "ci")
    kept = _publish(server_session, bot_id, 1, "inbox")

    response = admin.delete(f"/api/bots/{bot_id}/topics/ci", params={"items": "delete"})

    assert response.status_code == 200, response.text
    assert response.json() == {"topic_key": "ci", "items": 2, "items_action": "delete"}
    assert _item_ids(admin, bot_id) == kept


# --- topic settings ------------------------------------------------------------------------------------------


def test_get_and_put_topic_settings(admin: httpx.Client, bot_id: str) -> None:
    before = admin.get(f"/api/bots/{bot_id}/topic-settings").json()
    assert before["bot_id"] == bot_id and before["topic_enabled"] is True and before["fallback_policy"] == "inbox"

    response = admin.put(
        f"/api/bots/{bot_id}/topic-settings",
        json={"topic_enabled": False, "fallback_policy": "skip", "dedupe_window_seconds": 0},
    )

    assert response.status_code == 200, response.text
    after = response.json()
    assert (after["topic_enabled"], after["fallback_policy"], after["dedupe_window_seconds"]) == (False, "skip", 0)
    assert after["publish_rate_per_minute"] == before["publish_rate_per_minute"]  # not sent, not changed
    assert after["allow_remote_images"] == before["allow_remote_images"]
    assert admin.get(f"/api/bots/{bot_id}/topic-settings").json() == after


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"fallback_policy": "drop"}, "fallback_policy"),
        ({"publish_rate_per_minute": 0}, "publish_rate_per_minute"),
        ({"publish_rate_per_minute": 10_001}, "publish_rate_per_minute"),
        ({"dedupe_window_seconds": -1}, "dedupe_window_seconds"),
        ({"dedupe_window_seconds": 7 * 24 * 3600 + 1}, "dedupe_window_seconds"),
        ({"topic_enabled": "sometimes"}, "topic_enabled"),
        ({"allow_remote_images": [True]}, "allow_remote_images"),
    ],
)
def test_invalid_topic_settings_are_422_and_change_nothing(
    admin: httpx.Client, bot_id: str, body: dict[str, Any], field: str
) -> None:
    before = admin.get(f"/api/bots/{bot_id}/topic-settings").json()
    rest_error(admin.put(f"/api/bots/{bot_id}/topic-settings", json=body), 422, "validation_error", field)
    assert admin.get(f"/api/bots/{bot_id}/topic-settings").json() == before


# --- topic items ------------------------------------------------------------------------------------------


def test_items_come_newest_first_and_filter_by_topic(admin: httpx.Client, bot_id: str, server_session: Session) -> None:
    assert admin.post(f"/api/bots/{bot_id}/topics", json=CI_TOPIC).status_code == 201
    inbox = _publish(server_session, bot_id, 2, "inbox")
    ci = _publish(server_session, bot_id, 2, "ci")

    response = admin.get(f"/api/bots/{bot_id}/topic-items")

    assert response.status_code == 200, response.text
    body = response.json()
    assert [item["id"] for item in body["items"]] == sorted(inbox + ci, reverse=True)
    assert body["next_cursor"] is None
    first = body["items"][0]
    assert (first["bot_id"], first["topic_key"], first["title"], first["is_read"]) == (bot_id, "ci", "item 1", False)
    assert _item_ids(admin, bot_id, topic_key="ci") == sorted(ci, reverse=True)
    assert _item_ids(admin, bot_id, topic_key="inbox") == sorted(inbox, reverse=True)
    assert _item_ids(admin, bot_id, topic_key="nothing_here") == []


def test_paging_is_stable_while_items_are_inserted(admin: httpx.Client, bot_id: str, server_session: Session) -> None:
    original = sorted(_publish(server_session, bot_id, 12), reverse=True)
    seen: list[int] = []
    newer: list[int] = []
    cursor: str | None = None
    pages = 0
    while True:
        params: dict[str, Any] = {"limit": 5, **({"cursor": cursor} if cursor else {})}
        response = admin.get(f"/api/bots/{bot_id}/topic-items", params=params)
        assert response.status_code == 200, response.text
        page = response.json()
        assert len(page["items"]) <= 5
        seen += [item["id"] for item in page["items"]]
        pages += 1
        newer += _publish(server_session, bot_id, 2, prefix=f"inserted after page {pages}")  # between page requests
        cursor = page["next_cursor"]
        if cursor is None:
            break
        assert isinstance(cursor, str) and str(seen[-1]) not in cursor  # opaque, not the bare id

    assert pages == 3
    assert seen == original  # no duplicates, no gaps, newest first
    assert not set(newer) & set(seen)
    assert _item_ids(admin, bot_id)[: len(newer)] == sorted(newer, reverse=True)  # a fresh first page shows them


def test_paging_with_a_topic_filter(admin: httpx.Client, bot_id: str, server_session: Session) -> None:
    assert admin.post(f"/api/bots/{bot_id}/topics", json=CI_TOPIC).status_code == 201
    ci: list[int] = []
    for round_ in range(3):  # interleave so that pages of one topic skip the other's ids
        ci += _publish(server_session, bot_id, 2, "ci", prefix=f"round {round_}")
        _publish(server_session, bot_id, 1, "inbox", prefix=f"round {round_}")
    first = admin.get(f"/api/bots/{bot_id}/topic-items", params={"topic_key": "ci", "limit": 4}).json()
    second = admin.get(
        f"/api/bots/{bot_id}/topic-items", params={"topic_key": "ci", "limit": 4, "cursor": first["next_cursor"]}
    ).json()
    assert [i["id"] for i in first["items"] + second["items"]] == sorted(ci, reverse=True)
    assert second["next_cursor"] is None


def _encoded(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        "not-a-cursor",
        "!!!",
        encode_cursor(5).replace("djE", "djI"),
        _encoded("v1:abc"),
        _encoded("abc"),
        _encoded("v1:-5"),
        _encoded("v1:"),
        _encoded("v2:5"),
        _encoded("v1:9223372036854775808"),
        _encoded("v1:99999999999999999999"),
        _encoded("v1:" + "9" * 5000),
    ],
)
def test_a_cursor_this_api_did_not_give_out_is_400(admin: httpx.Client, bot_id: str, cursor: str) -> None:
    rest_error(admin.get(f"/api/bots/{bot_id}/topic-items", params={"cursor": cursor}), 400, "invalid_cursor", "cursor")


@pytest.mark.parametrize("limit", ["0", "201", "-1", "ten"])
def test_a_limit_out_of_bounds_is_422(admin: httpx.Client, bot_id: str, limit: str) -> None:
    rest_error(admin.get(f"/api/bots/{bot_id}/topic-items", params={"limit": limit}), 422, "validation_error", "limit")


def test_mark_an_item_read(admin: httpx.Client, bot_id: str, server_session: Session) -> None:
    first, second = _publish(server_session, bot_id, 2)

    response = admin.post(f"/api/bots/{bot_id}/topic-items/{first}/read")

    assert response.status_code == 200, response.text
    assert response.json() == {"id": first, "is_read": True}
    items = {item["id"]: item for item in admin.get(f"/api/bots/{bot_id}/topic-items").json()["items"]}
    assert (items[first]["is_read"], items[second]["is_read"]) == (True, False)
    assert _item_ids(admin, bot_id, unread_only="true") == [second]
    assert admin.post(f"/api/bots/{bot_id}/topic-items/{first}/read").json() == {"id": first, "is_read": True}


def test_marking_another_bots_item_or_a_missing_one_is_404(
    admin: httpx.Client, bot_id: str, server_session: Session
) -> None:
    other, _ = create_bot(session=server_session, name="other")
    [foreign] = _publish(server_session, other.bot_id, 1)

    rest_error(admin.post(f"/api/bots/{bot_id}/topic-items/{foreign}/read"), 404, "item_not_found")
    for missing in (999999999, 0, -1, 2**63, 10**20):  # ids past the databases' integers too: 404, not 500
        rest_error(admin.post(f"/api/bots/{bot_id}/topic-items/{missing}/read"), 404, "item_not_found")
    rest_error(admin.post(f"/api/bots/{bot_id}/topic-items/abc/read"), 422, "validation_error", "item_id")
    assert admin.get(f"/api/bots/{other.bot_id}/topic-items").json()["items"][0]["is_read"] is False


def test_search_over_rest_is_ranked_marked_paged_and_refuses_bad_input(
    admin: httpx.Client, bot_id: str, server_session: Session
) -> None:
    update_topic_settings(
        session=server_session, bot_id=bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=600)
    )
    for title, content in (
        ("Deploy done", "orders"),
        ("Note", "after the deploy"),
        ("部署完成", "生产"),
        ("Other", "x"),
    ):
        publish_item(
            session=server_session,
            bot_id=bot_id,
            request=PublishRequest(topic_key="inbox", title=title, content=content, message_type="result"),
        )
    found = admin.get(f"/api/bots/{bot_id}/topic-items/search", params={"q": "DEPLOY", "limit": 1})
    assert found.status_code == 200, found.text
    body = found.json()
    assert [hit["item"]["title"] for hit in body["hits"]] == ["Deploy done"] and body["next_cursor"]
    assert [part for part in body["hits"][0]["title_parts"] if part["hit"]] == [{"text": "Deploy", "hit": True}]
    rest = admin.get(f"/api/bots/{bot_id}/topic-items/search", params={"q": "deploy", "cursor": body["next_cursor"]})
    assert [hit["item"]["title"] for hit in rest.json()["hits"]] == ["Note"]
    chinese = admin.get(f"/api/bots/{bot_id}/topic-items/search", params={"q": "部署"}).json()
    assert [hit["item"]["title"] for hit in chinese["hits"]] == ["部署完成"]
    rest_error(
        admin.get(f"/api/bots/{bot_id}/topic-items/search", params={"q": "x" * 201}), 422, "validation_error", "q"
    )
    rest_error(
        admin.get(f"/api/bots/{bot_id}/topic-items/search", params={"q": "x", "cursor": "bogus"}),
        400,
        "invalid_cursor",
        "cursor",
    )
    rest_error(admin.get("/api/bots/nope/topic-items/search", params={"q": "x"}), 404, "bot_not_found")


def test_retention_is_set_on_the_topic_and_purge_counts_first_then_deletes(
    admin: httpx.Client, bot_id: str, server_session: Session
) -> None:
    assert admin.post(f"/api/bots/{bot_id}/topics", json=CI_TOPIC).status_code == 201
    ids = _publish(server_session, bot_id, 5, "ci")
    changed = admin.put(f"/api/bots/{bot_id}/topics/ci", json={"retention_items": 2})
    assert changed.status_code == 200 and changed.json()["retention_items"] == 2, changed.text
    rest_error(
        admin.put(f"/api/bots/{bot_id}/topics/ci", json={"retention_days": -3}),
        422,
        "validation_error",
        "retention_days",
    )
    listed = {topic["topic_key"]: topic for topic in admin.get(f"/api/bots/{bot_id}/topics").json()}
    assert listed["ci"]["retention_days"] is None and listed["ci"]["retention_items"] == 2  # the refusal stored nothing

    dry = admin.post(f"/api/bots/{bot_id}/topics/ci/purge", params={"dry_run": "true"})
    assert dry.status_code == 200 and dry.json()["items"] == 3 and dry.json()["dry_run"] is True, dry.text
    assert _item_ids(admin, bot_id, topic_key="ci") == sorted(ids, reverse=True)  # a dry run deletes nothing
    done = admin.post(f"/api/bots/{bot_id}/topics/ci/purge")
    assert done.status_code == 200 and done.json()["items"] == 3 and done.json()["dry_run"] is False, done.text
    assert _item_ids(admin, bot_id, topic_key="ci") == sorted(ids, reverse=True)[:2]
    rest_error(admin.post(f"/api/bots/{bot_id}/topics/nope/purge"), 404, "topic_not_found")
