"""Text handling: normalisation, English stems, and how rule texts become alternatives."""

from __future__ import annotations

import pytest

from topic_dashboard.routing.conditions import parse_condition, text_terms
from topic_dashboard.routing.scoring import shown_term
from topic_dashboard.routing.text import latin_stems, normalize, stem


def test_normalize_folds_full_width_and_case() -> None:
    assert normalize("ＡＰＰＬ　财报，Ｑ３") == "appl 财报,q3"


def test_stems_meet_across_inflections() -> None:
    assert len({stem(w) for w in ["fail", "fails", "failed", "failing"]}) == 1
    assert len({stem(w) for w in ["update", "updates", "updated", "updating"]}) == 1
    assert len({stem(w) for w in ["meeting", "meetings"]}) == 1
    assert stem("indices") == stem("index")
    assert stem("Deployments".lower()) == stem("deployment")
    assert latin_stems(normalize("The Builds WERE failing")) == ["build", "fail"]


def alternatives(text: str) -> list[tuple[str, ...]]:
    return [alt.terms for alt in parse_condition(text).alts]


def test_design_condition_names_alternatives_and_drops_filler() -> None:
    assert alternatives("内容涉及股票/指数/外汇/利率/宏观数据/财报") == [
        ("股票",),
        ("指数",),
        ("外汇",),
        ("利率",),
        ("宏观数据",),
        ("财报",),
    ]


def test_chinese_separators_and_conjunctions_split_alternatives() -> None:
    assert alternatives("构建、部署或回滚") == [("构建",), ("部署",), ("回滚",)]
    assert alternatives("论文和笔记") == [("论文",), ("笔记",)]
    # 且 joins requirements of one alternative, it does not offer another
    assert len(alternatives("已恢复且无需处理的历史告警")) == 1


def test_english_alternatives_are_stemmed_and_phrases_kept() -> None:
    assert alternatives("Mentions stocks, indices, FX or interest rates") == [
        ("stock",),
        ("index",),
        ("fx",),
        ("interest rat",),
    ]


def test_negation_is_separated_from_what_must_hold() -> None:
    cond = parse_condition("与金融无关的任务进度")
    assert cond.neg == ("金融",)
    assert cond.alts[0].meta == "progress"
    cond = parse_condition("Progress updates not related to finance")
    assert cond.neg == (stem("finance"),)
    assert cond.alts[0].meta == "progress"
    cond = parse_condition("纯寒暄或无结论聊天")
    assert cond.neg == ("结论",)
    assert [a.meta for a in cond.alts] == ["greeting", "greeting"]


def test_kinds_of_message_become_meta_checks() -> None:
    assert parse_condition("重复内容且dedupe_key命中窗口").alts[0].meta == "duplicate"
    assert parse_condition("casual chit-chat").alts[0].meta == "greeting"
    assert parse_condition("股票").alts[0].meta is None


def test_example_terms_come_from_segmenting_not_whitespace() -> None:
    terms = text_terms("美联储议息后，10Y美债收益率上行20bp，成长股承压")
    assert {"美联储", "美债", "收益率"} <= set(terms)


@pytest.mark.parametrize(
    ("key", "text", "shown"),
    [
        ("databas", "a production database or server almost out of disk", "database"),
        ("~databas", "production databases", "~databases"),
        ("on sit", "work on site today", "on site"),
        ("til", "tiles, paint and materials", "tiles"),
        ("materi", "tiles, paint and materials", "materials"),
        ("材料", "装修材料", "材料"),
        ("500", "500 errors", "500"),
    ],
)
def test_a_matched_term_is_shown_as_the_rule_spells_it(key: str, text: str, shown: str) -> None:
    """A walkthrough's rule test read "(material, til)" and "(on sit)": stems are the engine's, words the reader's."""
    assert shown_term(key, text) == shown
