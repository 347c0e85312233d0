"""A real server under a small memory budget (TOKENPRISM_MEMORY_BUDGET_MB): its resident
memory (VmRSS) stays bounded while the inspector searches every built-in's vocabulary, and
falls back when a large added tokenizer is removed."""

from __future__ import annotations

import gzip

import httpx
import pytest

from app.local_server import start_server, stop_server
from app.settings import Settings
from app.tokenizers.user import uploads
from tests.reference import TOKENIZER_DIR

BUDGET_MB = 150
FRAGMENTATION_MB = 200  # what the allocator keeps past the budget (docs/serving.md, "Scale": ~80 measured)
MB = 1 << 20


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("memory")
    process, url = start_server(data_dir, extra_env={"TOKENPRISM_MEMORY_BUDGET_MB": str(BUDGET_MB)})
    try:
        with httpx.Client(base_url=url, timeout=300) as http:
            assert http.post("/api/tokenize", json={"tokenizer": "tokenprism_4k", "text": "warm up"}).status_code == 200
            yield process.pid, http, data_dir
    finally:
        stop_server(process)


def test_removing_a_large_added_tokenizer_gives_its_memory_back(server):
    pid, http, data_dir = server
    ranks = gzip.decompress((TOKENIZER_DIR / "o200k_base.tiktoken.gz").read_bytes())
    facts = uploads.Facts(
        kind="tiktoken",
        vocab_size=199998,
        description="big",
        sha256="0" * 64,
        size=len(ranks),
        source_name="o200k.tiktoken",
        added="2026-01-01T00:00:00+00:00",
        pattern="o200k",
    )
    uploads.store(Settings(data_dir=data_dir).user_tokenizer_dir, "big", facts, ranks)
    before = rss(pid)
    assert http.post("/api/tokenize", json={"tokenizer": "big", "text": "hello world"}).status_code == 200
    loaded = rss(pid)
    assert loaded - before > 30 * MB  # an o200k_base-sized upload: ~40 MB (the ranks and the engine's tables)
    assert http.delete("/api/tokenizers/big").status_code == 204
    assert http.get("/api/tokenizers").status_code == 200  # the next request sees the folder changed
    held = rss(pid) - before  # what glibc keeps of a worker thread's heap (docs/serving.md, "Scale"): ~30 of ~90 MB
    assert held < (loaded - before) / 2, f"{held / MB:.0f} of {(loaded - before) / MB:.0f} MB still held after removal"


def test_searching_every_builtin_stays_within_the_budget(server):
    pid, http, _ = server
    base = rss(pid)
    names = [t["name"] for t in http.get("/api/tokenizers").json()["tokenizers"]]
    assert len(names) >= 10
    peak = 0
    for at, name in enumerate(names):
        for mode, q in (("substring", "ab"), ("regex", "ab"), ("prefix", "th")):
            found = http.get(f"/api/tokenizers/{name}/vocab", params={"q": q, "mode": mode})
            assert found.status_code == 200, found.text
        if at % 6 == 0:  # a token's facts build every other built-in's index: a round of all of them, every sixth name
            facts = http.get(f"/api/tokenizers/{name}/tokens/300")
            assert facts.status_code == 200, facts.text
        peak = max(peak, rss(pid) - base)
    assert peak < (BUDGET_MB + FRAGMENTATION_MB) * MB, f"grew {peak / MB:.0f} MB over a {BUDGET_MB} MB budget"
    assert http.post("/api/tokenize", json={"tokenizer": names[0], "text": "still serving"}).status_code == 200
