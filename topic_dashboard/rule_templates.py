"""Ready rule templates a new topic can start from (docs/DESIGN.md §4.1's finance example among them)."""

from __future__ import annotations

from typing import Any

TEMPLATES: dict[str, dict[str, Any]] = {
    "finance_market": {
        "label": "Finance & markets (design example)",
        "name": "金融市场",
        "description": "市场行情、宏观数据与财报的关键结论和告警",
        "view_types": ["markdown", "table", "metric", "card"],
        "routing": {
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
        },
    },
    "build_results": {
        "label": "CI / build results",
        "name": "Builds",
        "description": "Build, test and deploy results",
        "view_types": ["card", "checklist", "table", "markdown"],
        "routing": {
            "purpose": "Results of CI builds, test runs and deployments, so the team sees every pipeline's outcome.",
            "include_when": [
                "build / test / deploy results, passed or failed",
                "GitHub Actions, Jenkins or GitLab CI pipeline outcomes",
                "构建、测试、部署的结果；版本发布或回滚",
            ],
            "exclude_when": ["production incidents or monitoring alerts", "chat about builds without a result"],
            "examples": {
                "positive": [
                    "Build #1423 failed on main: 3 tests failed in test_auth.py",
                    "v2.8.0 发布流水线通过，已部署到 staging，耗时 6m32s",
                ],
                "negative": ["Running the test suite now…", "Production checkout error rate is at 12%"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "alerts": {
        "label": "Incidents & alerts",
        "name": "Alerts",
        "description": "Production incidents and monitoring alerts",
        "view_types": ["timeline", "metric", "card", "markdown"],
        "routing": {
            "purpose": "Production incidents and monitoring alerts that need someone to act now.",
            "include_when": [
                "service down, unavailable, error rate or latency out of bounds",
                "monitoring alerts, P0/P1 incidents, on-call pages",
                "服务宕机、错误率或延迟异常、磁盘/内存/CPU 耗尽",
            ],
            "exclude_when": ["resolved alerts that need no action", "errors in test or local environments"],
            "examples": {
                "positive": [
                    "ALERT: api-gateway p99 latency 2.4s (threshold 800ms) for 10 minutes",
                    "订单服务 5xx 错误率升到 12%，已触发 P1",
                ],
                "negative": ["Looking into the alert now", "Build #88 passed"],
            },
            "priority": 90,
            "fallback_topic_key": "inbox",
        },
    },
    "research_notes": {
        "label": "Research notes",
        "name": "Research",
        "description": "Findings, summaries and reading notes",
        "view_types": ["markdown", "card", "table"],
        "routing": {
            "purpose": "Findings and summaries from research tasks worth keeping.",
            "include_when": [
                "a summary of papers, articles or documentation with conclusions",
                "comparison of tools, libraries or approaches with a recommendation",
                "调研结论、文献综述、方案对比",
            ],
            "exclude_when": ["a plan to start researching", "search progress"],
            "examples": {
                "positive": [
                    "Summary of 3 papers on retrieval-augmented generation: hybrid search wins on recall",
                    "对比 Postgres 与 SQLite 的并发写入：WAL 模式下 SQLite 足够单机使用",
                ],
                "negative": ["Searching for papers…", "I'll read the docs next"],
            },
            "priority": 40,
            "fallback_topic_key": "inbox",
        },
    },
}
