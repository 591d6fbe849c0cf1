"""The relay against an HTTP stand-in for `nanobot serve` in each way a bot can answer or fail
(the real nanobot is driven end to end in tests/e2e/test_dashboard_channel.py), and the worker
relaying a stored message into a real database."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from sqlmodel import Session

from topic_dashboard.chat.relay import check_endpoint, stream_answer
from topic_dashboard.chat.worker import ChatWorker
from topic_dashboard.db import read_session
from topic_dashboard.errors import AppError
from topic_dashboard.services import chat
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.conversations import create_conversation, get_conversation, list_messages

Handler = Callable[[BaseHTTPRequestHandler, dict[str, Any]], None]


def _sse(handler: BaseHTTPRequestHandler, parts: list[str], *, delay: float = 0.0, finish: bool = True) -> None:
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.end_headers()
    for part in parts:
        chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": part}}]}
        handler.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        handler.wfile.flush()
        time.sleep(delay)
    if finish:
        end = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        handler.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())


def _json(handler: BaseHTTPRequestHandler, status: int, body: Any) -> None:
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class StandIn:
    """`nanobot serve`'s HTTP surface with a chosen behaviour for chat completions."""

    def __init__(self, chat: Handler, *, key: str | None = None, owner: str = "nanobot") -> None:
        self.chat, self.key, self.owner = chat, key, owner
        self.bodies: list[dict[str, Any]] = []
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _authorised(self) -> bool:
                if outer.key and self.headers.get("authorization") != f"Bearer {outer.key}":
                    _json(self, 401, {"error": {"message": "Invalid API key"}})
                    return False
                return True

            def do_GET(self) -> None:
                if self.path == "/health":
                    _json(self, 200, {"status": "ok"})
                elif self.path == "/v1/models" and self._authorised():
                    _json(self, 200, {"object": "list", "data": [{"id": "m1", "owned_by": outer.owner}]})
                elif self.path != "/v1/models":
                    _json(self, 404, {"error": "no"})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"{}")
                outer.bodies.append(body)
                if self._authorised():
                    outer.chat(self, body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stand_in() -> Iterator[Callable[..., StandIn]]:
    made: list[StandIn] = []

    def make(chat: Handler, **kwargs: Any) -> StandIn:
        made.append(StandIn(chat, **kwargs))
        return made[-1]

    yield make
    for server in made:
        server.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _relay(url: str, key: str | None = None, *, timeout: float = 5.0, stop_after: int | None = None) -> str:
    seen: list[str] = []

    async def on_text(text: str) -> bool:
        seen.append(text)
        return stop_after is not None and len(seen) >= stop_after

    return asyncio.run(stream_answer(url, key, session_id="conv-1", text="hi", on_text=on_text, read_timeout=timeout))


def _relay_error(url: str, **kwargs: Any) -> AppError:
    with pytest.raises(AppError) as excinfo:
        _relay(url, **kwargs)
    return excinfo.value


# --- the relay ----------------------------------------------------------------------------------------


def test_the_answer_streams_part_by_part_with_the_conversation_as_session(stand_in: Callable[..., StandIn]) -> None:
    server = stand_in(lambda h, body: _sse(h, ["Build ", "#88 ", "passed"]), key="sk")
    assert _relay(server.url, "sk") == "Build #88 passed"
    body = server.bodies[-1]
    assert body["session_id"] == "conv-1" and body["stream"] is True
    assert body["messages"] == [{"role": "user", "content": "hi"}]


def test_stopping_returns_what_arrived(stand_in: Callable[..., StandIn]) -> None:
    server = stand_in(lambda h, body: _sse(h, ["a", "b", "c", "d"], delay=0.05))
    assert _relay(server.url, stop_after=2) == "ab"


@pytest.mark.parametrize(
    ("behaviour", "code", "words"),
    [
        (lambda h, b: _json(h, 500, {"error": {"message": "Internal server error"}}), "bot_error", "HTTP 500"),
        (
            lambda h, b: _json(h, 504, {"error": {"message": "Request timed out after 120.0s"}}),
            "bot_error",
            "timed out",
        ),
        (lambda h, b: _sse(h, ["half an ans"], finish=False), "bot_error", "broke off"),
        (
            lambda h, b: h.wfile.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\n\r\n<html>"),
            "not_nanobot",
            "text/html",
        ),
        (lambda h, b: _json(h, 200, {"hello": "world"}), "not_nanobot", "not a chat completion"),
        (lambda h, b: _sse(h, ["x"], delay=1.5), "bot_timeout", "stopped answering"),
    ],
)
def test_each_failure_says_what_is_wrong(
    stand_in: Callable[..., StandIn], behaviour: Handler, code: str, words: str
) -> None:
    server = stand_in(behaviour)
    error = _relay_error(server.url, timeout=0.5)
    assert error.code == code and words in error.message, error


def test_a_wrong_key_and_a_closed_port_are_told_apart(stand_in: Callable[..., StandIn]) -> None:
    server = stand_in(lambda h, b: _sse(h, ["x"]), key="right")
    error = _relay_error(server.url, key="wrong")
    assert error.code == "bot_auth_failed" and "401" in error.message
    closed = f"http://127.0.0.1:{_free_port()}"
    error = _relay_error(closed)
    assert error.code == "bot_unreachable" and "nanobot serve" in error.message


# --- test connection ------------------------------------------------------------------------------------


def test_the_connection_test_recognises_nanobot_and_each_problem(stand_in: Callable[..., StandIn]) -> None:
    good = stand_in(lambda h, b: None, key="k")
    ok = asyncio.run(check_endpoint(good.url, "k"))
    assert (ok.ok, ok.model) == (True, "m1") and "nanobot is answering" in ok.message
    assert asyncio.run(check_endpoint(good.url, "nope")).code == "bot_auth_failed"
    assert asyncio.run(check_endpoint(good.url, None)).code == "bot_auth_failed"
    other = stand_in(lambda h, b: None, owner="openai")
    assert asyncio.run(check_endpoint(other.url, None)).code == "not_nanobot"
    refused = asyncio.run(check_endpoint(f"http://127.0.0.1:{_free_port()}", None))
    assert (refused.ok, refused.code) == (False, "bot_unreachable")


# --- the worker, into the database -------------------------------------------------------------------------


def _wait(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.05)


def test_the_worker_relays_a_stored_message_and_stores_the_streamed_answer(
    session: Session, stand_in: Callable[..., StandIn]
) -> None:
    server = stand_in(lambda h, b: _sse(h, ["Build ", "#88 ", "passed."], delay=0.3), key="sk")
    bot, _ = create_bot(session=session, name="b", write_config=False)
    chat.set_chat_endpoint(session=session, bot_id=bot.bot_id, chat_url=server.url, chat_key="sk")
    conversation_id = create_conversation(session=session, bot_id=bot.bot_id, title="c").conversation_id
    chat.send_message(session=session, conversation_id=conversation_id, content="run the build")
    seen_partial: list[str] = []

    def check() -> bool:
        with read_session() as reader:  # short transactions: the worker writes from other connections
            messages = list_messages(session=reader, conversation_id=conversation_id)
            if len(messages) == 2 and messages[1].streaming:
                seen_partial.append(messages[1].content)
            return get_conversation(session=reader, conversation_id=conversation_id).run_status == "idle"

    async def run() -> None:
        worker = ChatWorker(poll_seconds=0.05)
        await worker.start()
        try:
            await asyncio.to_thread(_wait, check)
        finally:
            await worker.stop()

    session.commit()  # the fixture's session gives up the write lock it took up front
    asyncio.run(run())
    messages = list_messages(session=session, conversation_id=conversation_id)
    assert [(m.role, m.content, m.streaming) for m in messages] == [
        ("user", "run the build", False),
        ("assistant", "Build #88 passed.", False),
    ]
    assert seen_partial and seen_partial[0] != "Build #88 passed."  # it was seen while still arriving
    assert server.bodies[0]["session_id"] == conversation_id


def test_the_worker_records_an_unreachable_bot_and_keeps_the_message(session: Session) -> None:
    bot, _ = create_bot(session=session, name="b", write_config=False)
    chat.set_chat_endpoint(session=session, bot_id=bot.bot_id, chat_url=f"http://127.0.0.1:{_free_port()}")
    conversation_id = create_conversation(session=session, bot_id=bot.bot_id, title="c").conversation_id
    chat.send_message(session=session, conversation_id=conversation_id, content="are you there?")
    session.commit()

    def failed() -> bool:
        with read_session() as reader:
            return get_conversation(session=reader, conversation_id=conversation_id).run_status == "failed"

    async def run() -> None:
        worker = ChatWorker(poll_seconds=0.05)
        await worker.start()
        try:
            await asyncio.to_thread(_wait, failed)
        finally:
            await worker.stop()

    asyncio.run(run())
    conversation = get_conversation(session=session, conversation_id=conversation_id)
    assert "cannot connect" in (conversation.run_error or "")
    assert [m.content for m in list_messages(session=session, conversation_id=conversation_id)] == ["are you there?"]


def test_a_worker_that_is_not_enabled_leaves_the_queue_to_others(session: Session) -> None:
    """A process started with chat_relay off claims nothing: the run stays queued for another one."""
    bot, _ = create_bot(session=session, name="b", write_config=False)
    chat.set_chat_endpoint(session=session, bot_id=bot.bot_id, chat_url=f"http://127.0.0.1:{_free_port()}")
    conversation_id = create_conversation(session=session, bot_id=bot.bot_id, title="c").conversation_id
    chat.send_message(session=session, conversation_id=conversation_id, content="are you there?")
    session.commit()
    asked: list[bool] = []

    def enabled() -> bool:
        asked.append(True)
        return False

    async def run() -> None:
        worker = ChatWorker(poll_seconds=0.02, enabled=enabled)
        await worker.start()
        try:
            await asyncio.to_thread(_wait, lambda: len(asked) >= 5)
        finally:
            await worker.stop()

    asyncio.run(run())
    assert get_conversation(session=session, conversation_id=conversation_id).run_status == "queued"
