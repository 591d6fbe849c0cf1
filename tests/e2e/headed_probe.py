"""A flow run only by test_headed.py (its name keeps it out of every other run): it says whether the
browser it got is a headed one."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e]


def test_the_browser_has_a_window(page: Page) -> None:
    page.set_content("<h1>headed</h1>")
    user_agent = page.evaluate("navigator.userAgent")
    assert "HeadlessChrome" not in user_agent, user_agent
    # A headed browser lays the page out in a real window of the virtual screen.
    assert page.evaluate("window.outerWidth") > 0 and page.evaluate("screen.width") >= 1024
