"""Shared fixtures: the real registry, an in-process client, and a real uvicorn server.

`live_server` starts `uvicorn app.main:create_app --factory` as a child process on a free
loopback port with its own empty data directory, and yields its base URL; API tests talk
to it with httpx over real HTTP and browser tests point Chromium at it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from app.settings import Settings
from app.tokenizers.registry import Registry, default_registry

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic",
]
BUILTIN_NAMES = ["gpt2", "cl100k_base", "o200k_base", "mistral_v1", "tokenprism_4k"]


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("tokenprism-data")


@pytest.fixture(scope="session")
def settings(data_dir) -> Settings:
    return Settings(data_dir=data_dir)


@pytest.fixture(scope="session")
def registry(settings) -> Registry:
    return default_registry(settings)


@pytest.fixture(scope="session")
def client(settings, registry):
    from fastapi.testclient import TestClient

    from app.main import create_app

    with TestClient(create_app(settings, registry)) as test_client:
        yield test_client


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(data_dir: Path, extra_env: dict | None = None) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(data_dir), **(extra_env or {})}
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory",
         "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early:\n{process.stdout.read().decode(errors='replace')}")
        try:
            if httpx.get(f"{base_url}/healthz", timeout=1).status_code == 200:
                return process, base_url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("server did not answer /healthz within 30 s")


@pytest.fixture(scope="session")
def live_server(data_dir):
    process, base_url = start_server(data_dir)
    yield base_url
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


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
