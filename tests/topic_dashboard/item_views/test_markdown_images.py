"""Remote images that are off for a bot say so instead of vanishing from the text (#15, defect 7)."""

from __future__ import annotations

import pytest

from topic_dashboard.item_views.markdown import render_markdown


@pytest.mark.parametrize(
    ("markdown", "shown"),
    [
        ("Latency ![p99 chart](https://grafana.example/p99.png) went up", "[image: p99 chart - not shown]"),
        ("![](https://grafana.example/p99.png)", "[image - not shown]"),
    ],
)
def test_a_blocked_image_leaves_a_marked_placeholder_with_its_alt_text(markdown: str, shown: str) -> None:
    html = render_markdown(markdown)
    assert shown in html and "<img" not in html and "grafana.example" not in html


def test_the_placeholder_escapes_the_alt_text() -> None:
    html = render_markdown("![<script>alert(1)</script>](https://x.example/a.png)")
    assert "<script" not in html and "&lt;script&gt;" in html


def test_allowed_images_are_images() -> None:
    html = render_markdown("![chart](https://x.example/a.png)", allow_images=True)
    assert '<img src="https://x.example/a.png" alt="chart">' in html and "not shown" not in html
