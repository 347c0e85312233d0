"""Issue 18, points 1 and 3 against a real server: a regex that needs gigabytes to compile
and a tokenizer.json whose regex backtracks get a 422 naming the pattern, while the
server stays small and keeps answering /healthz."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import httpx
import pytest

from app.local_server import start_server, stop_server

pytestmark = pytest.mark.serial  # times the server's answers: run alone, not beside another test worker
HUGE = "(?:(?:a{1000}){1000}){1000}"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process, base_url = start_server(tmp_path_factory.mktemp("data"))
    yield process, base_url
    stop_server(process)


def _rss_mb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    raise AssertionError("no VmRSS")


def test_the_hostile_pattern_is_a_quick_422_and_the_server_stays_small_and_awake(server):
    process, base_url = server
    peak, healthz, stop = [0], [], threading.Event()

    def watch():
        with httpx.Client(base_url=base_url, timeout=5) as client:
            while not stop.is_set():
                peak[0] = max(peak[0], _rss_mb(process.pid))
                started = time.monotonic()
                healthz.append((client.get("/healthz").status_code, time.monotonic() - started))
                time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with httpx.Client(base_url=base_url, timeout=60) as client:
            for _ in range(3):
                answer = client.get("/api/tokenizers/gpt2/vocab", params={"mode": "regex", "q": HUGE})
                assert answer.status_code == 422, answer.text
                message = answer.json()["error"]["message"]
                assert HUGE in message and "too large to compile" in message
            page = client.get("/tokenizers/gpt2", params={"mode": "regex", "q": HUGE})
            assert page.status_code == 422 and "too large to compile" in page.text
            found = client.get("/api/tokenizers/gpt2/vocab", params={"mode": "regex", "q": "^ the$"})
            assert found.status_code == 200 and found.json()["total"] == 1
    finally:
        stop.set()
        watcher.join()
    assert process.poll() is None
    assert peak[0] < 1024, f"the server grew to {peak[0]} MB"
    assert healthz and all(status == 200 and took < 1.0 for status, took in healthz), healthz


def test_a_backtracking_tokenizer_json_is_refused_naming_the_pattern(server):
    _, base_url = server
    data = json.dumps(
        {
            "version": "1.0",
            "added_tokens": [],
            "normalizer": None,
            "post_processor": None,
            "decoder": None,
            "pre_tokenizer": {
                "type": "Split",
                "pattern": {"Regex": "(q|qq)+r"},
                "behavior": "Isolated",
                "invert": False,
            },
            "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "q": 1, "r": 2}, "unk_token": "[UNK]"},
        }
    ).encode()
    with httpx.Client(base_url=base_url, timeout=120) as client:
        answer = client.post("/api/tokenizers", files={"file": ("tokenizer.json", data)}, data={"name": "qq"})
        assert answer.status_code == 422, answer.text
        assert "(q|qq)+r" in answer.json()["error"]["message"]
        assert "qq" not in [t["name"] for t in client.get("/api/tokenizers").json()["tokenizers"]]
