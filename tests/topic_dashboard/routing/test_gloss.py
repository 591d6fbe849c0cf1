"""Glosses of rule texts into the other language (routing/gloss.py), and their vectors' place in the index."""

from __future__ import annotations

import numpy as np
import pytest

from topic_dashboard.routing.calibration import calibration
from topic_dashboard.routing.gloss import gloss
from topic_dashboard.routing.semantic import (
    INTO_CHINESE,
    INTO_ENGLISH,
    TRANSLATED_SUFFIX,
    E5Embedder,
    build_index,
    default_embedder,
    similarities,
)
from topic_dashboard.routing.types import TopicSpec


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("退款申请", ["refund"]),
        ("物流延误", ["distribution", "postpone"]),
        ("保险理赔", ["insurance", "claim"]),
        ("内容涉及股票/指数/外汇", ["share", "index", "foreign exchange"]),
    ],
)
def test_a_chinese_rule_text_is_glossed_word_by_word_into_english(text: str, words: list[str]) -> None:
    out = gloss(text)
    assert all(w in out for w in words), out
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in out)


@pytest.mark.parametrize(("text", "chars"), [("refund", "退"), ("guest list", "宾"), ("photographers", "摄影")])
def test_an_english_rule_text_is_glossed_into_chinese(text: str, chars: str) -> None:
    assert chars in gloss(text)


@pytest.mark.parametrize("text", ["的", "", "  ", "?!"])
def test_a_text_with_nothing_to_gloss_gives_nothing(text: str) -> None:
    assert gloss(text) == ""


@pytest.fixture(scope="module")
def embedder() -> E5Embedder:
    status = default_embedder()
    if status.embedder is None:
        pytest.skip(status.detail)
    return status.embedder  # type: ignore[return-value]


def test_descriptions_get_a_glossed_row_and_examples_do_not(embedder: E5Embedder) -> None:
    topics = [
        TopicSpec(
            topic_key="refunds",
            name="退款",
            routing={"include_when": ["退款申请"], "examples": {"positive": ["订单 8812 的退款已到账"]}},
        ),
        TopicSpec(topic_key="shipping", name="Shipping", routing={"include_when": ["parcel delays at customs"]}),
    ]
    index = build_index(topics, embedder, calibration().centring)
    refunds, shipping = index.topics["refunds"], index.topics["shipping"]
    labels = [rt.label for rt in refunds.includes]
    assert "include_when[0]" + TRANSLATED_SUFFIX in labels and "name" + TRANSLATED_SUFFIX in labels
    assert not any(label.startswith("examples.") and label.endswith(TRANSLATED_SUFFIX) for label in labels)
    assert set(refunds.row_kinds[refunds.row_kinds >= INTO_ENGLISH]) == {INTO_ENGLISH}
    assert INTO_CHINESE in set(shipping.row_kinds)
    assert refunds.include_matrix.shape[0] == len(refunds.includes) == len(refunds.row_kinds)
    # an English message meets the Chinese rule through its gloss more closely than through the rule itself
    vector = index.embed_message("Refund request for order 5521 approved.").meaning
    sims = refunds.include_matrix @ vector
    original = max(s for s, k in zip(sims, refunds.row_kinds, strict=True) if k == 0)
    assert similarities(index, vector)["refunds"].into_english > original - 0.05
    assert np.isfinite(sims).all()
