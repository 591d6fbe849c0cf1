"""Untrusted markdown → safe HTML: CommonMark with raw HTML off, then an allow-list sanitizer;
and → plain text, for the one-line previews and search snippets of the item list.

Bots' text is untrusted. markdown-it (html=False) escapes any HTML in the source; nh3 (Ammonia)
then keeps only the listed tags and attributes, only http(s)/mailto URLs, and makes every link
open in a new tab with rel="noopener noreferrer nofollow". Remote images stay out unless allowed.
The plain text is read from the same parser's tokens (never from HTML): the words as the detail
pane shows them, without the marks.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import nh3
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml

from topic_dashboard.item_views.safety import safe_url

_TAGS = {
    "p",
    "br",
    "hr",
    "strong",
    "em",
    "del",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "span",
}
_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}, "ol": {"start"}, "code": {"class"}}
_IMAGE_ATTRIBUTES = {"img": {"src", "alt", "title"}}


class _SafeLinksMarkdownIt(MarkdownIt):
    def validateLink(self, url: str) -> bool:
        """Links that are not http(s)/mailto are not made into links at all (shown as text)."""
        return safe_url(url) is not None


def _blocked_image(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    """Where remote images are off, an image says so (with its alt text) instead of vanishing."""
    token = tokens[idx]
    alt = "".join(child.content for child in token.children or []) or token.attrGet("alt") or ""
    label = f"image: {alt}" if alt.strip() else "image"
    return f'<em title="Remote images are off for this bot">[{escapeHtml(label)} - not shown]</em>'


@lru_cache(maxsize=2)
def _parser(allow_images: bool = False) -> MarkdownIt:
    parser = (
        _SafeLinksMarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
        .enable("table")
        .enable("strikethrough")
    )
    if not allow_images:
        parser.add_render_rule("image", _blocked_image)
    return parser


def render_markdown(text: str, *, allow_images: bool = False) -> str:
    """Safe HTML for `text`. Scripts, event handlers, style, iframes and non-http(s)/mailto URLs never survive.
    Without `allow_images` an image is shown as a marked placeholder with its alt text."""
    html = _parser(allow_images).render(text or "")
    tags = _TAGS | ({"img"} if allow_images else set())
    attributes = {**_ATTRIBUTES, **(_IMAGE_ATTRIBUTES if allow_images else {})}
    return nh3.clean(
        html,
        tags=tags,
        attributes=attributes,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
        set_tag_attribute_values={"a": {"target": "_blank"}},
        strip_comments=True,
    )


class _PlainTextMarkdownIt(MarkdownIt):
    def validateLink(self, url: str) -> bool:
        """Every link's text is kept, whatever its target: plain text makes no links."""
        return True


@lru_cache(maxsize=1)
def _plain_parser() -> MarkdownIt:
    return (
        _PlainTextMarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
        .enable("table")
        .enable("strikethrough")
    )


# What a piece of inline markdown says: text, code and an image's alt text; breaks become spaces;
# the marks (emphasis, links' brackets and targets) say nothing.
_INLINE_WORDS = {"text", "code_inline", "image"}
_INLINE_BREAKS = {"softbreak", "hardbreak"}
_TASK_BOX = re.compile(r"^\[[ xX]\]\s+")


def plain_text(text: str) -> str:
    """What markdown `text` says, as one line of plain text: headings', list items', quotes' and table
    cells' words without their marks (a task list's [ ] / [x] too); emphasis, code spans and
    strikethrough as their words; a link or an image as its text; code blocks as their code; rules and
    link definitions dropped; entities and escapes as the characters they stand for; whitespace folded.
    Raw HTML stays as the text it is (the detail pane shows it so too). Not HTML: show it as text."""
    words: list[str] = []
    tokens = _plain_parser().parse(text or "")
    for index, token in enumerate(tokens):
        if token.type == "inline":
            said = "".join(
                child.content if child.type in _INLINE_WORDS else " " if child.type in _INLINE_BREAKS else ""
                for child in token.children or []
            )
            if index >= 2 and tokens[index - 2].type == "list_item_open":  # a task list's box is a marker too
                said = _TASK_BOX.sub("", said)
            words.append(said)
        elif token.type in ("fence", "code_block"):
            words.append(token.content)
    return " ".join(" ".join(words).split())


_BLANK_LINE = re.compile(r"\n[ \t]*\n")
BLOCK_REACH = 2000  # characters a span reaches past what it must cover to end at a blank line


def block_span(text: str, start: int, end: int, *, reach: int = BLOCK_REACH) -> tuple[int, int]:
    """The span of `text` to parse for text[start:end]: from the blank line before `start` to the blank
    line after `end`, so that no link or emphasis is cut in two; where no blank line is within `reach`
    characters, from a line's start or to a line's end there, so a long text costs what its nearby
    blocks cost (markdown-it reads about 1 ms per 1,000 characters), never what the whole text does."""
    start, end = max(0, min(start, len(text))), max(0, min(max(end, start), len(text)))
    low, high = max(0, start - reach), min(len(text), end + reach)
    blanks_before = [match.end() for match in _BLANK_LINE.finditer(text, low, start)]
    if blanks_before:
        begin = blanks_before[-1]
    else:
        line = text.find("\n", low, start)
        begin = low if low == 0 or line < 0 else line + 1
    blank_after = _BLANK_LINE.search(text, end, high)
    if blank_after:
        finish = blank_after.start()
    else:
        line = text.rfind("\n", end, high)
        finish = high if high == len(text) or line < 0 else line
    return begin, finish
