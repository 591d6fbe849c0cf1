"""The Insights page's state: one bot or all, over 24 hours, 7 days or 12 weeks; every signed-in person
reads it (it changes nothing but the hourly rollup, which is derived data)."""

from __future__ import annotations

import dataclasses

import reflex as rx

from topic_dashboard.auth.guard import SignedInState
from topic_dashboard.components.bot_choice import BotOption, bot_choice
from topic_dashboard.db import read_session, write_session
from topic_dashboard.services import insights as insights_service

ALL = "all"
# Colours of the topics in the publishes chart, in order (the last one is "other").
SERIES_COLOURS = ("blue", "green", "amber", "purple", "cyan", "crimson", "gray")
DECISION_LABELS = {
    "published": "published",
    "updated": "updated in place",
    "deduplicated": "deduplicated",
    "skipped": "skipped (not for a topic)",
    "filtered": "filtered (progress, tool hints, chat)",
    "rate_limited": "rate-limited",
    "refused": "refused (other)",
    "errors": "errors",
}


@dataclasses.dataclass
class SeriesKey:
    key: str = ""
    colour: str = ""


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
    published: int = 0


@dataclasses.dataclass
class ToolLatency:
    tool: str = ""
    calls: int = 0
    p50: str = ""
    p95: str = ""


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

    @rx.event
    def load_page(self) -> None:
        wanted = self.router.url.query_parameters.get("bot", self.bot_id)  # type: ignore[attr-defined]
        self.bots, _ = bot_choice("", reader=self._principal().user_id)
        known = {bot.id for bot in self.bots}
        self.bot_id = wanted if wanted in known else ALL
        self._load()

    @rx.event
    def set_bot(self, value: str) -> None:
        self.bot_id = value if value in {bot.id for bot in self.bots} else ALL
        self._load()

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
        names = {bot.id: bot.name for bot in self.bots}
        self.series = seen.series
        self.series_keys = [
            SeriesKey(key=key, colour=SERIES_COLOURS[-1] if key == "other" else SERIES_COLOURS[i % 6])
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
                published=row["published"],
            )
            for row in seen.hottest
        ]
        self.latency = [
            ToolLatency(tool=row["tool"], calls=row["calls"], p50=_ms(row["p50_ms"]), p95=_ms(row["p95_ms"]))
            for row in seen.latency
            if row["tool"] != "*"
        ]
