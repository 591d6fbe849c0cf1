"""The XSS matrix's parts: the payloads, the browser trap, a DOM inspector, and a packer that spreads
the payloads over every text field of every view type.

Every payload, if it ever ran, would do at least one of: increment `window.__xss`, call
alert/confirm/prompt, or request http://xss.invalid/ (a host that can never resolve). The trap
counts all three; the inspector finds what a payload would need to run later (an on* attribute,
a javascript:/data: URL, a frame, a meta refresh) even when nothing fired yet.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, Request, WebSocket

from tests.e2e.conftest import E2EApp
from tests.support.mcp import mcp_client, result_json, run_async
from topic_dashboard.errors import AppError
from topic_dashboard.text_policy import check_line

T = "window.__xss++"
BEACON = "http://xss.invalid"


@dataclass(frozen=True)
class Payload:
    name: str
    text: str  # already trimmed, LF only: what the server stores is exactly this


PAYLOADS: tuple[Payload, ...] = tuple(
    Payload(name, text)
    for name, text in [
        # script tags
        ("script", f"<script>{T}</script>"),
        ("script-mixed-case", f"<ScRiPt>{T}</sCrIpT>"),
        ("script-split", f"<scr<script>ipt>{T}</scr</script>ipt>"),
        ("script-remote-src", f'<script src="{BEACON}/s.js"></script>'),
        ("script-breakout", f'"></textarea></title></style></script><script>{T}</script>'),
        ("script-json-breakout", f"\");{T};//'</script><script>alert(1)</script>"),
        # event handlers
        ("img-onerror", f"<img src=x onerror={T}>"),
        ("img-slashes", f"<img/src='x'/onerror={T}>"),
        ("svg-onload", f"<svg onload={T}>"),
        ("body-onload", f"<body onload={T}>"),
        ("details-ontoggle", f"<details open ontoggle={T}>"),
        ("video-source-onerror", f"<video><source onerror={T}></video>"),
        ("input-autofocus", f"<input autofocus onfocus={T}>"),
        ("marquee-onstart", f"<marquee onstart={T}>x</marquee>"),
        ("a-onmouseover", f'<a href="#" onmouseover="{T}">hover</a>'),
        # javascript:, data:, vbscript: URLs
        ("js-url", f"javascript:{T}"),
        ("js-url-mixed-case", "JaVaScRiPt:alert(1)"),
        ("js-url-entities", f"&#106;&#x61;vascript&colon;{T}"),
        ("js-url-whitespace", f"java\tscript:{T}"),
        ("js-url-leading-space", f'[x](\u00a0 javascript:{T}) <a href=" \u00a0javascript:{T}">x</a>'),
        ("data-url-html", f"data:text/html,<script>{T}</script>"),
        ("data-url-base64", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="),
        ("vbscript-url", "vbscript:msgbox(1)"),
        ("a-href-js", f'<a href="javascript:{T}">click</a>'),
        ("form-action-js", f'<form action="javascript:{T}"><button formaction="javascript:{T}">go</button></form>'),
        # markdown links and images
        ("md-link-js", f"[click](javascript:{T})"),
        ("md-link-entity", f"[click](&#106;avascript:{T})"),
        ("md-link-data", "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)"),
        ("md-link-title-breakout", f'[a](https://example.com/ "t\\" onmouseover=\\"{T}")'),
        ("md-image-onerror", f'![x](x" onerror="{T})'),
        ("md-image-js", f"![x](javascript:{T})"),
        ("md-reference-js", f"[ref][r]\n\n[r]: javascript:{T}"),
        ("md-autolink-js", f"<javascript:{T}>"),
        ("md-html-block", f"<div>\n<img src=x onerror={T}>\n</div>"),
        ("md-comment-breakout", f"<!--><img src=x onerror={T}>-->"),
        # SVG
        ("svg-script", f"<svg><script>{T}</script></svg>"),
        (
            "svg-animate-href",
            f"<svg><a><animate attributeName=href values=javascript:{T} /><text y=9>x</text></a></svg>",
        ),
        ("svg-set-href", f"<svg><a><set attributeName=href to=javascript:{T} /><text y=9>x</text></a></svg>"),
        # entities
        ("entity-script", f"&lt;script&gt;{T}&lt;/script&gt;"),
        ("entity-img-decimal", f"&#60;img src=x onerror={T}&#62;"),
        # unicode tricks
        ("fullwidth-lt", f"\uff1cscript\uff1e{T}\uff1c/script\uff1e"),
        ("rtl-override", f"\u202e<img src=x onerror={T}>\u202c gpj.exe"),
        ("zero-width-javascript", f"java\u200dscript:{T} [z](java\u200bscript:{T})"),
        ("escaped-unicode-lt", f"\\u003cscript\\u003e{T}\\u003c/script\\u003e"),
        # style
        ("style-expression", f'<div style="width:expression({T})">x</div>'),
        ("style-url-js", f'<p style="background:url(javascript:{T})">x</p>'),
        ("style-import-remote", f"<style>@import '{BEACON}/x.css';</style>"),
        # frames, meta, base, mutation XSS
        ("iframe-srcdoc", '<iframe srcdoc="<script>parent.__xss++;alert(1)</script>"></iframe>'),
        ("iframe-js-src", '<iframe src="javascript:parent.__xss++"></iframe>'),
        (
            "object-embed-data",
            f'<object data="javascript:{T}"></object><embed src="data:text/html,<script>alert(1)</script>">',
        ),
        ("meta-refresh", f'<meta http-equiv="refresh" content="0;url=javascript:{T}">'),
        ("base-href-remote", f'<base href="{BEACON}/">'),
        ("noscript-mxss", f'<noscript><p title="</noscript><img src=x onerror={T}>">'),
        (
            "template-mxss",
            f"<template><img src=x onerror={T}></template><math><mtext><table><mglyph><style><img src=x onerror={T}>",
        ),
        # template syntaxes a frontend might evaluate
        ("template-expression", f"{{{{constructor.constructor('{T}')()}}}} ${{{T}}}"),
        # remote requests that must never happen
        ("beacon-md-image", f"![beacon]({BEACON}/beacon.png)"),
        ("beacon-img", f'<img src="{BEACON}/img.png"><link rel=stylesheet href="{BEACON}/l.css">'),
        ("beacon-style-url", f'<p style="background:url({BEACON}/bg.png)">x</p>'),
    ]
)

# Runs in every frame before the app: the counter, and dialogs replaced by counters.
TRAP_INIT = """(() => {
  window.__xss = 0;
  window.__dialogs = 0;
  for (const name of ['alert', 'confirm', 'prompt', 'print']) {
    window[name] = function () { window.__dialogs++; return null; };
  }
})();"""

# Facts about the whole rendered document that must hold whatever bots and people typed.
INSPECT_DOM = r"""() => {
  const found = [];
  const urlAttrs = new Set(['href', 'xlink:href', 'src', 'action', 'formaction', 'srcdoc', 'data', 'poster',
    'background', 'srcset', 'ping', 'lowsrc', 'dynsrc', 'codebase', 'cite', 'longdesc', 'manifest', 'icon']);
  const squeeze = (v) => v.replace(/[\u0000-\u0020\u007f-\u00a0\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g, '');
  const badUrl = (v) => /^(javascript|data|vbscript):/i.test(squeeze(v)) || /xss\.invalid/i.test(v);
  // Attributes where a payload may legitimately appear as text (an input's value, a tooltip).
  const textAttrs = new Set(['value', 'title', 'aria-label', 'aria-valuetext', 'alt', 'placeholder']);
  const frames = new Set(['iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'base', 'portal',
    'animate', 'set', 'animatemotion', 'animatetransform']);
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      const tag = el.tagName.toLowerCase();
      const at = (what) => found.push(`${tag}${el.id ? '#' + el.id : ''} ${what}`);
      for (const {name, value} of el.attributes) {
        const n = name.toLowerCase();
        if (n.startsWith('on')) at(`[${n}]`);
        else if (urlAttrs.has(n) && badUrl(value)) at(`[${n}=${value.slice(0, 60)}]`);
        else if (n === 'style' && /expression\s*\(|javascript:|vbscript:|xss\.invalid|-moz-binding|behavior\s*:/i.test(value))
          at(`[style=${value.slice(0, 60)}]`);
        else if (!textAttrs.has(n) && /__xss|xss\.invalid|javascript:/i.test(value)) at(`[${n}=${value.slice(0, 60)}]`);
      }
      if (frames.has(tag)) at('element');
      if (tag === 'meta' && el.hasAttribute('http-equiv')) at('http-equiv');
      if ((tag === 'script' || tag === 'style') && /__xss|xss\.invalid|alert\(|expression\(/.test(el.textContent)) at('text');
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  return found;
}"""


def squeeze(text: str) -> str:
    """Whitespace collapsed, as a reader (and Playwright) sees text."""
    return " ".join(text.split())


@dataclass
class Trap:
    """Everything that would show a payload ran: counters in every frame, dialogs, popups, requests elsewhere."""

    page: Page
    app_hosts: frozenset[str]
    dialogs: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    popups: list[str] = field(default_factory=list)
    requests: int = 0
    checks: int = 0

    def install(self) -> None:
        self.page.add_init_script(TRAP_INIT)
        self.page.on("dialog", self._on_dialog)
        self.page.on("request", self._on_request)
        self.page.on("websocket", self._on_websocket)
        self.page.on("popup", lambda popup: self.popups.append(popup.url))
        self.page.on("framenavigated", lambda frame: self._note_url(frame.url, "navigated"))

    def _on_dialog(self, dialog: Any) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def _on_request(self, request: Request) -> None:
        self.requests += 1
        self._note_url(request.url, request.resource_type)

    def _on_websocket(self, socket: WebSocket) -> None:
        self._note_url(socket.url, "websocket")

    def _note_url(self, url: str, what: str) -> None:
        if url == "about:blank" or url == "about:srcdoc":  # the page before its first navigation
            return
        if urlsplit(url).hostname not in self.app_hosts:
            self.foreign.append(f"{what} {url}")

    def counters(self) -> tuple[float, float]:
        """(__xss, __dialogs) summed over every frame; NaN if some frame ran a payload before the trap."""
        xss = dialogs = 0.0
        for frame in self.page.frames:
            got = frame.evaluate("[Number(window.__xss), Number(window.__dialogs)]")
            xss, dialogs = xss + got[0], dialogs + got[1]
        return xss, dialogs

    def assert_clean(self, where: str) -> None:
        """Nothing fired, nothing left behind that could fire, nothing requested elsewhere."""
        self.checks += 1
        assert self.counters() == (0, 0), where
        assert self.dialogs == [], (where, self.dialogs)
        assert self.popups == [], (where, self.popups)
        assert self.foreign == [], (where, self.foreign)
        assert self.page.evaluate(INSPECT_DOM) == [], where


def app_hosts(app: E2EApp) -> frozenset[str]:
    return frozenset({"127.0.0.1", "localhost", *(urlsplit(url).hostname or "" for url in (app.url, app.backend_url))})


# --- spreading payloads over fields ------------------------------------------------------------------


BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Fields the text policy holds to one line: a payload that is not one line is refused there (and tested so).
ONE_LINE_FIELDS = {"item.title"}


def line_ok(text: str, max_chars: int) -> bool:
    """Whether a one-line field (a name, a title, a label) accepts `text`: the text policy's own verdict."""
    try:
        check_line(text, field="x", max_chars=max_chars)
    except AppError:
        return False
    return True


@dataclass
class Packer:
    """Hands out payloads per field until each field has held every payload that fits its length limit.

    A field is named by its path without indexes ("table.rows[][]"). Each field keeps its own queue,
    so every (field, payload) pair that fits is placed once; a field whose queue is empty gets a filler
    (the shortest payload), so required fields stay filled with something hostile.
    """

    payloads: Sequence[Payload]
    queues: dict[str, list[Payload]] = field(default_factory=dict)
    limits: dict[str, int] = field(default_factory=dict)

    def _queue(self, name: str, max_chars: int) -> list[Payload]:
        if name not in self.queues:
            self.limits[name] = max_chars
            self.queues[name] = [
                p
                for p in self.payloads
                if len(p.text) <= max_chars
                # an item title collapses whitespace but refuses bidi controls
                and not (name in ONE_LINE_FIELDS and BIDI_CONTROLS & set(p.text))
            ]
        return self.queues[name]

    def left(self, name: str, max_chars: int) -> int:
        return len(self._queue(name, max_chars))

    def take(self, name: str, max_chars: int, *, many: bool = True, sep: str = " ") -> str:
        """As many waiting payloads as fit in `max_chars` (one unless `many`), joined by `sep`."""
        queue = self._queue(name, max_chars)
        chosen: list[Payload] = []
        room = max_chars
        for payload in list(queue):
            need = len(payload.text) + (len(sep) if chosen else 0)
            if need <= room:
                chosen.append(payload)
                queue.remove(payload)
                room -= need
                if not many:
                    break
        if not chosen:
            chosen = [min(self.payloads, key=lambda p: len(p.text))]
        return sep.join(p.text for p in chosen)

    def finished(self, prefix: str) -> bool:
        return all(not queue for name, queue in self.queues.items() if name.startswith(prefix))

    def pairs(self) -> tuple[int, int, int]:
        """(fields, placed field x payload pairs, pairs skipped because the payload is longer than the field)."""
        placed = sum(len([p for p in self.payloads if len(p.text) <= limit]) for limit in self.limits.values())
        return len(self.limits), placed, len(self.limits) * len(self.payloads) - placed


LEVELS = ("info", "warn", "error", "success")


def _markdown(p: Packer) -> dict[str, Any]:
    return {"type": "markdown", "text": p.take("markdown.text", 10_000, sep="\n\n")}


def _card(p: Packer) -> dict[str, Any]:
    count = min(20, max(1, p.left("card.fields[].label", 100), p.left("card.fields[].value", 500)))
    return {
        "type": "card",
        "title": p.take("card.title", 200),
        "subtitle": p.take("card.subtitle", 200),
        "body": p.take("card.body", 5_000, sep="\n\n"),
        "fields": [
            {
                "label": p.take("card.fields[].label", 100, many=False),
                "value": p.take("card.fields[].value", 500, many=False),
            }
            for _ in range(count)
        ],
        "link": {"url": "https://example.com/xss-card", "label": p.take("card.link.label", 100)},
    }


def _table(p: Packer) -> dict[str, Any]:
    width = min(20, max(1, p.left("table.columns[]", 100)))
    columns = [p.take("table.columns[]", 100, many=False) for _ in range(width)]
    height = min(200, max(1, -(-p.left("table.rows[][]", 500) // width)))
    rows = [[p.take("table.rows[][]", 500, many=False) for _ in range(width)] for _ in range(height)]
    return {"type": "table", "columns": columns, "rows": rows, "caption": p.take("table.caption", 500)}


def _checklist(p: Packer) -> dict[str, Any]:
    count = min(100, max(1, p.left("checklist.items[].text", 500)))
    return {
        "type": "checklist",
        "title": p.take("checklist.title", 200),
        "items": [
            {"text": p.take("checklist.items[].text", 500, many=False), "done": i % 2 == 0} for i in range(count)
        ],
    }


def _metric(p: Packer) -> dict[str, Any]:
    return {
        "type": "metric",
        "label": p.take("metric.label", 100),
        "value": p.take("metric.value", 64),
        "unit": p.take("metric.unit", 32),
        "delta": -0.3,
        "trend": "down",
        "caption": p.take("metric.caption", 500),
    }


def _timeline(p: Packer) -> dict[str, Any]:
    names = ("timeline.events[].time", "timeline.events[].title", "timeline.events[].detail")
    count = min(100, max(1, *(p.left(name, limit) for name, limit in zip(names, (64, 200, 2_000)))))
    return {
        "type": "timeline",
        "events": [
            {
                "time": p.take(names[0], 64, many=False),
                "title": p.take(names[1], 200, many=False),
                "detail": p.take(names[2], 2_000, many=False),
                "level": LEVELS[i % 4],
            }
            for i in range(count)
        ],
    }


VIEW_BUILDERS: dict[str, Callable[[Packer], dict[str, Any]]] = {
    "markdown": _markdown,
    "card": _card,
    "table": _table,
    "checklist": _checklist,
    "metric": _metric,
    "timeline": _timeline,
}
MARKDOWN_FIELDS = {"text", "body"}  # rendered markdown: shown transformed, so not compared as plain text
NOT_SHOWN_AS_TEXT = {"type", "url", "level", "trend", "done", "delta"}


def plain_texts(view: dict[str, Any]) -> Iterator[str]:
    """Every string a view shows verbatim (everything but markdown and non-text fields)."""
    for key, value in view.items():
        if key in MARKDOWN_FIELDS or key in NOT_SHOWN_AS_TEXT:
            continue
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            yield from plain_texts(value)
        elif isinstance(value, list):
            for entry in value:
                if isinstance(entry, str):
                    yield entry
                elif isinstance(entry, dict):
                    yield from plain_texts(entry)
                elif isinstance(entry, list):
                    yield from (cell for cell in entry if isinstance(cell, str))


# --- calls --------------------------------------------------------------------------------------------


def mcp_publish_many(app: E2EApp, token: str, calls: Sequence[dict[str, Any]]) -> list[tuple[bool, dict[str, Any]]]:
    """topic_publish for each of `calls` in one MCP session (a session per call would cost seconds)."""

    async def body() -> list[tuple[bool, dict[str, Any]]]:
        async with mcp_client(app.backend_url + "/api/mcp/topic", token) as client:
            out = []
            for arguments in calls:
                result = await client.call_tool("topic_publish", arguments)
                out.append((bool(result.is_error), result_json(result)))
            return out

    return run_async(body)


@contextmanager
def refused(code: str, field: str) -> Iterator[None]:
    """The block must raise the catalogue's AppError with this code and field (a structured refusal)."""
    with pytest.raises(AppError) as caught:
        yield
    assert (caught.value.code, caught.value.field) == (code, field), caught.value
