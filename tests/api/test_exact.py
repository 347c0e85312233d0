"""The API's ids and decoded text equal the reference libraries', over real HTTP.

References are tiktoken's own encodings and SentencePiece's own processor (see
conftest.py), on texts nobody here wrote: Python standard-library sources and random
Unicode from hypothesis. tokenprism_4k has no outside reference: its API ids must equal
the engine's and decode back to the text.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .helpers import stdlib_texts

REFERENCED = ["gpt2", "cl100k_base", "o200k_base", "mistral_v1"]
STDLIB = stdlib_texts()
HYPOTHESIS = settings(
    max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)  # database=None: nothing written into the working directory
# any Unicode scalar value except surrogates (which the API replaces; see test_hostile)
UNICODE = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=300)


@pytest.fixture(scope="module")
def reference(tiktoken_reference, sentencepiece_reference):
    def encode(name: str, text: str, allow_special: bool = False) -> list[int]:
        if name == "mistral_v1":
            return sentencepiece_reference.encode(text)
        if allow_special:
            return tiktoken_reference[name].encode(text, allowed_special="all")
        return tiktoken_reference[name].encode(text, disallowed_special=())

    def decode(name: str, ids: list[int]) -> str:
        if name == "mistral_v1":
            return sentencepiece_reference.decode(ids)
        return tiktoken_reference[name].decode(ids)

    encode.decode = decode
    encode.tiktoken = tiktoken_reference
    return encode


def api_ids(http, name: str, text: str, allow_special: bool = False) -> list[int]:
    response = http.post("/api/tokenize", json={"tokenizer": name, "text": text, "allow_special": allow_special})
    assert response.status_code == 200, response.text
    return [token["id"] for token in response.json()["tokens"]]


@pytest.mark.parametrize("name", REFERENCED)
@pytest.mark.parametrize("file_name, text", STDLIB, ids=[file_name for file_name, _ in STDLIB])
def test_ids_equal_the_reference_on_stdlib_sources(http, reference, name, file_name, text):
    expected = reference(name, text)
    assert api_ids(http, name, text) == expected
    assert http.post("/api/count", json={"text": text, "tokenizers": [name]}).json()["counts"][name] == len(expected)


@pytest.mark.parametrize("name", REFERENCED)
def test_compare_ids_equal_the_reference(http, reference, name):
    text = STDLIB[0][1]
    results = http.post("/api/compare", json={"text": text, "tokenizers": [name, "gpt2"]}).json()["results"]
    assert [t["id"] for t in results[0]["tokens"]] == reference(name, text)


@pytest.mark.parametrize("name", REFERENCED)
def test_ids_equal_the_reference_on_random_unicode(http, reference, name):
    @HYPOTHESIS
    @given(text=UNICODE)
    def check(text):
        assert api_ids(http, name, text) == reference(name, text)

    check()


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_special_tokens_equal_the_reference(http, reference, name):
    text = "before<|endoftext|>after <|endofprompt|> <|fim_prefix|>"
    assert api_ids(http, name, text) == reference(name, text)
    assert api_ids(http, name, text, allow_special=True) == reference(name, text, allow_special=True)


@pytest.mark.parametrize("name", REFERENCED)
def test_decode_text_equals_the_reference_on_random_ids(http, reference, name):
    """Random valid ids (whole tokens, pieces of characters, specials): the text is the reference's decode."""
    detail = http.get(f"/api/tokenizers/{name}").json()
    specials = list(detail["special_tokens"].values())
    regular = min(specials) if name != "mistral_v1" else detail["vocab_size"]  # tiktoken: regular ids come first

    def in_reference_vocabulary(token_id: int) -> bool:
        if name == "mistral_v1":
            return True
        try:
            reference.tiktoken[name].decode_single_token_bytes(token_id)
        except KeyError:
            return False  # o200k_base has a gap below its first special token
        return True

    @HYPOTHESIS
    @given(
        ids=st.lists(
            st.one_of(st.integers(0, regular - 1).filter(in_reference_vocabulary), st.sampled_from(specials)),
            max_size=60,
        )
    )
    def check(ids):
        response = http.post("/api/decode", json={"tokenizer": name, "ids": ids})
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["text"] == reference.decode(name, ids)
        assert [t["id"] for t in body["tokens"]] == ids

    check()


@pytest.mark.parametrize("name", REFERENCED)
@pytest.mark.parametrize("file_name, text", STDLIB[:4], ids=[file_name for file_name, _ in STDLIB[:4]])
def test_decode_of_encoded_stdlib_sources(http, reference, name, file_name, text):
    ids = reference(name, text)
    body = http.post("/api/decode", json={"tokenizer": name, "ids": ids}).json()
    assert body["text"] == reference.decode(name, ids)


def test_own_bpe_ids_equal_the_engine_and_round_trip(http, registry):
    tokenizer = registry.get("tokenprism_4k")
    rng = random.Random(7)
    texts = [text for _, text in STDLIB[:6]] + [
        "naïve café 👋 안녕하세요",
        "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(500)),
    ]
    for text in texts:
        ids = api_ids(http, "tokenprism_4k", text)
        assert ids == tokenizer.encode(text)
        assert http.post("/api/decode", json={"tokenizer": "tokenprism_4k", "ids": ids}).json()["text"] == text


def test_own_bpe_round_trips_random_unicode(http):
    @HYPOTHESIS
    @given(text=UNICODE)
    def check(text):
        ids = api_ids(http, "tokenprism_4k", text)
        assert http.post("/api/decode", json={"tokenizer": "tokenprism_4k", "ids": ids}).json()["text"] == text

    check()
