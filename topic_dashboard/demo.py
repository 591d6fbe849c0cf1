"""A demo bot with topics from the templates and items of every view type (`topic-dashboard demo`)."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from topic_dashboard.rule_templates import BASE_TEMPLATE_KEYS, TEMPLATES
from topic_dashboard.services.bots import BotPublic, create_bot
from topic_dashboard.services.conversations import add_message, create_conversation, submit_guide_card
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicCreate, TopicSettingsUpdate, create_topic, update_topic_settings

DEMO_ITEMS: list[dict[str, Any]] = [
    {
        "topic_key": "alerts",
        "title": "api-gateway p99 latency above threshold",
        "level": "error",
        "tags": ["prod", "latency"],
        "content": "p99 latency is **2.4 s** (threshold 800 ms) for 10 minutes on `api-gateway`.\n\nRunbook: [latency](https://example.com/runbooks/latency)",
        "view": {
            "type": "timeline",
            "events": [
                {"time": "14:03", "title": "Alert fired", "detail": "p99 > 800 ms for 5 min", "level": "error"},
                {"time": "14:09", "title": "On-call paged", "detail": "alice acknowledged", "level": "warn"},
                {"time": "14:20", "title": "Rolled back to v1.3.2", "level": "success"},
            ],
        },
    },
    {
        "topic_key": "build_results",
        "title": "Build #1423 failed on main",
        "level": "error",
        "tags": ["ci", "main"],
        "content": "3 tests failed in `test_auth.py` after merging PR #128.",
        "view": {
            "type": "checklist",
            "title": "Pipeline #1423",
            "items": [
                {"text": "Lint", "done": True},
                {"text": "Unit tests", "done": False},
                {"text": "Deploy to staging", "done": False},
            ],
        },
    },
    {
        "topic_key": "finance_market",
        "title": "AAPL 财报超预期但指引下调",
        "level": "warn",
        "tags": ["AAPL", "财报"],
        "content": "盘后转跌 **-3.1%**，建议关注开盘波动。",
        "view": {
            "type": "table",
            "columns": ["Ticker", "Close", "Change %"],
            "rows": [["AAPL", 189.3, -3.1], ["MSFT", 411.1, 0.8], ["NVDA", 902.5, 1.9]],
            "caption": "NASDAQ close",
        },
    },
    {
        "topic_key": "alerts",
        "title": "Error rate back to normal",
        "level": "success",
        "tags": ["prod"],
        "content": "Checkout error rate recovered after the rollback.",
        "view": {
            "type": "metric",
            "label": "Error rate",
            "value": 0.4,
            "unit": "%",
            "delta": -11.6,
            "trend": "down",
            "caption": "vs. peak",
        },
    },
    {
        "topic_key": "build_results",
        "title": "PR #128 merged",
        "level": "success",
        "tags": ["ci"],
        "content": "api: add rate limiting",
        "view": {
            "type": "card",
            "title": "PR #128 merged",
            "subtitle": "api: add rate limiting",
            "body": "Merged by *alice* after 2 reviews.",
            "fields": [{"label": "Files", "value": 12}, {"label": "Branch", "value": "main"}],
            "link": {"label": "Open PR", "url": "https://example.com/pr/128"},
        },
    },
    {
        "topic_key": "research_notes",
        "title": "SQLite vs PostgreSQL for concurrent writers",
        "level": "info",
        "tags": ["db"],
        "content": "WAL mode with `BEGIN IMMEDIATE` makes SQLite queue writers instead of failing.",
        "view": {
            "type": "markdown",
            "text": "## Findings\n\n- WAL + `synchronous=NORMAL`: ~50× faster commits\n- Deferred transactions fail under contention\n\n| mode | rows/s |\n|---|---|\n| default | 1.5k |\n| WAL | 73k |",
        },
    },
    {
        "topic_key": "inbox",
        "title": "Weekly backup finished",
        "level": "info",
        "tags": ["backup"],
        "content": "All 14 volumes backed up; 1.2 TB in 38 minutes.",
    },
]


def seed_demo(*, session: Session, name: str = "Demo bot") -> tuple[BotPublic, str]:
    """Create a demo bot with the template topics and a few items. Returns the bot and its token."""
    bot, token = create_bot(session=session, name=name)
    for key in BASE_TEMPLATE_KEYS:  # one topic per subject (each also comes English- and Chinese-only)
        template = TEMPLATES[key]
        create_topic(
            session=session,
            bot_id=bot.bot_id,
            actor="demo",
            data=TopicCreate(
                topic_key=key,
                name=template["name"],
                description=template["description"],
                routing_json=template["routing"],
                view_schema_json={"allowed_types": []},
            ),
        )
    update_topic_settings(session=session, bot_id=bot.bot_id, update=TopicSettingsUpdate(publish_rate_per_minute=600))
    for entry in DEMO_ITEMS:
        publish_item(
            session=session, bot_id=bot.bot_id, request=PublishRequest(message_type="result", **entry), source="system"
        )
    _demo_conversation(session, bot.bot_id)
    return bot, token


def _demo_conversation(session: Session, bot_id: str) -> None:
    conversation = create_conversation(session=session, bot_id=bot_id, title="Weekly market summary")
    cid = conversation.conversation_id
    add_message(
        session=session,
        conversation_id=cid,
        role="user",
        content="Summarise this week's market moves for AAPL and MSFT, as a table.",
    )
    add_message(session=session, conversation_id=cid, role="assistant", content="Sure — one question first.")
    card = add_message(
        session=session,
        conversation_id=cid,
        role="assistant",
        content="A few details",
        kind="guide_card",
        guide_card={
            "title": "A few details",
            "fields": [
                {
                    "name": "period",
                    "label": "Period",
                    "type": "select",
                    "options": ["this week", "last 30 days"],
                    "required": True,
                },
                {"name": "notes", "label": "Anything else?", "type": "textarea"},
            ],
        },
    )
    submit_guide_card(
        session=session,
        conversation_id=cid,
        message_id=card.message_id,
        answers={"period": "this week", "notes": "include the close price"},
    )
    add_message(
        session=session, conversation_id=cid, role="tool", content='market_data(tickers=["AAPL","MSFT"]) → 10 rows'
    )
    add_message(session=session, conversation_id=cid, role="system", content="Result published to topic finance_market")
