"""The Insights page's state: one bot or all, over 24 hours, 7 days or 12 weeks; every signed-in person
reads it (it changes nothing but the hourly rollup, which is derived data)."""

from __future__ import annotations

import dataclasses
from urllib.parse import urlencode

import reflex as rx

from topic_dashboard.auth.guard import SignedInState, admin_only
from topic_dashboard.components.address_bar import set_address
from topic_dashboard.components.bot_choice import BotOption
from topic_dashboard.components.last_bot import land_on_bot, remember_bot
from topic_dashboard.db import read_session, write_session
from topic_dashboard.errors import AppError
from topic_dashboard.services import alerts as alert_service
from topic_dashboard.services import insights as insights_service
from topic_dashboard.services import topics as topic_service
from topic_dashboard.services.audit import actor_of

ALL = "all"
# Colours of the topics in the publishes chart, in order (the last one is "other").
SERIES_COLOURS = ("blue", "green", "amber", "purple", "cyan", "crimson", "gray")
DECISION_LABELS = {
    "published": "published",
    "updated": "updated in place",
    "deduplicated": "deduplicated",
    "skipped": "skipped (not for a topic)",
    "filtered": "filtered (progress, tool hints, chat, small talk)",
    "rate_limited": "rate-limited",
    "refused": "refused (other)",
    "errors": "errors",
}


@dataclasses.dataclass
class SeriesKey:
    key: str = ""
    colour: str = ""
    label: str = ""  # the topic's name ("other" for the rest)


@dataclasses.dataclass
class BotFailure:
    bot_id: str = ""
    name: str = ""
    calls: int = 0
    failed: int = 0
    rate: str = ""  # "12.5%"
    rate_value: float = 0.0


@dataclasses.dataclass
class HotTopic:
    bot_id: str = ""
    bot_name: str = ""
    topic_key: str = ""
    topic_name: str = ""
    published: int = 0


@dataclasses.dataclass
class ToolLatency:
    tool: str = ""
    calls: int = 0
    p50: str = ""
    p95: str = ""


@dataclasses.dataclass
class AlertRuleRow:
    id: int = 0
    bot_name: str = ""  # "All bots" for a rule over every bot
    description: str = ""
    going_on: int = 0  # open episodes


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f} ms"


class InsightsState(SignedInState):
    bots: list[BotOption] = []
    bot_id: str = ALL
    range_key: str = "24h"
    series: list[dict[str, str | int]] = []
    series_keys: list[SeriesKey] = []
    decisions: list[dict[str, str | int]] = []
    published: int = 0
    decided: int = 0
    fallback_share: str = "0%"
    fallback_count: int = 0
    failure_rate: str = "0%"
    failures: list[BotFailure] = []
    hottest: list[HotTopic] = []
    latency: list[ToolLatency] = []
    # alerts: thresholds (admins set them; everyone sees them)
    can_edit: bool = False
    alert_rules: list[AlertRuleRow] = []
    new_alert_kind: str = "failure_rate"
    new_alert_bot: str = ALL
    new_alert_threshold: str = "20"
    new_alert_window: str = "30"
    new_alert_topic: str = ""
    alert_error: str = ""

    @rx.event
    async def load_page(self) -> None:
        """on_load: the bot the address names (`all`: every bot), else the one this person last chose, else
        every bot: an overview is not narrowed to a bot nobody chose (`land_on_bot` without its fallback)."""
        wanted = self.router.url.query_parameters.get("bot", "")
        self.bots, chosen = await land_on_bot(self, "" if wanted == ALL else wanted, fallback=False)
        self.bot_id = chosen if chosen and wanted != ALL else ALL
        self.can_edit = self._is_admin()
        self._load()
        self._load_alerts()

    @rx.event
    async def set_bot(self, value: str) -> rx.event.EventSpec:
        """One bot (the person's choice from now on, on the other pages too) or all; the address says which."""
        self.bot_id = value if isinstance(value, str) and value in {bot.id for bot in self.bots} else ALL
        if self.bot_id != ALL:
            await remember_bot(self, self.bot_id)
        self._load()
        return set_address("/insights?" + urlencode({"bot": self.bot_id}), push=False)

    @rx.event
    def set_range(self, value: str | list[str]) -> None:
        value = value[0] if isinstance(value, list) and value else value
        self.range_key = value if isinstance(value, str) and value in insights_service.RANGES else "24h"
        self._load()

    @rx.event
    def refresh(self) -> None:
        self._load()

    def _load(self) -> None:
        with read_session() as session:
            due = insights_service.needs_roll_up(session=session)
        if due:
            with write_session() as session:
                insights_service.roll_up(session=session)
        scope = None if self.bot_id == ALL else [self.bot_id]
        with read_session() as session:
            seen = insights_service.insights(session=session, bot_ids=scope, range_key=self.range_key)
            # The legend names topics as the panel does, not by key (a walkthrough read "deploys"); across bots
            # one key is one series, named by the first bot's topic of that key.
            # A hot topic is one bot's: named by that bot's topic.
            per_bot = topic_service.topic_names_per_bot(session=session, bot_ids=scope or [bot.id for bot in self.bots])
        topic_names = topic_service.names_by_key(per_bot)
        names = {bot.id: bot.name for bot in self.bots}
        self.series = seen.series
        self.series_keys = [
            SeriesKey(
                key=key,
                colour=SERIES_COLOURS[-1] if key == "other" else SERIES_COLOURS[i % 6],
                label=topic_names.get(key, key),
            )
            for i, key in enumerate(seen.series_keys)
        ]
        self.decisions = [
            {"decision": DECISION_LABELS[key], "key": key, "count": count} for key, count in seen.decisions.items()
        ]
        self.published = seen.published
        self.decided = sum(seen.decisions.values())
        self.fallback_count = seen.fallback
        self.fallback_share = f"{seen.fallback_share:.0%}"
        calls = sum(row["calls"] for row in seen.bots)
        failed = sum(row["failed"] for row in seen.bots)
        self.failure_rate = f"{failed / calls:.1%}" if calls else "0%"
        self.failures = [
            BotFailure(
                bot_id=row["bot_id"],
                name=names.get(row["bot_id"], row["bot_id"]),
                calls=row["calls"],
                failed=row["failed"],
                rate=f"{row['failure_rate']:.1%}",
                rate_value=round(row["failure_rate"] * 100, 1),
            )
            for row in seen.bots
        ]
        self.hottest = [
            HotTopic(
                bot_id=row["bot_id"],
                bot_name=names.get(row["bot_id"], row["bot_id"]),
                topic_key=row["topic_key"],
                topic_name=per_bot.get((row["bot_id"], row["topic_key"]), row["topic_key"]),
                published=row["published"],
            )
            for row in seen.hottest
        ]
        self.latency = [
            ToolLatency(tool=row["tool"], calls=row["calls"], p50=_ms(row["p50_ms"]), p95=_ms(row["p95_ms"]))
            for row in seen.latency
            if row["tool"] != "*"
        ]

    # --- alerts -------------------------------------------------------------------------------------

    def _load_alerts(self) -> None:
        names = {bot.id: bot.name for bot in self.bots}
        with read_session() as session:
            rules = alert_service.list_rules(session=session)
            going_on = alert_service.open_alerts(session=session)
        open_by_rule: dict[int, int] = {}
        for alert in going_on:
            open_by_rule[alert.rule_id] = open_by_rule.get(alert.rule_id, 0) + 1
        self.alert_rules = [
            AlertRuleRow(
                id=rule.id,
                bot_name=names.get(rule.bot_id, rule.bot_id) if rule.bot_id else "All bots",
                description=rule.description,
                going_on=open_by_rule.get(rule.id, 0),
            )
            for rule in rules
        ]

    @rx.event
    def set_new_alert_kind(self, value: str) -> None:
        self.new_alert_kind = value if value in alert_service.KINDS else "failure_rate"
        self.alert_error = ""

    @rx.event
    def set_new_alert_bot(self, value: str) -> None:
        self.new_alert_bot = value

    @rx.event
    def set_new_alert_threshold(self, value: str) -> None:
        self.new_alert_threshold = value[:12]
        self.alert_error = ""

    @rx.event
    def set_new_alert_window(self, value: str) -> None:
        self.new_alert_window = value[:6]
        self.alert_error = ""

    @rx.event
    def set_new_alert_topic(self, value: str) -> None:
        self.new_alert_topic = value[:64]

    @rx.event
    @admin_only
    def create_alert(self) -> rx.event.EventSpec | None:
        try:
            threshold = float(self.new_alert_threshold.strip())
            window = int(self.new_alert_window.strip() or "60")
        except ValueError:
            self.alert_error = "the threshold is a number and the window whole minutes"
            return None
        try:
            with write_session() as session:
                created = alert_service.create_rule(
                    session=session,
                    kind=self.new_alert_kind,
                    threshold=threshold,
                    window_minutes=window,
                    bot_id=None if self.new_alert_bot == ALL else self.new_alert_bot,
                    topic_key=self.new_alert_topic if self.new_alert_kind == "topic_volume" else None,
                    actor=actor_of(self._principal()),
                )
        except AppError as error:
            self.alert_error = error.message
            return None
        self.alert_error = ""
        self._load_alerts()
        return rx.toast.success(f"Alert set: {created.description}")

    @rx.event
    @admin_only
    def delete_alert(self, rule_id: int) -> rx.event.EventSpec | None:
        try:
            with write_session() as session:
                alert_service.delete_rule(session=session, rule_id=int(rule_id), actor=actor_of(self._principal()))
        except (AppError, ValueError, TypeError) as error:
            return rx.toast.error(error.message if isinstance(error, AppError) else "no such alert")
        self._load_alerts()
        return rx.toast.success("Alert removed")
