"""Reflex configuration, read from the one settings object."""

import os
import sys

import reflex as rx

from topic_dashboard.settings import exposure_warning, get_settings

_settings = get_settings()

# Said once at start: `reflex run` imports this file again in each process it starts.
if (_warning := exposure_warning(_settings.listen_host)) and not os.environ.get("_TOPIC_DASHBOARD_EXPOSURE_WARNED"):
    os.environ["_TOPIC_DASHBOARD_EXPOSURE_WARNED"] = "1"
    print(_warning, file=sys.stderr)

# `reflex run --backend-only` (several backend workers behind a proxy that serves the built frontend,
# docs/DEPLOY.md) refuses to start when a frontend port is configured; its worker processes read this
# file again with REFLEX_BACKEND_ONLY set.
_backend_only = "--backend-only" in sys.argv or os.environ.get("REFLEX_BACKEND_ONLY", "").lower() in ("1", "true")

config = rx.Config(
    app_name="topic_dashboard",
    db_url=_settings.effective_database_url,
    redis_url=_settings.redis_url,
    frontend_port=None if _backend_only else _settings.port,
    backend_port=_settings.port,
    # In `reflex run --env prod` the frontend is served by the backend's server: one address for both.
    backend_host=_settings.listen_host,
    api_url=_settings.public_base_url,
    deploy_url=_settings.public_base_url,
    telemetry_enabled=False,
    show_built_with_reflex=False,
    # HTML pages are served as-is or gzipped: HttpGuards reads them to hash their inline scripts into the CSP.
    frontend_compression_formats=["gzip"],
    disable_plugins=[rx.plugins.SitemapPlugin],
    plugins=[
        rx.plugins.RadixThemesPlugin(
            theme=rx.theme(appearance="inherit", accent_color="indigo", gray_color="slate", radius="medium")
        )
    ],
)
