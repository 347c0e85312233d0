"""Shared fixtures: the real registry, an in-process client, a real uvicorn server, Chromium.

`live_server` starts the app (`app.local_server`) as a child process on a free loopback
port with its own empty data directory, and yields its base URL; API tests talk
to it with httpx over real HTTP and browser tests point Chromium at it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.local_server import start_server, stop_server
from app.settings import Settings
from app.tokenizers.registry import Registry, default_registry
from tests.reference import BUILTIN_NAMES  # noqa: F401  (used by the tests)

# The tests share and upload far more than a person would: the per-client rates are lifted for
# every app and server they start (tests/api/test_rate_limit.py sets its own low ones).
os.environ.setdefault("TOKENPRISM_SHARES_PER_MINUTE", "1000000")
os.environ.setdefault("TOKENPRISM_UPLOADS_PER_MINUTE", "1000000")

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
TEST_CLIENT_HOST = "testserver"  # the Host FastAPI's TestClient sends; allowed only where a test says so
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("tokenprism-data")


@pytest.fixture(scope="session")
def settings(data_dir) -> Settings:
    return Settings(data_dir=data_dir, allowed_hosts=TEST_CLIENT_HOST)  # TestClient sends Host: testserver


@pytest.fixture(scope="session")
def registry(settings) -> Registry:
    return default_registry(settings)


@pytest.fixture(scope="session")
def client(settings, registry):
    from fastapi.testclient import TestClient

    from app.main import create_app

    with TestClient(create_app(settings, registry)) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def live_server(data_dir):
    process, base_url = start_server(data_dir)
    yield base_url
    stop_server(process)


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, through Playwright; missing Chromium fails, never skips."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(
            f"{CHROMIUM} is missing: the browser tests need Debian's Chromium. "
            "Install it with `make browser` (apt-get install chromium); `make test` does this for you.",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()
