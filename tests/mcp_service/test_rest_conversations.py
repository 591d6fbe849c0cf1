"""The conversations REST API over real HTTP: conversations, ordered messages, guide cards and their submission,
error codes and statuses, and who may write (admins) or only read (viewers)."""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import httpx
import pytest
from sqlmodel import Session

from tests.support.server import LiveServer
from topic_dashboard.services.accounts import create_api_token
from topic_dashboard.services.bots import create_bot

GUIDE_CARD = {
    "title": "Deploy request",
    "fields": [
        {"name": "service", "label": "Service", "type": "text", "required": True},
        {"name": "notes", "label": "Notes", "type": "textarea"},
        {"name": "region", "label": "Region", "type": "select", "options": ["eu", "us"]},
        {"name": "urgent", "label": "Urgent", "type": "checkbox"},
        {"name": "replicas", "label": "Replicas", "type": "number"},
    ],
    "submit_label": "Send",
}


@pytest.fixture
def admin(server: LiveServer, server_session: Session) -> Iterator[httpx.Client]:
    token = create_api_token(session=server_session, name="conversations-admin", role="admin")
    with httpx.Client(base_url=server.base_url + "/api", headers={"authorization": f"Bearer {token}"}) as client:
        yield client


@pytest.fixture
def viewer(server: LiveServer, server_session: Session) -> Iterator[httpx.Client]:
    token = create_api_token(session=server_session, name="conversations-viewer", role="viewer")
    with httpx.Client(base_url=server.base_url + "/api", headers={"authorization": f"Bearer {token}"}) as client:
        yield client


@pytest.fixture
def bot_id(server_session: Session) -> str:
    bot, _ = create_bot(session=server_session, name=f"conversations-{secrets.token_hex(3)}")
    return bot.bot_id


def _created(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 201, response.text
    return response.json()


def _refused(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    return error


def _conversation(client: httpx.Client, bot_id: str, **body: Any) -> str:
    return _created(client.post(f"/bots/{bot_id}/conversations", json=body))["conversation_id"]


def _post(client: httpx.Client, conversation_id: str, role: str, content: str, **extra: Any) -> httpx.Response:
    return client.post(f"/conversations/{conversation_id}/messages", json={"role": role, "content": content, **extra})


def _messages(client: httpx.Client, conversation_id: str, **params: Any) -> list[dict[str, Any]]:
    response = client.get(f"/conversations/{conversation_id}/messages", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def _card(client: httpx.Client, conversation_id: str, card: dict[str, Any] | None = None) -> dict[str, Any]:
    return _created(
        _post(
            client, conversation_id, "assistant", "Fill in the form", kind="guide_card", guide_card=card or GUIDE_CARD
        )
    )


def _submit(client: httpx.Client, conversation_id: str, message_id: str, answers: Any) -> httpx.Response:
    return client.post(f"/conversations/{conversation_id}/messages/{message_id}/submit", json={"answers": answers})


# --- conversations --------------------------------------------------------------------------------


def test_create_a_conversation_with_or_without_a_title(admin: httpx.Client, bot_id: str) -> None:
    titled = _conversation(admin, bot_id, title="  Deploy plan  ")
    untitled = _created(admin.post(f"/bots/{bot_id}/conversations"))  # no body at all
    body = admin.get(f"/conversations/{titled}").json()
    assert body["conversation_id"] == titled and body["bot_id"] == bot_id and body["title"] == "Deploy plan"
    assert (body["unread"], body["run_status"], body["message_count"]) == (False, "idle", 0)
    assert datetime.fromisoformat(body["created_at"]).utcoffset() is not None
    assert untitled["title"] == "" and untitled["conversation_id"] != titled
    listed = admin.get(f"/bots/{bot_id}/conversations").json()
    assert {row["conversation_id"] for row in listed} == {titled, untitled["conversation_id"]}


def test_conversation_refusals(admin: httpx.Client, bot_id: str) -> None:
    _refused(admin.post("/bots/nosuchbot/conversations", json={}), 404, "bot_not_found")
    error = _refused(admin.post(f"/bots/{bot_id}/conversations", json={"title": "x" * 201}), 422, "validation_error")
    assert error["field"] == "title"
    unknown = secrets.token_hex(16)
    _refused(admin.get(f"/conversations/{unknown}"), 404, "conversation_not_found")
    _refused(admin.get(f"/conversations/{unknown}/messages"), 404, "conversation_not_found")
    _refused(_post(admin, unknown, "user", "hi"), 404, "conversation_not_found")
    assert admin.get(f"/bots/{bot_id}/conversations").json() == []


# --- messages -------------------------------------------------------------------------------------


def test_messages_keep_their_order_and_move_updated_at(admin: httpx.Client, bot_id: str) -> None:
    conversation_id = _conversation(admin, bot_id)
    stamps = [admin.get(f"/conversations/{conversation_id}").json()["updated_at"]]
    posted = []
    for role in ("system", "user", "assistant", "tool", "user"):
        posted.append(_created(_post(admin, conversation_id, role, f"{role} says {len(posted)}")))
        stamps.append(admin.get(f"/conversations/{conversation_id}").json()["updated_at"])
    times = [datetime.fromisoformat(stamp) for stamp in stamps]
    assert all(earlier < later for earlier, later in itertools.pairwise(times))  # each message moves it on
    messages = _messages(admin, conversation_id)
    assert [message["seq"] for message in messages] == [1, 2, 3, 4, 5]
    assert [message["message_id"] for message in messages] == [message["message_id"] for message in posted]
    assert [message["role"] for message in messages] == ["system", "user", "assistant", "tool", "user"]
    assert all(message["kind"] == "text" and message["guide_card"] is None for message in messages)
    conversation = admin.get(f"/conversations/{conversation_id}").json()
    assert conversation["message_count"] == 5 and conversation["unread"] is True  # the bot answered
    assert [m["seq"] for m in _messages(admin, conversation_id, after_seq=2, limit=2)] == [3, 4]


def test_content_is_stored_exactly(admin: httpx.Client, bot_id: str) -> None:
    conversation_id = _conversation(admin, bot_id)
    text = "  keep my spaces 😀 中文 e\u0301\n"
    assert _created(_post(admin, conversation_id, "user", text))["content"] == text
    assert _messages(admin, conversation_id)[0]["content"] == text


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"role": "admin", "content": "x"}, "role"),
        ({"role": "USER", "content": "x"}, "role"),
        ({"role": "user", "content": "x", "kind": "image"}, "kind"),
        ({"role": "user", "content": "x", "kind": "guide_card", "guide_card": GUIDE_CARD}, "kind"),
        ({"role": "assistant", "content": "x", "guide_card": GUIDE_CARD}, "guide_card"),
        ({"role": "assistant", "content": "x", "kind": "guide_card"}, "guide_card"),
        (
            {"role": "assistant", "content": "x", "kind": "guide_card", "guide_card": {"title": "t", "fields": []}},
            "guide_card.fields",
        ),
        (
            {
                "role": "assistant",
                "content": "x",
                "kind": "guide_card",
                "guide_card": {"fields": [{"name": "a", "label": "A", "type": "date"}]},
            },
            "guide_card.fields[0].type",
        ),
        (
            {
                "role": "assistant",
                "content": "x",
                "kind": "guide_card",
                "guide_card": {"fields": [{"name": "a", "label": "A", "type": "select"}]},
            },
            "guide_card.fields[0].options",
        ),
        (
            {
                "role": "assistant",
                "content": "x",
                "kind": "guide_card",
                "guide_card": {"fields": [{"name": "1a", "label": "A"}]},
            },
            "guide_card.fields[0].name",
        ),
        ({"role": "user"}, "content"),
        ({"content": "x"}, "role"),
    ],
)
def test_invalid_messages_are_422_and_store_nothing(
    admin: httpx.Client,
    bot_id: str,
    body: dict[str, Any],
    field: str,
) -> None:
    conversation_id = _conversation(admin, bot_id)
    error = _refused(admin.post(f"/conversations/{conversation_id}/messages", json=body), 422, "validation_error")
    assert error["field"] == field
    assert _messages(admin, conversation_id) == []
    assert admin.get(f"/conversations/{conversation_id}").json()["message_count"] == 0


# --- guide cards --------------------------------------------------------------------------------------


def test_a_guide_card_is_submitted_once_as_an_ordinary_user_message(admin: httpx.Client, bot_id: str) -> None:
    conversation_id = _conversation(admin, bot_id)
    _created(_post(admin, conversation_id, "user", "deploy please"))
    card = _card(admin, conversation_id)
    assert card["kind"] == "guide_card" and card["guide_state"] == "pending" and card["role"] == "assistant"
    assert card["guide_card"]["fields"][2]["options"] == ["eu", "us"] and card["guide_card"]["submit_label"] == "Send"

    answer = _created(
        _submit(
            admin,
            conversation_id,
            card["message_id"],
            {"service": " billing ", "region": "eu", "urgent": False, "replicas": 3},
        )
    )
    assert (answer["role"], answer["kind"], answer["seq"]) == ("user", "text", 3)
    assert answer["guide_card"] is None and answer["guide_state"] is None
    assert answer["content"] == "Deploy request\nService: billing\nNotes: —\nRegion: eu\nUrgent: no\nReplicas: 3"

    messages = _messages(admin, conversation_id)
    assert [(m["seq"], m["role"], m["kind"]) for m in messages] == [
        (1, "user", "text"),
        (2, "assistant", "guide_card"),
        (3, "user", "text"),
    ]
    assert messages[1]["guide_state"] == "submitted" and messages[2] == answer

    again = _submit(admin, conversation_id, card["message_id"], {"service": "again"})
    _refused(again, 409, "guide_card_already_submitted")
    assert len(_messages(admin, conversation_id)) == 3


def test_submission_refusals(admin: httpx.Client, bot_id: str) -> None:
    conversation_id = _conversation(admin, bot_id)
    text = _created(_post(admin, conversation_id, "assistant", "just text"))
    card = _card(admin, conversation_id)
    other_card = _card(admin, _conversation(admin, bot_id))
    unknown = secrets.token_hex(16)

    _refused(_submit(admin, conversation_id, text["message_id"], {"service": "x"}), 409, "not_a_guide_card")
    _refused(_submit(admin, conversation_id, unknown, {"service": "x"}), 404, "message_not_found")
    _refused(_submit(admin, conversation_id, other_card["message_id"], {"service": "x"}), 404, "message_not_found")
    _refused(_submit(admin, unknown, card["message_id"], {"service": "x"}), 404, "conversation_not_found")
    for answers, field in (
        ({}, "answers.service"),  # required, missing
        ({"service": "   "}, "answers.service"),  # required, blank
        ({"service": "x", "region": "mars"}, "answers.region"),  # not one of the options
        ({"service": "x", "colour": "red"}, "answers.colour"),  # no such field
        ("service=x", "answers"),  # not an object
    ):
        error = _refused(_submit(admin, conversation_id, card["message_id"], answers), 422, "validation_error")
        assert error["field"] == field

    messages = _messages(admin, conversation_id)
    assert len(messages) == 2 and messages[1]["guide_state"] == "pending"  # refusals changed nothing
    _created(_submit(admin, conversation_id, card["message_id"], {"service": "x"}))  # and it still can be submitted


# --- who may do what -----------------------------------------------------------------------------------


def test_viewers_read_but_cannot_write(admin: httpx.Client, viewer: httpx.Client, bot_id: str) -> None:
    conversation_id = _conversation(admin, bot_id)
    card = _card(admin, conversation_id)
    assert viewer.get(f"/conversations/{conversation_id}").status_code == 200
    assert [m["message_id"] for m in _messages(viewer, conversation_id)] == [card["message_id"]]
    assert viewer.get(f"/bots/{bot_id}/conversations").status_code == 200

    _refused(viewer.post(f"/bots/{bot_id}/conversations", json={}), 403, "forbidden")
    _refused(_post(viewer, conversation_id, "user", "hi"), 403, "forbidden")
    _refused(_submit(viewer, conversation_id, card["message_id"], {"service": "x"}), 403, "forbidden")
    assert [m["guide_state"] for m in _messages(admin, conversation_id)] == ["pending"]
    assert len(admin.get(f"/bots/{bot_id}/conversations").json()) == 1


@pytest.mark.parametrize("headers", [{}, {"authorization": "Bearer tdk_wrong"}])
def test_requests_without_a_valid_api_token_are_401(
    server: LiveServer, admin: httpx.Client, bot_id: str, headers: dict[str, str]
) -> None:
    conversation_id = _conversation(admin, bot_id)
    with httpx.Client(base_url=server.base_url + "/api", headers=headers) as anonymous:
        _refused(anonymous.get(f"/conversations/{conversation_id}"), 401, "unauthorized")
        _refused(anonymous.get(f"/conversations/{conversation_id}/messages"), 401, "unauthorized")
        _refused(_post(anonymous, conversation_id, "user", "hi"), 401, "unauthorized")
        _refused(anonymous.post(f"/bots/{bot_id}/conversations", json={}), 401, "unauthorized")
    assert _messages(admin, conversation_id) == []
