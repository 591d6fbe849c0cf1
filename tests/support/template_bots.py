"""A bot made of rule templates and an inbox, routed through the real model: the template tests' harness
(tests/topic_dashboard/test_rule_templates.py and test_rule_templates_families.py)."""

from __future__ import annotations

import re
from functools import cache

from topic_dashboard.routing import CompiledRules, RouteDecision, RouteRequest, TopicSpec, compile_rules, route_message
from topic_dashboard.routing.calibration import calibration
from topic_dashboard.routing.semantic import SemanticIndex, build_index, default_embedder
from topic_dashboard.rule_templates import TEMPLATES, VARIANT_SUFFIXES

# template set -> key suffix: each subject's bilingual, English-only and Chinese-only template
SETS = dict(zip(("mixed", "english", "chinese"), VARIANT_SUFFIXES, strict=True))
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")  # a Chinese character or full-width sign


def template_specs(keys: tuple[str, ...]) -> list[TopicSpec]:
    """The templates `keys` as a bot's topics, and an inbox for what fits none."""
    specs = [
        TopicSpec(
            topic_key=key,
            name=TEMPLATES[key]["name"],
            description=TEMPLATES[key]["description"],
            routing=TEMPLATES[key]["routing"],
        )
        for key in keys
    ]
    specs.append(
        TopicSpec(topic_key="inbox", name="Inbox", is_default_fallback=True, routing={"purpose": "anything else"})
    )
    return specs


@cache
def template_bot(keys: tuple[str, ...]) -> tuple[CompiledRules, SemanticIndex]:
    status = default_embedder()
    assert status.embedder is not None, status.detail  # the package ships the model: it must load
    specs = template_specs(keys)
    return compile_rules(specs), build_index(specs, status.embedder, calibration().centring)


def route_with_templates(keys: tuple[str, ...], text: str) -> RouteDecision:
    compiled, index = template_bot(keys)
    return route_message(
        compiled, RouteRequest(content=text), topic_enabled=True, fallback_policy="inbox", semantic=index
    )


def explain(decision: RouteDecision) -> str:
    """Where a message went and why, for an assertion's message."""
    where = decision.topic_key if decision.should_publish else f"not published ({decision.filtered})"
    top = ", ".join(f"{c.topic_key} {c.probability}" for c in decision.candidates[:3])
    return f"-> {where}; {decision.reason}; candidates: {top}"
