"""REST over real HTTP: API tokens listed, created (the secret shown once), revoked and expiring;
the admin-token setting refused when it is short."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from sqlmodel import Session

from tests.support.rest import rest_error
from tests.support.server import LiveServer, configured
from topic_dashboard.models import ApiToken, utcnow
from topic_dashboard.security import MIN_ADMIN_TOKEN_LENGTH
from topic_dashboard.services.accounts import DEFAULT_API_TOKEN_DAYS, create_api_token
from topic_dashboard.settings import get_settings

PUBLIC_KEYS = {"id", "name", "role", "created_at", "last_used_at", "expires_at", "revoked_at", "state"}


def _client(server: LiveServer, token: str | None) -> httpx.Client:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=server.base_url, headers=headers, timeout=30)


@pytest.fixture
def admin(server: LiveServer, server_session: Session) -> Iterator[httpx.Client]:
    with _client(server, create_api_token(session=server_session, name="tokens-admin", role="admin")) as client:
        yield client


@pytest.fixture
def viewer(server: LiveServer, server_session: Session) -> Iterator[httpx.Client]:
    with _client(server, create_api_token(session=server_session, name="tokens-viewer", role="viewer")) as client:
        yield client


def _create(admin: httpx.Client, **body: Any) -> dict[str, Any]:
    response = admin.post("/api/tokens", json={"name": f"t-{secrets.token_hex(3)}", "role": "viewer", **body})
    assert response.status_code == 201, response.text
    return response.json()


def test_create_shows_the_token_once_and_it_works(admin: httpx.Client, server: LiveServer) -> None:
    created = _create(admin, role="viewer", expires_days=7)

    assert set(created) == PUBLIC_KEYS | {"token"}
    assert created["token"].startswith("tda_") and created["state"] == "active" and created["role"] == "viewer"
    expires = datetime.fromisoformat(created["expires_at"]) - datetime.fromisoformat(created["created_at"])
    assert abs(expires - timedelta(days=7)) < timedelta(seconds=5)
    with _client(server, created["token"]) as client:
        assert client.get("/api/bots").status_code == 200
        rest_error(client.post("/api/bots", json={"name": "x"}), 403, "forbidden")
    listed = admin.get("/api/tokens")
    assert listed.status_code == 200 and created["token"] not in listed.text
    mine = next(row for row in listed.json() if row["id"] == created["id"])
    assert set(mine) == PUBLIC_KEYS and mine["last_used_at"] is not None  # it was just used


def test_the_default_expiry_is_90_days(admin: httpx.Client) -> None:
    created = _create(admin)
    expires = datetime.fromisoformat(created["expires_at"]) - datetime.fromisoformat(created["created_at"])
    assert abs(expires - timedelta(days=DEFAULT_API_TOKEN_DAYS)) < timedelta(seconds=5)


def test_revoke_stops_the_token_at_once(admin: httpx.Client, server: LiveServer) -> None:
    created = _create(admin, role="admin")

    response = admin.delete(f"/api/tokens/{created['id']}")

    assert response.status_code == 200, response.text
    assert response.json()["state"] == "revoked" and response.json()["revoked_at"]
    with _client(server, created["token"]) as client:
        rest_error(client.get("/api/bots"), 401, "unauthorized")
    assert next(r for r in admin.get("/api/tokens").json() if r["id"] == created["id"])["state"] == "revoked"
    rest_error(admin.delete("/api/tokens/999999"), 404, "api_token_not_found")


def test_an_admin_may_revoke_the_token_it_uses(server: LiveServer, server_session: Session) -> None:
    with _client(server, create_api_token(session=server_session, name="self-revoker", role="admin")) as client:
        own = next(r for r in client.get("/api/tokens").json() if r["name"] == "self-revoker")
        assert client.delete(f"/api/tokens/{own['id']}").status_code == 200
        rest_error(client.get("/api/tokens"), 401, "unauthorized")


def test_an_expired_token_is_unauthorized(admin: httpx.Client, server: LiveServer, server_session: Session) -> None:
    created = _create(admin)
    server_session.exec(
        sa.update(ApiToken)
        .where(ApiToken.id == created["id"])  # type: ignore[call-overload,arg-type]
        .values(expires_at=utcnow() - timedelta(seconds=1))
    )
    server_session.commit()
    with _client(server, created["token"]) as client:
        assert "expired" in rest_error(client.get("/api/bots"), 401, "unauthorized")["message"]
    assert next(r for r in admin.get("/api/tokens").json() if r["id"] == created["id"])["state"] == "expired"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "x", "role": "viewer", "expires_days": 0}, "expires_days"),
        ({"name": "x", "role": "viewer", "expires_days": 100000}, "expires_days"),
        ({"name": "", "role": "viewer"}, "name"),
        ({"name": "x", "role": "root"}, "role"),
        ({"name": "x"}, "role"),
        ({"name": "x", "role": "viewer", "expires": 3}, "expires"),
    ],
)
def test_bad_requests_create_nothing(admin: httpx.Client, body: dict[str, Any], field: str) -> None:
    before = admin.get("/api/tokens").json()
    assert rest_error(admin.post("/api/tokens", json=body), 422, "validation_error")["field"] == field
    assert admin.get("/api/tokens").json() == before


def test_viewers_and_strangers_cannot_see_or_manage_tokens(
    admin: httpx.Client, viewer: httpx.Client, server: LiveServer
) -> None:
    target = _create(admin)
    for method, path, body in (
        ("GET", "/api/tokens", None),
        ("POST", "/api/tokens", {"name": "v", "role": "admin"}),
        ("DELETE", f"/api/tokens/{target['id']}", None),
    ):
        refused = rest_error(viewer.request(method, path, json=body), 403, "forbidden")
        assert "see or change" in refused["message"]  # a read was told "change" (a walkthrough)
        with _client(server, None) as anonymous:
            rest_error(anonymous.request(method, path, json=body), 401, "unauthorized")
    assert next(r for r in admin.get("/api/tokens").json() if r["id"] == target["id"])["state"] == "active"


@pytest.mark.parametrize("length", [1, MIN_ADMIN_TOKEN_LENGTH - 1])
def test_a_short_admin_token_setting_is_refused(server: LiveServer, length: int) -> None:
    short = secrets.token_hex(32)[:length]
    with configured(server.database_url, str(get_settings().data_dir), TOPIC_DASHBOARD_ADMIN_TOKEN=short):
        with _client(server, short) as client:
            rest_error(client.get("/api/bots"), 401, "unauthorized")
        assert httpx.get(server.base_url + "/api/health").status_code == 200  # the API still answers


def test_a_long_enough_admin_token_setting_is_an_admin(server: LiveServer) -> None:
    secret = secrets.token_hex(MIN_ADMIN_TOKEN_LENGTH // 2)
    assert len(secret) == MIN_ADMIN_TOKEN_LENGTH
    with (
        configured(server.database_url, str(get_settings().data_dir), TOPIC_DASHBOARD_ADMIN_TOKEN=secret),
        _client(server, secret) as client,
    ):
        assert client.get("/api/tokens").status_code == 200
