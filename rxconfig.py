"""Reflex configuration, read from the one settings object."""

import reflex as rx

from topic_dashboard.settings import get_settings

_settings = get_settings()

config = rx.Config(
    app_name="topic_dashboard",
    db_url=_settings.effective_database_url,
    redis_url=_settings.redis_url,
    frontend_port=_settings.port,
    backend_port=_settings.port,
    api_url=_settings.public_base_url,
    deploy_url=_settings.public_base_url,
    telemetry_enabled=False,
    show_built_with_reflex=False,
    disable_plugins=[rx.plugins.SitemapPlugin],
    plugins=[
        rx.plugins.RadixThemesPlugin(
            theme=rx.theme(appearance="inherit", accent_color="indigo", gray_color="slate", radius="medium")
        )
    ],
)
