"""Every status a write route can answer is in its OpenAPI responses (issue 18, point 10),
walked from /openapi.json: the Host check's 400, the write check's 401 and 403, the
name check's 409 and the rest each route raises."""

from __future__ import annotations

import pytest

WRITE_ROUTES = {  # (method, path) -> the statuses it can answer besides its success
    ("post", "/api/tokenizers"): {400, 401, 403, 409, 413, 415, 422, 503},
    ("delete", "/api/tokenizers/{name}"): {400, 401, 403, 404, 422},
    ("post", "/api/train"): {400, 401, 403, 409, 413, 415, 422, 503},
    ("delete", "/api/train/{job}"): {400, 401, 403, 404, 409, 422},
}


@pytest.fixture(scope="module")
def schema(client):
    return client.get("/openapi.json").json()


@pytest.mark.parametrize("route", WRITE_ROUTES, ids=[" ".join(route) for route in WRITE_ROUTES])
def test_a_write_route_documents_every_status(schema, route):
    method, path = route
    documented = {int(status) for status in schema["paths"][path][method]["responses"] if status.isdigit()}
    missing = WRITE_ROUTES[route] - documented
    assert not missing, f"{method.upper()} {path} does not document {sorted(missing)}"


def test_every_documented_error_has_the_error_shape(schema):
    for route in WRITE_ROUTES:
        method, path = route
        for status, response in schema["paths"][path][method]["responses"].items():
            if status.startswith("4") or status.startswith("5"):
                ref = response["content"]["application/json"]["schema"]["$ref"]
                assert ref.endswith("/ErrorResponse"), (route, status)
                assert response["description"], (route, status)
