"""safe_url decides which links the panel may render; everything else becomes plain text."""

from __future__ import annotations

import pytest

from topic_dashboard.item_views import safe_url
from topic_dashboard.item_views.safety import forbidden_char, normalize_newlines

ALLOWED = [
    ("http://example.com", "http://example.com"),
    ("https://example.com/a?b=c#d", "https://example.com/a?b=c#d"),
    ("HTTPS://EXAMPLE.COM/X", "HTTPS://EXAMPLE.COM/X"),
    ("hTTp://example.com:8080/", "hTTp://example.com:8080/"),
    ("mailto:ops@example.com", "mailto:ops@example.com"),
    ("MAILTO:ops@example.com?subject=hi", "MAILTO:ops@example.com?subject=hi"),
    ("  https://example.com/trimmed \n", "https://example.com/trimmed"),
    ("https://例子.测试/路径", "https://例子.测试/路径"),
    ("https://[::1]:8443/x", "https://[::1]:8443/x"),
]

REFUSED = [
    "javascript:alert(1)",
    "JAVASCRIPT:alert(1)",
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "\x00javascript:alert(1)",
    "\u3000javascript:alert(1)",
    "\u200bjavascript:alert(1)",
    "java\nscript:alert(1)",
    "java\tscript:alert(1)",
    "java\rscript:alert(1)",
    "javascript&colon;alert(1)",
    "javascript%3Aalert(1)",
    "data:text/html;base64,PHNjcmlwdD4=",
    "DATA:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    "ftp://example.com/x",
    "/relative/path",
    "relative/path",
    "./x",
    "../x",
    "#anchor",
    "?q=1",
    "//evil.example.com/x",
    "example.com",
    "https:example.com",
    "https:/example.com",
    "https://",
    "http:///path",
    "https:\\\\evil.example.com",
    "https://evil.example.com\\@good.example.com",
    "https://good.example.com@evil.example.com/",
    "https://user:pass@example.com/",
    "https://exa mple.com",
    "ht\ttps://example.com",
    "https://[::1/x",
    "mailto:",
    "",
    "   ",
]


@pytest.mark.parametrize(("url", "expected"), ALLOWED)
def test_safe_url_keeps_http_https_and_mailto(url: str, expected: str) -> None:
    assert safe_url(url) == expected


@pytest.mark.parametrize("url", REFUSED)
def test_safe_url_refuses_everything_else(url: str) -> None:
    assert safe_url(url) is None


@pytest.mark.parametrize("value", [None, 42, b"https://example.com", ["https://example.com"]])
def test_safe_url_refuses_non_strings(value: object) -> None:
    assert safe_url(value) is None  # type: ignore[arg-type]


def test_forbidden_char_allows_tab_and_newline_only() -> None:
    assert forbidden_char("line one\n\tline two <b>&amp;</b> 中文 😀") is None
    assert forbidden_char("bell\x07") == "\x07"
    assert forbidden_char("esc\x1b[31m") == "\x1b"
    assert forbidden_char("del\x7f") == "\x7f"
    assert forbidden_char("c1\x85") == "\x85"
    assert forbidden_char("cr\r") == "\r"
    assert forbidden_char("surrogate\ud800") == "\ud800"


def test_normalize_newlines_turns_crlf_and_cr_into_lf() -> None:
    assert normalize_newlines("a\r\nb\rc\nd") == "a\nb\nc\nd"
