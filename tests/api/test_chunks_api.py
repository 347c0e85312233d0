"""/api/tokenize with "chunks": true over real HTTP: the chunks as character ranges, their count,
SentencePiece's sentence instead, and a wrong value refused with a 422."""

from __future__ import annotations

import regex

from app.tokenizers.openai_encodings import OPENAI_ENCODINGS
from app.web import schemas
from tests.api.helpers import assert_error

TEXT = "Hello world!!! 12345 naïve 👋"


def _post(http, **body):
    response = http.post("/api/tokenize", json=body)
    assert response.status_code == 200, response.text[:500]
    answer = response.json()
    schemas.TokenizeResponse.model_validate(answer)
    return answer


def test_chunks_are_character_ranges_of_the_pattern(http):
    answer = _post(http, tokenizer="cl100k_base", text=TEXT, chunks=True)
    pieces = [TEXT[chunk["start"] : chunk["end"]] for chunk in answer["chunks"]]
    assert pieces == regex.findall(OPENAI_ENCODINGS["cl100k_base"].pattern, TEXT)
    assert pieces[:5] == ["Hello", " world", "!!!", " ", "123"]
    assert answer["chunk_count"] == len(pieces) and answer["chunks_note"] is None
    for token in answer["tokens"]:
        assert any(c["start"] <= token["start"] and token["end"] <= c["end"] for c in answer["chunks"]), token


def test_a_model_name_and_the_merge_replay_answer_chunks_too(http):
    assert _post(http, tokenizer="gpt-4o", text="a b", chunks=True)["chunk_count"] == 2
    assert _post(http, tokenizer="tokenprism_4k", text="a b", merges=3, chunks=True)["chunk_count"] == 2


def test_sentencepiece_has_no_chunks_and_says_what_it_does(http):
    answer = _post(http, tokenizer="mistral_v1", text=TEXT, chunks=True)
    assert answer["chunks"] is None and answer["chunk_count"] is None
    assert "▁" in answer["chunks_note"] and "regex" in answer["chunks_note"]


def test_chunks_only_when_asked(http):
    assert "chunks" not in _post(http, tokenizer="cl100k_base", text=TEXT)


def test_chunks_must_be_a_boolean(http):
    error = assert_error(
        http.post("/api/tokenize", json={"tokenizer": "cl100k_base", "text": "a", "chunks": "yes"}), 422
    )
    assert "chunks" in error["message"]
