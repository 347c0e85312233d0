"""A tokenizer a user trained shows up in the API of a running server, beside the built-ins."""

from __future__ import annotations

import httpx
import pytest

from app.bpe.model import BPETokenizer
from tests.conftest import start_server

from .helpers import BUILTIN_NAMES, assert_error, stdlib_texts


@pytest.fixture(scope="module")
def server_with_user_model(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("user-data")
    process, base_url = start_server(data_dir)
    try:
        corpus = "".join(text for _, text in stdlib_texts(count=3, max_chars=20_000))
        model = BPETokenizer.train(corpus, 300, special_tokens=["<|end|>"], name="mini", description="a test model")
        model.save(data_dir / "tokenizers" / "mini.bpe")  # written while the server runs
        with httpx.Client(base_url=base_url, timeout=60) as client:
            yield client, model
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_listed_after_the_builtins_and_described(server_with_user_model):
    client, _model = server_with_user_model
    names = [t["name"] for t in client.get("/api/tokenizers").json()["tokenizers"]]
    assert names == [*BUILTIN_NAMES, "mini"]
    detail = client.get("/api/tokenizers/mini").json()
    assert detail["builtin"] is False and detail["kind"] == "bpe" and detail["vocab_size"] == 300
    assert detail["special_tokens"] == {"<|end|>": 299} and detail["chat_counting"] is False


def test_used_when_named_and_left_out_of_the_defaults(server_with_user_model):
    client, model = server_with_user_model
    text = "def main():\n    return 42<|end|>"
    body = client.post("/api/tokenize", json={"tokenizer": "mini", "text": text, "allow_special": True}).json()
    assert [t["id"] for t in body["tokens"]] == model.encode(text, allow_special=True)
    assert body["tokens"][-1]["special"]
    limit = client.get("/api/limits").json()["max_compare"]
    assert list(client.post("/api/count", json={"text": text}).json()["counts"]) == BUILTIN_NAMES[:limit]
    counts = client.post("/api/count", json={"text": text, "tokenizers": ["mini", "gpt2"]}).json()["counts"]
    assert counts["mini"] == len(model.encode(text))
    error = assert_error(
        client.post("/api/count", json={"messages": [{"role": "user", "content": "hi"}], "tokenizers": ["mini"]}), 422
    )
    assert "mini" in error["message"]
