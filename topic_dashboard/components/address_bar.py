"""Write a page's address without a page load: what the page shows, kept in its query string."""

from __future__ import annotations

import json

import reflex as rx


def set_address(url: str, *, push: bool) -> rx.event.EventSpec:
    """Put `url` in the address bar: a new history entry (`push`, so Back returns to the one before) or in
    place of the current one. `url` is written as a JSON string literal: it can hold what a crafted link put
    in the address. The history state is kept (Reflex's router reads it on Back)."""
    method = "pushState" if push else "replaceState"
    return rx.call_script(f"window.history.{method}(window.history.state, '', {json.dumps(url)})")
