"""An error quotes a short excerpt of what the client sent, never the whole of it (issue 18,
point 10): a 3 MB name, pattern, special token, form field or tag gives an error body of
under 2 KB (pages: no run of the value longer than the excerpt), through `app.errors.excerpt`."""

from __future__ import annotations

import re

import pytest

from app.errors import excerpt
from tests.reference import TOKENIZER_DIR

BIG = "x" * 3_000_000
MID = "x" * 500_000  # form fields: under the multipart part limit (1 MB)
BPE = (TOKENIZER_DIR / "tokenprism_4k.bpe").read_bytes()
TEXT = "the cat sat on the mat"

JSON_CASES = {
    "tokenize-tokenizer": ("/api/tokenize", {"tokenizer": BIG, "text": "a"}),
    "count-tokenizers": ("/api/count", {"tokenizers": [BIG], "text": "a"}),
    "compare-tokenizers": ("/api/compare", {"tokenizers": [BIG, "gpt2"], "text": "a"}),
    "decode-tokenizer": ("/api/decode", {"tokenizer": BIG, "ids": [1]}),
    "tokenize-unknown-field": ("/api/tokenize", {"tokenizer": "gpt2", "text": "a", BIG: 1}),
    "chat-format": (
        "/api/chat",
        {"tokenizer": "gpt-4o", "format": BIG, "messages": [{"role": "user", "content": "a"}]},
    ),
    "train-pattern": ("/api/train", {"name": "ok", "text": TEXT, "vocab_size": 300, "pattern": BIG}),
    "train-special-twice": (
        "/api/train",
        {"name": "ok", "text": TEXT, "vocab_size": 300, "special_tokens": [BIG, BIG]},
    ),
    "train-name": ("/api/train", {"name": BIG, "text": TEXT, "vocab_size": 300}),
    "train-preview-pattern": ("/api/train/preview", {"text": TEXT, "vocab_size": 300, "pattern": BIG}),
    "share-page": ("/api/share", {"page": BIG}),
}
FORM_CASES = {
    "upload-name": ("/api/tokenizers", {"name": MID}, {"file": ("a.bpe", BPE)}),
    "upload-kind": ("/api/tokenizers", {"name": "ok", "kind": MID}, {"file": ("a.bpe", BPE)}),
    "upload-file-name": ("/api/tokenizers", {"name": "ok"}, {"file": (MID[:200_000], b"")}),
    "upload-page-name": ("/tokenizers", {"name": MID}, {"file": ("a.bpe", BPE)}),
    "train-page-pattern": ("/train", {"name": "ok", "text": TEXT, "vocab_size": "300", "pattern": MID}, None),
    "playground-tokenizer": ("/", {"tokenizer": BIG, "text": "a"}, None),
    "compare-tokenizers": ("/compare", {"tokenizers": BIG, "text": "a"}, None),
}


def assert_short(response) -> None:
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    if response.headers["content-type"].startswith("application/json"):
        assert len(response.content) < 2_000, response.text[:300]
    else:  # a page: its own markup, plus at most an excerpt of the value
        longest = max((len(run) for run in re.findall("x{20,}", response.text)), default=0)
        assert longest <= 200, longest


@pytest.mark.parametrize("path, body", JSON_CASES.values(), ids=JSON_CASES.keys())
def test_json_errors_quote_an_excerpt(client, path, body):
    assert_short(client.post(path, json=body))


@pytest.mark.parametrize("path, data, files", FORM_CASES.values(), ids=FORM_CASES.keys())
def test_form_errors_quote_an_excerpt(client, path, data, files):
    assert_short(client.post(path, data=data, files=files, follow_redirects=False))


def test_excerpt():
    assert excerpt("gpt-4o") == "'gpt-4o'"
    assert excerpt("y" * 30_000_000) == repr("y" * 80) + "… (30,000,000 characters)"
    assert excerpt("z" * 100, 10, quote=False) == "z" * 10 + "… (100 characters)"
    assert excerpt(["a"] * 100, 20).endswith("… (500 characters)")
