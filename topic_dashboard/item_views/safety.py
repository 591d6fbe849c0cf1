"""What bot-written text and links may contain, checked before anything is stored or shown.

Bot content is untrusted. Text is always rendered as text (markdown without raw HTML), so
`<` and `&` are harmless and allowed; control characters are not, because they corrupt
logs, terminals and diffs and hide content from the reader. Links are the one place where
text turns into behaviour, so only http, https and mailto survive `safe_url`.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from topic_dashboard.text_policy import FORBIDDEN_IN_TEXT, describe_char

__all__ = ["SAFE_URL_SCHEMES", "describe_char", "forbidden_char", "normalize_newlines", "safe_url"]

SAFE_URL_SCHEMES: tuple[str, ...] = ("http", "https", "mailto")

# The text policy's refusals (controls, lone surrogates), plus CR: view text has its line breaks
# normalized to LF before it is checked.
_FORBIDDEN_CHAR = re.compile(f"[\r{FORBIDDEN_IN_TEXT}]")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
# Characters browsers silently drop or reinterpret inside a URL ("java\tscript:", "https:\\\\x"):
# a URL containing any of them is refused rather than guessed at.
_URL_TRAP = re.compile(r"[\x00-\x20\x7f-\x9f\\\s]")


def normalize_newlines(text: str) -> str:
    """Turn CRLF and lone CR into LF, so that only LF remains as a line break."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def forbidden_char(text: str) -> str | None:
    """Return the first control character in `text` other than tab and newline, or None."""
    match = _FORBIDDEN_CHAR.search(text)
    return match.group() if match else None


def safe_url(url: str) -> str | None:
    """Return `url` without surrounding whitespace if it is safe to link to, else None.

    Safe means an absolute http:// or https:// URL with a host and no user-info (no
    `user@` before the host, a common disguise), or a non-empty mailto: URL; the scheme is
    matched case-insensitively. Anything else is refused: javascript:, data:, vbscript:,
    file:, relative and protocol-relative URLs, and URLs with embedded whitespace, control
    characters or backslashes (which browsers strip or rewrite, e.g. "java\\tscript:").
    """
    if not isinstance(url, str):
        return None
    candidate = url.strip().strip("".join(chr(c) for c in range(0x21)))
    if not candidate or _URL_TRAP.search(candidate):
        return None
    match = _SCHEME.match(candidate)
    if match is None:
        return None
    scheme = match.group(1).lower()
    if scheme not in SAFE_URL_SCHEMES:
        return None
    rest = candidate[match.end() :]
    if scheme == "mailto":
        return candidate if rest else None
    if not rest.startswith("//"):
        return None
    try:
        parts = urlsplit(candidate)
    except ValueError:  # e.g. an unbalanced IPv6 bracket
        return None
    if not parts.hostname or "@" in parts.netloc:
        return None
    return candidate
