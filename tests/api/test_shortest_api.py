"""/api/tokenize with "encoding": "shortest" over real HTTP: the fewest tokens, the BPE count, the
places they differ, and a 422 naming the way out where it does not apply."""

from __future__ import annotations

from app.tokenizers.lecture.shortest import shortest

from .helpers import assert_error


def tokenize(http, **body):
    return http.post("/api/tokenize", json=body)


def test_shortest_answers_fewer_tokens_and_the_differences(http, registry):
    response = tokenize(http, tokenizer="tokenprism_4k", text="he jumps 😀", encoding="shortest")
    assert response.status_code == 200, response.text
    body = response.json()
    expected = shortest(registry.get("tokenprism_4k"), "he jumps 😀")
    assert [t["id"] for t in body["tokens"]] == expected.ids
    assert (
        body["count"]
        == len(expected.ids)
        < body["bpe_count"]
        == len(registry.get("tokenprism_4k").encode("he jumps 😀"))
    )
    assert body["differences"] == [[4, 8]]  # " jumps": BPE j·u·mp·s, fewest j·um·ps
    assert (
        "".join(bytes.fromhex(t["bytes"]).decode("latin-1") for t in body["tokens"]).encode("latin-1")
        == "he jumps 😀".encode()
    )


def test_bpe_stays_the_default(http):
    body = tokenize(http, tokenizer="tokenprism_4k", text="he jumps").json()
    assert "bpe_count" not in body and body["count"] == 5


def test_sentencepiece_is_a_422_saying_which_kinds(http):
    response = tokenize(http, tokenizer="mistral_v1", text="hello", encoding="shortest")
    assert_error(response, 422, "shortest_not_applicable")
    assert "sentencepiece" in response.json()["error"]["message"]
    assert "tiktoken" in response.json()["error"]["message"]


def test_with_merges_is_a_422(http):
    assert_error(tokenize(http, tokenizer="tokenprism_4k", text="x", encoding="shortest", merges=3), 422)


def test_unknown_encoding_is_a_422(http):
    assert_error(tokenize(http, tokenizer="gpt2", text="x", encoding="longest"), 422)


def test_special_tokens_kept(http):
    body = tokenize(
        http, tokenizer="cl100k_base", text="a<|endoftext|>b", encoding="shortest", allow_special=True
    ).json()
    assert [t["special"] for t in body["tokens"]] == [False, True, False]
