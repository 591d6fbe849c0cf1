"""Parse the plain-language rule texts users write into matchable terms.

"内容涉及股票/指数/外汇/利率/宏观数据/财报" names alternatives: it becomes six alternatives
(股票 | 指数 | ...), with the filler "内容涉及" dropped. "与金融无关的任务进度" is a negation:
its positive part (任务进度, a progress report) must hold and its negated part (金融) must not.
Words that describe a *kind* of message rather than a subject (寒暄, 进度, tool call, 重复)
become meta checks answered by the noise detectors instead of literal word matches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from topic_dashboard.routing.lexicon import concept_index
from topic_dashboard.routing.text import (
    CJK_CLASS,
    STOP_EN,
    is_cjk,
    latin_sequence,
    normalize,
    register_words,
    segment_cjk,
    stem,
)

STOP_ZH = frozenset(
    [
        "的",
        "地",
        "得",
        "了",
        "着",
        "过",
        "是",
        "在",
        "有",
        "与",
        "及",
        "和",
        "或",
        "等",
        "把",
        "被",
        "对",
        "将",
        "这",
        "那",
        "其",
        "之",
        "中",
        "也",
        "都",
        "就",
        "而",
        "并",
        "且",
        "为",
        "以",
        "于",
        "从",
        "到",
        "让",
        "给",
        "由",
        "该",
        "此",
        "各",
        "每",
        "某",
        "即",
        "如",
        "若",
        "则",
        "所",
        "均",
        "已",
        "还",
        "又",
        "再",
        "很",
        "较",
        "更",
        "最",
        "非常",
        "一些",
        "一切",
        "任何",
        "所有",
        "这些",
        "那些",
        "这个",
        "那个",
        "这种",
        "那种",
        "我们",
        "你们",
        "他们",
        "我",
        "你",
        "他",
        "她",
        "它",
        "您",
        "内容",
        "涉及",
        "包含",
        "包括",
        "含有",
        "属于",
        "提到",
        "提及",
        "关于",
        "有关",
        "相关",
        "出现",
        "能够",
        "应该",
        "消息",
        "信息",
        "这类",
        "此类",
        "等等",
        "例如",
        "比如",
        "具有",
        "带有",
        "存在",
        "发生",
        "进行",
        "纯",
        "仅",
        "仅仅",
        "只",
        "只是",
        "单纯",
        "纯粹",
        "一条",
        "一则",
        "任意",
        "以上",
        "以下",
        "上述",
        "下列",
        "其他",
        "其它",
        "是否",
        "当",
        "时候",
        "如果",
        "需",
        "需要",
        "可",
        "可以",
        "即可",
        "一律",
        "默认",
        "主题",
        "topic",
        "频道",
        "类别",
        "已经",
        "明确",
        "具体",
        "清晰",
        "且",
        "并且",
        "而且",
        "同时",
        "必须",
        "一定",
    ]
)
_CONJ_ZH = frozenset({"或", "或者", "以及", "及", "和", "与", "跟", "还是"})
_CONJ_EN = frozenset({"or", "and", "nor", "plus", "either"})
_NEG_ZH = frozenset({"无", "非", "没有", "不", "未", "无需", "缺少", "缺乏", "毫无", "不含"})

META_WORDS: dict[str, str] = {
    **dict.fromkeys(
        ["寒暄", "问候", "打招呼", "客套", "客套话", "闲聊", "聊天", "闲谈", "招呼", "chitchat", "greet", "pleasantry"],
        "greeting",
    ),
    **dict.fromkeys(["chit chat", "small talk", "chat"], "greeting"),
    **dict.fromkeys(["进度", "处理中", "进行中", "progress"], "progress"),
    **dict.fromkeys(["status updat", "in progress", "progress report", "progress updat"], "progress"),
    **dict.fromkeys(["工具调用", "工具提示"], "tool_hint"),
    **dict.fromkeys(["tool call", "tool hint"], "tool_hint"),
    **dict.fromkeys(["回执", "应答", "ack", "acknowledg", "acknowledgment", "acknowledgement"], "ack"),
    **dict.fromkeys(["重复", "去重", "dedup", "duplicat"], "duplicate"),
}

register_words([*concept_index(), *META_WORDS])

_NEG_SPANS = (
    re.compile(r"(?:与|和|跟|同)([^，,；;。]+?)(?:无关|不相关|没有关系|没关系)的?"),
    re.compile(r"(?:不|没有|并非|并不|无需|未)(?:涉及|包含|包括|含有|含|属于|提及|提到|关于|带有|是)([^，,；;。的]+)"),
    re.compile(
        r"\b(?:not|never)\s+(?:related to|about|involving|concerning|regarding|mentioning|"
        r"containing|including|part of|from)\s+([^,;.()]+)"
    ),
    re.compile(r"\b(?:unrelated to|other than|except(?: for)?|excluding|without|lacking)[\s-]+([^,;.()]+)"),
    # "no"/"non" followed by a space negate; hyphenated they make a word ("no-show", "non-profit").
    re.compile(r"\b(?:no|non)\s+([^,;.()]+)"),
)
_TOKEN = re.compile(rf"([{CJK_CLASS}]+)|([a-z0-9\u00c0-\u024f]+(?:'[a-z]+)?)|([^\sa-z0-9{CJK_CLASS}])")
_EN_NEG_SPAN_WORDS = 4


@dataclass(frozen=True)
class ParsedAlt:
    text: str
    terms: tuple[str, ...]
    meta: str | None = None


@dataclass(frozen=True)
class ParsedCondition:
    text: str
    alts: tuple[ParsedAlt, ...]
    neg: tuple[str, ...] = ()


def _raw_tokens(norm: str) -> list[tuple[str, str]]:
    """(kind, token) with kind "zh", "en" or "sep"; CJK runs are cut into words."""
    out: list[tuple[str, str]] = []
    for m in _TOKEN.finditer(norm):
        if m.group(1):
            out.extend(("zh", w) for w in segment_cjk(m.group(1)))
        elif m.group(2):
            out.append(("en", m.group(2)))
        elif m.group(3) not in "-_.'#":  # keep "chit-chat", "v1.2", "dedupe_key" together-ish
            out.append(("sep", m.group(3)))
    return out


def _content_terms(tokens: list[tuple[str, str]]) -> tuple[list[str], str | None]:
    """Content term keys of a token run, English phrases from the lexicon merged, plus a meta kind."""
    index = concept_index()
    terms: list[str] = []
    meta: str | None = None
    words = [t for k, t in tokens if k == "en"]
    stems = latin_sequence(" ".join(words))
    i = 0
    en_terms: list[str] = []
    while i < len(stems):
        for n in (3, 2):
            phrase = " ".join(stems[i : i + n])
            if i + n <= len(stems) and (phrase in index or phrase in META_WORDS):
                meta = META_WORDS.get(phrase, meta)
                en_terms.append(phrase)
                i += n
                break
        else:
            if words[i] not in STOP_EN and not words[i].isdigit():
                meta = META_WORDS.get(stems[i], meta)
                en_terms.append(stems[i])
            i += 1
    zh = [t for k, t in tokens if k == "zh"]
    for tok in zh:
        meta = META_WORDS.get(tok, meta)
        if tok not in STOP_ZH and (len(tok) > 1 or len(zh) == 1):
            terms.append(tok)
    return list(dict.fromkeys(terms + en_terms)), meta


def text_terms(text: str) -> list[str]:
    """Ordered unique content terms of free text (examples, purpose, names)."""
    terms, _ = _content_terms([t for t in _raw_tokens(normalize(text)) if t[0] != "sep"])
    return terms


def _split_negations(norm: str) -> tuple[str, list[str]]:
    negated: list[str] = []
    for pattern in _NEG_SPANS:
        for m in pattern.finditer(norm):
            span = m.group(1)
            if not is_cjk(span):
                span = " ".join(span.split()[:_EN_NEG_SPAN_WORDS])
            negated.extend(text_terms(span))
        norm = pattern.sub(" , ", norm)
    return norm, negated


def parse_condition(text: str) -> ParsedCondition:
    """Split one include/exclude text into alternatives, negated terms and meta checks."""
    norm, negated = _split_negations(normalize(text))
    groups: list[list[tuple[str, str]]] = [[]]
    for kind, tok in _raw_tokens(norm):
        if kind == "sep" or (kind == "zh" and tok in _CONJ_ZH) or (kind == "en" and tok in _CONJ_EN):
            groups.append([])
        else:
            groups[-1].append((kind, tok))
    alts: list[ParsedAlt] = []
    for group in groups:
        kept: list[tuple[str, str]] = []
        negate_next = False
        for kind, tok in group:
            if kind == "zh" and tok in _NEG_ZH:
                negate_next = True
                continue
            if negate_next and not (kind == "zh" and tok in STOP_ZH):
                negated.extend(t for t in _content_terms([(kind, tok)])[0])
                negate_next = False
                continue
            kept.append((kind, tok))
        terms, meta = _content_terms(kept)
        if terms or meta:
            display = "".join(t if k == "zh" else f" {t} " for k, t in group).strip()
            alts.append(ParsedAlt(text=" ".join(display.split()), terms=tuple(terms), meta=meta))
    return ParsedCondition(text=text, alts=tuple(alts), neg=tuple(dict.fromkeys(negated)))


def stem_key(word: str) -> str:
    """The term key a single user keyword compiles to (for the optional `keywords` field)."""
    norm = normalize(word)
    if is_cjk(norm):
        return norm.replace(" ", "")
    seq = latin_sequence(norm)
    return " ".join(seq) if len(seq) > 1 else (stem(seq[0]) if seq else "")
