"""The Insights page (`/insights`): figures and charts of what bots did, the range, alerts (admins)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from playwright.sync_api import Locator

from tests.e2e.pages.shell import Shell


@dataclass
class InsightsPage(Shell):
    def open(self, query: str = "") -> InsightsPage:
        """`query`: e.g. "?bot=<id>"; without it, all bots."""
        self.page.goto(self.path(f"/insights{query}"))
        self.expect_title("Insights")
        return self

    # Figures and charts -----------------------------------------------------------------------
    def kpi(self, name: str) -> Locator:
        """A figure: published, fallback-share, failure-rate."""
        return self.page.locator(f"#kpi-{name}")

    def fallback_rules_link(self) -> Locator:
        return self.page.locator("#fallback-rules-link")

    def chart(self, name: str) -> Locator:
        """A chart: publishes, decisions."""
        return self.page.locator(f"#chart-{name}")

    def chart_drawing(self, name: str) -> Locator:
        """The drawn surface(s) of a chart."""
        return self.chart(name).locator(".recharts-surface")

    def chart_legend(self, name: str) -> Locator:
        """A chart's legend entries (one per series)."""
        return self.chart(name).locator(".recharts-legend-item")

    def chart_x_ticks(self, name: str) -> Locator:
        return self.chart(name).locator(".recharts-xAxis .recharts-cartesian-axis-tick")

    def hottest_rows(self) -> Locator:
        return self.page.locator("#hottest-table tbody tr")

    def latency_table(self) -> Locator:
        return self.page.locator("#latency-table")

    def choose_range(self, label: str) -> None:
        """24 hours, 7 days, 12 weeks."""
        self.page.locator("#insights-range").get_by_role("radio", name=label).click()

    def choose_bot(self, name: str | re.Pattern[str]) -> None:
        """One bot (its name, or a pattern: the first bot it matches) or "All bots"."""
        self.page.get_by_role("combobox", name="Bot", exact=True).click()
        self.page.get_by_role("option").filter(has_text=name).first.click()

    # Alerts (admins) --------------------------------------------------------------------------
    def add_failure_alert(self, bot_name: str, threshold: str, window: str) -> None:
        """An alert on a bot's failure rate: over `threshold` % in `window` minutes."""
        self.page.get_by_role("combobox", name="For which bot").click()
        self.page.get_by_role("option", name=bot_name, exact=True).click()
        self.page.locator("#alert-threshold").fill(threshold)
        self.page.locator("#alert-window").fill(window)
        self.page.locator("#create-alert").click()

    def alerts_table(self) -> Locator:
        return self.page.locator("#alerts-table")

    def remove_first_alert(self) -> None:
        self.page.get_by_role("button", name=re.compile("Remove the alert")).first.click()

    def no_alerts(self) -> Locator:
        return self.page.locator("#no-alerts")
