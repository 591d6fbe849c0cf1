"""Learning from corrections: an item a person moved becomes an example in the topics' rules. Pure.

A moved item is a positive example of the topic it now belongs to and a negative example of the
one it left (docs/DESIGN.md §4.4). The rule's own limits hold: each example at most
`MAX_EXAMPLE_CHARS`, each list at most `MAX_LIST_ITEMS` (the oldest goes first when it is full).
"""

from __future__ import annotations

from typing import Any, Literal

from topic_dashboard.routing.rules import MAX_EXAMPLE_CHARS, MAX_LIST_ITEMS

ExampleKind = Literal["positive", "negative"]
_OTHER: dict[ExampleKind, ExampleKind] = {"positive": "negative", "negative": "positive"}


def example_text(title: str, content: str) -> str:
    """An item as an example: title and content as routing reads a message, trimmed to the rule limit."""
    text = "\n".join(part for part in (title.strip(), content.strip()) if part)
    return text[:MAX_EXAMPLE_CHARS].strip()


def with_example(routing_json: dict[str, Any], text: str, kind: ExampleKind) -> dict[str, Any]:
    """`routing_json` with `text` added to its `kind` examples: a new dict, the input is left alone.

    Already there: unchanged. Among the other kind's examples: taken out of them, since the latest
    correction is the one that holds (a text cannot be for and against one topic). A full list
    drops its oldest (first) entries to make room.
    """
    rule = dict(routing_json)
    examples = dict(rule.get("examples") or {})
    own = [str(entry) for entry in examples.get(kind) or []]
    if text in own:
        return rule
    other = [str(entry) for entry in examples.get(_OTHER[kind]) or []]
    examples[kind] = [*own, text][-MAX_LIST_ITEMS:]
    if text in other:
        examples[_OTHER[kind]] = [entry for entry in other if entry != text]
    rule["examples"] = examples
    return rule
