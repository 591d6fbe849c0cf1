"""Selection, truncation, clamping and id cleaning for `ccweb_list_user_inputs`."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from topic_dashboard.errors import AppError
from topic_dashboard.user_inputs import (
    DEFAULT_LIMIT,
    DEFAULT_MAX_CHARS,
    MAX_LIMIT,
    MAX_MAX_CHARS,
    MIN_LIMIT,
    MIN_MAX_CHARS,
    UserInput,
    clamp_int,
    clean_conversation_id,
    resolve_conversation_id,
    select_user_inputs,
)

CONV = "0123456789abcdef0123456789abcdef"
T0 = datetime(2026, 11, 30, 4, 5, 6, 123456, tzinfo=UTC)


def inputs(*contents: str) -> list[UserInput]:
    """User inputs given oldest first, returned newest first as the DB layer passes them."""
    rows = [
        UserInput(message_id=f"m{i}", created_at=T0 + timedelta(minutes=i), content=text)
        for i, text in enumerate(contents)
    ]
    return rows[::-1]


def select(newest_first: Any, *, limit: int = DEFAULT_LIMIT, max_chars: int = DEFAULT_MAX_CHARS) -> dict[str, Any]:
    return select_user_inputs(newest_first, conversation_id=CONV, limit=limit, max_chars=max_chars)


def contents(result: dict[str, Any]) -> list[str]:
    return [item["content"] for item in result["items"]]


# --- clamp_int -------------------------------------------------------------------------


def clamp_limit(value: Any) -> int:
    return clamp_int(value, name="limit", default=DEFAULT_LIMIT, lo=MIN_LIMIT, hi=MAX_LIMIT)


def clamp_max_chars(value: Any) -> int:
    return clamp_int(value, name="maxChars", default=DEFAULT_MAX_CHARS, lo=MIN_MAX_CHARS, hi=MAX_MAX_CHARS)


def test_defaults_when_absent() -> None:
    assert clamp_limit(None) == 15
    assert clamp_max_chars(None) == 1000


@pytest.mark.parametrize(
    ("value", "expected"),
    [(-5, 1), (0, 1), (1, 1), (7, 7), (50, 50), (51, 50), (10**30, 50)],
)
def test_limit_is_clamped_into_range(value: int, expected: int) -> None:
    assert clamp_limit(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(-1, 1), (0, 1), (1, 1), (999, 999), (1000, 1000), (1001, 1000), (10**30, 1000)],
)
def test_max_chars_is_clamped_into_range(value: int, expected: int) -> None:
    assert clamp_max_chars(value) == expected


@pytest.mark.parametrize("value", [True, False, 3.0, 2.5, float("nan"), "5", "", [5], {"n": 5}])
@pytest.mark.parametrize(("clamp", "field"), [(clamp_limit, "limit"), (clamp_max_chars, "maxChars")])
def test_non_integer_is_invalid_argument(value: Any, clamp: Any, field: str) -> None:
    with pytest.raises(AppError) as caught:
        clamp(value)
    assert caught.value.code == "invalid_argument"
    assert caught.value.field == field


# --- conversation ids ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (CONV, CONV),
        (f"  {CONV}\n", CONV),
        ("\t abc-DEF_9 ", "abc-DEF_9"),
        ("a", "a"),
        ("a" * 128, "a" * 128),
    ],
)
def test_clean_conversation_id_accepts(raw: str, expected: str) -> None:
    assert clean_conversation_id(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        None,
        123,
        b"abc",
        "",
        "   ",
        "../x",
        "..",
        ".",
        "a/b",
        "/abc",
        "a\\b",
        "a.b",
        "a b",
        "a" * 129,
        "abc\x00",
        "ab\x00c",
        "-abc",
        "_abc",
        "abc\ndef",
        "会话",
        "abcé",
        "ａｂｃ",  # full-width letters are not ASCII
        "abc👍",
    ],
)
def test_clean_conversation_id_rejects(raw: Any) -> None:
    assert clean_conversation_id(raw) is None


def test_explicit_id_wins_over_source() -> None:
    assert resolve_conversation_id(" abc ", CONV) == "abc"


def test_source_is_used_when_no_explicit_id() -> None:
    assert resolve_conversation_id(None, f" {CONV} ") == CONV


@pytest.mark.parametrize("explicit", ["", "  ", "../x", "a/b", "a\\b", "a" * 129, "x\x00", "会话", 42])
@pytest.mark.parametrize("source", [CONV, None])
def test_invalid_explicit_id_never_falls_back(explicit: Any, source: str | None) -> None:
    with pytest.raises(AppError) as caught:
        resolve_conversation_id(explicit, source)
    assert caught.value.code == "invalid_conversation_id"


@pytest.mark.parametrize("source", [None, "", "   ", "../etc", "a/b", "a" * 129])
def test_missing_or_unusable_source(source: str | None) -> None:
    with pytest.raises(AppError) as caught:
        resolve_conversation_id(None, source)
    assert caught.value.code == "missing_source_conversation"


# --- selection -------------------------------------------------------------------------


def test_result_shape() -> None:
    result = select(inputs("first", "second"))
    assert result == {
        "ok": True,
        "conversationId": CONV,
        "requestedLimit": 15,
        "maxChars": 1000,
        "totalChars": 11,
        "returnedCount": 2,
        "hasMore": False,
        "items": [
            {
                "messageId": "m0",
                "createdAt": "2026-11-30T04:05:06.123456+00:00",
                "content": "first",
                "contentChars": 5,
                "originalChars": 5,
                "truncated": False,
            },
            {
                "messageId": "m1",
                "createdAt": "2026-11-30T04:06:06.123456+00:00",
                "content": "second",
                "contentChars": 6,
                "originalChars": 6,
                "truncated": False,
            },
        ],
    }


def test_empty_conversation() -> None:
    result = select([])
    assert result["items"] == []
    assert (result["returnedCount"], result["totalChars"], result["hasMore"]) == (0, 0, False)


def test_created_at_formats() -> None:
    naive = datetime(2026, 1, 2, 3, 4, 5)
    plus_two = datetime(2026, 1, 2, 5, 4, 5, tzinfo=timezone(timedelta(hours=2)))
    rows = [
        UserInput(message_id=None, created_at=None, content="c"),
        UserInput(message_id="b", created_at=plus_two, content="b"),
        UserInput(message_id="a", created_at=naive, content="a"),
    ]
    items = select(rows)["items"]
    assert [item["createdAt"] for item in items] == [
        "2026-01-02T03:04:05.000000+00:00",
        "2026-01-02T03:04:05.000000+00:00",
        None,
    ]
    assert items[2]["messageId"] is None


def test_items_come_oldest_first() -> None:
    assert contents(select(inputs("a", "b", "c"))) == ["a", "b", "c"]


def test_most_recent_limit_only_and_has_more() -> None:
    result = select(inputs(*"abcdefghij"), limit=3)
    assert contents(result) == ["h", "i", "j"]
    assert result["requestedLimit"] == 3
    assert result["hasMore"] is True


def test_exactly_limit_inputs_has_no_more() -> None:
    result = select(inputs("a", "b", "c"), limit=3)
    assert contents(result) == ["a", "b", "c"]
    assert result["hasMore"] is False


def test_default_limit_is_fifteen() -> None:
    result = select(inputs(*[f"msg {i}" for i in range(20)]))
    assert contents(result) == [f"msg {i}" for i in range(5, 20)]
    assert result["hasMore"] is True


@pytest.mark.parametrize("blank", ["", " ", "\n\t ", "\u3000", "\u00a0\u2028"])
def test_blank_inputs_are_skipped_and_do_not_count(blank: str) -> None:
    result = select(inputs("a", blank, "b", blank, "c", blank), limit=3)
    assert contents(result) == ["a", "b", "c"]
    assert result["hasMore"] is False


def test_blank_rows_beyond_limit_do_not_make_has_more() -> None:
    assert select(inputs(" ", "", "x", "y"), limit=2)["hasMore"] is False
    assert select(inputs("old", " ", "x", "y"), limit=2)["hasMore"] is True


def test_content_is_returned_untrimmed() -> None:
    result = select(inputs("  hi  ", "\nnext line\n"))
    assert contents(result) == ["  hi  ", "\nnext line\n"]
    assert [item["contentChars"] for item in result["items"]] == [6, 11]


def test_budget_split_across_messages() -> None:
    result = select(inputs("aaaa", "bbb", "cc"), max_chars=7)
    assert contents(result) == ["aa", "bbb", "cc"]
    first = result["items"][0]
    assert (first["contentChars"], first["originalChars"], first["truncated"]) == (2, 4, True)
    assert [item["truncated"] for item in result["items"]] == [True, False, False]
    assert result["totalChars"] == 7
    assert result["hasMore"] is True


def test_exact_fit_is_not_truncated() -> None:
    result = select(inputs("aaaa", "bbb", "cc"), max_chars=9)
    assert contents(result) == ["aaaa", "bbb", "cc"]
    assert not any(item["truncated"] for item in result["items"])
    assert result["totalChars"] == 9
    assert result["hasMore"] is False


def test_truncated_boundary_message_stops_older_ones() -> None:
    result = select(inputs("older", "middle", "new"), max_chars=5)
    assert contents(result) == ["mi", "new"]
    assert result["items"][0]["truncated"] is True
    assert result["items"][0]["messageId"] == "m1"
    assert result["returnedCount"] == 2
    assert result["hasMore"] is True


def test_budget_exhausted_right_before_an_older_message() -> None:
    result = select(inputs("older", "bbb", "cc"), max_chars=5)
    assert contents(result) == ["bbb", "cc"]
    assert not any(item["truncated"] for item in result["items"])
    assert result["totalChars"] == 5
    assert result["hasMore"] is True


def test_single_truncated_message_has_more() -> None:
    result = select(inputs("hello world"), max_chars=5)
    assert contents(result) == ["hello"]
    assert result["items"][0]["truncated"] is True
    assert result["hasMore"] is True


def test_newest_message_always_gets_at_least_one_char() -> None:
    result = select(inputs("older", "newest"), max_chars=1)
    assert contents(result) == ["n"]
    assert result["hasMore"] is True


@pytest.mark.parametrize(
    ("text", "max_chars", "kept"),
    [
        ("👍👍👍", 2, "👍👍"),
        ("👍👍👍", 3, "👍👍👍"),
        ("𠀀𠀁𠀂𠀃", 1, "𠀀"),  # CJK extension B, outside the BMP
        ("用户输入历史", 4, "用户输入"),
        ("e\u0301e\u0301", 3, "e\u0301e"),  # a combining mark is a code point of its own
        ("a👨‍👩‍👧b", 4, "a👨‍👩"),  # ZWJ sequence: 👨 ZWJ 👩 are three code points
    ],
)
def test_characters_are_code_points(text: str, max_chars: int, kept: str) -> None:
    result = select(inputs(text), max_chars=max_chars)
    (item,) = result["items"]
    assert item["content"] == kept
    assert item["contentChars"] == len(kept) == result["totalChars"]
    assert item["originalChars"] == len(text)
    assert item["truncated"] is (kept != text)


def test_emoji_counts_once_in_exact_fit() -> None:
    result = select(inputs("👍", "🎉🎉"), max_chars=3)
    assert contents(result) == ["👍", "🎉🎉"]
    assert result["totalChars"] == 3
    assert result["hasMore"] is False


def test_reads_lazily_up_to_limit_plus_one_non_blank() -> None:
    consumed: list[str] = []

    def rows() -> Iterator[UserInput]:
        for i in range(100):
            consumed.append(str(i))
            yield UserInput(message_id=str(i), created_at=None, content=" " if i % 2 else f"x{i}")

    result = select(rows(), limit=3)
    assert contents(result) == ["x4", "x2", "x0"]
    assert result["hasMore"] is True
    # 0, 2, 4 are candidates; 6 proves older inputs exist; nothing after it is read.
    assert consumed == [str(i) for i in range(7)]


# --- properties ------------------------------------------------------------------------

ALPHABET = ["a", "b", " ", "\n", "\u3000", "用", "é", "\u0301", "👍", "𠀀"]


def reference(oldest_first: list[str], limit: int, max_chars: int) -> tuple[list[str], bool]:
    """A deliberately naive restatement of the spec."""
    non_blank = [text for text in oldest_first if text.strip()]
    candidates = non_blank[-limit:]
    kept: list[str] = []
    budget = max_chars
    cut = False
    for text in reversed(candidates):
        if budget <= 0:
            cut = True
            break
        if len(text) <= budget:
            kept.append(text)
            budget -= len(text)
        else:
            kept.append(text[:budget])
            cut = True
            break
    return kept[::-1], len(non_blank) > limit or cut


def test_random_inputs_match_the_spec() -> None:
    rng = random.Random(20261130)
    for _ in range(3000):
        texts = ["".join(rng.choices(ALPHABET, k=rng.randint(0, 12))) for _ in range(rng.randint(0, 25))]
        limit = rng.randint(MIN_LIMIT, 20)
        max_chars = rng.choice([1, 2, 3, rng.randint(1, 60), rng.randint(1, MAX_MAX_CHARS)])
        result = select(inputs(*texts), limit=limit, max_chars=max_chars)

        expected, has_more = reference(texts, limit, max_chars)
        assert contents(result) == expected
        assert result["hasMore"] is has_more
        assert result["returnedCount"] == len(result["items"]) <= limit
        assert result["totalChars"] == sum(item["contentChars"] for item in result["items"]) <= max_chars
        for item in result["items"]:
            assert item["contentChars"] == len(item["content"]) >= 1
            assert item["truncated"] is (item["contentChars"] < item["originalChars"])
        # Only the oldest returned item may be truncated.
        assert not any(item["truncated"] for item in result["items"][1:])
