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
from tests.hf_trained import trained_json
from tests.reference import TOKENIZER_DIR, reference_ids, stdlib_texts
from tokenizers import Tokenizer

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
    added = http.post(
        "/api/tokenizers",
        files={"file": ("ranks.tiktoken", CL100K)},
        data={"name": "web-ranks", "pattern": "gpt4", "special_tokens": SPECIAL, "description": "mine"},
    )
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


@pytest.mark.parametrize(
    "files, data, status, code",
    [
        ({"file": ("x.bin", b"\x00garbage" * 100)}, {"name": "junk"}, 422, None),
        (
            {"file": ("x.model", (TOKENIZER_DIR / "mistral-7b-v0.1.model").read_bytes()[:100_000])},
            {"name": "cut"},
            422,
            None,
        ),
        ({"file": ("x.bpe", (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes())}, {"name": "gpt2"}, 409, "name_taken"),
        ({"file": ("x.bpe", (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes())}, {"name": "Bad Name"}, 422, None),
        ({"file": ("x.bpe", (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes())}, {}, 422, None),
        ({"file": ("x.bpe", b"")}, {"name": "empty"}, 422, None),
        (
            {"file": ("x.bpe", (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes())},
            {"name": "x", "evil": "1"},
            422,
            None,
        ),
        ({}, {"name": "nofile"}, 422, None),
    ],
)
def test_bad_uploads_get_a_4xx_and_leave_nothing(servers, files, data, status, code):
    http, data_dir = servers[0]
    response = http.post("/api/tokenizers", files=files or {"other": ("a", b"b")}, data=data) if files or data else None
    assert_error(response, status, code)
    assert stored(data_dir) == []


def test_not_multipart_and_foreign_origin_and_builtins(servers):
    http, data_dir = servers[0]
    assert_error(http.post("/api/tokenizers", json={"name": "x"}), 415)
    assert_error(
        http.post(
            "/api/tokenizers",
            files={"file": ("a.bpe", (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes())},
            data={"name": "csrf"},
            headers={"Origin": "http://evil.example"},
        ),
        403,
        "forbidden",
    )
    assert_error(http.delete("/api/tokenizers/cl100k_base"), 403, "forbidden")
    assert stored(data_dir) == []


def test_admin_token_and_upload_size_limit(servers):
    http, data_dir = servers[1]
    bpe = (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes()
    assert_error(
        http.post("/api/tokenizers", files={"file": ("a.bpe", bpe)}, data={"name": "guarded"}), 401, "unauthorized"
    )
    wrong = {"Authorization": "Bearer nope"}
    assert_error(
        http.post("/api/tokenizers", files={"file": ("a.bpe", bpe)}, data={"name": "guarded"}, headers=wrong), 401
    )
    right = {"Authorization": "Bearer s3cret"}
    assert (
        http.post(
            "/api/tokenizers", files={"file": ("a.bpe", bpe)}, data={"name": "guarded"}, headers=right
        ).status_code
        == 201
    )
    assert_error(http.delete("/api/tokenizers/guarded"), 401)
    too_big = http.post(
        "/api/tokenizers",
        files={"file": ("big.tiktoken", CL100K)},
        data={"name": "big", "pattern": "gpt4"},
        headers=right,
    )
    assert "1,000,000" in assert_error(too_big, 413, "file_too_large")["message"]
    assert http.delete("/api/tokenizers/guarded", headers=right).status_code == 204
    assert stored(data_dir) == []


def _library(kind: str, allow_special: bool):
    library = Tokenizer.from_str(trained_json(kind))
    library.encode_special_tokens = not allow_special
    return library


UPLOADS = {  # kind -> (file name, file bytes, form fields, reference ids of (text, allow_special))
    **{
        f"huggingface-{kind}": (
            "tokenizer.json",
            trained_json(kind).encode(),
            {},
            lambda text, special, kind=kind: _library(kind, special).encode(text).ids,
        )
        for kind in ("byte_level", "wordpiece", "unigram")
    },
    "tiktoken": (
        "ranks.tiktoken",
        CL100K,
        {"pattern": "gpt4", "special_tokens": SPECIAL},
        lambda text, special: reference_ids("cl100k_base", text, special),
    ),
    "sentencepiece": (
        "m.model",
        (TOKENIZER_DIR / "mistral-7b-v0.1.model").read_bytes(),
        {},
        lambda text, special: reference_ids("mistral_v1", text),
    ),
    "bpe": ("m.bpe", (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes(), {}, None),
}


@pytest.mark.parametrize("upload", UPLOADS)
def test_each_kind_uploads_and_gives_the_reference_ids(servers, upload):
    http, data_dir = servers[0]
    file_name, data, fields, reference = UPLOADS[upload]
    added = http.post("/api/tokenizers", files={"file": (file_name, data)}, data={"name": f"up-{upload}", **fields})
    assert added.status_code == 201, added.text
    assert added.json()["kind"] == upload.split("-")[0]
    texts = [text for _, text in stdlib_texts(count=4, max_chars=4000)]
    texts += ["Héllo wörld 👋 <|endoftext|> [CLS] 東京 e\u0301 ﬁx", "  two  spaces\n\n\ttab"]
    try:
        for text in texts:
            for special in (False, True):
                got = http.post(
                    "/api/tokenize", json={"tokenizer": f"up-{upload}", "text": text, "allow_special": special}
                ).json()
                if reference is None:  # our own .bpe: the built-in it was copied from is the reference
                    expected = http.post(
                        "/api/tokenize", json={"tokenizer": "tokenprism_4k", "text": text, "allow_special": special}
                    ).json()
                    assert got["tokens"] == expected["tokens"]
                else:
                    assert [t["id"] for t in got["tokens"]] == reference(text, special), (upload, special, text[:40])
                assert b"".join(bytes.fromhex(t["bytes"]) for t in got["tokens"]) == text.encode("utf-8")
    finally:
        assert http.delete(f"/api/tokenizers/up-{upload}").status_code == 204
    assert stored(data_dir) == []


@pytest.mark.parametrize(
    "data",
    [
        trained_json("wordpiece").encode()[:3000],  # truncated JSON
        b'{"version": "1.0", "model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}}',  # merge of unknown tokens
        b"\xff\xfe{}",  # not UTF-8
    ],
)
def test_bad_tokenizer_json_gets_a_4xx_naming_it(servers, data):
    http, data_dir = servers[0]
    response = http.post(
        "/api/tokenizers", files={"file": ("tokenizer.json", data)}, data={"name": "bad-json", "kind": "huggingface"}
    )
    assert "huggingface" in assert_error(response, 422)["message"]
    assert stored(data_dir) == []
