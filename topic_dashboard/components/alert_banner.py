"""The banner every signed-in page shows while an alert is going on (services/alerts.py)."""

from __future__ import annotations

import dataclasses

import reflex as rx

from topic_dashboard.auth.guard import SignedInState, quiet_when_signed_out
from topic_dashboard.db import read_session
from topic_dashboard.services import alerts


@dataclasses.dataclass
class OpenAlert:
    bot_id: str = ""
    bot_name: str = ""
    description: str = ""
    started: str = ""  # "YYYY-MM-DD HH:MM" UTC
    item_id: str = ""


BANNER_POLL_MS = 10_000  # one small read per open page every 10 s


class AlertBannerState(SignedInState):
    open_alerts: list[OpenAlert] = []

    @rx.event
    @quiet_when_signed_out
    def load(self, _tick: str = "") -> None:
        """On mount, and every BANNER_POLL_MS while the page is open (an alert opens or clears meanwhile)."""
        with read_session() as session:
            going_on = alerts.open_alerts(session=session)
        self.open_alerts = [
            OpenAlert(
                bot_id=a.bot_id,
                bot_name=a.bot_name,
                description=a.description,
                started=a.started_at[:16].replace("T", " "),
                item_id=str(a.item_id or ""),
            )
            for a in going_on
        ]


def _one(alert: OpenAlert) -> rx.Component:
    return rx.hstack(
        rx.text(alert.bot_name, weight="bold", size="2"),
        rx.text(alert.description + " · since " + alert.started + " UTC", size="2"),
        rx.cond(
            alert.item_id != "",
            rx.link("Open the alert", href="/?bot=" + alert.bot_id + "&item=" + alert.item_id, size="2"),
        ),
        spacing="2",
        align="center",
        wrap="wrap",
    )


def alert_banner() -> rx.Component:
    return rx.box(
        rx.cond(
            AlertBannerState.open_alerts.length() > 0,
            rx.callout.root(
                rx.callout.icon(rx.icon("siren", size=16)),
                rx.vstack(rx.foreach(AlertBannerState.open_alerts, _one), spacing="1"),
                color_scheme="red",
                role="alert",
                id="alert-banner",
                size="1",
                margin_bottom="0.75rem",
            ),
        ),
        rx.moment(interval=BANNER_POLL_MS, on_change=AlertBannerState.load, display="none"),
        on_mount=AlertBannerState.load,
        width="100%",
    )
