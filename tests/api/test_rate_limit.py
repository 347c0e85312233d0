"""Per-client rates on the write routes: a real server with low rates answers the request past
the rate with a 429 in the one error shape and Retry-After, while another address (127.0.0.2,
a second loopback address on Linux) and the read routes go on; the buckets refill and stay
bounded (a fake clock, no sleeping)."""

from __future__ import annotations

import httpx
import pytest

from app.local_server import start_server, stop_server
from app.web.edge.rate_limit import Buckets, Rule
from tests.api.helpers import assert_error

RATES = {"TOKENPRISM_SHARES_PER_MINUTE": "3", "TOKENPRISM_UPLOADS_PER_MINUTE": "2"}
VIEW = {"page": "playground", "tokenizer": "gpt2", "text": "hello world"}


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    process, url = start_server(tmp_path_factory.mktemp("rates"), RATES)
    yield url
    stop_server(process)


def client(base_url: str, address: str = "127.0.0.1") -> httpx.Client:
    return httpx.Client(base_url=base_url, timeout=30, transport=httpx.HTTPTransport(local_address=address))


def test_the_fourth_share_in_a_minute_is_429_and_another_address_still_shares(base_url):
    with client(base_url) as http:
        for _ in range(3):
            assert http.post("/api/share", json=VIEW).status_code == 200
        refused = http.post("/api/share", json=VIEW)
        error = assert_error(refused, 429, "rate_limited")
        assert 1 <= int(refused.headers["retry-after"]) <= 20  # one share comes back every 20 s at 3 a minute
        assert "3 a minute" in error["message"] and "TOKENPRISM_SHARES_PER_MINUTE" in error["message"]
        form = http.post("/share", data={**VIEW}, follow_redirects=False)  # the page's form counts the same
        assert form.status_code == 429 and "retry-after" in form.headers
        assert http.get("/healthz").status_code == 200  # the read routes go on
        assert http.post("/api/count", json={"text": "hi"}).status_code == 200
    with client(base_url, "127.0.0.2") as other:
        assert other.post("/api/share", json=VIEW).status_code == 200


def test_uploads_and_training_share_one_rate(base_url):
    with client(base_url, "127.0.0.3") as http:
        for _ in range(2):  # refused files still count: the rate bounds the work of reading them
            answer = http.post("/api/tokenizers", files={"file": ("x.tiktoken", b"not a vocabulary")})
            assert answer.status_code != 429 and 400 <= answer.status_code < 500, answer.text
        error = assert_error(http.post("/api/train", json={"text": "abc", "vocab_size": 300}), 429, "rate_limited")
        assert "TOKENPRISM_UPLOADS_PER_MINUTE" in error["message"]


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


RULE = Rule("shares", (("POST", "/api/share"),), 3, "shares", "TOKENPRISM_SHARES_PER_MINUTE")


def test_a_bucket_refills_at_the_rate():
    clock = Clock()
    buckets = Buckets(clock=clock)
    assert [buckets.take("a", RULE) for _ in range(3)] == [0, 0, 0]
    assert buckets.take("a", RULE) == pytest.approx(20)  # 3 a minute: the next in 20 s
    clock.now += 10
    assert buckets.take("a", RULE) == pytest.approx(10)  # a refused request takes nothing
    clock.now += 10
    assert buckets.take("a", RULE) == 0
    clock.now += 3600
    assert [buckets.take("a", RULE) for _ in range(4)][-1] > 0  # an hour away is a full bucket, never more


def test_the_tracked_clients_are_bounded_and_the_oldest_goes_first():
    buckets = Buckets(max_clients=2, clock=Clock())
    for name in ("a", "b"):
        for _ in range(3):
            buckets.take(name, RULE)
    buckets.take("c", RULE)  # "a" is forgotten: it starts again with a full bucket
    assert len(buckets._buckets) == 2
    assert buckets.take("a", RULE) == 0 and buckets.take("c", RULE) == 0
