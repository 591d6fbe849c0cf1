"""What the journeys stand on: an admin's credentials and REST access, and bots made for one flow.

Against the app this suite starts, the admin and its API token are made here; against E2E_BASE_URL
they come from the environment (`E2E_ADMIN_USER`, `E2E_ADMIN_PASSWORD`, `E2E_API_TOKEN`), never from
a file. Everything a journey creates has a unique name (`e2e-<journey>-<pid>-<n>`) and is removed at
its end through the REST API, so the journeys are safe on a shared instance."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from sqlmodel import Session

from tests.e2e.accounts_support import PASSWORD, ensure_user, unique
from tests.e2e.conftest import E2EApp
from tests.e2e.topic_panel_support import mcp_call
from topic_dashboard.services import accounts


@dataclass
class Bot:
    bot_id: str
    name: str
    token: str


@dataclass
class Dashboard:
    """The dashboard under test as a QA engineer holds it: its address, an admin, and its REST API."""

    app: E2EApp
    admin_user: str
    admin_password: str
    api_token: str
    bots: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.app.url

    def api(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.app.url.rstrip("/") + "/api",
            headers={"authorization": f"Bearer {self.api_token}"},
            timeout=30,
        )

    def create_bot(self, journey: str, topics: dict[str, str]) -> Bot:
        """A bot of its own for one journey (removed at its end), with these topics (key → name)."""
        name = unique(f"e2e-{journey}")
        with self.api() as api:
            created = api.post("/bots", json={"name": name})
            assert created.status_code == 201, created.text
            body = created.json()
            self.bots.append(body["bot_id"])
            for key, title in topics.items():
                answer = api.post(f"/bots/{body['bot_id']}/topics", json={"topic_key": key, "name": title})
                assert answer.status_code == 201, answer.text
        return Bot(bot_id=body["bot_id"], name=name, token=body["token"])

    def adopt_bot(self, bot_id: str) -> None:
        """A bot a journey made in the browser: removed at its end like the others."""
        self.bots.append(bot_id)

    def bot_id_named(self, name: str) -> str:
        with self.api() as api:
            listed = api.get("/bots")
            assert listed.status_code == 200, listed.text
            return next(bot["bot_id"] for bot in listed.json() if bot["name"] == name)

    def call(self, token: str, tool: str, **arguments: Any) -> tuple[bool, dict[str, Any]]:
        """A topic_mcp tool called with the bot's token, as nanobot calls it: (isError, what the bot reads)."""
        return mcp_call(self.app, token, tool, **arguments)

    def publish(self, bot: Bot, **arguments: Any) -> int:
        arguments.setdefault("content", "")
        arguments.setdefault("message_type", "result")
        failed, body = self.call(bot.token, "topic_publish", **arguments)
        assert not failed, body
        return int(body["item_id"])

    def remove_bots(self) -> None:
        with self.api() as api:
            for bot_id in self.bots:
                answer = api.delete(f"/bots/{bot_id}")
                assert answer.status_code in (200, 404), answer.text
        self.bots.clear()


def _from_environment() -> tuple[str, str, str]:
    names = ("E2E_ADMIN_USER", "E2E_ADMIN_PASSWORD", "E2E_API_TOKEN")
    missing = [name for name in names if not os.environ.get(name)]
    if missing:
        raise pytest.UsageError(
            "E2E_BASE_URL is set: the journeys log in and set up as an admin of that dashboard. Set "
            + ", ".join(missing)
            + " (an admin's username and password, and an admin API token from its Accounts page)."
        )
    return os.environ["E2E_ADMIN_USER"], os.environ["E2E_ADMIN_PASSWORD"], os.environ["E2E_API_TOKEN"]


@pytest.fixture(scope="session")
def admin_credentials(e2e_app: E2EApp) -> tuple[str, str, str]:
    if e2e_app.remote:
        return _from_environment()
    username = f"journey-admin-{os.getpid()}"
    ensure_user(e2e_app, username, "admin")
    with Session(e2e_app.engine) as session:
        token = accounts.create_api_token(session=session, name=f"journeys-{os.getpid()}", role="admin")
    return username, PASSWORD, token


@pytest.fixture
def dashboard(e2e_app: E2EApp, admin_credentials: tuple[str, str, str]) -> Iterator[Dashboard]:
    user, password, token = admin_credentials
    board = Dashboard(app=e2e_app, admin_user=user, admin_password=password, api_token=token)
    try:
        yield board
    finally:
        board.remove_bots()
