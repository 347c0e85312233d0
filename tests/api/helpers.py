"""Assertions shared by the API tests."""

from __future__ import annotations

import httpx

from app.web import schemas
from tests.reference import (
    BUILTIN_NAMES,  # noqa: F401  (re-exported for the API tests)
    stdlib_texts,  # noqa: F401
)


def assert_error(response: httpx.Response, status: int | None = None, code: str | None = None) -> dict:
    """The one error shape: a 4xx, JSON, exactly {"error": {"code", "message"}} with non-empty strings."""
    if status is None:
        assert 400 <= response.status_code < 500, (response.status_code, response.text[:500])
    else:
        assert response.status_code == status, (response.status_code, response.text[:500])
    assert response.headers["content-type"].startswith("application/json"), response.headers["content-type"]
    body = response.json()
    schemas.ErrorResponse.model_validate(body)
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] and body["error"]["message"], body
    if code is not None:
        assert body["error"]["code"] == code, body
    return body["error"]
