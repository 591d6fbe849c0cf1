"""A raw Reflex websocket client: what an attacker's script (or a browser page) can send to `/_event`.

It speaks Socket.IO to the real app, names any event handler of any State, and records every update
the server sends back, so tests can check what a socket can read and change without a browser.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import socketio

EVENT_PATH = "/_event"


class UiSocket:
    def __init__(self, base_url: str, *, headers: dict[str, str] | None = None) -> None:
        self.base_url = base_url
        self.token = str(uuid.uuid4())  # Reflex's per-tab client token, not a login
        self.updates: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.client = socketio.Client(reconnection=False)
        self.client.on("event", self._on_update, namespace=EVENT_PATH)
        self.headers = headers or {}

    def _on_update(self, update: Any) -> None:
        with self._lock:
            self.updates.append(update if isinstance(update, dict) else {"raw": update})

    def connect(self) -> None:
        self.client.connect(
            f"{self.base_url}?token={self.token}",
            socketio_path=EVENT_PATH,
            namespaces=[EVENT_PATH],
            transports=["websocket"],
            headers=self.headers,
            wait_timeout=10,
        )

    def close(self) -> None:
        self.client.disconnect()

    def send(self, name: str, payload: dict[str, Any] | None = None, *, path: str = "/") -> None:
        """Fire one event, as the frontend does (the router data of a page at `path`)."""
        self.client.emit(
            "event",
            {"name": name, "payload": payload or {}, "router_data": {"pathname": path, "asPath": path, "query": {}}},
            namespace=EVENT_PATH,
        )

    def received_text(self) -> str:
        with self._lock:
            return json.dumps(self.updates, ensure_ascii=False, default=str)

    def wait_for(self, needle: str, timeout: float = 10.0) -> bool:
        """Wait until some update contains `needle`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if needle in self.received_text():
                return True
            time.sleep(0.02)
        return False

    def count(self, needle: str) -> int:
        return self.received_text().count(needle)

    def sync(self, timeout: float = 30.0) -> None:
        """Wait until every event sent so far has been handled. Events of one client run in order, so
        public marker events sent last are answered last: the hydrated flag set to false, then true."""
        before = len(self.updates)
        for value in (False, True):
            self.send(f"{_STATE}.{_ON_LOAD}.set_is_hydrated", {"value": value})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                fresh = json.dumps(self.updates[before:], default=str)
            if '"is_hydrated_rx_state_": true' in fresh:
                return
            time.sleep(0.02)
        raise TimeoutError("the server did not answer the marker events")


_STATE = "reflex___state____state"
_ON_LOAD = "reflex___state____on_load_internal_state"


@contextmanager
def ui_socket(base_url: str, *, headers: dict[str, str] | None = None) -> Iterator[UiSocket]:
    sock = UiSocket(base_url, headers=headers)
    sock.connect()
    try:
        yield sock
    finally:
        sock.close()
