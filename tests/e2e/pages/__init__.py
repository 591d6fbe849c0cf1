"""Page objects: what a flow does on each page, in the page's words, so a UI change touches one place.

Selector convention (docs/TESTING.md): every control a flow touches carries a stable `id` in kebab
case, set in the component (`id="mark-all-read"`, `id=f"item-{id}"`); a control without one is found
by its role and accessible name (`get_by_role("button", name="Undo")`), which the accessibility test
also keeps meaningful. Flows never select by CSS class of a library, text position or XPath, and
never sleep: they wait for what a person would see (`expect(...)`).
"""
