"""POST /api/tokenizers and DELETE /api/tokenizers/{name} over real HTTP, on servers of their
own (one open, one with TOKENPRISM_ADMIN_TOKEN): added files are usable at once everywhere
and give the reference ids; bad, oversized and foreign-origin requests get a 4xx in the one
error shape and leave nothing behind."""

from __future__ import annotations

import gzip

import httpx
import pytest

from app.local_server import start_server, stop_server
from tests.api.helpers import assert_error
from tests.reference import TOKENIZER_DIR, reference_ids

CL100K = gzip.decompress((TOKENIZER_DIR / "cl100k_base.tiktoken.gz").read_bytes())
SPECIAL = '{"<|endoftext|>": 100257}'


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    started = []
    try:
        for env in ({}, {"TOKENPRISM_ADMIN_TOKEN": "s3cret", "TOKENPRISM_MAX_UPLOAD_BYTES": "1000000"}):
            data_dir = tmp_path_factory.mktemp("store")
            process, url = start_server(data_dir, extra_env=env)
            started.append((process, url, data_dir))
        yield [(httpx.Client(base_url=url, timeout=120), data_dir) for _, url, data_dir in started]
    finally:
        for process, *_ in started:
            stop_server(process)


def stored(data_dir) -> list[str]:
    folder = data_dir / "tokenizers"
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) if folder.exists() else []


def test_add_use_everywhere_and_remove(servers):
    http, data_dir = servers[0]
    added = http.post("/api/tokenizers", files={"file": ("ranks.tiktoken", CL100K)},
                      data={"name": "web-ranks", "pattern": "gpt4", "special_tokens": SPECIAL, "description": "mine"})
    assert added.status_code == 201, added.text
    body = added.json()
    assert body["kind"] == "tiktoken" and body["vocab_size"] == 100258 and body["description"] == "mine"
    assert body["source_name"] == "ranks.tiktoken" and len(body["sha256"]) == 64
    listed = {t["name"]: t for t in http.get("/api/tokenizers").json()["tokenizers"]}
    assert listed["web-ranks"]["kind"] == "tiktoken"
    text = "Hello <|endoftext|> wörld 👋"
    tokenized = http.post("/api/tokenize", json={"tokenizer": "web-ranks", "text": text, "allow_special": True}).json()
    assert [t["id"] for t in tokenized["tokens"]] == reference_ids("cl100k_base", text, True)
    counted = http.post("/api/count", json={"tokenizers": ["web-ranks", "cl100k_base"], "text": text}).json()
    assert counted["counts"]["web-ranks"] == counted["counts"]["cl100k_base"]
    page = http.get("/tokenizers")
    assert page.status_code == 200 and "web-ranks" in page.text and body["sha256"] in page.text
    assert http.delete("/api/tokenizers/web-ranks").status_code == 204
    assert_error(http.delete("/api/tokenizers/web-ranks"), 404)
    assert_error(http.post("/api/tokenize", json={"tokenizer": "web-ranks", "text": "x"}), 404)
    assert stored(data_dir) == []


@pytest.mark.parametrize("files, data, status, code", [
    ({"file": ("x.bin", b"\x00garbage" * 100)}, {"name": "junk"}, 422, None),
    ({"file": ("x.model", (TOKENIZER_DIR / "mistral-7b-v0.1.model").read_bytes()[:100_000])}, {"name": "cut"}, 422, None),
    ({"file": ("x.bpe", (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes())}, {"name": "gpt2"}, 409, "name_taken"),
    ({"file": ("x.bpe", (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes())}, {"name": "Bad Name"}, 422, None),
    ({"file": ("x.bpe", (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes())}, {}, 422, None),
    ({"file": ("x.bpe", b"")}, {"name": "empty"}, 422, None),
    ({"file": ("x.bpe", (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes())}, {"name": "x", "evil": "1"}, 422, None),
    ({}, {"name": "nofile"}, 422, None),
])
def test_bad_uploads_get_a_4xx_and_leave_nothing(servers, files, data, status, code):
    http, data_dir = servers[0]
    response = http.post("/api/tokenizers", files=files or {"other": ("a", b"b")}, data=data) if files or data else None
    assert_error(response, status, code)
    assert stored(data_dir) == []


def test_not_multipart_and_foreign_origin_and_builtins(servers):
    http, data_dir = servers[0]
    assert_error(http.post("/api/tokenizers", json={"name": "x"}), 415)
    assert_error(http.post("/api/tokenizers", files={"file": ("a.bpe", (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes())},
                           data={"name": "csrf"}, headers={"Origin": "http://evil.example"}), 403, "forbidden")
    assert_error(http.delete("/api/tokenizers/cl100k_base"), 403, "forbidden")
    assert stored(data_dir) == []


def test_admin_token_and_upload_size_limit(servers):
    http, data_dir = servers[1]
    bpe = (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes()
    assert_error(http.post("/api/tokenizers", files={"file": ("a.bpe", bpe)}, data={"name": "guarded"}), 401, "unauthorized")
    wrong = {"Authorization": "Bearer nope"}
    assert_error(http.post("/api/tokenizers", files={"file": ("a.bpe", bpe)}, data={"name": "guarded"}, headers=wrong), 401)
    right = {"Authorization": "Bearer s3cret"}
    assert http.post("/api/tokenizers", files={"file": ("a.bpe", bpe)}, data={"name": "guarded"}, headers=right).status_code == 201
    assert_error(http.delete("/api/tokenizers/guarded"), 401)
    too_big = http.post("/api/tokenizers", files={"file": ("big.tiktoken", CL100K)}, data={"name": "big", "pattern": "gpt4"},
                        headers=right)
    assert "1,000,000" in assert_error(too_big, 413, "file_too_large")["message"]
    assert http.delete("/api/tokenizers/guarded", headers=right).status_code == 204
    assert stored(data_dir) == []
