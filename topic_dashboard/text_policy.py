"""What text, keys and numbers may hold before anything is stored: one policy for every surface.

MCP tools, REST handlers and UI events all reach the services, and the services check their input
here, so the same input is refused the same way whichever door it came through:

* a NUL (PostgreSQL cannot store it in text and cannot even compare text holding it);
* a lone UTF-16 surrogate (it cannot be encoded as UTF-8: SQLite and every JSON answer fail on it);
* C0 and C1 control characters other than tab and line breaks (they corrupt terminals, logs and
  diffs, and hide text from the reader);
* in one-line values (names, titles, keys, ids) also tab, line breaks and the bidi overrides and
  isolates, which make a name display as another ("txt.exe" shown as "exe.txt");
* numbers that are not finite, and integers outside 64 bits (the databases' integer columns).

Each check raises `AppError` with a stable code and `field` naming the input. Messages name a bad
character by its code point (U+0000), never by the character itself, so an error can always be
encoded and shown.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any, TypeGuard

from topic_dashboard.errors import AppError

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
MAX_JSON_DEPTH = 16

# Character classes (bodies of a regex [...]), shared with views.safety.
CONTROL_CHARS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"  # C0 and C1 controls and DEL, less \t \n \r
SURROGATES = "\ud800-\udfff"
BIDI_CONTROLS = "\u202a-\u202e\u2066-\u2069"
LINE_BREAKS = "\t\n\r\u2028\u2029"
FORBIDDEN_IN_TEXT = CONTROL_CHARS + SURROGATES

_TEXT = re.compile(f"[{FORBIDDEN_IN_TEXT}]")
_LINE = re.compile(f"[{FORBIDDEN_IN_TEXT}{LINE_BREAKS}{BIDI_CONTROLS}]")
_SURROGATE = re.compile(f"[{SURROGATES}]")


def forbidden_char(text: str, *, single_line: bool = False) -> str | None:
    """The first character of `text` this policy refuses, or None.

    Free text may hold tab, LF and CR; a single line holds none of them, no U+2028/U+2029 and no
    bidi override or isolate (U+202A-U+202E, U+2066-U+2069).
    """
    match = (_LINE if single_line else _TEXT).search(text)
    return match.group() if match else None


def describe_char(char: str) -> str:
    """Name a character for an error message, e.g. `U+0007`."""
    return f"U+{ord(char):04X}"


def printable(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD, so it can always be encoded as UTF-8."""
    return _SURROGATE.sub("\ufffd", text)


def is_lookup_key(value: Any) -> bool:
    """Whether `value` could name a stored row (an id, a key): one line of text this policy allows.

    A lookup by anything else finds nothing, so callers answer "not found" without asking the
    database, which may fail on it (PostgreSQL cannot compare text holding NUL).
    """
    return isinstance(value, str) and forbidden_char(value, single_line=True) is None


def _too_long(field: str, length: int, max_chars: int) -> str:
    return f"{field} has {length} characters; at most {max_chars} are allowed: shorten it"


def check_text(value: Any, *, field: str, max_chars: int | None = None, code: str = "validation_error") -> str:
    """Return `value` unchanged if it is a string free text may hold (tab and line breaks allowed).

    Raises:
        AppError(code) with `field`: not a string, a forbidden character, or longer than `max_chars`.
    """
    return _check(value, field=field, max_chars=max_chars, code=code, single_line=False)


def check_line(value: Any, *, field: str, max_chars: int | None = None, code: str = "validation_error") -> str:
    """Return `value` unchanged if it is one line of text: a name, a title, a key, an id.

    Raises:
        AppError(code) with `field`: not a string, a forbidden character (tab, line breaks and
        bidi controls included), or longer than `max_chars`.
    """
    return _check(value, field=field, max_chars=max_chars, code=code, single_line=True)


def _check(value: Any, *, field: str, max_chars: int | None, code: str, single_line: bool) -> str:
    if not isinstance(value, str):
        raise AppError(code, f"{field} must be a string", field=field)
    if max_chars is not None and len(value) > max_chars:
        raise AppError(code, _too_long(field, len(value), max_chars), field=field)
    char = forbidden_char(value, single_line=single_line)
    if char is not None:
        allowed = "it must be one line" if single_line else "only tab and line breaks are allowed"
        raise AppError(
            code, f"{field} contains the control character {describe_char(char)}; remove it ({allowed})", field=field
        )
    return value


def is_bounded_number(value: Any) -> TypeGuard[int | float]:
    """True for a finite float or an integer within 64 bits (booleans are not numbers)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return INT64_MIN <= value <= INT64_MAX
    return isinstance(value, float) and math.isfinite(value)


def check_number(value: Any, *, field: str, code: str = "validation_error") -> int | float:
    """Return `value` if `is_bounded_number` holds.

    Raises:
        AppError(code) with `field` otherwise.
    """
    if not is_bounded_number(value):
        raise AppError(code, f"{field} must be a finite number (integers within 64 bits)", field=field)
    return value


def check_int(
    value: Any, *, field: str, lo: int = INT64_MIN, hi: int = INT64_MAX, code: str = "validation_error"
) -> int:
    """Return `value` if it is an integer (not a bool) from `lo` to `hi`.

    Raises:
        AppError(code) with `field` otherwise.
    """
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise AppError(code, f"{field} must be a whole number from {lo} to {hi}", field=field)
    return value


def check_json(
    value: Any, *, field: str, code: str = "validation_error", relative: bool = False, max_depth: int = MAX_JSON_DEPTH
) -> Any:
    """Return `value` if every string in it is free text, every key one line, every number bounded.

    For JSON documents stored as they come (routing rules, view settings, guide cards): whatever
    their own schema says, nothing in them may break storage or an answer. Walks without recursion.
    With `relative`, paths inside start at the first key (`include_when[1]`, as the routing rules
    name their fields) instead of at `field` (`guide_card.fields[0].label`).

    Raises:
        AppError(code) whose `field` is the JSON path of the first problem (a bad key is named by
        its parent's path, never echoed), or `field` when nested deeper than `max_depth`.
    """
    root = "" if relative else field
    pending: list[tuple[Any, str, int]] = [(value, root, 0)]
    while pending:
        node, path, depth = pending.pop()
        where = path or field
        if depth > max_depth:
            raise AppError(code, f"{field} is nested more than {max_depth} levels deep", field=field)
        if isinstance(node, str):
            check_text(node, field=where, code=code)
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            check_number(node, field=where, code=code)
        elif isinstance(node, dict):
            for key in node:
                if not isinstance(key, str) or forbidden_char(key, single_line=True) is not None:
                    raise AppError(
                        code, f"{where} has a key with a control character or a line break; rename it", field=where
                    )
            pending.extend((item, f"{path}.{key}" if path else key, depth + 1) for key, item in reversed(node.items()))
        elif isinstance(node, (list, tuple)):
            pending.extend((item, f"{path}[{index}]", depth + 1) for index, item in reversed(list(enumerate(node))))
        elif node is not None and not isinstance(node, bool):
            raise AppError(code, f"{where} is not a JSON value", field=where)
    return value


def check_parameters(parameters: Iterable[tuple[str, str]]) -> None:
    """`check_line` on the names and values of request parameters (a URL's path and query).

    Lengths are left to each parameter's own rules (a long cursor is an invalid_cursor).

    Raises:
        AppError("validation_error") whose `field` is the parameter's name (or "parameter" when
        the name itself is refused).
    """
    for name, value in parameters:
        check_line(name, field="parameter")
        check_line(value, field=name)
