"""Every UI event is a public API: fire each event handler of every State from a raw websocket.

The handlers are enumerated from the app's State tree, so a handler added later is covered without
editing this file. Arguments are chosen so that each handler would read or change real rows if it
ran: the positive controls (a viewer reads, an admin writes) prove the events are well aimed.
"""

from __future__ import annotations

import inspect
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from reflex.state import BaseState, State
from reflex.utils import prerequisites
from sqlmodel import Session, select

from tests.support.server import LiveServer
from tests.support.ui_socket import UiSocket, ui_socket
from topic_dashboard.auth.guard import ADMIN, PUBLIC_STATES, required_access
from topic_dashboard.auth.state import AuthState
from topic_dashboard.db import create_db_engine
from topic_dashboard.models import ItemState, User
from topic_dashboard.services import accounts, audit, conversations
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicCreate, create_topic

PASSWORD = "a long enough password 42"
ONLY_ADMINS = "Only admins can change this"


@dataclass
class World:
    marker: str
    bot_id: str
    item_id: int
    conversation_id: str
    card_message_id: str
    viewer_token: str
    admin_token: str


def _guarded_handlers() -> list[tuple[type[BaseState], str, Any]]:
    prerequisites.get_and_validate_app()  # the app module defines the page States
    found: list[tuple[type[BaseState], str, Any]] = []

    def walk(cls: type[BaseState]) -> None:
        if cls not in PUBLIC_STATES:
            found.extend((cls, name, handler) for name, handler in sorted(cls.event_handlers.items()))
        for sub in cls.get_substates():
            walk(sub)

    walk(State)
    return found


def _arguments(cls: type[BaseState], name: str, handler: Any, world: World) -> dict[str, Any]:
    """Arguments that make the handler touch the world's rows, by parameter name and type."""
    by_name: dict[str, Any] = {
        "bot_id": world.bot_id,
        "item_id": world.item_id,
        "topic_key": "builds",
        "conversation_id": world.conversation_id,
        "action": "delete",
        "field": "positive",
        "index": 0,
        "kind": "card",
        "on": True,
        "mode": "json",
        "text": "{}",
        "selection": "all",
        "positive": True,
        "tag": "ci",
        "enabled": False,
        "old": "server_1",
        "new": "renamed",
        # setvar needs a var with a setter, and Reflex's setvar cannot run an async one (it would leave the
        # coroutine unawaited): the State's first synchronous setter, if it has any
        "var_name": next(
            (
                h.removeprefix("set_")
                for h in sorted(cls.event_handlers)
                if h.startswith("set_") and not inspect.iscoroutinefunction(cls.event_handlers[h].fn)
            ),
            "x",
        ),
        "_tick": "",
        "form": {"_card_message_id": world.card_message_id, "scope": "everything", "username": "x", "password": "y"},
    }
    params = [p for p in inspect.signature(handler.fn).parameters.values() if p.name != "self"]
    args: dict[str, Any] = {}
    for param in params:
        if param.name in by_name:
            args[param.name] = by_name[param.name]
        elif param.annotation in (bool, "bool"):
            args[param.name] = True
        elif name == "setvar" and param.name == "value":
            args[param.name] = world.bot_id
        else:
            args[param.name] = world.bot_id if "bot" in name or name.startswith("set_") else "1"
    return args


@pytest.fixture
def world(server: LiveServer, server_session: Session) -> World:
    marker = f"SECRET{secrets.token_hex(6)}"
    bot, _ = create_bot(session=server_session, name=f"bot-{marker}", write_config=False)
    create_topic(
        session=server_session,
        bot_id=bot.bot_id,
        actor="test",
        data=TopicCreate(
            topic_key="builds",
            name=f"Builds {marker}",
            routing_json={"purpose": "CI build results", "include_when": ["CI build results"]},
        ),
    )
    item = publish_item(
        session=server_session,
        bot_id=bot.bot_id,
        request=PublishRequest(topic_key="builds", title=f"item {marker}", content=f"content {marker}", tags=["ci"]),
    )
    conversation = conversations.create_conversation(session=server_session, bot_id=bot.bot_id, title=f"talk {marker}")
    conversations.add_message(
        session=server_session,
        conversation_id=conversation.conversation_id,
        role="user",
        content=f"private message {marker}",
    )
    card = conversations.add_message(
        session=server_session,
        conversation_id=conversation.conversation_id,
        role="assistant",
        content="card",
        kind="guide_card",
        guide_card={"title": "Before I start", "fields": [{"name": "scope", "label": "Scope"}]},
    )
    audit.record_call(session=server_session, bot_id=bot.bot_id, tool=f"tool_{marker}", outcome="ok")
    tokens = {}
    for role in ("viewer", "admin"):
        name = f"{role}{secrets.token_hex(4)}"
        accounts.create_user(session=server_session, username=name, password=PASSWORD, role=role)
        _, tokens[role] = accounts.log_in(session=server_session, username=name, password=PASSWORD, ttl_hours=1)
    return World(
        marker=marker,
        bot_id=bot.bot_id,
        item_id=item.item_id,
        conversation_id=conversation.conversation_id,
        card_message_id=card.message_id,
        viewer_token=tokens["viewer"],
        admin_token=tokens["admin"],
    )


@pytest.fixture
def socket(server: LiveServer) -> Iterator[UiSocket]:
    with ui_socket(server.base_url) as sock:
        yield sock


def _sign_in(sock: UiSocket, token: str) -> None:
    """What a browser does on connect: hand the server the login token kept in local storage."""
    key = f"{AuthState.get_full_name()}.session_token"
    sock.send(
        f"{State.get_full_name()}.reflex___state____update_vars_internal_state.update_vars_internal",
        {"vars": {key: token}},
    )


def _fire_all(sock: UiSocket, world: World, handlers: list[tuple[type[BaseState], str, Any]]) -> None:
    # Handlers that only prepare (open a dialog, pick a bot) first, so that the writes after them are armed.
    for cls, name, handler in sorted(handlers, key=lambda h: required_access(h[0], h[2]) == ADMIN):
        sock.send(f"{cls.get_full_name()}.{name}", _arguments(cls, name, handler, world), path="/")
    sock.sync()


def test_every_state_of_the_app_is_guarded() -> None:
    """Every State this app defines, the login page's aside, derives from SignedInState; any other State
    (Reflex's own included) that is not public plumbing is closed."""
    handlers = _guarded_handlers()
    assert len(handlers) > 80
    for cls, name, handler in handlers:
        access = required_access(cls, handler)
        if cls.__module__.startswith("topic_dashboard."):
            assert access in ("signed_in", ADMIN), f"{cls.__name__}.{name} is {access}: derive it from SignedInState"
        else:
            assert access == "closed", f"{cls.__name__}.{name} is {access}"


def test_an_anonymous_socket_reads_nothing_and_changes_nothing(
    server: LiveServer, world: World, socket: UiSocket, db_digest: Callable[[], str]
) -> None:
    handlers = _guarded_handlers()
    before = db_digest()
    _fire_all(socket, world, handlers)
    received = socket.received_text()
    assert world.marker not in received, "an anonymous socket read a bot's data"
    assert world.bot_id not in received
    assert db_digest() == before, "an anonymous socket changed stored data"
    # Every refusal says so (the login page, or "not available"), but for the handlers a page fires by
    # itself (on mount, on a timer), which are refused without a redirect: they may race the page's login.
    quiet = [h for h in handlers if getattr(h[2].fn, "_td_quiet_when_signed_out", False)]
    assert len(quiet) == 3, quiet  # the panel's heartbeat, the alert banner, the conversations poll
    assert socket.count('"path": "/login"') + socket.count("not available") >= len(handlers) - len(quiet)


def test_a_page_timer_of_a_signed_out_socket_is_refused_without_a_redirect(
    server: LiveServer, world: World, socket: UiSocket
) -> None:
    """keep_live (the panel's mount and heartbeat) refused quietly; the page's load still sends to login."""
    from topic_dashboard.topic_panel.state import TopicPanelState

    socket.send(f"{TopicPanelState.get_full_name()}.keep_live", {"_tick": ""})
    socket.sync()
    assert socket.count('"path": "/login"') == 0
    assert world.marker not in socket.received_text()
    socket.send(f"{TopicPanelState.get_full_name()}.load_page", {})
    socket.sync()
    assert socket.count('"path": "/login"') == 1


def test_a_viewer_reads_but_changes_nothing(
    server: LiveServer, world: World, socket: UiSocket, db_digest: Callable[..., str]
) -> None:
    """Nothing but the viewer's own reading state (read, pinned, archived: theirs alone) changes."""
    _sign_in(socket, world.viewer_token)
    handlers = _guarded_handlers()
    # Their reading state, and the bot's change counter it bumps so that their other tabs follow.
    own = {"skip": ("item_state",), "skip_columns": (("topic_bot_settings", "items_version"),)}
    before = db_digest(**own)
    _fire_all(socket, world, handlers)
    assert db_digest(**own) == before, "a viewer changed what others see"
    engine = create_db_engine(server.database_url)
    try:
        with Session(engine) as session:
            owners = set(session.exec(select(ItemState.user_id)).all())
            viewer = session.exec(select(User).where(User.role == "viewer")).all()
    finally:
        engine.dispose()
    assert owners <= {user.id for user in viewer}, "reading state was written for someone else"
    admin_only = [h for h in handlers if required_access(h[0], h[2]) == ADMIN]
    assert len(admin_only) >= 15
    assert socket.count(ONLY_ADMINS) == len(admin_only)
    # Positive control: the same events, signed in, do reach the data.
    assert world.marker in socket.received_text()


def _setters() -> list[tuple[type[BaseState], str, Any]]:
    """Every (State, set_* handler) pair: `setvar` can name any of them."""
    return [(cls, name, h) for cls, name, h in _guarded_handlers() if name.startswith("set_") and name != "setvar"]


def test_setvar_needs_what_the_setter_it_names_needs(
    server: LiveServer, world: World, socket: UiSocket, db_digest: Callable[[], str]
) -> None:
    """Reflex's `setvar(var_name, value)` calls `set_<var_name>` itself: a viewer must not reach an
    admin-only setter that way (it once switched a bot's topic delivery off), nor any handler that
    is not a setter."""
    _sign_in(socket, world.viewer_token)
    setters = _setters()
    admin_setters = [(cls, name) for cls, name, h in setters if required_access(cls, h) == ADMIN]
    assert admin_setters, "no admin-only setter left: this test would prove nothing"
    before = db_digest()
    panel = next(cls for cls, name, _ in _guarded_handlers() if name == "toggle_pin")
    socket.send(f"{panel.get_full_name()}.select_bot", {"bot_id": world.bot_id})
    for cls, name, handler in setters:
        value: Any = False if name in ("set_topic_enabled", "set_topic_active") else world.bot_id
        socket.send(f"{cls.get_full_name()}.setvar", {"var_name": name.removeprefix("set_"), "value": value}, path="/")
    for cls in {cls for cls, _, _ in setters}:  # a name that is no setter: refused, not dispatched
        socket.send(f"{cls.get_full_name()}.setvar", {"var_name": "../../etc", "value": 1}, path="/")
    socket.sync()
    assert db_digest() == before, "a viewer changed shared data through setvar"
    assert socket.count(ONLY_ADMINS) == len(admin_setters)
    assert socket.count("not available") >= len({cls for cls, _, _ in setters})


def test_an_admin_socket_does_change_data(
    server: LiveServer, world: World, socket: UiSocket, db_digest: Callable[[], str]
) -> None:
    """Positive control for the refusals above: the same kind of event, from an admin, writes."""
    _sign_in(socket, world.admin_token)
    panel = next(cls for cls, name, _ in _guarded_handlers() if name == "toggle_pin")
    before = db_digest()
    socket.send(f"{panel.get_full_name()}.select_bot", {"bot_id": world.bot_id})
    socket.send(f"{panel.get_full_name()}.toggle_pin", {"item_id": world.item_id})
    socket.sync()
    assert socket.count(ONLY_ADMINS) == 0
    assert db_digest() != before


def test_a_logged_out_token_stops_working_at_once(
    server: LiveServer, server_session: Session, world: World, socket: UiSocket
) -> None:
    _sign_in(socket, world.admin_token)
    accounts.log_out(session=server_session, token=world.admin_token)
    panel = next(cls for cls, name, _ in _guarded_handlers() if name == "select_bot" and "panel" in cls.get_full_name())
    socket.send(f"{panel.get_full_name()}.select_bot", {"bot_id": world.bot_id})
    socket.sync()
    assert world.marker not in socket.received_text()
    assert socket.count('"path": "/login"') == 1


def test_after_a_password_reset_only_the_change_password_form_opens(
    server: LiveServer, server_session: Session, world: World, socket: UiSocket
) -> None:
    """The one-time password of an admin's reset logs in, but the guard sends every page event to the
    change-password form, server-side, until a new password is chosen."""
    username = f"reset{secrets.token_hex(4)}"
    accounts.create_user(session=server_session, username=username, password=PASSWORD, role="admin")
    one_time = accounts.reset_password(session=server_session, username=username)
    _, token = accounts.log_in(session=server_session, username=username, password=one_time, ttl_hours=1)
    _sign_in(socket, token)
    panel = next(cls for cls, name, _ in _guarded_handlers() if name == "select_bot" and "panel" in cls.get_full_name())
    socket.send(f"{panel.get_full_name()}.select_bot", {"bot_id": world.bot_id})
    socket.sync()
    assert world.marker not in socket.received_text()
    assert socket.count('"path": "/change-password"') == 1

    new_password = "another long enough password"
    form = {"old_password": one_time, "new_password": new_password, "confirm_password": new_password}
    socket.send(f"{AuthState.get_full_name()}.change_password", {"form": form})
    socket.send(f"{panel.get_full_name()}.select_bot", {"bot_id": world.bot_id})
    socket.sync()
    assert world.marker in socket.received_text()
    assert socket.count('"path": "/change-password"') == 1


def test_the_change_password_form_needs_a_login(
    server: LiveServer, world: World, socket: UiSocket, db_digest: Callable[[], str]
) -> None:
    """AuthState's events are public: this one resolves the caller itself, and an anonymous socket changes nothing."""
    before = db_digest()
    form = {"old_password": PASSWORD, "new_password": "x" * 20, "confirm_password": "x" * 20}
    socket.send(f"{AuthState.get_full_name()}.change_password", {"form": form})
    socket.sync()
    assert db_digest() == before
    assert socket.count('"path": "/login"') == 1
