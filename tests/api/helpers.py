"""Assertions shared by the API tests."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import httpx

from app.web import schemas

BUILTIN_NAMES = ["gpt2", "cl100k_base", "o200k_base", "mistral_v1", "tokenprism_4k"]


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


def stdlib_texts(count: int = 12, max_chars: int = 30_000) -> list[tuple[str, str]]:
    """(file name, text) of Python standard-library sources, spread over the alphabet: text nobody here wrote."""
    files = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    step = max(1, len(files) // count)
    return [(path.name, path.read_text(encoding="utf-8", errors="replace")[:max_chars]) for path in files[::step][:count]]
