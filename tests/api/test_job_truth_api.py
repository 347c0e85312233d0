"""Training jobs over real HTTP, on servers of their own: a server killed with SIGKILL just after
its job put the model in place gives, after a restart, a job that reads `done` with that model
usable (not `interrupted … nothing was saved`); and on a server with two worker processes,
concurrent POST /api/train with one name give exactly one 202 (the others 409)."""

from __future__ import annotations

import concurrent.futures
import os
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest

from app.local_server import start_server, stop_server
from app.settings import REPO_ROOT
from tests.api.test_train_api import corpus, finish, start

HOOKS = Path(__file__).resolve().parent.parent / "hooks"  # sitecustomize.py: the faults these tests inject


def hooked(**variables: str) -> dict:
    """The environment of a server that loads tests/hooks/sitecustomize.py with these settings."""
    path = os.pathsep.join([str(HOOKS), str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])
    return {"PYTHONPATH": path, **variables}


@pytest.mark.slow
def test_a_server_killed_after_its_job_saved_the_model_shows_the_job_done(tmp_path):
    marker = tmp_path / "replaced"
    process, url = start_server(tmp_path, extra_env=hooked(TOKENPRISM_TEST_PAUSE_AFTER_SAVE=str(marker)))
    try:
        with httpx.Client(base_url=url, timeout=60) as http:
            job = start(http, name="saved", texts=corpus(), vocab_size=300)
            deadline = time.monotonic() + 60
            while not marker.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert marker.exists(), "the job did not reach its write"
            before = http.get(f"/api/train/{job}").json()
            assert before["status"] == "running" and before["phase"] == "saving", before
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
    model = tmp_path / "tokenizers" / "saved.bpe"
    assert model.exists()
    process, url = start_server(tmp_path)
    try:
        with httpx.Client(base_url=url, timeout=60) as http:
            state = http.get(f"/api/train/{job}").json()
            assert state["status"] == "done", state
            assert state["tokenizer"] == "saved" and "error" not in state and state["summary"]["merges"] == 44
            assert "saved whole" in state["summary"]["note"]
            tokens = http.post("/api/tokenize", json={"tokenizer": "saved", "text": "def f(): pass"})
            assert tokens.status_code == 200 and tokens.json()["count"] > 0
            assert not list(model.parent.glob("*.tmp")) and not list(model.parent.glob(".*.tmp"))
            again = http.post("/api/train", json={"name": "saved", "texts": corpus(), "vocab_size": 300})
            assert again.status_code == 409 and again.json()["error"]["code"] == "name_taken"  # as the job says
    finally:
        stop_server(process)


@pytest.mark.slow
def test_one_name_gets_one_job_across_two_worker_processes(tmp_path):
    # Recording a job waits 0.2 s first: a check of the name outside the recording transaction
    # would let both workers' first requests through.
    process, url = start_server(tmp_path, workers=2, extra_env=hooked(TOKENPRISM_TEST_SLOW_CREATE_S="0.2"))
    try:
        texts = corpus(2, 2_000)
        with httpx.Client(base_url=url, timeout=60) as http:
            for trial in range(3):  # the race, where there is one, shows on the first: 16 requests at once
                body = {"name": f"race-{trial}", "texts": texts, "vocab_size": 300}
                barrier = threading.Barrier(16)

                def post(_, body=body, barrier=barrier) -> httpx.Response:
                    with httpx.Client(base_url=url, timeout=60) as own:  # a connection each: both workers take some
                        own.get("/healthz")
                        barrier.wait()
                        return own.post("/api/train", json=body)

                with concurrent.futures.ThreadPoolExecutor(16) as pool:
                    answers = list(pool.map(post, range(16)))
                codes = sorted(answer.status_code for answer in answers)
                assert codes == [202] + [409] * 15, [(a.status_code, a.text[:120]) for a in answers]
                assert {a.json()["error"]["code"] for a in answers if a.status_code == 409} <= {
                    "name_busy",
                    "name_taken",
                }
                accepted = next(a.json()["job"] for a in answers if a.status_code == 202)
                assert finish(http, accepted)["status"] == "done"
    finally:
        stop_server(process)
