"""Every change is audited (docs/DESIGN.md §3.6): each guarded UI event fired from an admin's socket, and
each REST write sent with an admin's API token, that changed stored data left at least one audit row
naming who did it. A handler or route added later is enumerated by itself (the app's State tree, the
app's OpenAPI document), so one that changes data without a row fails here.

What is not shared with others is left out of the comparison: one person's own reading state
(`item_state`, and the bot's change counter it bumps so their other tabs follow) and whether a
conversation is unread (opening it reads it). The audit trail itself, and a token's last use, are left
out as in the other reliability tests.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from typing import Any

import httpx
import sqlalchemy as sa
from reflex.state import BaseState
from sqlmodel import Session, col, select

from mcp_service.rest.refusals import REST_ACTIONS
from tests.reliability.test_token_matrix import _bot_world, _headers, _sample_body, _targets, _url
from tests.reliability.test_ui_events import (  # noqa: F401  (`socket` and `world` are fixtures)
    World,
    _arguments,
    _guarded_handlers,
    _sign_in,
    socket,
    world,
)
from tests.support.server import LiveServer
from tests.support.ui_socket import UiSocket
from topic_dashboard.auth.guard import ADMIN, required_access
from topic_dashboard.conversations_page.state import GUIDE_CARD_TEMPLATE
from topic_dashboard.db import create_db_engine
from topic_dashboard.models import AuditLog
from topic_dashboard.services import accounts
from topic_dashboard.services.audit import ACTIONS, MCP_TOOLS
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.topics import TopicCreate, create_topic

# Not audited yet, each with the reason: the list may only shrink (an entry that is audited now fails
# the test until it is removed).
PENDING_REST: dict[tuple[str, str], str] = {}
PENDING_UI: dict[str, str] = {}  # "State.handler" -> reason
# Handlers that end the world the walk acts on (the bot, the open conversation): fired last.
LAST = ("confirm_delete", "delete_open_conversation", "confirm")
# What a person types and picks before saving, so that the admin handlers after it do write (the walk's
# generic arguments are aimed at rows, not at valid forms): (State, handler, arguments), fired between
# the walk's other handlers and its admin-only ones.
ARMING: tuple[tuple[str, str, Callable[[World, str], dict[str, Any]]], ...] = (
    ("TopicPanelState", "select_bot", lambda w, configured: {"bot_id": w.bot_id}),
    ("TopicPanelState", "open_item", lambda w, configured: {"item_id": w.item_id}),
    ("MoveItemState", "set_move_target", lambda w, configured: {"topic_key": "inbox"}),
    ("MoveItemState", "set_teach", lambda w, configured: {"value": True}),
    ("RulesState", "select_bot", lambda w, configured: {"bot_id": w.bot_id}),
    ("RuleEditorState", "select_topic", lambda w, configured: {"topic_key": "builds"}),
    ("RetentionState", "set_keep_days", lambda w, configured: {"value": "30"}),
    ("RetentionState", "set_keep_items", lambda w, configured: {"value": ""}),
    ("CreateTopicState", "set_new_key", lambda w, configured: {"value": "audit_walk"}),
    ("CreateTopicState", "set_new_name", lambda w, configured: {"value": "Audit walk"}),
    ("DeleteTopicState", "set_delete_items", lambda w, configured: {"value": "move"}),
    ("BotsState", "open_config", lambda w, configured: {"bot_id": configured}),  # a bot with a config.json
    ("BotsState", "set_publish_rate", lambda w, configured: {"value": "61"}),
    ("BotsState", "set_dedupe_window", lambda w, configured: {"value": "600"}),
    ("BotsState", "set_fallback_policy", lambda w, configured: {"value": "inbox"}),
    ("BotsState", "set_chat_url", lambda w, configured: {"value": "http://127.0.0.1:9"}),
    ("BotsState", "set_chat_key_draft", lambda w, configured: {"value": "sk-audit-walk"}),
    ("BotsState", "set_new_name", lambda w, configured: {"value": "made in the audit walk"}),
    ("BotsState", "set_new_config_path", lambda w, configured: {"value": ""}),
    ("ConversationsState", "select_bot", lambda w, configured: {"bot_id": w.bot_id}),
    ("ConversationsState", "open_conversation", lambda w, configured: {"conversation_id": w.conversation_id}),
    ("ConversationsState", "set_draft", lambda w, configured: {"value": "hello from the audit walk"}),
    ("ConversationsState", "set_draft_role", lambda w, configured: {"value": "assistant"}),
    ("ConversationsState", "set_rename_value", lambda w, configured: {"value": "renamed in the audit walk"}),
    ("ConversationsState", "set_card_json", lambda w, configured: {"value": json.dumps(GUIDE_CARD_TEMPLATE)}),
    ("AccountsState", "set_new_username", lambda w, configured: {"value": f"walk-{w.marker[-8:]}"}),
    ("AccountsState", "set_new_token_name", lambda w, configured: {"value": f"walk-{w.marker[-8:]}"}),
)
# Branches the walk's generic arguments do not take, fired before the handlers that end the world.
EXTRA_STEPS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("BotsState", "ask", {"action": "rotate"}),
    ("BotsState", "confirm", {}),
)
SHARED_ONLY = {
    "skip": ("item_state",),
    "skip_columns": (("topic_bot_settings", "items_version"), ("conversation", "unread")),
}


def _last_audit_id(engine: sa.Engine) -> int:
    with Session(engine) as session:
        return int(session.exec(select(sa.func.max(AuditLog.id))).one() or 0)


def _rows_since(engine: sa.Engine, after_id: int) -> list[AuditLog]:
    with Session(engine) as session:
        return list(session.exec(select(AuditLog).where(col(AuditLog.id) > after_id).order_by(col(AuditLog.id))))


def _order(handler: tuple[type[BaseState], str, Any]) -> tuple[bool, int, str, str]:
    cls, name, fn = handler
    last = LAST.index(name) + 1 if name in LAST else 0
    return (required_access(cls, fn) == ADMIN, last, cls.__name__, name)


def test_every_ui_event_that_changes_shared_data_is_audited_naming_the_admin(
    server: LiveServer,
    server_session: Session,
    world: World,  # noqa: F811
    socket: UiSocket,  # noqa: F811
    db_digest: Callable[..., str],
) -> None:
    admin = accounts.resolve_login(session=server_session, token=world.admin_token)
    server_session.commit()
    _sign_in(socket, world.admin_token)
    engine = create_db_engine(server.database_url)
    handlers = sorted(_guarded_handlers(), key=_order)
    by_name = {(cls.__name__, name): (cls, name, fn) for cls, name, fn in handlers}
    admin_only = [(cls, name, fn) for cls, name, fn in handlers if required_access(cls, fn) == ADMIN]
    steps: list[tuple[type[BaseState], str, dict[str, Any]]] = [
        (cls, name, _arguments(cls, name, fn, world)) for cls, name, fn in handlers if (cls, name, fn) not in admin_only
    ]
    configured, _ = create_bot(session=server_session, name=f"configured-{world.marker}")
    steps += [
        (by_name[(state, name)][0], name, arguments(world, configured.bot_id)) for state, name, arguments in ARMING
    ]
    steps += [(cls, name, _arguments(cls, name, fn, world)) for cls, name, fn in admin_only if name not in LAST]
    for state, name, extra in EXTRA_STEPS:
        cls, _, fn = by_name[(state, name)]
        steps.append((cls, name, {**_arguments(cls, name, fn, world), **extra}))
    steps += [(cls, name, _arguments(cls, name, fn, world)) for cls, name, fn in admin_only if name in LAST]
    changed: list[str] = []
    unaudited: list[str] = []
    audited: set[str] = set()
    try:
        for cls, name, arguments in steps:
            label = f"{cls.__name__}.{name}"
            before, last_id = db_digest(**SHARED_ONLY), _last_audit_id(engine)
            socket.send(f"{cls.get_full_name()}.{name}", arguments, path="/")
            socket.sync()
            rows = _rows_since(engine, last_id)
            if db_digest(**SHARED_ONLY) == before:
                continue
            changed.append(label)
            if any(row.actor_kind == "user" and row.actor == admin.name for row in rows):
                audited.add(label)
                assert {row.tool for row in rows} <= {*ACTIONS, *MCP_TOOLS}, f"{label} wrote an unlisted action"
            elif label not in PENDING_UI:
                unaudited.append(label)
    finally:
        engine.dispose()
    print(f"\naudit coverage, UI: {len(steps)} events, {len(changed)} changed shared data: {changed}")
    assert not unaudited, f"changed shared data without an audit row naming {admin.name}: {unaudited}"
    assert not audited & set(PENDING_UI), f"audited now, remove from PENDING_UI: {audited & set(PENDING_UI)}"
    # Positive control: the walk does reach the data (bots, topics, items, conversations, settings).
    assert len(changed) >= 20, changed


def test_every_rest_write_that_changes_data_is_audited_naming_the_token(
    server: LiveServer, server_session: Session, db_digest: Callable[..., str]
) -> None:
    document = httpx.get(server.base_url + "/api/openapi.json", timeout=30).json()
    writes = sorted(
        (method.upper(), path) for path, ops in document["paths"].items() for method in ops if method != "get"
    )
    assert len(writes) >= 14
    unnamed = [op for op in writes if op not in REST_ACTIONS]
    assert not unnamed, f"name these operations' actions in mcp_service/rest/refusals.py REST_ACTIONS: {unnamed}"
    name = f"audit-admin-{secrets.token_hex(3)}"
    _, admin_token = accounts.issue_api_token(session=server_session, name=name, role="admin")
    viewer_name = f"audit-viewer-{secrets.token_hex(3)}"
    _, viewer_token = accounts.issue_api_token(session=server_session, name=viewer_name, role="viewer")
    engine = create_db_engine(server.database_url)
    unaudited: list[str] = []
    audited_pending: list[str] = []
    unrefused: list[str] = []
    try:
        for method, path in writes:
            victim, _ = _bot_world(server_session, "victim", "victim_ci", f"VICTIM{secrets.token_hex(3)}")
            spare, _ = accounts.issue_api_token(session=server_session, name="spare", role="viewer")
            create_topic(
                session=server_session,
                bot_id=victim.bot_id,
                actor="test",
                data=TopicCreate(topic_key="doomed", name="D"),
            )
            values = _targets(victim, spare.id, topic_key="doomed" if method == "DELETE" else None)
            body = _sample_body(method, path)

            # A viewer's write is refused, and the refusal is in the trail (naming the token and the action).
            last_id = _last_audit_id(engine)
            with httpx.Client(base_url=server.base_url, headers=_headers(viewer_token, "authorization")) as client:
                response = client.request(method, _url(path, values), json=body, timeout=30)
            refusals = [
                row
                for row in _rows_since(engine, last_id)
                if row.actor == viewer_name and row.outcome == "refused" and row.tool == REST_ACTIONS[(method, path)]
            ]
            if response.status_code != 403 or not refusals or refusals[0].error_code != "forbidden":
                unrefused.append(f"{method} {path} -> {response.status_code}")

            before, last_id = db_digest(), _last_audit_id(engine)
            with httpx.Client(base_url=server.base_url, headers=_headers(admin_token, "authorization")) as client:
                response = client.request(method, _url(path, values), json=body, timeout=30)
            assert response.status_code < 500, f"{method} {path} -> {response.status_code} {response.text[:200]}"
            rows = [row for row in _rows_since(engine, last_id) if row.outcome != "refused"]
            named = any(row.actor_kind == "api_token" and row.actor == name for row in rows)
            # a write that succeeded is audited even when it changed a file only (mcp-config)
            if (method, path) in PENDING_REST:
                if named:
                    audited_pending.append(f"{method} {path}")
            elif (response.is_success or db_digest() != before) and not named:
                unaudited.append(f"{method} {path} -> {response.status_code}")
    finally:
        engine.dispose()
    print(f"\naudit coverage, REST: {len(writes)} write operations, each audited or refused with a row")
    assert not unaudited, f"changed data without an audit row naming the API token: {unaudited}"
    assert not audited_pending, f"audited now, remove from PENDING_REST: {audited_pending}"
    assert not unrefused, f"a viewer's write was not refused with an audit row: {unrefused}"
