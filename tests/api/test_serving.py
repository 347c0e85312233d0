"""Bounded serving over real HTTP: the token budget, admission control and the HTTP edges.

Each server here is `tokenprism serve` started with its own small limits
(TOKENPRISM_MAX_RESPONSE_TOKENS, TOKENPRISM_WORKERS, ...), so that every limit is reached
with small, fast requests. Every refusal must be a 4xx/503 in the one error shape.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from app.local_server import start_server, stop_server

from .helpers import assert_error

BUDGET = 1_000


@pytest.fixture(scope="module")
def small_budget(tmp_path_factory):
    process, base_url = start_server(
        tmp_path_factory.mktemp("budget"),
        {"TOKENPRISM_MAX_RESPONSE_TOKENS": str(BUDGET), "TOKENPRISM_RENDER_TOKENS": "200"},
    )
    with httpx.Client(base_url=base_url, timeout=60) as client:
        yield client
    stop_server(process)


def words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))  # about two tokens a word in gpt2 and cl100k_base


def tokens_of(client, name: str, text: str) -> int:
    return client.post("/api/count", json={"text": text, "tokenizers": [name]}).json()["counts"][name]


def test_limits_report_the_token_budget(small_budget):
    assert small_budget.get("/api/limits").json()["max_response_tokens"] == BUDGET


def test_tokenize_over_the_budget_is_413_with_the_count_and_the_way_out(small_budget):
    text = words(800)
    total = tokens_of(small_budget, "gpt2", text)
    assert total > BUDGET
    error = assert_error(
        small_budget.post("/api/tokenize", json={"tokenizer": "gpt2", "text": text}), 413, "too_many_tokens"
    )
    assert f"{total:,}" in error["message"] and f"{BUDGET:,}" in error["message"] and "/api/count" in error["message"]


def test_compare_budget_is_over_all_its_tokenizers(small_budget):
    text = words(300)
    each = {name: tokens_of(small_budget, name, text) for name in ("gpt2", "cl100k_base")}
    assert all(count <= BUDGET for count in each.values()) and sum(each.values()) > BUDGET
    for name in each:
        assert small_budget.post("/api/tokenize", json={"tokenizer": name, "text": text}).status_code == 200
    error = assert_error(
        small_budget.post("/api/compare", json={"text": text, "tokenizers": list(each)}), 413, "too_many_tokens"
    )
    assert f"{sum(each.values()):,}" in error["message"]


def test_decode_lists_at_most_the_budget(small_budget):
    assert small_budget.post("/api/decode", json={"tokenizer": "gpt2", "ids": [318] * BUDGET}).status_code == 200
    assert_error(
        small_budget.post("/api/decode", json={"tokenizer": "gpt2", "ids": [318] * (BUDGET + 1)}),
        413,
        "too_many_tokens",
    )


def test_counting_needs_no_budget(small_budget):
    text = words(20_000)
    body = small_budget.post("/api/count", json={"text": text, "tokenizers": ["gpt2", "cl100k_base"]}).json()
    assert min(body["counts"].values()) > 20 * BUDGET


def test_the_page_draws_its_first_part_lists_ids_up_to_the_budget_and_says_so(small_budget):
    text = words(2_000)
    total = tokens_of(small_budget, "cl100k_base", text)
    page = small_budget.post("/", data={"tokenizer": "cl100k_base", "text": text}, headers={"HX-Request": "true"})
    assert page.status_code == 200
    html = page.text
    assert html.count('<bdi class="tok') in range(200, 230)  # the drawing budget, never cutting a segment
    assert f'data-count="{total}"' in html and "Drawing the first" in html
    assert f"and {total - BUDGET:,} more ids" in html


# ---- admission control ----


@pytest.fixture(scope="module")
def one_worker(tmp_path_factory):
    process, base_url = start_server(
        tmp_path_factory.mktemp("admission"),
        {"TOKENPRISM_WORKERS": "1", "TOKENPRISM_MAX_QUEUE": "2", "TOKENPRISM_QUEUE_WAIT_S": "0.2"},
    )
    yield base_url
    stop_server(process)


def test_work_beyond_the_pool_and_its_queue_is_503_with_retry_after_and_healthz_still_answers(one_worker):
    text = "Tokenizers cut text into pieces. " * 12_000  # ~400,000 characters: a second or so of work
    body = {"tokenizer": "mistral_v1", "text": text}
    httpx.post(f"{one_worker}/api/count", json={"text": "warm", "tokenizers": ["mistral_v1"]}, timeout=60)
    running = threading.Event()
    healthz_while_busy = []

    def heavy(_):
        running.set()
        return httpx.post(f"{one_worker}/api/tokenize", json=body, timeout=60)

    def poll_healthz():
        running.wait(10)
        while len(healthz_while_busy) < 5:
            response = httpx.get(f"{one_worker}/healthz", timeout=60)
            healthz_while_busy.append(response.status_code)

    poller = threading.Thread(target=poll_healthz)
    poller.start()
    with ThreadPoolExecutor(8) as clients:
        responses = list(clients.map(heavy, range(8)))
    poller.join()
    statuses = sorted(r.status_code for r in responses)
    assert 200 in statuses and 503 in statuses, statuses
    for response in responses:
        if response.status_code == 503:
            error = assert_error_503(response)
            assert "busy" in error["message"] and "try again" in error["message"]
            assert int(response.headers["retry-after"]) >= 1
    assert healthz_while_busy == [200] * 5


def assert_error_503(response: httpx.Response) -> dict:
    assert response.status_code == 503 and response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == "server_busy"
    return body["error"]


# ---- the HTTP edges ----


@pytest.mark.parametrize(
    "path",
    ["/healthz", "/", "/compare", "/api/tokenizers", "/api/limits", "/api/tokenizers/gpt2", "/docs", "/openapi.json"],
)
def test_head_answers_like_get_without_a_body(http, path):
    get, head = http.get(path), http.head(path)
    assert get.status_code == head.status_code == 200
    assert head.content == b"" and head.headers["content-type"] == get.headers["content-type"]
    assert "content-security-policy" in head.headers


def raw_request(base_url: str, data: bytes) -> bytes:
    host, port = base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        with contextlib.suppress(OSError):  # the server may stop reading once it has answered
            sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize(
    "head, status, code",
    [
        (b"GET /?text=" + b"a" * 1_000_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "url_too_long"),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 10_000_000 + b"\r\n\r\n", 431, "headers_too_large"),
        (b"NOT HTTP AT ALL\r\n\r\n", 400, "bad_http_request"),
    ],
    ids=["1 MB URL", "10 MB header", "garbage"],
)
def test_oversized_or_broken_request_heads_get_the_error_shape_and_security_headers(live_server, head, status, code):
    answer = raw_request(live_server, head)
    status_line, _, rest = answer.partition(b"\r\n")
    headers, _, body = rest.partition(b"\r\n\r\n")
    assert status_line.split()[1] == str(status).encode(), status_line
    assert b"content-security-policy: default-src 'self'" in headers.lower()
    assert json.loads(body)["error"]["code"] == code


def test_a_client_that_sends_its_whole_body_first_gets_the_413(live_server):
    body = json.dumps({"tokenizer": "gpt2", "text": "x" * 5_000_000}).encode()
    request = urllib.request.Request(
        f"{live_server}/api/tokenize", data=body, headers={"Content-Type": "application/json"}
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=60)
    assert caught.value.code == 413
    assert json.loads(caught.value.read())["error"]["code"] == "body_too_large"


def test_a_file_in_the_text_field_is_refused_not_tokenized_as_its_repr(http):
    response = http.post(
        "/", files={"text": ("notes.txt", b"hello world")}, data={"tokenizer": "gpt2"}, headers={"HX-Request": "true"}
    )
    error = assert_error(response, 422)
    assert "'text'" in error["message"] and "file" in error["message"]
    page = http.post("/", files={"text": ("notes.txt", b"hello world")}, data={"tokenizer": "gpt2"})
    assert page.status_code == 422 and "UploadFile" not in page.text


def test_api_bodies_must_be_json(http):
    error = assert_error(
        http.post("/api/count", content=b'{"text": "hi"}', headers={"content-type": "text/plain"}), 415
    )
    assert "application/json" in error["message"]


def test_responses_carry_the_server_time(http):
    timing = http.get("/healthz").headers["server-timing"]
    assert timing.startswith("app;dur=") and float(timing.partition("dur=")[2]) >= 0


def test_body_bytes_held_at_once_are_bounded_over_all_requests(tmp_path):
    """Two requests whose 90 KB bodies are still arriving hold 180 KB of a 200 KB budget: a
    third is refused at once with a 503 (its body read and dropped), and admitted again once
    the first two are gone."""
    process, base_url = start_server(
        tmp_path,
        {
            "TOKENPRISM_MAX_BODY_BYTES": "100000",
            "TOKENPRISM_MAX_INFLIGHT_BODY_BYTES": "200000",
            "TOKENPRISM_MAX_UPLOAD_BYTES": "100000",
        },
    )
    host, port = base_url.removeprefix("http://").split(":")
    body = json.dumps({"tokenizer": "gpt2", "text": "x" * 89_900}).encode()
    head = (
        b"POST /api/count HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
        % len(body)
    )
    try:
        holders = []
        for _ in range(2):
            sock = socket.create_connection((host, int(port)), timeout=30)
            sock.sendall(head + body[:1000])  # the rest never comes while the test runs
            holders.append(sock)
        httpx.get(f"{base_url}/healthz", timeout=30)  # the server has taken in both heads by now
        refused = httpx.post(
            f"{base_url}/api/tokenize", content=body, headers={"Content-Type": "application/json"}, timeout=30
        )
        assert refused.status_code == 503 and refused.headers["retry-after"]
        assert refused.json()["error"]["code"] == "server_busy"
        for sock in holders:
            sock.close()
        for _ in range(50):  # the server notices the closed connections
            admitted = httpx.post(
                f"{base_url}/api/tokenize", content=body, headers={"Content-Type": "application/json"}, timeout=30
            )
            if admitted.status_code != 503:
                break
            time.sleep(0.1)
        assert admitted.status_code == 200 and admitted.json()["count"] > 0
    finally:
        stop_server(process)
