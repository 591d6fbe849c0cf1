"""Untrusted markdown → safe HTML: CommonMark with raw HTML off, then an allow-list sanitizer.

Bots' text is untrusted. markdown-it (html=False) escapes any HTML in the source; nh3 (Ammonia)
then keeps only the listed tags and attributes, only http(s)/mailto URLs, and makes every link
open in a new tab with rel="noopener noreferrer nofollow". Remote images stay out unless allowed.
"""

from __future__ import annotations

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
