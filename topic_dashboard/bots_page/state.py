"""The Bots page's state: a thin adapter over the bots service."""

from __future__ import annotations

import dataclasses
import json
from typing import Any
from urllib.parse import parse_qs, urlencode

import reflex as rx
from pydantic import ValidationError

from topic_dashboard.auth.guard import SignedInState, admin_only
from topic_dashboard.bot_config import CCWEB_SERVER, LOCKED_SERVER, redact_secrets
from topic_dashboard.chat.relay import check_endpoint
from topic_dashboard.components.address_bar import set_address
from topic_dashboard.components.last_bot import land_on_bot, remember_bot
from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.services import bots as bot_service
from topic_dashboard.services import chat as chat_service
from topic_dashboard.services import topics as topic_service
from topic_dashboard.services.audit import actor_of
from topic_dashboard.settings import get_settings

MANAGED_SERVERS = (LOCKED_SERVER, CCWEB_SERVER)  # written and locked by the dashboard
# Scroll the chat endpoint into view once it is drawn (the settings open below the list) and put the caret in
# its address box (an admin's; a viewer's is disabled and takes no focus).
SHOW_CHAT_ENDPOINT = """(function show(tries) {
  const section = document.getElementById("chat-endpoint");
  if (!section) { if (tries > 0) requestAnimationFrame(() => show(tries - 1)); return; }
  section.scrollIntoView({block: "start"});
  const box = document.getElementById("chat-url");
  if (box && !box.disabled) box.focus({preventScroll: true});
})(120)"""


def settings_url(bot_id: str) -> str:
    """The Bots page with a bot's settings open."""
    return "/bots?" + urlencode({"bot": bot_id})


def _settings_bot(url: str) -> str | None:
    """The bot whose settings `url` opens, when it is a `settings_url`; else None (another page)."""
    path, _, query = url.partition("?")
    return parse_qs(query).get("bot", [""])[0] if path == "/bots" else None


def _said(parts: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)


def _count(number: int, noun: str) -> str:
    """ "1 topic", "3 topics", "0 items"."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


# The delivery settings' boxes as the page labels them (bots_page/page.py), and their errors name them so.
SETTING_LABELS = {
    "fallback_policy": "When no topic fits",
    "publish_rate_per_minute": "Publishes per minute",
    "dedupe_window_seconds": "Dedupe window (seconds)",
    "allow_remote_images": "Remote images in items",
}


def age_in_words(days: float) -> str:
    """A token's age as a person reads it: "under 1 h", whole hours under a day, whole days after."""
    hours = days * 24
    if hours < 1:
        return "under 1 h"
    return f"{int(hours)} h" if hours < 24 else f"{int(days)} d"


@dataclasses.dataclass
class BotRow:
    id: str = ""
    name: str = ""
    config_path: str = ""
    token_age_days: float = 0.0
    token_age: str = ""  # in words: "under 1 h", "5 h", "12 d" (a walkthrough read "0.01 d")
    last_mcp_call_at: str = ""
    items_today: int = 0
    items_total: int = 0
    topic_enabled: bool = True


@dataclasses.dataclass
class ServerEntry:
    name: str = ""
    locked: bool = False
    kind: str = ""
    url: str = ""
    tool_timeout: int = 30
    json_text: str = ""


class BotsState(SignedInState):
    bots: list[BotRow] = []
    loading: bool = True
    # create
    create_open: bool = False
    new_name: str = ""
    new_config_path: str = ""
    adopt_existing: bool = False
    create_error: str = ""
    # a token shown once (after create or rotate)
    token_open: bool = False
    shown_token: str = ""
    shown_bot_name: str = ""
    shown_config_path: str = ""
    shown_snippet: str = ""
    # rotate / delete confirmations
    confirm_bot_id: str = ""
    confirm_action: str = ""  # rotate | delete
    # mcp config editor
    config_bot_id: str = ""
    # The chat endpoint (the bot's `nanobot serve`): the key is write-only, shown as set or not.
    chat_url: str = ""
    chat_key_draft: str = ""
    chat_key_set: bool = False
    chat_error: str = ""
    chat_check: str = ""
    chat_check_ok: bool = False
    chat_checking: bool = False
    chat_dirty: bool = False
    chat_notice: str = ""  # what the last save did, shown beside its button
    config_bot_name: str = ""
    servers: list[ServerEntry] = []
    config_error: str = ""
    config_notice: str = ""
    config_dirty: bool = False
    # delivery settings of the bot being configured
    fallback_policy: str = "inbox"
    publish_rate: str = "60"
    dedupe_window: str = "600"
    allow_images: bool = False
    settings_error: str = ""
    settings_dirty: bool = False
    settings_notice: str = ""
    # Unsaved edits stop a move away from them until the person chooses: where the page was going (another
    # bot's `settings_url`, or another page's address). "" when nothing waits.
    pending_url: str = ""

    @rx.var
    def mcp_url(self) -> str:
        return get_settings().mcp_topic_url

    @rx.var
    def confirm_open(self) -> bool:
        return self.confirm_action != ""

    @rx.var
    def confirm_bot_name(self) -> str:
        return next((bot.name for bot in self.bots if bot.id == self.confirm_bot_id), "")

    @rx.var
    def confirm_items(self) -> int:
        return next((bot.items_total for bot in self.bots if bot.id == self.confirm_bot_id), 0)

    @rx.var
    def unsaved_sections(self) -> str:
        """The sections of the open settings with unsaved edits, as the dialog names them ("" when none)."""
        return _said(self._unsaved())

    def _unsaved(self) -> list[str]:
        edited = (
            (self.settings_dirty, "delivery settings"),
            (self.chat_dirty, "chat endpoint"),
            (self.config_dirty, "MCP servers"),
        )
        return [name for dirty, name in edited if dirty] if self.config_bot_id else []

    @rx.event
    async def load_page(self) -> rx.event.EventSpec | None:
        """on_load: the bots, and the settings of the bot the address names (`?bot=<id>`, e.g. Conversations'
        "set its chat endpoint": shown at its chat endpoint), else of the bot this person last chose; none on
        a first visit (the list is what the page is for). Unsaved edits of this tab stay (a reload, a way back
        to the page): the address naming another bot then waits for the person's choice (`pending_url`)."""
        self._load()
        wanted = self.router.url.query_parameters.get("bot", "")
        _, chosen = await land_on_bot(self, wanted, fallback=False)
        if self._unsaved() and any(bot.id == self.config_bot_id for bot in self.bots):
            if chosen and chosen == wanted and chosen != self.config_bot_id:
                self.pending_url = settings_url(chosen)
                await remember_bot(self, self.config_bot_id)  # still the one shown; Discard makes it the other
                return set_address(settings_url(self.config_bot_id), push=False)
            return None
        if not chosen:
            self._close_config()
            return None
        failed = self._open_config(chosen)
        if failed or chosen != wanted:
            return failed
        return rx.call_script(SHOW_CHAT_ENDPOINT)

    def _close_config(self) -> None:
        self.config_bot_id, self.servers, self.pending_url = "", [], ""
        self.settings_dirty = self.chat_dirty = self.config_dirty = False

    def _load(self) -> None:
        with read_session() as session:
            statuses = bot_service.bot_statuses(session=session)
        self.bots = [
            BotRow(
                id=s.bot_id,
                name=s.name,
                config_path=s.config_path or "",
                token_age_days=s.token_age_days,
                token_age=age_in_words(s.token_age_days),
                last_mcp_call_at=s.last_mcp_call_at or "",
                items_today=s.items_today,
                items_total=s.items_total,
                topic_enabled=s.topic_enabled,
            )
            for s in statuses
        ]
        self.loading = False

    # --- create -------------------------------------------------------------------------------

    @rx.event
    def open_create(self) -> None:
        self.create_open, self.new_name, self.new_config_path, self.create_error = True, "", "", ""
        self.adopt_existing = False

    @rx.event
    def set_create_open(self, value: bool) -> None:
        self.create_open = value

    @rx.event
    def set_new_name(self, value: str) -> None:
        self.new_name = value

    @rx.event
    def set_new_config_path(self, value: str) -> None:
        self.new_config_path = value

    @rx.event
    def set_adopt_existing(self, value: bool) -> None:
        self.adopt_existing = value

    def _show_token(self, name: str, token: str, config_path: str) -> None:
        snippet = bot_service.with_managed_entries({}, token)
        self.shown_token, self.shown_bot_name, self.shown_config_path = token, name, config_path
        self.shown_snippet = json.dumps(snippet, indent=2)
        self.token_open = True

    @rx.event
    @admin_only
    def create_bot(self) -> rx.event.EventSpec | None:
        try:
            with write_session() as session:
                created, token = bot_service.create_bot(
                    session=session,
                    name=self.new_name,
                    config_path=self.new_config_path.strip() or None,
                    adopt_existing=self.adopt_existing,
                    actor=actor_of(self._principal()),
                )
        except AppError as error:
            self.create_error = error.message
            return None
        self.create_open = False
        self._load()
        self._show_token(created.name, token, created.config_path or "")
        return rx.toast.success(f"Created bot {created.name!r} with its inbox topic")

    @rx.event
    def set_token_open(self, value: bool) -> None:
        self.token_open = value
        if not value:  # shown once: nothing secret stays in the page's state after the dialog closes
            self.shown_token = self.shown_snippet = ""

    # --- rotate / delete ----------------------------------------------------------------------

    @rx.event
    def ask(self, bot_id: str, action: str) -> None:
        self.confirm_bot_id, self.confirm_action = bot_id, action

    @rx.event
    def set_confirm_open(self, value: bool) -> None:
        if not value:
            self.confirm_action = ""

    @rx.event
    @admin_only
    def confirm(self) -> rx.event.EventSpec | None:
        bot_id, action, name = self.confirm_bot_id, self.confirm_action, self.confirm_bot_name
        self.confirm_action = ""
        actor = actor_of(self._principal())
        try:
            with write_session() as session:
                if action == "rotate":
                    token = bot_service.rotate_token(session=session, bot_id=bot_id, actor=actor)
                    config_path = bot_service.get_bot(session=session, bot_id=bot_id).config_path or ""
                else:
                    counts = bot_service.delete_bot(session=session, bot_id=bot_id, actor=actor)
        except AppError as error:
            return rx.toast.error(error.message)
        self._load()
        if action == "rotate":
            self._show_token(name, token, config_path)
            return rx.toast.success("New token issued; the old one stopped working")
        if self.config_bot_id == bot_id:
            self._close_config()
        return rx.toast.success(
            f"Deleted {name!r}: "
            + ", ".join(_count(counts[key], key[:-1]) for key in ("topics", "items", "conversations"))
        )

    # --- chat endpoint ------------------------------------------------------------------------

    @rx.event
    def set_chat_url(self, value: str) -> None:
        if value.strip() != self.chat_url.strip():
            self.chat_check = ""  # a test result speaks of the address and key it tried, not of a new one
            self.chat_dirty, self.chat_notice = True, ""
        self.chat_url = value

    @rx.event
    def set_chat_key_draft(self, value: str) -> None:
        if value.strip() != self.chat_key_draft.strip():
            self.chat_check = ""
            self.chat_dirty, self.chat_notice = True, ""
        self.chat_key_draft = value

    @rx.event
    def set_chat_checking(self, value: bool) -> None:
        self.chat_checking = value

    @rx.event
    @admin_only
    def save_chat_endpoint(self) -> rx.event.EventSpec | None:
        """Save the URL; a typed key replaces the stored one (an empty box keeps it)."""
        try:
            with write_session() as session:
                saved = chat_service.set_chat_endpoint(
                    session=session,
                    bot_id=self.config_bot_id,
                    chat_url=self.chat_url.strip() or None,
                    chat_key=self.chat_key_draft.strip() if self.chat_key_draft.strip() else chat_service.KEEP,
                    actor=actor_of(self._principal()),
                )
        except AppError as error:
            self.chat_error, self.chat_notice = error.message, ""
            return None
        self.chat_error, self.chat_key_draft, self.chat_dirty = "", "", False
        self.chat_url, self.chat_key_set = saved.chat_url or "", saved.key_set
        # said beside the button that saved it (a toast in a corner left it unclear which of three saves ran)
        self.chat_notice = "Chat endpoint saved" if saved.chat_url else "Chat endpoint removed"
        return None

    @rx.event
    @admin_only
    def clear_chat_key(self) -> rx.event.EventSpec | None:
        with write_session() as session:
            saved = chat_service.set_chat_endpoint(
                session=session,
                bot_id=self.config_bot_id,
                chat_url=self.chat_url.strip() or None,
                chat_key=None,
                actor=actor_of(self._principal()),
            )
        self.chat_key_set = saved.key_set
        return rx.toast.success("Key removed")

    @rx.event
    @admin_only
    async def test_chat_endpoint(self) -> None:
        """Ask the endpoint typed in the box (with the typed key, else the stored one) whether it is nanobot."""
        try:
            url = chat_service.check_chat_url(self.chat_url)
        except AppError as error:
            self.chat_check, self.chat_check_ok = error.message, False
            return
        key = self.chat_key_draft.strip() or None
        if key is None:
            with read_session() as session:
                _stored_url, key = chat_service.endpoint_secret(session=session, bot_id=self.config_bot_id)
        result = await check_endpoint(url, key)
        self.chat_check, self.chat_check_ok = result.message, result.ok

    # --- MCP config ---------------------------------------------------------------------------

    @rx.event
    async def open_config(self, bot_id: str) -> rx.event.EventSpec | None:
        """The bot's settings, below the list; the address names the bot (a reload reopens them) and it is the
        person's choice from now on. With unsaved edits the page asks first (`pending_url`); the open bot's
        Settings again keeps them."""
        if not self._known(bot_id):
            return rx.toast.error("That bot is gone (deleted since the page loaded)")
        if self._unsaved():
            if bot_id != self.config_bot_id:
                self.pending_url = settings_url(bot_id)
            return None
        return await self._show_settings(bot_id)

    async def _show_settings(self, bot_id: str) -> rx.event.EventSpec | None:
        failed = self._open_config(bot_id)
        if failed:
            return failed
        await remember_bot(self, bot_id)
        return set_address(settings_url(bot_id), push=False)

    def _known(self, bot_id: str) -> bool:
        """Whether `bot_id` (an event's argument: anything) is a bot; the list is read again for one made since."""
        if not isinstance(bot_id, str) or not bot_id:
            return False
        if all(bot.id != bot_id for bot in self.bots):
            self._load()
        return any(bot.id == bot_id for bot in self.bots)

    @rx.event
    def go_to_topics(self, bot_id: str) -> rx.event.EventSpec | None:
        """A row's Topics while settings are unsaved (it is a plain link otherwise): the page asks first."""
        if not self._known(bot_id):
            return rx.toast.error("That bot is gone (deleted since the page loaded)")
        url = "/?" + urlencode({"bot": bot_id})
        if self._unsaved():
            self.pending_url = url
            return None
        return rx.redirect(url)

    @rx.event
    def keep_editing(self) -> None:
        """The person keeps the unsaved edits: nothing moves."""
        self.pending_url = ""

    @rx.event
    def set_unsaved_open(self, value: bool) -> None:
        """The dialog closed by Escape: the person keeps editing."""
        if not value:
            self.pending_url = ""

    @rx.event
    async def discard_and_go(self) -> rx.event.EventSpec | None:
        """The person gives up the unsaved edits: the page goes where it was going."""
        url, self.pending_url = self.pending_url, ""
        if not url:
            return None
        self.settings_dirty = self.chat_dirty = self.config_dirty = False
        bot_id = _settings_bot(url)
        if bot_id is None:
            return rx.redirect(url)
        if not self._known(bot_id):
            return rx.toast.error("That bot is gone (deleted since the page loaded)")
        return await self._show_settings(bot_id)

    def _open_config(self, bot_id: str) -> rx.event.EventSpec | None:
        try:
            with read_session() as session:
                endpoint = chat_service.get_chat_endpoint(session=session, bot_id=bot_id)
                config = bot_service.get_mcp_config(session=session, bot_id=bot_id)
                delivery = topic_service.get_topic_settings(session=session, bot_id=bot_id)
        except AppError as error:
            return rx.toast.error(error.message)
        self.fallback_policy, self.allow_images = delivery.fallback_policy, delivery.allow_remote_images
        self.publish_rate, self.dedupe_window = (
            str(delivery.publish_rate_per_minute),
            str(delivery.dedupe_window_seconds),
        )
        self.settings_error, self.settings_notice, self.settings_dirty = "", "", False
        self.chat_url, self.chat_key_set, self.chat_key_draft = endpoint.chat_url or "", endpoint.key_set, ""
        self.chat_error, self.chat_check, self.chat_check_ok = "", "", False
        self.chat_notice, self.chat_dirty = "", False
        self.config_bot_id = bot_id
        self.config_bot_name = next((bot.name for bot in self.bots if bot.id == bot_id), bot_id)
        self.config_error, self.config_notice, self.config_dirty = "", "", False
        self._set_servers(config.servers, show_secrets=self._is_admin())
        return None

    def _set_servers(self, servers: dict[str, Any], *, show_secrets: bool) -> None:
        entries = []
        masked = redact_secrets(servers)
        for name, entry in servers.items():
            entry = entry if isinstance(entry, dict) else {}
            shown = entry if show_secrets and name not in MANAGED_SERVERS else masked[name]
            timeout = entry.get("toolTimeout", entry.get("tool_timeout", 30))
            entries.append(
                ServerEntry(
                    name=name,
                    locked=name in MANAGED_SERVERS,
                    kind=str(entry.get("type") or ("stdio" if entry.get("command") else "")),
                    url=str(entry.get("url", "")),
                    tool_timeout=timeout if isinstance(timeout, int) else 30,
                    json_text=json.dumps(shown, indent=2, ensure_ascii=False),
                )
            )
        entries.sort(key=lambda e: (not e.locked, e.name))
        self.servers = entries

    @rx.event
    def set_locked_timeout(self, name: str, value: str) -> None:
        """The one field of a managed entry (topic_mcp, ccweb) a person may change."""
        try:
            timeout = int(value)
        except ValueError:
            self.config_error = "toolTimeout must be a whole number of seconds"
            return
        self.servers = [
            dataclasses.replace(s, tool_timeout=timeout) if s.locked and s.name == name else s for s in self.servers
        ]
        self.config_error = ""
        self._config_edited()

    def _config_edited(self) -> None:
        self.config_dirty, self.config_notice = True, ""

    @rx.event
    def set_server_json(self, name: str, text: str) -> None:
        self.servers = [dataclasses.replace(s, json_text=text) if s.name == name else s for s in self.servers]
        self._config_edited()

    @rx.event
    def remove_server(self, name: str) -> None:
        self.servers = [s for s in self.servers if s.name != name or s.locked]
        self._config_edited()

    @rx.event
    def add_server(self) -> None:
        taken = {s.name for s in self.servers}
        name = next(f"server_{n}" for n in range(1, 1000) if f"server_{n}" not in taken)
        template = {"type": "stdio", "command": "npx", "args": ["-y", "some-mcp-server"], "toolTimeout": 30}
        self.servers = [*self.servers, ServerEntry(name=name, kind="stdio", json_text=json.dumps(template, indent=2))]
        self._config_edited()

    @rx.event
    def rename_server(self, old: str, new: str) -> None:
        new = new.strip()
        if new == old:
            return
        if not new or any(s.name == new for s in self.servers):
            # two entries with one name would collapse into one on save, silently losing a server
            self.config_error = f"{old}: a server needs a name of its own" + (f"; {new!r} is taken" if new else "")
            return
        self.config_error = ""
        self.servers = [dataclasses.replace(s, name=new) if s.name == old and not s.locked else s for s in self.servers]
        self._config_edited()

    @rx.event
    @admin_only
    def save_config(self) -> rx.event.EventSpec | None:
        self.config_notice = ""  # a refused save must not leave the last "Saved" showing beside its error
        servers: dict[str, Any] = {}
        for entry in self.servers:
            if entry.locked:
                servers[entry.name] = {"toolTimeout": entry.tool_timeout}
                continue
            try:
                servers[entry.name] = json.loads(entry.json_text)
            except json.JSONDecodeError as exc:
                self.config_error = f"{entry.name}: not valid JSON (line {exc.lineno}): {exc.msg}"
                return None
        try:
            with write_session() as session:
                current = bot_service.get_mcp_config(session=session, bot_id=self.config_bot_id)
                for name in MANAGED_SERVERS:
                    if name in current.servers:
                        servers[name] = {
                            **dict(current.servers.get(name) or {}),
                            "toolTimeout": servers.get(name, {}).get("toolTimeout", 30),
                        }
                saved = bot_service.put_mcp_config(
                    session=session, bot_id=self.config_bot_id, servers=servers, actor=actor_of(self._principal())
                )
        except AppError as error:
            self.config_error = f"{error.field}: {error.message}" if error.field else error.message
            return None
        self.config_error, self.config_dirty = "", False
        self.config_notice = "Saved to config.json" + (" (the managed entries were put back)" if saved.restored else "")
        self._set_servers(saved.servers, show_secrets=True)
        return None

    # --- delivery settings ---------------------------------------------------------------------

    @rx.event
    def set_fallback_policy(self, value: str) -> None:
        self.fallback_policy = value
        self._settings_edited()

    @rx.event
    def set_publish_rate(self, value: str) -> None:
        self.publish_rate = value
        self._settings_edited()

    @rx.event
    def set_dedupe_window(self, value: str) -> None:
        self.dedupe_window = value
        self._settings_edited()

    @rx.event
    def set_allow_images(self, value: bool) -> None:
        self.allow_images = value
        self._settings_edited()

    def _settings_edited(self) -> None:
        self.settings_dirty, self.settings_notice = True, ""

    @rx.event
    @admin_only
    def save_settings(self) -> rx.event.EventSpec | None:
        self.settings_notice = ""  # a refused save must not leave the last "saved" beside its error
        try:
            rate, window = int(self.publish_rate), int(self.dedupe_window)
        except ValueError:
            self.settings_error = "publish rate and dedupe window are whole numbers"
            return None
        try:
            update = topic_service.TopicSettingsUpdate(
                fallback_policy=self.fallback_policy,
                publish_rate_per_minute=rate,
                dedupe_window_seconds=window,
                allow_remote_images=self.allow_images,
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"])
            # the box's own label, not the API's field name (a walkthrough read "publish_rate_per_minute: …")
            self.settings_error = f"{SETTING_LABELS.get(field, field)}: {str(first['msg']).lower()}"
            return None
        try:
            with write_session() as session:
                topic_service.update_topic_settings(
                    session=session, bot_id=self.config_bot_id, update=update, actor=actor_of(self._principal())
                )
        except AppError as error:
            self.settings_error = error.message
            return None
        self.settings_error, self.settings_dirty, self.settings_notice = "", False, "Delivery settings saved"
        self._load()
        return None
