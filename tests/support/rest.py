"""The one check of a REST error answer: status, JSON `{"error": {...}}` only, code, message, field."""

from __future__ import annotations

from typing import Any

import httpx


def rest_error(response: httpx.Response, status: int, code: str, field: str | None = None) -> dict[str, Any]:
    """The error object of a refused request, after checking the error shape every endpoint shares."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json"), response.headers
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"], body
    if field is not None:
        assert body["error"].get("field") == field, body
    return body["error"]
