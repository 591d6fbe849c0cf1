"""The shipped rule templates route their own examples and obvious messages where a new user expects.

These are the engineering family's (`BASE_TEMPLATE_KEYS`); test_rule_templates_families.py routes the
shop and personal families the same way. The checks of form at the end (the same fields in every
language, no stray language, a valid rule, one family each) cover every template.

A bot is built from the templates as an admin would pick them (each template's key as the topic
key, plus an inbox as the fallback) and every message goes through `route_message` with the real
embedding model beside the rules, as topic_route does. Three bots: the four bilingual templates,
the four English-only ones (`<key>_en`) and the four Chinese-only ones (`<key>_zh`). For each:
every positive example lands in its own topic, no negative example does, and a table of obvious
messages, four or more in English and four or more in Chinese per template, lands where a new user
would expect, whatever the language of the rule. The table's messages are not the templates' examples,
except one alert kept on purpose: the Alerts template's own exclusion once vetoed it.

KNOWN_MISSES are cases the template wording could not fix, each with why; they run as xfails
(not strict: the routing calibration is refitted as sets grow, and a fixed miss shows as XPASS in
the report rather than breaking the build).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.template_bots import CJK, SETS, explain, route_with_templates
from topic_dashboard.routing import (
    RouteDecision,
    validate_routing,
)
from topic_dashboard.routing.semantic import cjk_share
from topic_dashboard.rule_templates import BASE_TEMPLATE_KEYS, TEMPLATE_FAMILIES, TEMPLATES, family_template_keys

ALL_BASES = [base for bases in TEMPLATE_FAMILIES.values() for base in bases]  # every family's subjects
TEMPLATE_FIELDS = {"label", "name", "description", "view_types", "routing"}
ROUTING_FIELDS = {"purpose", "include_when", "exclude_when", "examples", "priority", "fallback_topic_key"}


RESOLVED_ZH = "故障已恢复，服务运行正常，无需处理"
PLAN_ZH = "打算下周开始调研向量数据库，目前还没有结论"

# base template key -> case id -> a message that must land in that template's topic
LANDS_IN: dict[str, dict[str, str]] = {
    "finance_market": {
        "en-index-cpi": "S&P 500 closed down 2.1% after a hotter CPI print; the 10-year Treasury yield rose to 4.6%",
        "en-earnings": "NVDA beat Q2 earnings estimates with revenue up 122% YoY; shares jumped 7% after hours",
        "en-fx-rate-cut": "EUR/USD fell to 1.05 after the ECB cut rates by 25bp; watch exporters' margins",
        "en-gold-risk": "Gold hit a record $2,450/oz; risk: a stronger dollar could reverse the rally",
        "zh-index-flows": "沪深300今日收跌1.8%，北向资金净流出56亿元",
        "zh-rrr-cut": "央行宣布降准0.5个百分点，预计释放长期资金约1万亿元，利好银行股",
        "zh-fx": "美元兑人民币突破7.30，创年内新高，出口企业注意汇率风险",
        "zh-earnings": "腾讯三季报营收同比增长10%，净利润超市场预期，明日开盘或高开",
    },
    "build_results": {
        "en-ci-passed": "CI passed on PR #512: all 1,204 tests green in 8m14s",
        "en-deploy": "Deploy of web-frontend v3.2.1 to production succeeded",
        "en-jenkins-failed": "Jenkins job nightly-integration #77 failed: compilation error in src/parser.rs",
        "en-release-workflow": "GitHub Actions release workflow for v1.9.0 finished; wheels uploaded to PyPI",
        "zh-build-failed": "主干构建 #2045 失败：7 个单元测试未通过",
        "zh-deployed": "v4.1.0 已成功部署到生产环境，发布流水线耗时 12 分钟",
        "zh-nightly-tests": "夜间集成测试全部通过，共 860 个用例",
        "zh-lint-failed": "GitLab CI 流水线在 lint 阶段失败，合并已被阻止",
    },
    "alerts": {
        "en-cdn-outage-p0": "CDN outage in eu-west, P0 declared, 30% of requests failing",
        "en-disk-paged": "PagerDuty: payments-db primary disk 95% full, on-call paged",
        "en-checkout-503": "ALERT: checkout API returning 503 for all users since 09:12",
        "en-node-oom": "Memory on production node k8s-prod-7 at 98%, pods are being OOM-killed",
        "zh-order-5xx-p1": "订单服务 5xx 错误率升到 12%，已触发 P1",  # also an example: its own exclusion vetoed it
        "zh-payment-timeouts": "生产环境支付接口超时率达到 40%，大量用户无法下单",
        "zh-db-cpu": "线上数据库主库 CPU 持续 100% 超过 15 分钟，请值班同学立即处理",
        "zh-login-down": "告警：登录服务宕机，所有地区均无法访问",
        "zh-queue-backlog-p0": "消息队列积压超过 50 万条，消费延迟 20 分钟，已升级为 P0",
    },
    "research_notes": {
        "en-papers-compared": "Speculative decoding: 4 papers compared, EAGLE-2 is fastest",
        "en-cache-comparison": "Compared Redis, Memcached and Dragonfly for our cache: Dragonfly gives 3x throughput, "
        "recommend it",
        "en-literature-review": "Literature review on LLM hallucination detection: self-consistency checks work best "
        "without labels",
        "en-docs-read": "Read the Kafka and Pulsar docs: Pulsar's tiered storage fits our retention needs, Kafka is "
        "simpler to operate",
        "zh-vector-dbs": "调研了三种向量数据库：Milvus 性能最好，pgvector 运维最简单，建议先用 pgvector",
        "zh-lora-papers": "读完 5 篇 LoRA 微调论文的结论：秩取 8 已足够，再高收益很小",
        "zh-ssr-comparison": "对比 Next.js 与 Nuxt 的 SSR 方案：Next.js 生态更成熟，推荐采用",
        "zh-review": "文献综述：RAG 中混合检索比纯向量检索召回率高 15%",
    },
}
# base template key -> case id -> a message that must not land in that topic (anywhere else, or nowhere, is fine)
STAYS_OUT_OF: dict[str, dict[str, str]] = {
    "finance_market": {
        "en-cloud-bill": "Cloud bill for November: $4,210, up 12% on October",
        "zh-cloud-bill": "11 月云服务账单 4.2 万元，比上月增加 12%",
    },
    "alerts": {
        "en-resolved": "Incident resolved at 14:05, no action needed",
        "zh-resolved": RESOLVED_ZH,
        "en-staging": "Staging API returned 500s during my local test run, not affecting production",
        # a routine job that went fine asks nobody to act (a walkthrough's backups were filed as incidents, 0.96)
        "en-backup-done": "The weekly backup of the production database completed in 14 minutes",
        "zh-cert-renewed": "生产环境的 TLS 证书已自动续期成功，新证书有效期一年",
    },
    "research_notes": {
        "en-plan": "I plan to start researching vector databases next week",
        "zh-plan": PLAN_ZH,
    },
}

# (set, message) -> why the template wording cannot get it right with this router
# A resolved-incident notice (all three sets) and a Chinese plan to research (the mixed and Chinese sets) were
# misses until an exclusion said in the message's words and meant holds with meaning too (routing/engine.py
# `_excluded_by_meaning`); the Chinese plan beside the English-only template, until the stream model (work
# not done yet, routing/calibration.py) kept it out. They now pass like any other case.
# An English cloud bill beside the English template was a miss too until an exclusion said and meant held for a
# topic the rules alone did not match (session 41, routing/scoring.py `exclusion_said`).
_DESIGN_AS_WRITTEN = (
    "the mixed set's finance_market is the design's example as written, which excludes no bills; the model "
    "reads a cloud bill 'up 12%' as close to market moves (the English and Chinese variants exclude cloud bills)"
)
_OTHER_LANGUAGE = (
    "the exclusion 'cloud bills' is in the other language, so its words are not in the message, and meaning "
    "alone does not exclude (measured in session 41 with a margin: no gain on the dev sets, a loss on design)"
)
KNOWN_MISSES: dict[tuple[str, str], str] = {
    ("mixed", "Cloud bill for November: $4,210, up 12% on October"): _DESIGN_AS_WRITTEN,
    ("english", "11 月云服务账单 4.2 万元，比上月增加 12%"): _OTHER_LANGUAGE,
    ("chinese", "Cloud bill for November: $4,210, up 12% on October"): _OTHER_LANGUAGE,
    ("mixed", "The weekly backup of the production database completed in 14 minutes"): (
        "'production database' meets include_when[2]; the exclusion 'a routine job that finished fine: a backup "
        "completed' shares its words, but the model does not hold its meaning close enough to veto (the English "
        "template does: session 44)"
    ),
    ("english", "The weekly backup of the production database completed in 14 minutes"): (
        "a coin's toss: alerts_en 0.47 against the inbox's 0.45 on session 45's machine (AMD EPYC, AVX2), where it "
        "stayed out on session 44's: the model's int8 arithmetic differs between CPUs in the last digits, and "
        "nothing else in the evidence tips it (the exclusion shares its words, not enough of its meaning; a "
        "negative example of a routine backup moved it by 0.02)"
    ),
    ("chinese", "The weekly backup of the production database completed in 14 minutes"): (
        "the exclusion is in the other language ('例行任务正常完成：备份完成'): its words are not in the message"
    ),
}


def _keys(suffix: str) -> list[str]:
    return [base + suffix for base in BASE_TEMPLATE_KEYS]


def _route(suffix: str, text: str) -> RouteDecision:
    return route_with_templates(tuple(_keys(suffix)), text)


def _param(set_name: str, id: str, text: str, *args: object) -> Any:  # a pytest ParameterSet
    why = KNOWN_MISSES.get((set_name, text))
    marks = [pytest.mark.xfail(reason=why, strict=False)] if why else []
    return pytest.param(set_name, text, *args, id=f"{set_name}-{id}", marks=marks)


def _example_params(kind: str) -> list[Any]:
    params = []
    for set_name, suffix in SETS.items():
        for key in _keys(suffix):
            for i, text in enumerate(TEMPLATES[key]["routing"]["examples"][kind]):
                params.append(_param(set_name, f"{key}-{kind}[{i}]", text, key))
    return params


def _case_params() -> list[Any]:
    params = []
    for set_name, suffix in SETS.items():
        for routed, table in ((True, LANDS_IN), (False, STAYS_OUT_OF)):
            for base, cases in table.items():
                verb = "to" if routed else "not-to"
                for id, text in cases.items():
                    params.append(_param(set_name, f"{id}-{verb}-{base}", text, base + suffix, routed))
    return params


@pytest.mark.parametrize(("set_name", "text", "key"), _example_params("positive"))
def test_a_positive_example_lands_in_its_own_topic(set_name: str, text: str, key: str) -> None:
    decision = _route(SETS[set_name], text)

    assert decision.should_publish and decision.topic_key == key, explain(decision)


@pytest.mark.parametrize(("set_name", "text", "key"), _example_params("negative"))
def test_a_negative_example_never_lands_in_its_topic(set_name: str, text: str, key: str) -> None:
    decision = _route(SETS[set_name], text)

    assert not (decision.should_publish and decision.topic_key == key), explain(decision)


@pytest.mark.parametrize(("set_name", "text", "key", "routed"), _case_params())
def test_an_obvious_message_lands_where_a_new_user_expects(set_name: str, text: str, key: str, routed: bool) -> None:
    decision = _route(SETS[set_name], text)

    landed = decision.should_publish and decision.topic_key == key
    assert landed == routed, explain(decision)


def test_the_case_table_has_four_english_and_four_chinese_messages_per_template() -> None:
    for base in BASE_TEMPLATE_KEYS:
        texts = list(LANDS_IN[base].values())
        chinese = [text for text in texts if CJK.search(text)]
        assert len(chinese) >= 4 and len(texts) - len(chinese) >= 4, base


@pytest.mark.parametrize("base", ALL_BASES)
def test_each_template_comes_in_english_and_in_chinese_with_the_same_fields(base: str) -> None:
    original = TEMPLATES[base]
    for suffix, tag in (("_en", "(English)"), ("_zh", "(中文)")):
        variant = TEMPLATES[base + suffix]
        assert set(variant) == TEMPLATE_FIELDS == set(original)
        assert set(variant["routing"]) == ROUTING_FIELDS == set(original["routing"])
        assert variant["label"].endswith(tag)
        assert variant["view_types"] == original["view_types"]
        for field in ("priority", "fallback_topic_key"):
            assert variant["routing"][field] == original["routing"][field]


def _rule_texts(template: dict[str, Any]) -> list[str]:
    routing = template["routing"]
    return [
        template["name"],
        template["description"],
        routing["purpose"],
        *routing["include_when"],
        *routing["exclude_when"],
        *routing["examples"]["positive"],
        *routing["examples"]["negative"],
    ]


@pytest.mark.parametrize("key", [base + "_en" for base in ALL_BASES])
def test_an_english_template_has_no_chinese(key: str) -> None:
    assert [text for text in _rule_texts(TEMPLATES[key]) if CJK.search(text)] == []


@pytest.mark.parametrize("key", [base + "_zh" for base in ALL_BASES])
def test_a_chinese_template_is_written_in_chinese(key: str) -> None:
    # Product names, units and codes (Jenkins, CPU, P0, 5xx) may stay in Latin letters.
    assert [text for text in _rule_texts(TEMPLATES[key]) if cjk_share(text) < 0.5] == []


@pytest.mark.parametrize("key", sorted(TEMPLATES))
def test_every_template_is_a_valid_rule(key: str) -> None:
    rules = validate_routing(TEMPLATES[key]["routing"])

    assert rules.include_when and rules.examples.positive and rules.examples.negative


def test_every_template_belongs_to_one_family_and_its_label_names_it_once() -> None:
    grouped = [key for family in TEMPLATE_FAMILIES for key in family_template_keys(family)]

    assert sorted(grouped) == sorted(TEMPLATES) and len(set(grouped)) == len(grouped)
    labels = [template["label"] for template in TEMPLATES.values()]
    assert len(set(labels)) == len(labels)  # the New topic form lists them by label


def test_every_label_says_its_languages() -> None:
    # A walkthrough read "Travel", "Travel (English)" and "出行 (中文)" and could not tell what the first was.
    for family in TEMPLATE_FAMILIES.values():
        for base in family:
            assert TEMPLATES[base]["label"].endswith("English + 中文)"), base
            assert TEMPLATES[base + "_en"]["label"].endswith("(English)"), base
            assert TEMPLATES[base + "_zh"]["label"].endswith("(中文)"), base
