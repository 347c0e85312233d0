"""A bug on our side (an exception no handler expects) answers with the error shape, the
security headers every other response carries, and nothing of the exception in the body."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.main import create_app


def test_an_unexpected_error_is_a_500_with_the_error_shape_and_the_security_headers(settings, registry):
    app = create_app(settings, registry)

    @app.get("/api/test-boom")
    def boom():
        raise RuntimeError("secret internals")

    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/api/test-boom")
        assert response.status_code == 500
        assert response.json()["error"]["code"] == "internal_error"
        assert "secret internals" not in response.text
        assert response.headers["content-security-policy"].startswith("default-src 'self'")
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["x-frame-options"] == "DENY"
