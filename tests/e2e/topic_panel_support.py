"""Helpers the Topic panel's browser tests share: bots and items in the e2e database, logging in,
opening the panel on a bot, and publishing over topic_mcp as the bot itself would."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Locator, Page
from sqlmodel import Session, select

from tests.e2e import accounts_support
from tests.e2e.accounts_support import unique
from tests.e2e.conftest import E2EApp
from tests.e2e.pages.topic_panel import TopicPanel
from tests.support.mcp import mcp_client, result_json, run_async
from topic_dashboard.models import TopicItem, User
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.items import get_item, unread_in_view
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicCreate, TopicSettingsUpdate, create_topic, update_topic_settings

ADMIN = "panel-admin"
VIEWER = "panel-viewer"

# Put in a browser context before its pages load (`context.add_init_script(RECORDER)`): the browser's
# Notification and AudioContext are replaced by recorders (headless Chromium shows and plays nothing),
# each call of the panel's notifier is counted (`__batches`), and the test drives `document.hidden`.
RECORDER = """
window.__notes = [];
window.__permission = "default";
window.__shown = [];
window.__tones = 0;
class RecordingNotification {
  constructor(title, options) { window.__notes.push({ title, body: options && options.body }); window.__shown.push(this); }
  static get permission() { return window.__permission; }
  static requestPermission() { window.__permission = window.__answer || "granted"; return Promise.resolve(window.__permission); }
}
window.Notification = RecordingNotification;
class RecordingAudio {
  constructor() { this.currentTime = 0; this.destination = {}; }
  createOscillator() {
    return { frequency: {}, connect: (next) => next, start: () => { window.__tones += 1; }, stop: () => {} };
  }
  createGain() {
    return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (next) => next };
  }
}
window.AudioContext = RecordingAudio;
window.__batches = [];
document.addEventListener("DOMContentLoaded", () => {
  const wrap = () => {
    if (!window.__tdNotify || window.__tdNotify.__wrapped) return;
    const real = window.__tdNotify;
    window.__tdNotify = (notes, sound) => { window.__batches.push(notes.length); real(notes, sound); };
    window.__tdNotify.__wrapped = true;
  };
  wrap();
  setInterval(wrap, 50);
});
Object.defineProperty(document, "hidden", { configurable: true, get: () => Boolean(window.__tdHidden) });
"""


def make_bot(app: E2EApp, *topics: str, rate_per_minute: int = 600) -> tuple[str, str]:
    """A fresh bot with the `inbox` fallback plus `topics`; returns (bot_id, token)."""
    with Session(app.engine) as session:
        bot, token = create_bot(session=session, name=unique("panel-bot"))
        for key in topics:
            create_topic(
                session=session,
                bot_id=bot.bot_id,
                actor="e2e",
                data=TopicCreate(topic_key=key, name=key.replace("_", " ").title()),
            )
        update_topic_settings(
            session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=rate_per_minute)
        )
        return bot.bot_id, token


def seed(app: E2EApp, bot_id: str, **fields: Any) -> int:
    """Store one item through the publishing service (what the UI would also do); returns its id."""
    fields.setdefault("content", "")
    with Session(app.engine) as session:
        return publish_item(session=session, bot_id=bot_id, request=PublishRequest(**fields), source="system").item_id


def item_is_read(app: E2EApp, item_id: int, username: str = ADMIN) -> bool:
    """Whether `username` has read the item (reading state is per person)."""
    with Session(app.engine) as session:
        item = session.get(TopicItem, item_id)
        user = session.exec(select(User).where(User.username == username)).one()
        assert item is not None
        return get_item(session=session, bot_id=item.bot_id, item_id=item_id, reader=user.id).is_read


def item_ids(app: E2EApp, bot_id: str) -> list[int]:
    with Session(app.engine) as session:
        newest_first = TopicItem.id.desc()  # type: ignore[union-attr]
        query = select(TopicItem.id).where(TopicItem.bot_id == bot_id).order_by(newest_first)
        return [int(item_id) for item_id in session.exec(query)]


def mcp_call(app: E2EApp, token: str, tool: str, **arguments: Any) -> tuple[bool, dict[str, Any]]:
    """Call a topic_mcp tool with the bot's token, as nanobot would: (isError, the JSON the bot reads)."""

    async def body() -> tuple[bool, dict[str, Any]]:
        async with mcp_client(app.backend_url + "/api/mcp/topic", token) as client:
            result = await client.call_tool(tool, arguments)
            return bool(result.is_error), result_json(result)

    return run_async(body)


def mcp_publish(app: E2EApp, token: str, **arguments: Any) -> tuple[bool, dict[str, Any]]:
    return mcp_call(app, token, "topic_publish", **arguments)


def log_in(page: Page, app: E2EApp, username: str = ADMIN, role: str = "admin") -> None:
    accounts_support.log_in(page, app, username, role)


def log_in_to_panel(page: Page, app: E2EApp, username: str, role: str, bot_id: str) -> TopicPanel:
    """Log in and land on the panel of `bot_id` (one page load instead of two)."""
    accounts_support.log_in(page, app, username, role, landing=f"/?bot={bot_id}")
    panel = TopicPanel(page, app.url)
    panel.expect_loaded()
    return panel


def open_panel(page: Page, app: E2EApp, bot_id: str, query: str = "") -> TopicPanel:
    """Open the panel on `bot_id` and wait until its stream (or its empty state) is shown."""
    return TopicPanel(page, app.url).open(bot_id, query)


def row(page: Page, item_id: int) -> Locator:
    return TopicPanel.on(page).row(item_id)


def rows(page: Page) -> Locator:
    return TopicPanel.on(page).rows()


def user_id(app: E2EApp, username: str) -> int:
    with Session(app.engine) as session:
        user = session.exec(select(User).where(User.username == username)).one()
        assert user.id is not None
        return user.id


def unread_of(app: E2EApp, bot_id: str, username: str = ADMIN) -> set[int]:
    """What `username` has unread of the bot (reading state is per person)."""
    reader = user_id(app, username)
    with Session(app.engine) as session:
        return set(unread_in_view(session=session, bot_id=bot_id, reader=reader))


def pinned_of(app: E2EApp, bot_id: str, item_ids: list[int], username: str = ADMIN) -> set[int]:
    """Which of the items `username` sees pinned (per person)."""
    reader = user_id(app, username)
    with Session(app.engine) as session:
        return {i for i in item_ids if get_item(session=session, bot_id=bot_id, item_id=i, reader=reader).is_pinned}


def team_unread(app: E2EApp, bot_id: str) -> set[int]:
    """The team's state: the items' own flags, what everyone sees until they change their own."""
    with Session(app.engine) as session:
        query = select(TopicItem.id).where(TopicItem.bot_id == bot_id, TopicItem.is_read == False)
        return {int(item_id) for item_id in session.exec(query)}


def shown_ids(page: Page) -> list[int]:
    """The ids of the rows on screen, top to bottom."""
    return TopicPanel.on(page).shown_ids()


def toast_saying(page: Page, text: str) -> Locator:
    """The toast that says `text` (Sonner's, where Undo lives)."""
    return TopicPanel.on(page).toast(text)


def choose_move_target(page: Page, name: str) -> None:
    """In the open Move to topic… popover, choose the topic shown as `name`."""
    TopicPanel.on(page).choose_move_target(name)


# From a j/k press to the cursor's new row, measured in the page: from the key event's own time stamp
# (when the browser received the key, so time the page spent busy before handling it counts) to the
# mutation that moves the cursor. `page.evaluate(CURSOR_LATENCY, TopicPanel.ITEM_LIST)`; the samples
# collect in `window.__lat`.
CURSOR_LATENCY = """
(list) => {
  window.__lat = [];
  if (window.__watching) return;
  window.__watching = true;
  let started = 0;
  document.addEventListener("keydown", (e) => { if (e.key === "j" || e.key === "k") started = e.timeStamp; }, true);
  new MutationObserver((records) => {
    if (started && records.some((r) => r.target.hasAttribute("data-td-cursor"))) {
      window.__lat.push(performance.now() - started);
      started = 0;
    }
  }).observe(document.querySelector(list), { attributes: true, attributeFilter: ["data-td-cursor"], subtree: true });
}
"""


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
