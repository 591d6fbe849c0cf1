"""Quality gate on the labelled sets (see docs/ROUTING.md; bench/routing_eval.py prints the table)."""

from __future__ import annotations

from pathlib import Path

import pytest

from topic_dashboard.routing.evaluation import engine_decider, evaluate, keyword_baseline, load_eval_set

HERE = Path(__file__).parent
SETS = [HERE / "eval_set.json", HERE / "eval_set_alt.json", HERE / "eval_set_blind.json"]


def test_main_set_is_large_and_covers_the_required_kinds() -> None:
    topics, cases = load_eval_set(HERE / "eval_set.json")
    kinds = {c["kind"] for c in cases}
    assert len(cases) >= 100
    assert {"finance", "ci", "incident", "research", "inbox", "noise", "progress", "tool_hint", "conflict"} <= kinds
    assert sum(t.is_default_fallback for t in topics) == 1
    assert {c["policy"] for c in cases} == {"inbox", "skip"}


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.stem)
def test_engine_accuracy_and_no_progress_or_tool_hint_published(path: Path) -> None:
    topics, cases = load_eval_set(path)
    result = evaluate("engine", engine_decider(topics), cases)
    assert result.stream_published == 0, result.errors
    assert result.accuracy >= 0.90, "\n".join(result.errors)
    baseline = evaluate("baseline", keyword_baseline(topics), cases)
    assert result.accuracy - baseline.accuracy >= 0.30
