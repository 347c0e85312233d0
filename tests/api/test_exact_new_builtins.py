"""Over HTTP: o200k_harmony, mistral_v3, mistral_tekken, qwen3_6, deepseek_v4, llama3 and llama4 give their reference
libraries' ids and decodes (tests/reference.py), and tokens that spell the text sent."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reference import reference_decode, reference_ids, stdlib_texts

NEW = ["o200k_harmony", "mistral_v3", "mistral_tekken", "qwen3_6", "deepseek_v4", "llama3", "llama4"]
STDLIB = stdlib_texts()
HYPOTHESIS = settings(
    max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
TEXT = st.lists(
    st.one_of(
        st.characters(exclude_categories=["Cs"]), st.sampled_from(["e\u0301", "\u212b", "\u1100\u1161", "\uff21"])
    ),
    max_size=200,
).map("".join)


def tokenize(http, name: str, text: str, allow_special: bool = False) -> dict:
    response = http.post("/api/tokenize", json={"tokenizer": name, "text": text, "allow_special": allow_special})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("name", NEW)
def test_ids_equal_the_reference_on_stdlib_sources(http, name):
    for file_name, text in STDLIB:
        body = tokenize(http, name, text)
        assert [t["id"] for t in body["tokens"]] == reference_ids(name, text), file_name


@pytest.mark.parametrize("name", NEW)
def test_ids_and_bytes_on_random_unicode(http, name):
    @HYPOTHESIS
    @given(text=TEXT)
    def check(text):
        body = tokenize(http, name, text)
        assert [t["id"] for t in body["tokens"]] == reference_ids(name, text)
        assert b"".join(bytes.fromhex(t["bytes"]) for t in body["tokens"]) == text.encode("utf-8")

    check()


@pytest.mark.parametrize(
    "name, text",
    [
        ("o200k_harmony", "<|start|>user<|message|>hi<|end|><|reserved_200018|><|endofprompt|>"),
        ("qwen3_6", "<|im_start|>user\nhi<|im_end|><think></think>"),
        ("deepseek_v4", "<｜begin▁of▁sentence｜>hi<｜User｜>x<｜Assistant｜><think></think>"),
        (
            "llama3",
            "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|><|reserved_special_token_7|>",
        ),
        (
            "llama4",
            "<|begin_of_text|><|header_start|>user<|header_end|>\n\nhi<|eot|><|patch|><|reserved_special_token_0|>",
        ),
    ],
)
def test_special_tokens_equal_the_reference(http, name, text):
    for allow_special in (False, True):
        body = tokenize(http, name, text, allow_special)
        assert [t["id"] for t in body["tokens"]] == reference_ids(name, text, allow_special)
        assert b"".join(bytes.fromhex(t["bytes"]) for t in body["tokens"]) == text.encode("utf-8")


@pytest.mark.parametrize("name", NEW)
def test_decode_text_equals_the_reference_on_random_ids(http, name):
    detail = http.get(f"/api/tokenizers/{name}").json()
    specials = sorted(set(detail["special_tokens"].values()))
    size = detail["vocab_size"]

    @HYPOTHESIS
    @given(ids=st.lists(st.one_of(st.integers(0, size - 1), st.sampled_from(specials)), max_size=50))
    def check(ids):
        response = http.post("/api/decode", json={"tokenizer": name, "ids": ids})
        assert response.status_code == 200, response.text  # no gaps in these vocabularies
        assert response.json()["text"] == reference_decode(name, ids)

    check()
