"""All tables. Importing this package registers them on SQLModel.metadata (Alembic reads it)."""

from topic_dashboard.models._common import iso_utc, utcnow
from topic_dashboard.models.accounts import ApiToken, LoginSession, LoginThrottle, SetupToken, User
from topic_dashboard.models.audit import AlertEpisode, AlertRule, AlertSchedule, AuditHour, AuditLog, AuditRollup
from topic_dashboard.models.bots import Bot, TopicBotSettings
from topic_dashboard.models.conversations import ChatRun, Conversation, Message
from topic_dashboard.models.topics import ItemState, Topic, TopicCount, TopicItem, TopicRuleChange
from topic_dashboard.models.vectors import RuleVector

__all__ = [
    "AlertEpisode",
    "AlertRule",
    "AlertSchedule",
    "ApiToken",
    "AuditHour",
    "AuditLog",
    "AuditRollup",
    "Bot",
    "ChatRun",
    "Conversation",
    "ItemState",
    "LoginSession",
    "LoginThrottle",
    "Message",
    "RuleVector",
    "SetupToken",
    "Topic",
    "TopicBotSettings",
    "TopicCount",
    "TopicItem",
    "TopicRuleChange",
    "User",
    "iso_utc",
    "utcnow",
]
