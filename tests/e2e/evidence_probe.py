"""A flow that fails on purpose, run only by test_evidence.py (its name keeps it out of every other
run): it leaves a console error, an HTTP error and a missing control behind, the way a real broken
flow does, so the evidence a failure keeps can be checked."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import E2EApp
from tests.e2e.pages.shell import Shell

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

PROBE_CONSOLE = "probe: the console error a failed flow keeps"


def test_a_deliberately_broken_flow(page: Page, e2e_app: E2EApp) -> None:
    page.goto(e2e_app.path("/login"))
    expect(Shell(page, e2e_app.url).username_field()).to_be_visible()
    page.evaluate(f"console.error({PROBE_CONSOLE!r})")
    page.evaluate("fetch('/api/bots/probe-no-such-bot/topic-items')")  # answered 401: no token
    expect(page.locator("#probe-no-such-control")).to_be_visible(timeout=3000)  # no such control, on purpose
