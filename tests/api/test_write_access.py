"""Write access over real HTTP (issue 18, point 2): every write route refuses a browser's
request from another site (`Origin: null`, a foreign Origin, `Sec-Fetch-Site: cross-site`),
every route refuses a Host that is not this server's (DNS rebinding), and nothing is written
by a refused request; scripts without an Origin and this server's own pages still write.
`HostRule` (app/web/edge/hosts.py) is checked on its own for the bound-address defaults."""

from __future__ import annotations

import time

import httpx
import pytest

from app.local_server import start_server, stop_server
from app.settings import Settings
from app.web.edge.hosts import HostRule, split_host
from tests.api.helpers import assert_error
from tests.reference import TOKENIZER_DIR

BPE = (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes()
JOB_ID: list[str] = []  # a finished training job of the server, to cancel
BEFORE = ["victim-job.bpe", "victim.tokenizer"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("access")
    process, url = start_server(data_dir)
    try:
        with httpx.Client(base_url=url, timeout=120) as http:
            assert (
                http.post("/api/tokenizers", files={"file": ("v.bpe", BPE)}, data={"name": "victim"}).status_code == 201
            )
            job = http.post("/api/train", json={"name": "victim-job", "text": "the cat sat", "vocab_size": 260})
            assert job.status_code == 202, job.text
            JOB_ID.append(job.json()["job"])
            for _ in range(600):
                if http.get(f"/api/train/{JOB_ID[0]}").json()["status"] == "done":
                    break
                time.sleep(0.1)
            yield http, url, data_dir / "tokenizers"
    finally:
        stop_server(process)


def stored(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


WRITES = [  # (method, path, request arguments): the eight writes a browser form or script can send
    ("POST", "/api/tokenizers", {"files": {"file": ("x.bpe", BPE)}, "data": {"name": "planted"}}),
    ("DELETE", "/api/tokenizers/victim", {}),
    ("POST", "/tokenizers", {"files": {"file": ("x.bpe", BPE)}, "data": {"name": "planted"}}),
    ("POST", "/tokenizers/victim/delete", {"data": {"x": "1"}}),
    ("POST", "/api/train", {"json": {"name": "planted", "text": "the cat sat on the mat", "vocab_size": 260}}),
    ("DELETE", "/api/train/{job}", {}),
    (
        "POST",
        "/train",
        {
            "files": {"files": ("c.txt", b"the cat sat on the mat")},
            "data": {"name": "planted", "text": "the cat sat on the mat", "vocab_size": "260"},
        },
    ),
    ("POST", "/train/jobs/{job}/cancel", {"data": {"x": "1"}}),
]
FOREIGN = {
    "origin-null": {"Origin": "null"},
    "other-site": {"Origin": "http://evil.example"},
    "other-port": None,  # this host, another port: filled in by the test
    "sec-fetch-cross-site": {"Sec-Fetch-Site": "cross-site"},
    "unparsable-origin": {"Origin": "http://[::1"},
}


@pytest.mark.parametrize("headers", FOREIGN.values(), ids=FOREIGN.keys())
@pytest.mark.parametrize("method, path, arguments", WRITES, ids=[f"{m} {p}" for m, p, _ in WRITES])
def test_a_write_from_another_site_is_refused_and_writes_nothing(server, method, path, arguments, headers):
    http, url, folder = server
    headers = headers or {"Origin": url.rsplit(":", 1)[0] + ":1"}
    response = http.request(method, path.format(job=JOB_ID[0]), headers=headers, **arguments)
    assert response.status_code == 403, (response.status_code, response.text[:300])
    if path.startswith("/api"):
        message = assert_error(response, 403, "forbidden")["message"]
        assert "may not change" in message and ("own pages" in message)
    assert stored(folder) == BEFORE
    assert "planted" not in [t["name"] for t in http.get("/api/tokenizers").json()["tokenizers"]]


def test_a_foreign_origin_is_quoted_short(server):
    http, _, _ = server
    long_origin = "http://" + "e" * 20_000 + ".example"
    response = http.delete("/api/tokenizers/victim", headers={"Origin": long_origin})
    assert len(response.content) < 2_000 and "20,015 characters" in assert_error(response, 403)["message"]


@pytest.mark.parametrize("method, path, arguments", [*WRITES[:1], ("GET", "/", {}), ("GET", "/api/tokenizers", {})])
def test_another_host_is_refused_dns_rebinding(server, method, path, arguments):
    http, _, folder = server
    response = http.request(
        method, path, headers={"Host": "evil.example", "Origin": "http://evil.example"}, **arguments
    )
    assert response.status_code == 400
    if path.startswith("/api"):
        message = assert_error(response, 400, "host_not_allowed")["message"]
        assert "'evil.example'" in message and "TOKENPRISM_ALLOWED_HOSTS" in message
    else:
        assert "host_not_allowed" in response.text and "TOKENPRISM_ALLOWED_HOSTS" in response.text
    assert stored(folder) == BEFORE


def test_own_pages_scripts_and_loopback_names_still_write(server):
    http, url, folder = server
    port = url.rsplit(":", 1)[1]
    for host in (f"localhost:{port}", f"[::1]:{port}", "127.0.0.1"):
        assert http.get("/healthz", headers={"Host": host}).status_code == 200, host
    same = {"Origin": url, "Sec-Fetch-Site": "same-origin"}
    added = http.post("/tokenizers", files={"file": ("x.bpe", BPE)}, data={"name": "mine"}, headers=same)
    assert added.status_code == 303 and stored(folder) == sorted([*BEFORE, "mine.tokenizer"])
    assert http.delete("/api/tokenizers/mine").status_code == 204  # curl: no Origin
    assert stored(folder) == BEFORE


def rule(**values) -> HostRule:
    return HostRule.from_settings(Settings(data_dir="/nonexistent-tokenprism", **values))


def test_host_rule_defaults_and_configured_names():
    assert split_host("[::1]:8000") == ("::1", "8000") and split_host("Example.COM.:80") == ("example.com", "80")
    loopback = rule()
    assert all(loopback.allows(h) for h in ("localhost", "127.0.0.1:8000", "[::1]:9", "LOCALHOST:1"))
    assert not any(
        loopback.allows(h) for h in ("testserver", "evil.example", "10.0.0.5:8000", "localhost.evil.example")
    )
    bound = rule(bind_host="192.168.1.7")
    assert bound.allows("192.168.1.7:8000") and not bound.allows("192.168.1.8:8000")
    everywhere = rule(bind_host="0.0.0.0")
    assert everywhere.allows("10.0.0.5:8000") and everywhere.allows("[fe80::1]:80") and everywhere.allows("localhost")
    assert not everywhere.allows("evil.example")
    configured = rule(allowed_hosts="tokens.example.org, other.example:8443", bind_host="0.0.0.0")
    assert configured.allows("tokens.example.org:443") and configured.allows("other.example:8443")
    assert not configured.allows("other.example:80") and not configured.allows("localhost")
    assert rule(allowed_hosts="*").allows("anything.example")
