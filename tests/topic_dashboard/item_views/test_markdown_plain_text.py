"""Markdown read as plain text (the item list's one-line previews and search snippets): the words as the
detail pane shows them, none of the marks. A walkthrough saw **bold**, # headings, [links](url),
backticks and list markers raw under a row's title."""

from __future__ import annotations

import pytest

from topic_dashboard.item_views.markdown import block_span, plain_text


@pytest.mark.parametrize(
    ("markdown", "plain"),
    [
        ("# Deploy done\n\nAll **green**", "Deploy done All green"),
        ("Heading\n=======\nbody", "Heading body"),  # a setext heading's underline
        ("***really*** important, *italic* and _under_ and ~~gone~~", "really important, italic and under and gone"),
        ("Read [the spec](https://x.example/a_(b) 'title') first", "Read the spec first"),
        ("[see](javascript:alert(1)) now", "see now"),  # a link the detail pane refuses still reads as its text
        ("[the docs][1] say so\n\n[1]: https://x.example/docs", "the docs say so"),
        ("see <https://x.example/a>", "see https://x.example/a"),
        ("![p99 chart](https://x.example/c.png) went up", "p99 chart went up"),
        ("3 tests failed in `test_api.py`", "3 tests failed in test_api.py"),
        ("- one\n- two\n  - nested\n* star\n+ plus", "one two nested star plus"),
        ("1. first\n2) second\n10. tenth", "first second tenth"),
        ("- [ ] to do\n- [x] done\n\n[x] not in a list", "to do done [x] not in a list"),
        ("> quoted **words**\n> > twice", "quoted words twice"),
        ("| host | p99 |\n|---|--:|\n| api | 850ms |", "host p99 api 850ms"),
        (
            "before\n\n```python\nprint('hi')\n```\n\n    indented code\n\nafter",
            "before print('hi') indented code after",
        ),
        ("above\n\n---\n\nbelow", "above below"),
        ("a &amp; b, 5 \\* 3, \\# not a heading", "a & b, 5 * 3, # not a heading"),
        ("line one  \nline two\\\nline three\nline four", "line one line two line three line four"),
        ("", ""),
    ],
)
def test_markdown_reads_as_its_words_without_the_marks(markdown: str, plain: str) -> None:
    assert plain_text(markdown) == plain


def test_html_in_the_source_stays_text_as_the_detail_pane_shows_it() -> None:
    """Raw HTML is never rendered (markdown-it has html off): it is text, for the UI to show as text."""
    assert plain_text("<b>bold</b> and <script>alert(1)</script>") == "<b>bold</b> and <script>alert(1)</script>"
    assert plain_text("&lt;img src=x onerror=alert(1)&gt;") == "<img src=x onerror=alert(1)>"


def test_a_span_covers_whole_blocks_so_no_link_is_cut_in_two() -> None:
    text = "first block\n\nsecond [a link](https://x.example/long/path) here\n\nthird"
    link = text.index("https")
    begin, end = block_span(text, link, link + 5)
    assert text[begin:end] == "second [a link](https://x.example/long/path) here"
    assert block_span(text, 0, 3) == (0, len("first block"))
    assert block_span(text, 0, len(text)) == (0, len(text))


def test_a_span_in_a_long_block_reaches_only_so_far_and_ends_at_a_line() -> None:
    """Without a blank line near, the span stops at a line within `reach`: a long text is never read whole."""
    text = "\n".join(f"line {n} with **bold** words" for n in range(2000))
    middle = len(text) // 2
    begin, end = block_span(text, middle, middle + 10, reach=300)
    assert middle - 300 <= begin <= middle and middle + 10 <= end <= middle + 310
    assert text[begin - 1] == "\n" and text[end] == "\n"  # whole lines: no **bold** cut in two
    assert "**" not in plain_text(text[begin:end])
