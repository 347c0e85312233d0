"""The BPE lab's API over real HTTP, on servers of its own: POST /api/train trains text nobody
here wrote to exactly the naive algorithm's merges; "merges": k gives the naive encoder's ids;
the queue is bounded (503 with Retry-After); hostile requests get a 4xx in the one error shape;
and a server killed with SIGKILL mid-training leaves nothing half-done behind."""

from __future__ import annotations

import concurrent.futures
import os
import signal
import sysconfig
import time
from pathlib import Path

import httpx
import pytest

from app.bpe.model import PATTERNS
from app.local_server import start_server, stop_server
from app.web.training.schemas import MergesResponse, TrainAccepted, TrainJob
from tests.api.helpers import assert_error
from tests.bpe.test_bpe_vs_naive import naive_train
from tests.jobs.test_replay import naive_encode
from tests.jobs.test_runner import children
from tests.reference import stdlib_texts

TOKEN = "lab-s3cret"
MERGES = 60
GPT4 = PATTERNS["gpt4"]
STDLIB = Path(sysconfig.get_paths()["stdlib"])


def corpus(count: int = 4, chars: int = 6_000) -> list[str]:
    return [text for _, text in stdlib_texts(count, chars)]


def long_corpus() -> list[str]:
    return [text for _, text in stdlib_texts(60, 60_000)]  # ~1.5 MB of the standard library


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("lab")
    process, url = start_server(data_dir)
    with httpx.Client(base_url=url, timeout=120) as client:
        yield client, data_dir
    stop_server(process)


@pytest.fixture(scope="module")
def busy(tmp_path_factory):
    """One job at a time, one waiting, an admin token, and small general bodies (the corpus has its own bound)."""
    data_dir = tmp_path_factory.mktemp("busy")
    env = {
        "TOKENPRISM_TRAIN_JOBS": "1",
        "TOKENPRISM_TRAIN_QUEUE": "1",
        "TOKENPRISM_ADMIN_TOKEN": TOKEN,
        "TOKENPRISM_MAX_BODY_BYTES": "20000",
        "TOKENPRISM_MAX_TRAIN_BYTES": "3000000",
    }
    process, url = start_server(data_dir, extra_env=env)
    with httpx.Client(base_url=url, timeout=120, headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        yield client, data_dir
    stop_server(process)


def finish(http: httpx.Client, job: str, seconds: float = 180) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        response = http.get(f"/api/train/{job}")
        assert response.status_code == 200, response.text
        state = TrainJob.model_validate(response.json()).model_dump(exclude_none=True)
        if state["status"] not in ("queued", "running"):
            return state
        time.sleep(0.1)
    raise AssertionError(f"job {job} still runs after {seconds} s")


def start(http: httpx.Client, **body) -> str:
    response = http.post("/api/train", json=body)
    assert response.status_code == 202, response.text
    accepted = TrainAccepted.model_validate(response.json())
    assert response.headers["location"] == accepted.status_url == f"/api/train/{accepted.job}"
    return accepted.job


def merges_of(http: httpx.Client, name: str) -> list[tuple[int, int]]:
    body = MergesResponse.model_validate(http.get(f"/api/tokenizers/{name}/merges", params={"limit": 1000}).json())
    assert body.merges_total == len(body.merges)
    return [(m.left, m.right) for m in body.merges]


def test_training_a_corpus_nobody_here_wrote_gives_the_naive_merges(lab):
    http, data_dir = lab
    texts = corpus()
    state = finish(http, start(http, name="stdlib-json", texts=texts, vocab_size=256 + MERGES))
    assert state["status"] == "done" and state["tokenizer"] == "stdlib-json", state
    assert state["merges_done"] == state["merges_total"] == MERGES == state["summary"]["merges"]
    assert merges_of(http, "stdlib-json") == naive_train(texts, GPT4, MERGES)
    assert "stdlib-json" in [t["name"] for t in http.get("/api/tokenizers").json()["tokenizers"]]
    assert (data_dir / "tokenizers" / "stdlib-json.bpe").is_file()


def test_multipart_files_are_documents_after_the_pasted_text(lab):
    http, _ = lab
    files = [STDLIB / "textwrap.py", STDLIB / "colorsys.py"]
    documents = ["the pasted text comes first", *(path.read_text(encoding="utf-8") for path in files)]
    response = http.post(
        "/api/train",
        data={
            "name": "stdlib-files",
            "vocab_size": "316",
            "pattern": "gpt2",
            "text": documents[0],
            "special_tokens": '["<|end|>"]',
        },
        files=[("files", (path.name, path.read_bytes())) for path in files],
    )
    assert response.status_code == 202, response.text
    state = finish(http, response.json()["job"])
    assert state["status"] == "done" and state["summary"]["special_tokens"] == {"<|end|>": 315}, state
    assert merges_of(http, "stdlib-files") == naive_train(documents, PATTERNS["gpt2"], 59)


@pytest.mark.parametrize("name", ["stdlib-json", "tokenprism_4k"])
def test_merges_k_gives_the_naive_encoders_ids(lab, name):
    http, _ = lab
    if name == "stdlib-json" and http.get(f"/api/tokenizers/{name}").status_code != 200:
        pytest.skip("needs the tokenizer trained by the first test")
    pairs = merges_of(http, name) if name != "tokenprism_4k" else None
    if pairs is None:
        pairs = []
        while len(pairs) < 3839:
            page = http.get(f"/api/tokenizers/{name}/merges", params={"offset": len(pairs), "limit": 1000}).json()
            pairs += [(m["left"], m["right"]) for m in page["merges"]]
    text = stdlib_texts(12, 1_500)[5][1] + " naïve 😀 한국어"
    for k in (0, 1, 7, len(pairs) // 2, len(pairs)):
        body = http.post("/api/tokenize", json={"tokenizer": name, "text": text, "merges": k}).json()
        assert body["merges"] == k and body["tokenizer"] == name
        assert [t["id"] for t in body["tokens"]] == naive_encode(text, GPT4, pairs, k), k
        assert "".join(t["bytes"] for t in body["tokens"]) == text.encode("utf-8").hex()
    assert "merges" not in http.post("/api/tokenize", json={"tokenizer": name, "text": text}).json()


def test_merges_refusals_name_the_range_and_the_kind(lab):
    http, _ = lab
    error = assert_error(
        http.post("/api/tokenize", json={"tokenizer": "tokenprism_4k", "text": "a", "merges": 3840}), 422
    )
    assert "from 0 (raw bytes) to 3,839" in error["message"]
    assert_error(http.post("/api/tokenize", json={"tokenizer": "tokenprism_4k", "text": "a", "merges": -1}), 422)
    assert_error(http.post("/api/tokenize", json={"tokenizer": "tokenprism_4k", "text": "a", "merges": True}), 422)
    for request in (
        http.post("/api/tokenize", json={"tokenizer": "gpt2", "text": "a", "merges": 1}),
        http.get("/api/tokenizers/cl100k_base/merges"),
    ):
        assert "is a tiktoken tokenizer" in assert_error(request, 422)["message"]
    assert_error(http.get("/api/tokenizers/tokenprism_4k/merges", params={"limit": 1001}), 422)
    assert_error(http.get("/api/tokenizers/tokenprism_4k/merges", params={"offset": -1}), 422)
    assert_error(http.get("/api/tokenizers/nope/merges"), 404)
    assert http.get("/api/tokenizers/tokenprism_4k/merges", params={"offset": 10**6}).json()["merges"] == []


HOSTILE_JSON = [
    ({"name": "x", "text": "ab ab", "vocab_size": 10**9}, 422, "TOKENPRISM_MAX_TRAIN_VOCAB"),
    ({"name": "x", "text": "ab ab", "vocab_size": 256}, 422, "at least 257"),
    ({"name": "x", "text": "", "vocab_size": 300}, 422, "empty"),
    ({"name": "x", "vocab_size": 300}, 422, "empty"),
    ({"name": "x", "text": "ab ab", "vocab_size": 300, "pattern": "(a"}, 422, "pattern"),
    ({"name": "x", "text": "ab ab", "vocab_size": 300, "special_tokens": ["<a>", "<a>"]}, 422, "twice"),
    ({"name": "x", "text": "ab ab", "vocab_size": 300, "special_tokens": [""]}, 422, "empty"),
    ({"name": "x", "text": "ab ab", "vocab_size": 300, "special_tokens": ["x" * 101]}, 422, "characters"),
    ({"name": "Bad Name!", "text": "ab ab", "vocab_size": 300}, 422, "name"),
    ({"name": "../etc", "text": "ab ab", "vocab_size": 300}, 422, "name"),
    ({"name": "gpt2", "text": "ab ab", "vocab_size": 300}, 409, "built-in"),
    ({"name": "x", "text": "ab ab", "vocab_size": "300"}, 422, "vocab_size"),
    ({"name": "x", "text": "ab ab", "vocab_size": 300.5}, 422, "vocab_size"),
    ({"name": "x", "text": "ab ab", "vocab_size": 300, "extra": 1}, 422, "extra"),
    ({"name": "x", "texts": "not a list", "vocab_size": 300}, 422, "texts"),
    ({"name": "x", "texts": [""] * 10_001, "vocab_size": 300}, 422, "texts"),
]


@pytest.mark.parametrize("body, status, word", HOSTILE_JSON, ids=[str(i) for i in range(len(HOSTILE_JSON))])
def test_hostile_json_gets_a_4xx_naming_the_problem(lab, body, status, word):
    http, _ = lab
    assert word.lower() in assert_error(http.post("/api/train", json=body), status)["message"].lower()


def test_hostile_bodies_and_forms(lab):
    http, _ = lab
    assert_error(http.post("/api/train", content=b"{not json", headers={"content-type": "application/json"}), 400)
    assert_error(http.post("/api/train", content=b"text", headers={"content-type": "text/plain"}), 415)
    assert_error(http.post("/api/train", content=b"\xff\xfe", headers={"content-type": "application/json"}), 400)
    form = {"name": "bad-form", "vocab_size": "300"}
    assert (
        "not UTF-8"
        in assert_error(http.post("/api/train", data=form, files={"files": ("x.bin", b"ab\xff\xfe")}), 422)["message"]
    )
    assert (
        "whole number"
        in assert_error(
            http.post("/api/train", data={**form, "vocab_size": "many"}, files={"files": ("a", b"ab")}), 422
        )["message"]
    )
    assert (
        "unexpected form field"
        in assert_error(http.post("/api/train", data={**form, "evil": "1"}, files={"files": ("a", b"ab")}), 422)[
            "message"
        ]
    )
    assert_error(http.post("/api/train", data={**form, "special_tokens": "[1, 2]"}, files={"files": ("a", b"ab")}), 422)
    many = [("files", (f"{i}.txt", b"ab")) for i in range(101)]
    assert "100" in assert_error(http.post("/api/train", data=form, files=many), 400)["message"]
    assert_error(http.get("/api/train/not-a-job"), 404, "unknown_job")
    assert_error(http.get("/api/train/" + "A" * 22), 404, "unknown_job")
    assert_error(http.delete("/api/train/" + "A" * 22), 404)


def test_cancel_a_running_job_and_jobs_that_ended(lab):
    http, data_dir = lab
    job = start(http, name="cancelled", texts=long_corpus(), vocab_size=20_000)
    assert http.delete(f"/api/train/{job}").json()["status"] == "cancelled"
    assert finish(http, job)["error"]["code"] == "cancelled"
    assert http.delete(f"/api/train/{job}").status_code == 200
    time.sleep(0.5)
    assert not (data_dir / "tokenizers" / "cancelled.bpe").exists()
    done = http.get("/api/tokenizers").json()["tokenizers"]
    assert "cancelled" not in [t["name"] for t in done]
    ended = start(http, name="ended", text="ab ab ab", vocab_size=300)
    finish(http, ended)
    assert_error(http.delete(f"/api/train/{ended}"), 409, "job_finished")


def test_jobs_beyond_the_queue_get_503_with_retry_after(busy):
    http, _ = busy
    body = {"texts": long_corpus(), "vocab_size": 20_000}
    assert len(str(body)) > 20_000  # over TOKENPRISM_MAX_BODY_BYTES: the corpus routes have their own bound
    running = start(http, name="busy-a", **body)
    waiting = start(http, name="busy-b", text="ab ab", vocab_size=300)
    refused = http.post("/api/train", json={"name": "busy-c", "text": "ab ab", "vocab_size": 300})
    assert_error(refused, 503, "server_busy")
    assert int(refused.headers["retry-after"]) > 0

    def post(i: int) -> int:
        return http.post("/api/train", json={"name": f"burst-{i}", "text": "ab " * 50, "vocab_size": 300}).status_code

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(post, range(100)))
    assert set(statuses) <= {202, 503}, statuses  # never a 500
    if http.get(f"/api/train/{running}").json()["status"] == "running":  # so both slots were taken all along
        assert set(statuses) == {503}, statuses
    for job in (waiting, running):
        assert http.delete(f"/api/train/{job}").status_code == 200
    assert finish(http, running)["status"] == "cancelled"


def test_write_access_and_the_corpus_limit(busy):
    http, _ = busy
    body = {"name": "guarded", "text": "ab ab", "vocab_size": 300}
    assert_error(http.post("/api/train", json=body, headers={"Authorization": ""}), 401)
    assert_error(http.post("/api/train", json=body, headers={"Origin": "http://evil.example"}), 403)
    assert_error(http.delete("/api/train/" + "A" * 22, headers={"Authorization": "Bearer wrong"}), 401)
    big = {"name": "too-big", "text": "a" * 3_100_000, "vocab_size": 300}
    assert (
        "TOKENPRISM_MAX_TRAIN_BYTES"
        in assert_error(http.post("/api/train", json=big), 413, "corpus_too_large")["message"]
    )
    assert_error(http.post("/api/tokenize", json={"tokenizer": "gpt2", "text": "a" * 30_000}), 413)  # the general bound
    job = start(http, **body)
    assert finish(http, job)["status"] == "done"


def live_children(server_pid: int) -> set[int]:
    return children(server_pid)


@pytest.mark.slow
def test_a_server_killed_mid_training_leaves_nothing_half_done(tmp_path):
    process, url = start_server(tmp_path)
    try:
        with httpx.Client(base_url=url, timeout=60) as http:
            earlier = finish(http, start(http, name="earlier", texts=corpus(), vocab_size=300))
            assert earlier["status"] == "done"
            saved = (tmp_path / "tokenizers" / "earlier.bpe").read_bytes()
            job = start(http, name="half-done", texts=long_corpus(), vocab_size=30_000)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                state = http.get(f"/api/train/{job}").json()
                if state["status"] == "running" and (state["merges_done"] > 0 or state["phase"] == "counting"):
                    break
                time.sleep(0.05)
            assert state["status"] == "running", state
            assert http.get("/healthz").json() == {"status": "ok"}  # the server answers while a job trains
            trainers = live_children(process.pid)
            assert trainers, "the job runs in a child process of the server"
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{pid}").exists() for pid in trainers) and time.monotonic() < deadline:
            time.sleep(0.05)
        alive = [
            pid
            for pid in trainers
            if Path(f"/proc/{pid}").exists()
            and "Z" not in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        ]
        assert not alive, "the trainer died with its server"
    finally:
        if process.poll() is None:
            process.kill()
    process, url = start_server(tmp_path)
    try:
        with httpx.Client(base_url=url, timeout=60) as http:
            state = http.get(f"/api/train/{job}").json()
            assert state["status"] == "interrupted", state
            assert "start it again" in state["error"]["message"].lower()
            names = [t["name"] for t in http.get("/api/tokenizers").json()["tokenizers"]]
            assert "half-done" not in names and "earlier" in names
            assert (tmp_path / "tokenizers" / "earlier.bpe").read_bytes() == saved
            assert http.post("/api/tokenize", json={"tokenizer": "earlier", "text": "def f(): pass"}).status_code == 200
            assert not (tmp_path / "tokenizers" / "half-done.bpe").exists()
            assert (
                list((tmp_path / "tokenizers").glob("*.tmp")) == []
                and list((tmp_path / "tokenizers").glob(".*.tmp")) == []
            )
            assert list((tmp_path / "jobs" / "corpus").iterdir()) == []
            again = finish(http, start(http, name="half-done", texts=corpus(), vocab_size=300))
            assert again["status"] == "done"  # the name is free again
    finally:
        stop_server(process)
