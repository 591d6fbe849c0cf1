"""Ready rule templates a new topic can start from (docs/DESIGN.md §4.1's finance example among them).

Templates come in families (`TEMPLATE_FAMILIES`), each five or so subjects one owner would run side by
side: engineering and finance (here), a shop (rule_templates_shop.py: orders, refunds, reviews, stock,
marketing) and a personal assistant (rule_templates_personal.py: travel, health, home, family, learning).
Each subject comes three ways: the bilingual template (the family's keys; rule texts in English and
Chinese side by side, `finance_market` being the design example as written) and one written wholly in
English (`<key>_en`, label "(English)") or wholly in Chinese (`<key>_zh`, label "(中文)"). The router
compares messages with rule texts by meaning across languages, so each of the three routes messages in
either language; pick the one whose wording the admins will maintain. `TEMPLATES` holds them all, by key.
A demo bot wants one template per engineering subject: `BASE_TEMPLATE_KEYS`.

Wording notes (tests/topic_dashboard/test_rule_templates.py and test_rule_templates_families.py route
every example and a table of obvious messages through the real model, with the cases the wording cannot
fix):
- An `exclude_when` entry is split into alternatives at commas, "or", "、" and "/", and an
  alternative mostly present in a message vetoes the topic in the rules, so exclusions name the
  whole situation ("alerts from a staging environment, a test environment or a local machine")
  rather than a bare word the topic's own messages contain ("errors in test" vetoed production
  alerts), and keep out what they must not catch with "not from production" / "不包括生产环境".
- "no", "without", "unrelated to", "无", "没有", "不包括" start a negation: a message containing the
  words after them, or a word sharing their lexicon concept, switches the condition off. So
  exclusions use it only where it is meant ("with no findings yet" switched the research
  exclusion off for every message about research, "research" and "findings" being one concept).
- Includes avoid a lone word that a lexicon concept shares with unwanted messages ("unreachable"
  alone matched "incident resolved"); alternatives of two or three words need most of them present.
- Every condition splits the same way, so a list leaves lone words: "a refund approved, declined or paid
  back" made "declined" an alternative of its own. Where a lone word would meet other topics' messages
  ("check", "result", "due", "cancelled"), each alternative names its subject ("refund approved, refund
  declined, …"). In Chinese, "不", "未", "无" before a word negate it as "no" does ("超过 48 小时未发货"
  reads "not shipped", switching off for every message about shipping), and a word the segmenter cuts into
  single characters (差评, 达人, 博主, 清关, 网课) is dropped from the rule's words (the meaning side still
  reads it): 负面评价, 海关, 在线课程 are kept. "'s" stays on its word ("colleague's" never meets
  "colleague"): "birthdays of colleagues".
- An exclusion is judged by meaning as a whole entry: "a birthday of a colleague, a wedding of a client or
  other work social events" in one entry read closer to the topic's birthdays than to itself and kept
  nothing out; as entries of their own ("birthdays of colleagues and team lunches at work", "weddings of
  clients and other work social events") they hold. An exclusion keeps out messages in its own language
  only: the other language has none of its words.
- The meaning side weighs exclusions and negative examples lightly, so a message on the same
  subject (a resolved incident, a plan to research) can still land in the topic; they are
  written anyway: they state the rule, and without the model the rules veto most such messages.
"""

from __future__ import annotations

from typing import Any

from topic_dashboard.rule_templates_personal import PERSONAL_TEMPLATE_KEYS, PERSONAL_TEMPLATES
from topic_dashboard.rule_templates_shop import SHOP_TEMPLATE_KEYS, SHOP_TEMPLATES

BASE_TEMPLATE_KEYS = ("finance_market", "build_results", "alerts", "research_notes")

_ENGINEERING_TEMPLATES: dict[str, dict[str, Any]] = {
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
    "finance_market_en": {
        "label": "Finance & markets (English)",
        "name": "Markets",
        "description": "Key conclusions and alerts on markets, macro data and earnings",
        "view_types": ["markdown", "table", "metric", "card"],
        "routing": {
            "purpose": "Key conclusions and risk alerts about financial markets, collected in one place.",
            "include_when": [
                "stocks, indices, FX, interest rates, bond yields, commodities or crypto prices",
                "macro data releases, central bank rate decisions and company earnings reports",
                "market moves with concrete numbers, dates and their expected impact",
                "actionable investment advice or a market risk warning",
            ],
            "exclude_when": [
                "small talk or chat with no market conclusion",
                "task progress unrelated to finance",
                "company expense claims, invoices or cloud bills",
            ],
            "examples": {
                "positive": [
                    "After the Fed meeting the 10Y Treasury yield rose 20bp and growth stocks came under pressure",
                    "AAPL beat on earnings but cut guidance and turned lower after hours; expect a volatile open",
                ],
                "negative": ["I've started working on your request", "File uploaded successfully"],
            },
            "priority": 80,
            "fallback_topic_key": "inbox",
        },
    },
    "finance_market_zh": {
        "label": "金融市场 (中文)",
        "name": "金融市场",
        "description": "市场行情、宏观数据与财报的关键结论和告警",
        "view_types": ["markdown", "table", "metric", "card"],
        "routing": {
            "purpose": "沉淀与金融市场相关的关键结论和风险告警，便于集中查看。",
            "include_when": [
                "股票、指数、外汇、利率、国债收益率、大宗商品或加密货币的行情",
                "宏观经济数据、央行利率决议、上市公司财报",
                "包含明确数值、时间点和影响判断的市场结论",
                "可执行的投资建议或市场风险提示",
            ],
            "exclude_when": ["纯寒暄或无结论聊天", "与金融无关的任务进度", "公司内部报销、发票或云服务账单"],
            "examples": {
                "positive": [
                    "美联储议息后，10年期美债收益率上行20个基点，成长股承压",
                    "苹果财报超预期但下调业绩指引，盘后转跌，建议关注开盘波动",
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
            "purpose": "Results of CI builds, test runs and deployments, so the team sees every pipeline's outcome. "
            "CI 构建、测试和部署的结果。",
            "include_when": [
                "build / test / deploy results, passed or failed",
                "GitHub Actions, Jenkins or GitLab CI pipeline outcomes",
                "构建、测试、部署的结果；版本发布或回滚",
            ],
            "exclude_when": [
                "production incidents or monitoring alerts",
                "chat about builds without a result",
                "线上故障或监控告警",
            ],
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
    "build_results_en": {
        "label": "CI / build results (English)",
        "name": "Builds",
        "description": "Build, test and deploy results",
        "view_types": ["card", "checklist", "table", "markdown"],
        "routing": {
            "purpose": "Results of CI builds, test runs and deployments, so the team sees every pipeline's outcome.",
            "include_when": [
                "build / test / deploy results, passed or failed",
                "GitHub Actions, Jenkins or GitLab CI pipeline outcomes",
                "a release shipped or rolled back",
            ],
            "exclude_when": ["production incidents or monitoring alerts", "chat about builds without a result"],
            "examples": {
                "positive": [
                    "Build #1423 failed on main: 3 tests failed in test_auth.py",
                    "v2.8.0 release pipeline passed, deployed to staging in 6m32s",
                ],
                "negative": ["Running the test suite now…", "Production checkout error rate is at 12%"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "build_results_zh": {
        "label": "CI / 构建结果 (中文)",
        "name": "构建结果",
        "description": "构建、测试与部署的结果",
        "view_types": ["card", "checklist", "table", "markdown"],
        "routing": {
            "purpose": "CI 构建、测试运行和部署的结果，让团队看到每条流水线的结局。",
            "include_when": [
                "构建、测试、部署的结果，成功或失败",
                "Jenkins、GitHub Actions、GitLab CI 等流水线任务跑完的结果",
                "编译错误或测试未通过导致构建失败",
                "版本发布或回滚完成",
            ],
            "exclude_when": ["线上故障或监控告警", "讨论构建、尚未出结果的聊天"],
            "examples": {
                "positive": [
                    "main 分支构建 #1423 失败：test_auth.py 中 3 个测试未通过",
                    "v2.8.0 发布流水线通过，已部署到预发环境，耗时 6 分 32 秒",
                ],
                "negative": ["正在运行测试…", "线上下单接口错误率达到 12%"],
            },
            "priority": 60,
            "fallback_topic_key": "inbox",
        },
    },
    "alerts": {
        "label": "Incidents & alerts",
        "name": "Alerts",
        "description": "Production errors, outages and resource exhaustion happening now",
        "view_types": ["timeline", "metric", "card", "markdown"],
        "routing": {
            "purpose": "Production errors, outages and resource exhaustion happening now, which someone must "
            "respond to right away. 线上正在发生、需要马上有人响应的报错、宕机和资源耗尽。",
            "include_when": [
                "production service down or unreachable for users; requests failing",
                "error rate, latency, disk, memory or CPU over the alert threshold",
                "a production database or server almost out of disk, memory or connections; on-call paged",
                "PagerDuty or Prometheus alert firing, severity P0/P1",
                "线上服务宕机、无法访问或大量请求失败",
                "错误率、延迟、磁盘、内存或 CPU 超过告警阈值，触发 P0/P1 告警",
                "生产数据库或服务器的磁盘、内存或连接数快要耗尽，已呼叫值班",
            ],
            "exclude_when": [
                "incident resolved or service recovered, back to normal, nothing left to do",
                "alerts from a staging environment, a test environment or a local machine, not from production",
                "a routine job that finished fine: a backup completed, a certificate renewed, a scheduled task done",
                "例行任务正常完成：备份完成、证书续期成功、定时任务跑完",
            ],
            "examples": {
                "positive": [
                    "ALERT: api-gateway p99 latency 2.4s (threshold 800ms) for 10 minutes",
                    "订单服务 5xx 错误率升到 12%，已触发 P1",
                ],
                "negative": [
                    "Looking into the alert now",
                    "Build #88 passed",
                    "Resolved at 03:10: all clear, nothing left to do",
                    "Staging smoke test: 3 endpoints returned 500, production unaffected",
                    "Weekly snapshot of the orders volume finished: 48 GB, checksum verified",
                    "TLS 证书已自动续期，有效期至明年 3 月",
                ],
            },
            "priority": 90,
            "fallback_topic_key": "inbox",
        },
    },
    "alerts_en": {
        "label": "Incidents & alerts (English)",
        "name": "Alerts",
        "description": "Production errors, outages and resource exhaustion happening now",
        "view_types": ["timeline", "metric", "card", "markdown"],
        "routing": {
            "purpose": "Production errors, outages and resource exhaustion happening now, which someone must "
            "respond to right away.",
            "include_when": [
                "production service down or unreachable for users; requests failing",
                "error rate, latency, disk, memory or CPU over the alert threshold",
                "a production database or server almost out of disk, memory or connections; on-call paged",
                "PagerDuty or Prometheus alert firing, severity P0/P1",
            ],
            "exclude_when": [
                "incident resolved or service recovered, back to normal, nothing left to do",
                "alerts from a staging environment, a test environment or a local machine, not from production",
                "a routine job that finished fine: a backup completed, a certificate renewed, a scheduled task done",
            ],
            "examples": {
                "positive": [
                    "ALERT: api-gateway p99 latency 2.4s (threshold 800ms) for 10 minutes",
                    "Order service 5xx error rate up to 12%, P1 triggered",
                ],
                "negative": [
                    "Looking into the alert now",
                    "Build #88 passed",
                    "Resolved at 03:10: all clear, nothing left to do",
                    "Staging smoke test: 3 endpoints returned 500, production unaffected",
                    "Weekly snapshot of the orders volume finished: 48 GB, checksum verified",
                ],
            },
            "priority": 90,
            "fallback_topic_key": "inbox",
        },
    },
    "alerts_zh": {
        "label": "故障与告警 (中文)",
        "name": "告警",
        "description": "线上正在发生的报错、宕机和资源耗尽",
        "view_types": ["timeline", "metric", "card", "markdown"],
        "routing": {
            "purpose": "线上正在发生、需要马上有人响应的报错、宕机和资源耗尽。",
            "include_when": [
                "线上服务宕机、无法访问或大量请求失败",
                "错误率、延迟、磁盘、内存或 CPU 超过告警阈值",
                "生产数据库或服务器的磁盘、内存或连接数快要耗尽，已呼叫值班",
                "PagerDuty 或 Prometheus 告警正在触发，级别 P0/P1",
            ],
            "exclude_when": [
                "事故已解决：告警解除，服务已恢复，一切正常",
                "测试环境、预发环境或本地环境的报错，不包括生产环境",
                "例行任务正常完成：备份完成、证书续期成功、定时任务跑完",
            ],
            "examples": {
                "positive": [
                    "告警：api-gateway p99 延迟 2.4 秒（阈值 800 毫秒），已持续 10 分钟",
                    "订单服务 5xx 错误率升到 12%，已触发 P1",
                ],
                "negative": [
                    "正在查看这条告警",
                    "构建 #88 通过",
                    "03:10 已恢复：一切正常，不用再处理",
                    "预发环境冒烟测试：3 个接口返回 500，生产环境未受影响",
                    "TLS 证书已自动续期，有效期至明年 3 月",
                ],
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
            "purpose": "Findings and summaries from research tasks worth keeping. 值得保留的调研结论和总结。",
            "include_when": [
                "a summary of papers, articles or documentation with conclusions",
                "comparison of tools, libraries, frameworks or approaches with a recommendation",
                "technology selection: options compared, pros and cons, and the one to adopt",
                "调研结论、文献综述、方案对比",
                "技术选型：比较多个方案的优缺点，给出选用建议",
            ],
            "exclude_when": [
                "only a plan to start researching",
                "只是调研计划或打算，尚在准备阶段",
                "search progress",
            ],
            "examples": {
                "positive": [
                    "Summary of 3 papers on retrieval-augmented generation: hybrid search wins on recall",
                    "对比 Postgres 与 SQLite 的并发写入：WAL 模式下 SQLite 足够单机使用",
                    "Kafka vs RabbitMQ vs NATS for our event bus: NATS is simplest to run, so we pick it",
                ],
                "negative": ["Searching for papers…", "I'll read the docs next"],
            },
            "priority": 40,
            "fallback_topic_key": "inbox",
        },
    },
    "research_notes_en": {
        "label": "Research notes (English)",
        "name": "Research",
        "description": "Findings, summaries and reading notes",
        "view_types": ["markdown", "card", "table"],
        "routing": {
            "purpose": "Findings and summaries from research tasks worth keeping.",
            "include_when": [
                "a summary of papers, articles or documentation with conclusions",
                "comparison of tools, libraries, frameworks or approaches with a recommendation",
                "technology selection: options compared, pros and cons, and the one to adopt",
                "X vs Y: which library, framework or service to choose, and why",
                "a literature review or survey with findings",
            ],
            "exclude_when": ["only a plan to start researching", "search progress"],
            "examples": {
                "positive": [
                    "Summary of 3 papers on retrieval-augmented generation: hybrid search wins on recall",
                    "Postgres vs SQLite for concurrent writes: with WAL mode SQLite is enough on one machine",
                    "Kafka vs RabbitMQ vs NATS for our event bus: NATS is simplest to run, so we pick it",
                ],
                "negative": ["Searching for papers…", "I'll read the docs next"],
            },
            "priority": 40,
            "fallback_topic_key": "inbox",
        },
    },
    "research_notes_zh": {
        "label": "调研笔记 (中文)",
        "name": "调研",
        "description": "调研结论、总结与阅读笔记",
        "view_types": ["markdown", "card", "table"],
        "routing": {
            "purpose": "值得保留的调研结论和总结。",
            "include_when": [
                "论文、文章或文档的总结，带结论",
                "工具、库或方案的对比，带推荐",
                "技术选型：比较多个方案的优缺点，给出选用建议",
                "调研结论、文献综述",
            ],
            "exclude_when": ["只是调研计划或打算，尚在准备阶段", "检索进度"],
            "examples": {
                "positive": [
                    "3 篇检索增强生成论文的总结：混合检索召回率最高",
                    "对比 Postgres 与 SQLite 的并发写入：WAL 模式下 SQLite 足够单机使用",
                    "Kafka、RabbitMQ、NATS 三种消息队列对比：NATS 运维最简单，我们选用它",
                ],
                "negative": ["正在搜索论文…", "接下来我去读文档"],
            },
            "priority": 40,
            "fallback_topic_key": "inbox",
        },
    },
}

# family label -> its subjects' bilingual keys, in the order the New topic form lists them
TEMPLATE_FAMILIES: dict[str, tuple[str, ...]] = {
    "Engineering & finance": BASE_TEMPLATE_KEYS,
    "Shop": SHOP_TEMPLATE_KEYS,
    "Personal": PERSONAL_TEMPLATE_KEYS,
}
VARIANT_SUFFIXES = ("", "_en", "_zh")  # bilingual, English-only, Chinese-only


def _bilingual_label(label: str) -> str:
    """A bilingual template's label says so, beside "(English)" and "(中文)": a walkthrough read the plain
    "Travel" as one more language-less choice."""
    if label.endswith(")"):
        return label[:-1] + ", English + 中文)"
    return label + " (English + 中文)"


_BILINGUAL = {key for keys in TEMPLATE_FAMILIES.values() for key in keys}
TEMPLATES: dict[str, dict[str, Any]] = {
    key: {**template, "label": _bilingual_label(template["label"])} if key in _BILINGUAL else template
    for key, template in {**_ENGINEERING_TEMPLATES, **SHOP_TEMPLATES, **PERSONAL_TEMPLATES}.items()
}


def family_template_keys(family: str) -> list[str]:
    """Every template key of a family, each subject's three ways in turn. Raises KeyError for an unknown family."""
    return [base + suffix for base in TEMPLATE_FAMILIES[family] for suffix in VARIANT_SUFFIXES]
