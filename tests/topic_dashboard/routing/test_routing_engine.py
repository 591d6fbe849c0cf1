"""route_message: filters, each rule field, priority, fallback policies, CJK and English."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from topic_dashboard.errors import AppError
from topic_dashboard.routing import (
    CompiledRules,
    RouteDecision,
    RouteRequest,
    TopicSpec,
    compile_rules,
    route_message,
)

FINANCE = {
    "purpose": "沉淀与金融市场相关的关键结论和告警，便于用户集中查看。",
    "include_when": [
        "内容涉及股票/指数/外汇/利率/宏观数据/财报",
        "包含明确数值、时间点、事件影响判断",
        "属于'可执行建议'或'风险提示'",
    ],
    "exclude_when": ["纯寒暄或无结论聊天", "与金融无关的任务进度", "重复内容且dedupe_key命中窗口"],
    "examples": {
        "positive": [
            "美联储议息后，10Y美债收益率上行20bp，成长股承压",
            "AAPL财报超预期但指引下调，盘后转跌，建议关注开盘波动",
        ],
        "negative": ["我已经开始处理你的请求", "文件上传成功"],
    },
    "priority": 80,
    "fallback_topic_key": "inbox",
}
BUILDS = {
    "include_when": ["Build, test or deploy results from CI pipelines"],
    "exclude_when": ["local developer machine errors"],
    "examples": {"positive": ["Build #1423 failed on main: 3 tests failed"], "negative": ["Starting the build now"]},
    "priority": 60,
}
ALERTS = {
    "include_when": ["服务宕机、错误率或延迟异常", "Production outage or error spikes"],
    "exclude_when": ["告警已恢复的通知"],
    "examples": {"positive": ["[P1] payment-api 5xx 错误率 18%"], "negative": ["这是一次告警演练，请忽略"]},
    "priority": 90,
}


def topics(**extra: TopicSpec) -> list[TopicSpec]:
    base = {
        "finance_market": TopicSpec("finance_market", "金融市场", routing=FINANCE),
        "builds": TopicSpec("builds", "Builds", routing=BUILDS),
        "alerts": TopicSpec("alerts", "告警", routing=ALERTS),
        "inbox": TopicSpec("inbox", "Inbox", is_default_fallback=True),
    }
    base.update(extra)
    return list(base.values())


@pytest.fixture(scope="module")
def compiled() -> CompiledRules:
    return compile_rules(topics())


def route(
    compiled: CompiledRules, content: str, *, enabled: bool = True, policy: str = "inbox", **fields: Any
) -> RouteDecision:
    return route_message(
        compiled, RouteRequest(content=content, **fields), topic_enabled=enabled, fallback_policy=policy
    )  # type: ignore[arg-type]


MARKET = "沪深300 今日收涨 1.3%，北向资金净流入 56 亿元，券商板块领涨。"


def test_topic_switch_off_never_publishes(compiled: CompiledRules) -> None:
    d = route(compiled, MARKET, enabled=False)
    assert (d.should_publish, d.topic_key, d.filtered) == (False, None, "topic_disabled")


@pytest.mark.parametrize("message_type", ["progress", "tool_hint", "tool-hint", "PROGRESS"])
def test_progress_and_tool_hint_streams_are_filtered_whatever_they_say(
    compiled: CompiledRules, message_type: str
) -> None:
    d = route(compiled, MARKET, message_type=message_type)
    assert d.should_publish is False
    assert d.filtered == message_type.lower().replace("-", "_")


@pytest.mark.parametrize("message_type", [None, "result", "something-new"])
def test_other_message_types_are_no_signal(compiled: CompiledRules, message_type: str | None) -> None:
    assert route(compiled, MARKET, message_type=message_type).topic_key == "finance_market"


@pytest.mark.parametrize("message_type", ["chat", "Chat", " chat "])
def test_a_bot_that_says_chat_is_not_published(compiled: CompiledRules, message_type: str) -> None:
    """A bot that labels its message chat is telling us it is conversation, whatever its words."""
    d = route(compiled, MARKET, message_type=message_type)
    assert (d.should_publish, d.topic_key, d.filtered) == (False, None, "chat")


@pytest.mark.parametrize(
    "content",
    [
        "我已经开始处理你的请求",
        "文件上传成功",
        "OK, working on it",
        "正在搜索…",
        "正在分析 AAPL 最近四个季度的财报，请稍候…",
        'web_search("美联储 议息")',
    ],
)
def test_content_that_is_only_noise_is_not_published(compiled: CompiledRules, content: str) -> None:
    d = route(compiled, content)
    assert (d.should_publish, d.filtered) == (False, "noise")


def test_a_question_back_to_the_user_is_kept_in_the_chat_and_says_so(compiled: CompiledRules) -> None:
    """Even when it names a topic's subject: "which index" is about markets, but it asks, it reports nothing."""
    d = route(compiled, "想确认一下：您说的是沪深300还是中证500指数？")
    assert (d.should_publish, d.filtered) == (False, "noise")
    assert "asks the user something back" in d.reason
    answered = route(compiled, "沪深300 今日收涨 1.2%，中证500 跌 0.3%。要不要我再看看成交量？")
    assert (answered.should_publish, answered.topic_key) == (True, "finance_market")


def test_include_when_alternatives_route_chinese_without_spaces(compiled: CompiledRules) -> None:
    d = route(compiled, MARKET)
    assert (d.should_publish, d.topic_key, d.fallback) == (True, "finance_market", False)
    assert "include_when[0]" in d.reason and "指数" in d.reason
    assert 0.0 <= d.confidence <= 1.0


def test_english_message_meets_chinese_rules_through_concepts(compiled: CompiledRules) -> None:
    d = route(compiled, "Nasdaq closed down 2.1% as 10-year Treasury yields jumped to 4.6%.")
    assert d.topic_key == "finance_market"


def test_english_matching_is_case_and_inflection_tolerant(compiled: CompiledRules) -> None:
    assert route(compiled, "BUILDS FAILED: 4 TESTS FAILING ON MAIN").topic_key == "builds"
    assert route(compiled, "Deployed v3.14 to staging; smoke test passed").topic_key == "builds"


def test_positive_example_alone_can_decide() -> None:
    compiled = compile_rules(
        [
            TopicSpec(
                "reading",
                "Reading",
                routing={"examples": {"positive": ["读书笔记《置身事内》：地方财政与土地金融的关系"]}},
            ),
            TopicSpec("inbox", "Inbox", is_default_fallback=True),
        ]
    )
    d = route(compiled, "读书笔记：《置身事内》第三章讲土地金融")
    assert d.topic_key == "reading" and "examples.positive[0]" in d.reason


def test_exclude_when_vetoes_and_the_message_falls_back(compiled: CompiledRules) -> None:
    d = route(compiled, "告警已恢复的通知：payment-api 5xx 错误率回落到 0.1%")
    alerts = next(c for c in d.candidates if c.topic_key == "alerts")
    assert alerts.vetoed_by is not None and "exclude_when[0]" in alerts.vetoed_by
    assert (d.topic_key, d.fallback) == ("inbox", True)
    assert "vetoed" in d.reason


def test_close_negative_example_vetoes(compiled: CompiledRules) -> None:
    d = route(compiled, "这是一次告警演练，请忽略：payment-api 5xx 错误率 18%")
    alerts = next(c for c in d.candidates if c.topic_key == "alerts")
    assert alerts.vetoed_by is not None and "examples.negative[0]" in alerts.vetoed_by
    assert d.topic_key != "alerts"


def test_negated_exclude_does_not_veto_on_the_negated_subject(compiled: CompiledRules) -> None:
    # "与金融无关的任务进度" must not veto a finance message for mentioning 金融
    d = route(compiled, "金融市场周报：美元指数走强 0.6%，10 年期美债收益率升至 4.6%")
    assert d.topic_key == "finance_market"


def test_priority_settles_a_real_conflict(compiled: CompiledRules) -> None:
    d = route(compiled, "交易系统故障：行情服务宕机 12 分钟，期间股票报价停止更新，错误率 30%")
    assert d.topic_key == "alerts"
    assert "priority 90 over finance_market (80)" in d.reason


def test_incidental_word_does_not_win_by_priority(compiled: CompiledRules) -> None:
    d = route(compiled, "Build #88 failed on main: 12 tests failed, p99 latency of the test suite doubled")
    assert d.topic_key == "builds"


def test_same_priority_goes_to_the_higher_score() -> None:
    a = {"include_when": ["股票/指数"], "priority": 50}
    b = {"include_when": ["股票"], "priority": 50}
    compiled = compile_rules([TopicSpec("a", "A", routing=a), TopicSpec("b", "B", routing=b)])
    d = route(compiled, "指数大涨，股票普涨")
    assert d.topic_key == "a"


def test_fallback_under_inbox_and_skip(compiled: CompiledRules) -> None:
    text = "Here is the draft email to the landlord asking to fix the heating before November."
    inbox = route(compiled, text, policy="inbox")
    assert (inbox.should_publish, inbox.topic_key, inbox.fallback) == (True, "inbox", True)
    skip = route(compiled, text, policy="skip")
    assert (skip.should_publish, skip.topic_key, skip.fallback, skip.filtered) == (False, None, True, None)


def test_policy_only_matters_when_nothing_matches(compiled: CompiledRules) -> None:
    assert route(compiled, MARKET, policy="skip").topic_key == "finance_market"


def test_near_miss_topic_fallback_key_redirects_the_fallback() -> None:
    rules = {**ALERTS, "fallback_topic_key": "ops_log"}
    compiled = compile_rules(
        topics(alerts=TopicSpec("alerts", "告警", routing=rules), ops_log=TopicSpec("ops_log", "Ops log"))
    )
    d = route(compiled, "告警已恢复的通知：payment-api 5xx 错误率回落到 0.1%")
    assert (d.topic_key, d.fallback) == ("ops_log", True)
    assert "sent to ops_log (the fallback the closest topic, alerts, names (its fallback_topic_key))" in d.reason


def test_a_near_miss_topic_naming_the_default_fallback_is_not_named() -> None:
    # A walkthrough read "sent to inbox (travel.fallback_topic_key)" for a message about medicine: the inbox
    # is where anything unmatched goes, and travel's rule naming it too changed nothing.
    rules = {**ALERTS, "fallback_topic_key": "inbox"}
    compiled = compile_rules(topics(alerts=TopicSpec("alerts", "告警", routing=rules)))
    d = route(compiled, "告警已恢复的通知：payment-api 5xx 错误率回落到 0.1%")
    assert (d.topic_key, d.fallback) == ("inbox", True)
    assert d.reason.endswith("sent to inbox (the default fallback topic)")


def test_without_an_active_fallback_topic_nothing_is_published() -> None:
    compiled = compile_rules(topics(inbox=TopicSpec("inbox", "Inbox", is_default_fallback=True, is_active=False)))
    d = route(compiled, "Here is the draft email to the landlord.")
    assert (d.should_publish, d.topic_key, d.fallback) == (False, None, True)


def test_inactive_topics_are_not_routed_to() -> None:
    compiled = compile_rules(
        topics(finance_market=TopicSpec("finance_market", "金融", is_active=False, routing=FINANCE))
    )
    d = route(compiled, MARKET)
    assert d.topic_key != "finance_market"
    assert "finance_market" not in {c.topic_key for c in d.candidates}


def test_keywords_extension_routes() -> None:
    compiled = compile_rules(
        [
            TopicSpec("k8s", "K8s", routing={"keywords": ["Kubernetes", "集群扩容"]}),
            TopicSpec("inbox", "Inbox", is_default_fallback=True),
        ]
    )
    assert route(compiled, "明天凌晨进行集群扩容，预计 30 分钟").topic_key == "k8s"
    assert route(compiled, "Upgraded kubernetes to 1.30 on all nodes").topic_key == "k8s"


def test_candidates_cover_every_active_topic_best_first(compiled: CompiledRules) -> None:
    d = route(compiled, MARKET)
    assert {c.topic_key for c in d.candidates} == {"finance_market", "builds", "alerts", "inbox"}
    scores = [c.score for c in d.candidates]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert d.candidates[0].matched


def test_to_dict_has_exactly_the_public_keys(compiled: CompiledRules) -> None:
    body = route(compiled, MARKET).to_dict()
    assert set(body) == {
        "should_publish",
        "topic_key",
        "confidence",
        "reason",
        "candidates",
        "filtered",
        "fallback",
        "evidence",
        "proposal",
    }
    assert set(body["candidates"][0]) == {
        "topic_key",
        "score",
        "priority",
        "matched",
        "vetoed_by",
        "meaning",
        "meaning_of",
        "probability",
    }


def test_same_input_same_decision_and_topic_order_does_not_matter(compiled: CompiledRules) -> None:
    again = compile_rules(list(reversed(topics())))
    for content in [MARKET, "Build #12 failed", "告警已恢复的通知", "随便聊聊"]:
        first = route(compiled, content).to_dict()
        assert route(compiled, content).to_dict() == first
        assert route(again, content).to_dict() == first


def test_rules_compile_once_per_change() -> None:
    first = compile_rules(topics())
    assert compile_rules(topics()) is first
    assert compile_rules(list(reversed(topics()))) is first
    changed = compile_rules(topics(builds=TopicSpec("builds", "Builds", routing={**BUILDS, "priority": 61})))
    assert changed is not first


def test_compile_reports_the_bad_topic_and_field() -> None:
    with pytest.raises(AppError) as info:
        compile_rules(topics(builds=TopicSpec("builds", "Builds", routing={**BUILDS, "priority": 500})))
    assert (info.value.code, info.value.field, info.value.details["topic_key"]) == (
        "invalid_rule",
        "priority",
        "builds",
    )
    with pytest.raises(AppError) as info:
        compile_rules([TopicSpec("a", "A"), TopicSpec("a", "A again")])
    assert info.value.code == "topic_exists"


def test_bad_fallback_policy_is_a_programming_error(compiled: CompiledRules) -> None:
    with pytest.raises(ValueError):
        route(compiled, MARKET, policy="drop")


def test_routing_package_imports_no_web_or_database_framework() -> None:
    code = (
        "import sys, topic_dashboard.routing; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'reflex', 'starlette', 'sqlmodel', 'sqlalchemy'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_reason_quotes_whole_words() -> None:
    from topic_dashboard.routing.engine import _excerpt

    assert (
        _excerpt("Should I refund the full amount or just the shipping fee?")
        == "Should I refund the full amount or just…"
    )
    assert _excerpt("  Thanks,\n  that's perfect  ") == "Thanks, that's perfect"
    assert _excerpt("x" * 60) == "x" * 40 + "…"  # no space to cut at: cut where the limit is
    long_zh = "好的，我们下周一上午十点在会议室见面，请提前准备好季度报告和预算表，另外把上个月的客户反馈也整理一下"
    assert _excerpt(long_zh) == long_zh[:40].rstrip("，") + "…"  # no spaces in Chinese: cut at the limit
