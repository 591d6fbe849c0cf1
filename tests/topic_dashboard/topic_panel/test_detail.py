"""The detail pane's pure shaping of an item: timeline times read as date-times only when they are one; the
list row's one-line preview reads as plain text."""

from __future__ import annotations

import pytest

from topic_dashboard.topic_panel.detail import iso_time, plain_preview


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("2026-11-30T09:30:00Z", "2026-11-30T09:30:00+00:00"),
        ("2026-11-30 09:30", "2026-11-30T09:30:00+00:00"),
        ("2026-11-30T09:30:00+08:00", "2026-11-30T09:30:00+08:00"),
        ("09:30", ""),
        ("yesterday", ""),
        ("2026-11-30", ""),
        ("2026-13-40T00:00", ""),
    ],
)
def test_timeline_times_are_read_as_date_times_only_when_they_are_one(text: str, iso: str) -> None:
    assert iso_time(text) == iso


@pytest.mark.parametrize(
    ("markdown", "preview"),
    [
        ("[see](javascript:alert(1)) now", "see now"),  # a walkthrough saw "see) now"
        ("Read [the spec](https://en.wikipedia.org/wiki/Foo_(bar)) first", "Read the spec first"),
        ('**Build** [#12](https://ci.example/12 "log") `failed`', "Build #12 failed"),
        ("![chart](https://x.example/c.png) and (a note)", "chart and (a note)"),
    ],
)
def test_the_row_preview_keeps_link_text_and_drops_the_target_whole(markdown: str, preview: str) -> None:
    assert plain_preview(markdown) == preview


@pytest.mark.parametrize(
    ("markdown", "preview"),
    [
        # what a walkthrough saw raw under a row's title
        ("## Deploy *finished*\n\n1. orders\n2. payments", "Deploy finished orders payments"),
        ("  - nested item\n  - [x] checked", "nested item checked"),
        ("Heading\n=======\n\n| host | p99 |\n|---|---|\n| api | 850ms |", "Heading host p99 api 850ms"),
        ("```bash\nmake deploy\n```", "make deploy"),
        ("[the runbook][rb] says so\n\n[rb]: https://x.example/rb", "the runbook says so"),
        ("5 \\* 3 &amp; `x`", "5 * 3 & x"),
    ],
)
def test_the_row_preview_reads_as_plain_text(markdown: str, preview: str) -> None:
    assert plain_preview(markdown) == preview


def test_the_row_preview_of_a_long_item_is_its_opening_cut_to_the_limit() -> None:
    long = "**Summary** of the night.\n\n" + "\n\n".join(
        f"- [step {n}](https://x.example/{n}) done" for n in range(3000)
    )
    preview = plain_preview(long, limit=60)
    assert preview == "Summary of the night. step 0 done step 1 done step 2 done st"
