"""Rules and messages the topic tests share: a CI topic and content it clearly matches, or nothing matches."""

from __future__ import annotations

from topic_dashboard.item_views import LIMITS

CI_RULE = {
    "purpose": "CI build and test results",
    "include_when": ["CI build or test results", "build failed / build passed / tests failing"],
}
CI_CONTENT = "CI build #42 failed: 3 tests failing in test_api.py"
# Substantive, but about nothing any test topic covers.
UNMATCHED_CONTENT = "The quarterly bakery sales report is ready: croissant revenue rose 12% over spring."

# Items the publishing rules must refuse.
TOO_MANY_TAGS = [f"t{n}" for n in range(LIMITS.tags_max_count + 1)]
BAD_TABLE = {"type": "table", "columns": ["test", "result"], "rows": [["a", "ok"], ["b"]]}  # rows[1] is short
UNSAFE_LINK_CARD = {"type": "card", "title": "PR", "link": {"url": "javascript:alert(1)"}}
