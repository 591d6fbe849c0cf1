"""Text normalisation and tokenising shared by rule compilation and message analysis.

Chinese has no spaces, so CJK text is never split on whitespace: rule phrases are segmented
once at compile time (see `segment`) and messages are matched by substring n-grams, which
does not depend on how a segmenter happens to cut the message. English is lower-cased and
reduced by a small, consistent suffix stemmer so "failed", "fails" and "failing" meet.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import unicodedata
from collections import Counter
from typing import Any

CJK_CLASS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_RUN = re.compile(f"[{CJK_CLASS}]+")
_CJK_CHAR = re.compile(f"[{CJK_CLASS}]")
_LATIN_TOKEN = re.compile(r"[a-z0-9\u00c0-\u024f]+(?:'[a-z]+)?")
_LETTERS = re.compile(r"[a-z\u00c0-\u024f]{2,}")
_SPACES = re.compile(r"\s+")

STOP_EN = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "nor",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "without",
        "into",
        "onto",
        "about",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "done",
        "has",
        "have",
        "had",
        "having",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "then",
        "than",
        "so",
        "such",
        "any",
        "all",
        "some",
        "each",
        "every",
        "no",
        "not",
        "only",
        "just",
        "very",
        "more",
        "most",
        "other",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "she",
        "they",
        "them",
        "their",
        "his",
        "her",
        "who",
        "whom",
        "which",
        "what",
        "when",
        "where",
        "why",
        "how",
        "will",
        "would",
        "shall",
        "should",
        "can",
        "could",
        "may",
        "might",
        "must",
        "also",
        "if",
        "else",
        "while",
        "via",
        "per",
        "etc",
        "eg",
        "ie",
        "vs",
        "content",
        "contents",
        "message",
        "messages",
        "post",
        "posts",
        "item",
        "items",
        "thing",
        "things",
        "something",
        "anything",
        "contain",
        "contains",
        "containing",
        "include",
        "includes",
        "including",
        "involve",
        "involves",
        "involving",
        "mention",
        "mentions",
        "mentioning",
        "mentioned",
        "relate",
        "related",
        "relating",
        "regarding",
        "concerning",
        "like",
        "e.g",
        "i.e",
        "s",
        "t",
        "d",
        "ll",
        "re",
        "ve",
        "m",
    ]
)

# Words that describe *any* message rather than a subject: they count, but weakly.
GENERIC = frozenset(
    [
        "内容",
        "信息",
        "消息",
        "相关",
        "情况",
        "问题",
        "结果",
        "数据",
        "数值",
        "数字",
        "时间",
        "时间点",
        "日期",
        "影响",
        "判断",
        "建议",
        "结论",
        "提示",
        "说明",
        "事件",
        "明确",
        "具体",
        "重要",
        "关键",
        "用户",
        "任务",
        "进行",
        "完成",
        "需要",
        "执行",
        "处理",
        "报告",
        "总结",
        "分析",
        "更新",
        "变化",
        "通知",
        "风险",
        "操作",
        "可能",
        "已经",
        "一个",
        "一些",
        "其他",
        "其它",
        "相应",
        "对应",
        "明显",
        "清晰",
        "主要",
        "当前",
        "最新",
        "有效",
        "价值",
        "有价值",
        "记录",
        "整理",
        "查看",
        "集中",
        "便于",
        "沉淀",
        "用途",
        "类",
        "类型",
        "方面",
        "事项",
        "东西",
        "部分",
        "状态",
        "结构",
        "服务",
        "系统",
        "平台",
        "工作",
        "result",
        "results",
        "data",
        "number",
        "numbers",
        "value",
        "values",
        "time",
        "date",
        "impact",
        "judgement",
        "judgment",
        "suggest",
        "suggestion",
        "recommendation",
        "conclusion",
        "conclusions",
        "note",
        "detail",
        "details",
        "important",
        "key",
        "user",
        "task",
        "update",
        "updates",
        "change",
        "changes",
        "summary",
        "analysis",
        "report",
        "issue",
        "problem",
        "status",
        "info",
        "information",
        "risk",
        "risks",
        "new",
        "latest",
        "current",
        "general",
        "useful",
        "valuable",
        "clear",
        "explicit",
        "specific",
        "actionable",
        "service",
        "system",
        "platform",
        "work",
        "high",
        "low",
        "large",
        "small",
        "big",
        "many",
        "much",
        "few",
        "major",
        "minor",
        "高",
        "低",
        "大",
        "小",
        "严重",
        "明显",
        "成功",
        "失败",
        "通过",
        "success",
        "successful",
        "succeed",
        "fail",
        "failure",
        "pass",
    ]
)
GENERIC_STEMS: frozenset[str] = frozenset()  # filled below once `stem` exists

_IRREGULAR = {
    "indices": "index",
    "analyses": "analysis",
    "criteria": "criterion",
    "data": "data",
    "news": "news",
    "series": "series",
    "status": "status",
    "gas": "gas",
    "bias": "bias",
    "was": "was",
    "has": "has",
    "does": "does",
    "this": "this",
    "its": "its",
    "us": "us",
    "ran": "run",
    "went": "go",
    "built": "build",
    "broke": "break",
    "broken": "break",
    "fell": "fall",
    "rose": "rise",
    "risen": "rise",
    "lost": "lose",
    "wrote": "write",
    "written": "write",
    "caught": "catch",
    "paid": "pay",
    "sold": "sell",
    "bought": "buy",
}
_DOUBLE = re.compile(r"([bdgmnprt])\1$")


_SUFFIXES = (
    ("ies", "y"),
    ("ied", "y"),
    ("sses", "ss"),
    ("xes", "x"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("ing", ""),
    ("ed", ""),
    ("es", "e"),
    ("s", ""),
)


def _strip_suffix(w: str) -> tuple[str, str]:
    for suffix, repl in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) + len(repl) >= 3:
            if suffix == "s" and w.endswith(("ss", "us", "is")):
                return w, ""
            w = w[: len(w) - len(suffix)] + repl
            if suffix in ("ing", "ed") and _DOUBLE.search(w):
                w = w[:-1]
            return w, suffix
    return w, ""


def stem(word: str) -> str:
    """Reduce an English word to a stable key; consistency matters more than linguistics."""
    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if len(w) <= 3 or not w.isalpha():
        return w
    w, suffix = _strip_suffix(w)
    if suffix in ("s", "es") and w.endswith(("ing", "ed")):  # "meetings" -> "meeting" -> "meet"
        w, _ = _strip_suffix(w)
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


GENERIC_STEMS = frozenset(stem(w) for w in GENERIC if w.isascii())


def normalize(text: str) -> str:
    """NFKC (full-width to half-width), lower-case, collapse whitespace."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip().lower()


def is_cjk(text: str) -> bool:
    return bool(_CJK_CHAR.search(text))


def cjk_runs(norm: str) -> list[str]:
    return CJK_RUN.findall(norm)


def latin_words(norm: str) -> list[str]:
    """Latin/digit tokens; mixed tokens ("20bp", "p99") also yield their letter parts."""
    out: list[str] = []
    for tok in _LATIN_TOKEN.findall(norm):
        out.append(tok)
        if not tok.isalpha() and not tok.isdigit():
            out.extend(p for p in _LETTERS.findall(tok) if p != tok)
    return out


def latin_sequence(norm: str) -> list[str]:
    """Every Latin/digit token stemmed, stop-words kept: the sequence phrases are matched on."""
    return [stem(w) for w in _LATIN_TOKEN.findall(norm)]


def latin_stems(norm: str) -> list[str]:
    """Stemmed Latin content words in order, stop-words and bare numbers dropped."""
    return [stem(w) for w in latin_words(norm) if w not in STOP_EN and not w.isdigit()]


def term_weight(key: str) -> float:
    """Base weight of a rule term: specific words count fully, generic ones weakly."""
    if key in GENERIC or key in GENERIC_STEMS:
        return 0.35
    if is_cjk(key):
        return 0.3 if len(key) == 1 else 1.0
    return 0.7 if len(key) <= 2 else 1.0


# --- signals: generic features a rule can name ("包含明确数值", "mentions a date") -----------

_SIGNALS = (
    ("#num", re.compile(r"\d")),
    ("#pct", re.compile(r"\d\s*%|百分点|\d\s*bps?\b|基点")),
    (
        "#time",
        re.compile(
            r"\d{1,2}:\d{2}|\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d+\s*月\s*\d+\s*日|\d+\s*[日号点时]|"
            r"今天|昨天|明天|今日|昨日|明日|本周|上周|下周|本月|上月|周[一二三四五六日末]|盘前|盘后|"
            r"\b(?:today|yesterday|tomorrow|tonight|monday|tuesday|wednesday|thursday|friday|"
            r"saturday|sunday|q[1-4]|am|pm|utc|gmt)\b"
        ),
    ),
    ("#money", re.compile(r"[$¥€£]\s*\d|\d\s*(?:元|美元|亿|万|usd|cny|eur)")),
    ("#url", re.compile(r"https?://|www\.")),
    ("#ticker", re.compile(r"\$[a-z]{1,5}\b|\b[a-z]{1,5}\.(?:us|hk|sh|sz)\b|\b\d{6}\.(?:sh|sz)\b")),
)


def signals(norm: str) -> list[str]:
    return [name for name, pattern in _SIGNALS if pattern.search(norm)]


# --- similarity bags for "is this close to that example" --------------------------------


def bag(norm: str) -> Counter[str]:
    """CJK character bigrams plus English stems: a segmenter-free bag for cosine closeness."""
    counts: Counter[str] = Counter()
    for run in cjk_runs(norm):
        if len(run) == 1:
            counts[run] += 1
        else:
            counts.update(run[i : i + 2] for i in range(len(run) - 1))
    counts.update(latin_stems(norm))
    return counts


def cosine(a: dict[str, float], b: dict[str, float], norm_a: float, norm_b: float) -> float:
    if not norm_a or not norm_b:
        return 0.0
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(k, 0.0) for k, v in a.items()) / (norm_a * norm_b)


def vector_norm(vec: dict[str, float]) -> float:
    return math.sqrt(sum(v * v for v in vec.values()))


# --- segmenter for rule phrases (compile time only) -------------------------------------

_segmenter: Any = None
_segmenter_lock = threading.Lock()
_extra_words: set[str] = set()


def register_words(words: Any) -> None:
    """Teach the rule segmenter whole words (lexicon entries) so it does not cut them apart."""
    new = {w for w in words if is_cjk(w) and len(w) > 1} - _extra_words
    _extra_words.update(new)
    if _segmenter:
        for w in sorted(new):
            _segmenter.add_word(w)


def _jieba() -> Any:
    """A private jieba instance so user dictionaries elsewhere cannot change our cuts."""
    global _segmenter
    if _segmenter is None:
        with _segmenter_lock:
            if _segmenter is None:
                try:
                    import jieba
                except ImportError:  # bigrams are a correct, if coarser, fallback
                    _segmenter = False
                else:
                    jieba.setLogLevel(logging.WARNING)
                    tokenizer = jieba.Tokenizer()
                    tokenizer.initialize()
                    for w in sorted(_extra_words):
                        tokenizer.add_word(w)
                    _segmenter = tokenizer
    return _segmenter


def segmenter() -> Any:
    """The rule segmenter (a jieba Tokenizer with the lexicon's words), or False without jieba."""
    return _jieba()


def segment_cjk(run: str) -> list[str]:
    """Words of a CJK run: jieba's precise mode, or overlapping bigrams without jieba."""
    tokenizer = _jieba()
    if tokenizer:
        return [w for w in tokenizer.lcut(run, HMM=False) if w.strip()]
    if len(run) <= 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def segment(norm: str) -> list[str]:
    """Rule-side words in order: CJK words and stemmed English words (stop-words dropped)."""
    out: list[str] = []
    pos = 0
    for m in CJK_RUN.finditer(norm):
        out.extend(latin_stems(norm[pos : m.start()]))
        out.extend(segment_cjk(m.group()))
        pos = m.end()
    out.extend(latin_stems(norm[pos:]))
    return out
