"""Alerts that fire once: thresholds admins set, checked on a schedule in the backend.

A rule is one of KINDS, for one bot or for every bot. Each check measures every rule for every bot it
covers (from audit_log: the last `window_minutes`); a crossing opens an episode and publishes one
system item into the bot's fallback topic, and while it stays crossed nothing more is published; when
a later check finds it clear, the episode ends with one recovery item. At most one open episode per
rule and bot exists (a partial unique index), so two evaluators cannot publish twice. The schedule
lives in the database (`alert_schedule.last_run_at`): a restarted dashboard goes on from it, and of
several workers only the one that claims a run (its row locked) checks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from pydantic import BaseModel
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from topic_dashboard.errors import AppError
from topic_dashboard.models import AlertEpisode, AlertRule, AlertSchedule, AuditLog, Bot, Topic, iso_utc, utcnow
from topic_dashboard.services.audit import Actor, failed_call, record
from topic_dashboard.services.periodic import PeriodicTask

logger = logging.getLogger(__name__)

KINDS: dict[str, str] = {
    "failure_rate": "failure rate over {threshold:g}% in {window} minutes",
    "topic_volume": "{topic} over {threshold:g} items per hour",
    "silence": "silent for {threshold:g} hour{s}",
    "fallback_share": "over {threshold:g}% of results in the fallback topic in {window} minutes",
}
THRESHOLD_LIMITS = {
    "failure_rate": (0, 100),
    "topic_volume": (1, 1_000_000),
    "silence": (1, 24 * 90),
    "fallback_share": (0, 100),
}
WINDOW_LIMITS = (5, 7 * 24 * 60)
# A rate over fewer calls or results than this says nothing yet: the episode neither opens nor closes.
MIN_SAMPLE = 5
EVALUATOR = Actor("system", "alerts")
DEFAULT_INTERVAL_SECONDS = 60.0


class AlertRulePublic(BaseModel):
    id: int
    bot_id: str | None
    kind: str
    threshold: float
    window_minutes: int
    topic_key: str | None
    is_active: bool
    description: str
    created_by: str


class OpenAlertPublic(BaseModel):
    """An alert going on now, for the banner."""

    episode_id: int
    rule_id: int
    bot_id: str
    bot_name: str
    description: str
    value: float
    started_at: str
    item_id: int | None


@dataclass
class CheckResult:
    ran: bool
    opened: int = 0
    cleared: int = 0


def describe(rule: AlertRule) -> str:
    topic = f"topic {rule.topic_key!r}" if rule.topic_key else "a topic"
    plural = "" if rule.threshold == 1 else "s"
    return KINDS[rule.kind].format(threshold=rule.threshold, window=rule.window_minutes, topic=topic, s=plural)


def _public(rule: AlertRule) -> AlertRulePublic:
    return AlertRulePublic(
        id=rule.id or 0,
        bot_id=rule.bot_id,
        kind=rule.kind,
        threshold=rule.threshold,
        window_minutes=rule.window_minutes,
        topic_key=rule.topic_key,
        is_active=rule.is_active,
        description=describe(rule),
        created_by=rule.created_by,
    )


def create_rule(
    *,
    session: Session,
    kind: str,
    threshold: float,
    window_minutes: int = 60,
    bot_id: str | None = None,
    topic_key: str | None = None,
    actor: Actor,
) -> AlertRulePublic:
    """Add a threshold (audited). Raises validation_error, bot_not_found."""
    if kind not in KINDS:
        raise AppError("validation_error", f"kind must be one of {', '.join(KINDS)}", field="kind")
    low, high = THRESHOLD_LIMITS[kind]
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not low <= float(threshold) <= high:
        raise AppError("validation_error", f"threshold: a number from {low} to {high}", field="threshold")
    if (
        isinstance(window_minutes, bool)
        or not isinstance(window_minutes, int)
        or not (WINDOW_LIMITS[0] <= window_minutes <= WINDOW_LIMITS[1])
    ):
        raise AppError(
            "validation_error", f"window: {WINDOW_LIMITS[0]} to {WINDOW_LIMITS[1]} minutes", field="window_minutes"
        )
    if bot_id is not None and session.get(Bot, bot_id) is None:
        raise AppError("bot_not_found", f"no bot with id {bot_id!r}", field="bot_id")
    topic_key = (topic_key or "").strip() or None
    if topic_key is not None and (kind != "topic_volume" or len(topic_key) > 64):
        raise AppError(
            "validation_error", "a topic is named only for a topic_volume alert (1-64 characters)", field="topic_key"
        )
    rule = AlertRule(
        bot_id=bot_id,
        kind=kind,
        threshold=float(threshold),
        window_minutes=60 if kind in ("topic_volume", "silence") else window_minutes,
        topic_key=topic_key,
        created_by=actor.name[:100],
    )
    session.add(rule)
    session.flush()
    detail = {"kind": kind, "threshold": rule.threshold, "window_minutes": rule.window_minutes, "topic_key": topic_key}
    record(session=session, by=actor, action="alert.create", target=f"alert:{rule.id}", bot_id=bot_id, detail=detail)
    session.commit()
    return _public(rule)


def delete_rule(*, session: Session, rule_id: int, actor: Actor) -> None:
    """Remove a threshold and its episodes (audited). Raises not_found."""
    rule = session.get(AlertRule, rule_id)
    if rule is None:
        raise AppError("not_found", f"no alert with id {rule_id}")
    record(
        session=session,
        by=actor,
        action="alert.delete",
        target=f"alert:{rule_id}",
        bot_id=rule.bot_id,
        detail={"description": describe(rule)},
    )
    session.exec(sa.delete(AlertEpisode).where(col(AlertEpisode.rule_id) == rule_id))
    session.delete(rule)
    session.commit()


def list_rules(*, session: Session) -> list[AlertRulePublic]:
    return [_public(rule) for rule in session.exec(select(AlertRule).order_by(col(AlertRule.id)))]


def open_alerts(*, session: Session) -> list[OpenAlertPublic]:
    """Every episode going on now, newest first."""
    query = (
        select(AlertEpisode, AlertRule, Bot.name)
        .join(AlertRule, col(AlertRule.id) == col(AlertEpisode.rule_id))
        .join(Bot, col(Bot.id) == col(AlertEpisode.bot_id))
        .where(col(AlertEpisode.ended_at).is_(None))
        .order_by(col(AlertEpisode.id).desc())
    )
    return [
        OpenAlertPublic(
            episode_id=episode.id or 0,
            rule_id=rule.id or 0,
            bot_id=episode.bot_id,
            bot_name=name,
            description=describe(rule),
            value=episode.value,
            started_at=iso_utc(episode.started_at) or "",
            item_id=episode.item_id,
        )
        for episode, rule, name in session.exec(query)
    ]


# --- measuring ----------------------------------------------------------------------------------------


def _bot_calls(bot_id: str, since: datetime) -> list[sa.ColumnElement[bool]]:
    return [col(AuditLog.bot_id) == bot_id, col(AuditLog.actor_kind) == "bot", col(AuditLog.created_at) >= since]


def measure(*, session: Session, rule: AlertRule, bot_id: str, now: datetime) -> float | None:
    """The rule's value for one bot now (a percentage, items per hour or hours), or None when there is
    too little to say (fewer than MIN_SAMPLE calls or results in the window)."""
    since = now - timedelta(minutes=rule.window_minutes)
    outcome = col(AuditLog.outcome)
    if rule.kind == "failure_rate":
        calls = sa.func.sum(sa.case((outcome == "suppressed", sa.func.coalesce(col(AuditLog.item_id), 1)), else_=1))
        failed = sa.func.sum(
            sa.case(
                (outcome == "suppressed", sa.func.coalesce(col(AuditLog.item_id), 1)),
                (failed_call(outcome, col(AuditLog.error_code)), 1),
                else_=0,
            )
        )
        total, bad = session.exec(select(calls, failed).where(*_bot_calls(bot_id, since))).one()
        return None if not total or total < MIN_SAMPLE else 100.0 * float(bad or 0) / float(total)
    published = [*_bot_calls(bot_id, since), col(AuditLog.tool) == "topic_publish", outcome.in_(("ok", "updated"))]
    if rule.kind == "topic_volume":
        query = select(sa.func.count()).where(*published)
        if rule.topic_key:
            query = query.where(col(AuditLog.topic_key) == rule.topic_key)
            return float(session.exec(query).one())
        per_topic = session.exec(select(sa.func.count()).where(*published).group_by(col(AuditLog.topic_key))).all()
        return float(max(per_topic, default=0))
    if rule.kind == "fallback_share":
        fallback = session.exec(
            select(Topic.topic_key).where(Topic.bot_id == bot_id, col(Topic.is_default_fallback).is_(True))
        ).first()
        total = session.exec(select(sa.func.count()).where(*published)).one()
        if total < MIN_SAMPLE or fallback is None:
            return None
        landed = session.exec(select(sa.func.count()).where(*published, col(AuditLog.topic_key) == fallback)).one()
        return 100.0 * landed / total
    # silence: hours since the bot's last tool call (or since it was made, when it never called)
    last = session.exec(
        select(sa.func.max(AuditLog.created_at)).where(
            col(AuditLog.bot_id) == bot_id, col(AuditLog.actor_kind) == "bot"
        )
    ).one()
    if last is None:
        bot = session.get(Bot, bot_id)
        last = bot.created_at if bot is not None else now
    if last.tzinfo is None:
        last = last.replace(tzinfo=now.tzinfo)
    return max(0.0, (now - last).total_seconds() / 3600)


def _crossed(rule: AlertRule, value: float) -> bool:
    return value >= rule.threshold if rule.kind == "silence" else value > rule.threshold


# --- checking -----------------------------------------------------------------------------------------


def has_active_rules(*, session: Session) -> bool:
    return session.exec(select(AlertRule.id).where(col(AlertRule.is_active).is_(True)).limit(1)).first() is not None


def claim_run(*, session: Session, now: datetime, interval_seconds: float) -> bool:
    """Take this run of the schedule (commits), or False when another worker ran it less than an
    interval ago. The row lock makes the claim one worker's."""
    schedule = session.exec(select(AlertSchedule).where(AlertSchedule.id == 1).with_for_update()).first()
    if schedule is None:
        schedule = AlertSchedule(id=1)
    last = schedule.last_run_at
    if last is not None and now - last < timedelta(seconds=interval_seconds * 0.9):
        session.rollback()
        return False
    schedule.last_run_at = now
    session.add(schedule)
    session.commit()
    return True


def check_alerts(
    *, session: Session, now: datetime | None = None, interval_seconds: float = DEFAULT_INTERVAL_SECONDS
) -> CheckResult:
    """One scheduled check of every active rule for every bot it covers (see the module's docstring)."""
    now = now or utcnow()
    if not claim_run(session=session, now=now, interval_seconds=interval_seconds):
        return CheckResult(ran=False)
    result = CheckResult(ran=True)
    rules = list(session.exec(select(AlertRule).where(col(AlertRule.is_active).is_(True))))
    every_bot = [bot_id for bot_id in session.exec(select(Bot.id))]
    for rule in rules:
        for bot_id in [rule.bot_id] if rule.bot_id else every_bot:
            value = measure(session=session, rule=rule, bot_id=bot_id, now=now)
            episode = session.exec(
                select(AlertEpisode).where(
                    AlertEpisode.rule_id == rule.id, AlertEpisode.bot_id == bot_id, col(AlertEpisode.ended_at).is_(None)
                )
            ).first()
            if value is None:
                continue
            if _crossed(rule, value) and episode is None:
                result.opened += _open(session, rule, bot_id, value, now)
            elif not _crossed(rule, value) and episode is not None:
                result.cleared += _clear(session, rule, episode, value, now)
    session.commit()
    return result


def _open(session: Session, rule: AlertRule, bot_id: str, value: float, now: datetime) -> int:
    episode = AlertEpisode(rule_id=rule.id or 0, bot_id=bot_id, value=round(value, 2), started_at=now)
    session.add(episode)
    try:
        session.flush()  # the partial unique index: another evaluator opened it first
    except IntegrityError:
        session.rollback()
        return 0
    detail = {"rule": describe(rule), "value": round(value, 2)}
    record(session=session, by=EVALUATOR, action="alert.open", target=f"alert:{rule.id}", bot_id=bot_id, detail=detail)
    session.commit()
    episode.item_id = _publish(
        session,
        bot_id,
        title=f"Alert: {describe(rule)}",
        content=f"**{_value_text(rule, value)}** since {now:%Y-%m-%d %H:%M} UTC. "
        "A recovery note follows here when it clears.",
        level="error" if rule.kind == "failure_rate" else "warn",
        key=f"alert-{rule.id}-{bot_id}-{episode.id}",
    )
    session.add(episode)
    session.commit()
    return 1


def _clear(session: Session, rule: AlertRule, episode: AlertEpisode, value: float, now: datetime) -> int:
    episode.ended_at = now
    session.add(episode)
    detail = {"rule": describe(rule), "value": round(value, 2)}
    record(
        session=session,
        by=EVALUATOR,
        action="alert.clear",
        target=f"alert:{rule.id}",
        bot_id=episode.bot_id,
        detail=detail,
    )
    session.commit()
    lasted = now - episode.started_at
    episode.recovery_item_id = _publish(
        session,
        episode.bot_id,
        title=f"Recovered: {describe(rule)}",
        content=f"Back to **{_value_text(rule, value)}** after {_minutes(lasted)}.",
        level="success",
        key=f"alert-{rule.id}-{episode.bot_id}-{episode.id}-clear",
    )
    session.add(episode)
    session.commit()
    return 1


def _minutes(lasted: timedelta) -> str:
    minutes = int(lasted.total_seconds() // 60)
    return "1 minute" if minutes == 1 else f"{minutes} minutes"


def _value_text(rule: AlertRule, value: float) -> str:
    if rule.kind in ("failure_rate", "fallback_share"):
        return f"{value:.1f}%"
    if rule.kind == "topic_volume":
        return f"{value:g} items in the last hour"
    return f"no tool call for {value:.1f} hours"


def _publish(session: Session, bot_id: str, *, title: str, content: str, level: str, key: str) -> int | None:
    """One system item in the bot's fallback topic; None when it cannot be stored (e.g. Topic Enabled off)."""
    from topic_dashboard.services.publishing import PublishRequest, publish_item  # publishing imports audit

    fallback = session.exec(
        select(Topic.topic_key).where(Topic.bot_id == bot_id, col(Topic.is_default_fallback).is_(True))
    ).first()
    request = PublishRequest(
        topic_key=fallback, title=title, content=content, level=level, tags=["alert"], dedupe_key=key
    )
    try:
        return publish_item(session=session, bot_id=bot_id, request=request, source="system").item_id
    except AppError as error:
        session.rollback()
        logger.warning("alerts: the alert item for bot %s was not stored: %s", bot_id, error.code)
        return None


class AlertEvaluator(PeriodicTask):
    """Runs `check_alerts` every `interval` seconds on a daemon thread, in every worker; the schedule in
    the database lets one of them check per interval."""

    def __init__(
        self,
        sessions: Callable[[], AbstractContextManager[Session]],
        interval: float,
        enabled: Callable[[], bool] = lambda: True,
        readers: Callable[[], AbstractContextManager[Session]] | None = None,
    ) -> None:
        """`enabled` is asked before each check (the app passes its `alert_checks` setting); `readers`
        opens the read session that looks for active rules first (an idle dashboard without alerts
        then never takes SQLite's write lock)."""
        super().__init__(interval, name="alert-evaluator")
        self.sessions = sessions
        self.readers = readers or sessions
        self._enabled = enabled

    def run_once(self) -> None:
        if not self._enabled():
            return
        with self.readers() as reader:
            if not has_active_rules(session=reader):
                return
        with self.sessions() as session:
            check_alerts(session=session, interval_seconds=self.interval)
