"""Screenshots of the running dashboard for docs/ (light and dark).

Usage: .venv/bin/python scripts/screenshots.py BASE_URL USERNAME PASSWORD OUT_DIR [route ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def main() -> None:
    base, username, password, out = sys.argv[1:5]
    routes = sys.argv[5:] or ["/"]
    Path(out).mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for scheme in ("light", "dark"):
            page = browser.new_page(viewport={"width": 1440, "height": 900}, color_scheme=scheme)
            page.goto(base + "/login")
            page.locator("#login-username").fill(username)
            page.locator("#login-password").fill(password)
            page.locator("#login-submit").click()
            page.wait_for_selector("#current-user")
            for route in routes:
                page.goto(base + route)
                page.wait_for_selector("#page-title")
                page.wait_for_timeout(800)  # let fonts and moment() settle for the picture only
                name = (
                    route.strip("/").replace("/", "_").replace("?", "_").replace("=", "-").replace("&", "_") or "topics"
                )
                page.screenshot(path=f"{out}/{name}-{scheme}.png", full_page=False)
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
