"""The token inspector's API over real HTTP: per-token facts against tiktoken's own
encodings, merge parents, the same bytes elsewhere, vocabulary search against a full scan
of tiktoken's vocabulary on queries drawn from it, paging, bounds and the error shape.
Every answer is validated against its model (app/web/inspector/schemas.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.web.inspector import schemas
from tests.reference import sentencepiece_reference

from .helpers import assert_error

OPENAI = ["gpt2", "cl100k_base", "o200k_base"]


def facts(http, name, token_id, **params):
    response = http.get(f"/api/tokenizers/{name}/tokens/{token_id}", params=params)
    assert response.status_code == 200, response.text[:300]
    return schemas.TokenFacts.model_validate(response.json())


@pytest.mark.parametrize("name", OPENAI)
def test_sampled_ids_match_tiktoken_and_their_parents_join(http, tiktoken_reference, name):
    reference = tiktoken_reference[name]
    special = {reference.encode_single_token(token) for token in reference.special_tokens_set}
    rng = random.Random(name)
    ids = [0, 255, 256, reference.n_vocab - 1, *rng.sample(range(256, reference.max_token_value), 40)]
    for token_id in ids:
        body = facts(http, name, token_id, same_in="false")
        data = reference.decode_single_token_bytes(token_id)
        assert bytes.fromhex(body.bytes) == data and body.length == len(data), token_id
        assert body.text == data.decode("utf-8", "replace") and body.valid_utf8 == _utf8(data)
        assert body.special == (token_id in special)
        if body.special:
            assert body.merge is None and "special" in body.merge_note
        elif token_id < 256:
            assert body.merge is None and "byte" in body.merge_note and body.depth == 0
        else:
            left, right = body.merge.left, body.merge.right
            assert body.merge.how == "merge" and body.rank == token_id
            assert bytes.fromhex(left.bytes) + bytes.fromhex(right.bytes) == data
            assert left.id < token_id and right.id < token_id  # tiktoken: rank == id
            assert bytes.fromhex(left.bytes) == reference.decode_single_token_bytes(left.id)
            assert body.depth >= 1


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_the_tree_goes_down_to_bytes(http):
    body = facts(http, "gpt2", 43453, same_in="false", tree="true")
    assert body.text == " SolidGoldMagikarp" and body.depth == body.tree.depth == 6
    leaves, stack = [], [body.tree]
    while stack:
        node = stack.pop()
        stack += node.children[::-1]
        if not node.children:
            leaves.append(bytes.fromhex(node.bytes))
        else:
            assert bytes.fromhex(node.children[0].bytes) + bytes.fromhex(node.children[1].bytes) == bytes.fromhex(
                node.bytes
            )
            assert node.depth == 1 + max(child.depth for child in node.children)
    assert all(len(leaf) == 1 for leaf in leaves) and b"".join(leaves) == b" SolidGoldMagikarp"


def test_same_in_names_the_same_bytes_in_every_other_builtin(http, tiktoken_reference):
    body = facts(http, "gpt2", 262)  # " the"
    assert body.text == " the"
    assert set(body.same_in) == {
        "cl100k_base",
        "o200k_base",
        "mistral_v1",
        "tokenprism_4k",
        "o200k_harmony",
        "mistral_v3",
        "mistral_tekken",
        "qwen3_6",
        "deepseek_v4",
        "llama3",
        "llama4",
    }
    for name in ("cl100k_base", "o200k_base"):
        assert body.same_in[name] == tiktoken_reference[name].encode_single_token(b" the")
    assert body.same_in["mistral_v1"] == sentencepiece_reference("mistral_v1").piece_to_id("\u2581the")
    special = facts(http, "gpt2", 50256)  # <|endoftext|>: special tokens match special tokens only
    assert special.same_in["cl100k_base"] == 100257 and special.same_in["mistral_v1"] is None
    magikarp = facts(http, "gpt2", 43453)
    assert magikarp.same_in["cl100k_base"] is None  # not one token there


def test_under_trained_flags(http):
    listed = facts(http, "gpt2", 40241, same_in="false")
    assert listed.under_trained is True and listed.under_trained_source.model == "openai-community/gpt2"
    assert listed.under_trained_source.verified and "cohere-ai/magikarp" in listed.under_trained_source.report
    assert facts(http, "gpt2", 43453, same_in="false").under_trained is False
    assert facts(http, "mistral_v1", 31738, same_in="false").under_trained is True
    none = facts(http, "cl100k_base", 1000, same_in="false")
    assert none.under_trained is None and none.under_trained_source is None and none.under_trained_model is None


def test_kinds_without_merges_say_why(http):
    sentencepiece = facts(http, "mistral_v1", 1, same_in="false")  # <s>
    assert sentencepiece.special and sentencepiece.merge is None and "special" in sentencepiece.merge_note
    piece = facts(http, "mistral_v1", 272, same_in="false")
    assert piece.score is not None and piece.merge is not None


def test_model_names_resolve_and_bad_ids_are_422s(http):
    assert facts(http, "gpt-4o", 1000, same_in="false").tokenizer == "o200k_base"
    assert_error(http.get("/api/tokenizers/gpt5/tokens/1"), 404, "unknown_tokenizer")
    for bad, words in (
        ("abc", "not a whole number"),
        ("-1", "not a whole number"),
        ("1.5", "not a whole number"),
        ("50257", "out of range"),
        (str(10**12), "not a whole number"),
    ):
        message = assert_error(http.get(f"/api/tokenizers/gpt2/tokens/{bad}"), 422, "bad_token_id")["message"]
        assert words in message and "gpt2" in message, message
    gap = assert_error(http.get("/api/tokenizers/o200k_base/tokens/200005"), 422, "bad_token_id")["message"]
    assert "gap" in gap


def vocab(http, name, **params):
    response = http.get(f"/api/tokenizers/{name}/vocab", params=params)
    assert response.status_code == 200, response.text[:300]
    return schemas.VocabResponse.model_validate(response.json())


@pytest.fixture(scope="module")
def o200k_tokens(tiktoken_reference):
    reference = tiktoken_reference["o200k_base"]
    regular = [(i, reference.decode_single_token_bytes(i)) for i in range(199_998)]
    special = [(reference.encode_single_token(token), token.encode()) for token in reference.special_tokens_set]
    return sorted(regular + special)  # (id, bytes) of every token


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_substring_search_equals_a_full_scan_of_tiktoken(http, o200k_tokens, data):
    token = o200k_tokens[data.draw(st.integers(0, len(o200k_tokens) - 1))][1].decode("utf-8", "ignore")
    if not token:
        return
    start = data.draw(st.integers(0, len(token) - 1))
    query = token[start : start + data.draw(st.integers(1, 6))]
    ids = [i for i, piece in o200k_tokens if query.encode() in piece]
    first = vocab(http, "o200k_base", q=query, limit=500)
    assert first.total == len(ids)
    assert [m.id for m in first.matches] == ids[:500]


def test_paging_and_modes(http, tiktoken_reference):
    reference = tiktoken_reference["gpt2"]
    pieces = [reference.decode_single_token_bytes(i) for i in range(50256)]
    whole = [i for i, p in enumerate(pieces) if p.startswith(b" un")]
    pages = [
        vocab(http, "gpt2", q=" un", mode="prefix", offset=offset, limit=100) for offset in range(0, len(whole), 100)
    ]
    assert [m.id for page in pages for m in page.matches] == whole and pages[0].total == len(whole)
    assert pages[-1].offset + len(pages[-1].matches) == len(whole)
    regex = vocab(http, "gpt2", q=r"^ [A-Z]{12,}$", mode="regex", limit=500)
    assert regex.total == sum(
        1 for p in pieces if p[:1] == b" " and len(p) >= 13 and p[1:].isalpha() and p[1:].isupper()
    )
    by_id = vocab(http, "gpt2", q="50250-50300", mode="id")
    assert [m.id for m in by_id.matches] == list(range(50250, 50257)) and by_id.matches[-1].special
    everything = vocab(http, "gpt2", limit=3, offset=1000)
    assert everything.total == 50257 and [m.id for m in everything.matches] == [1000, 1001, 1002]
    assert everything.stats.tokens == 50257 and everything.stats.by_length[1] == 256


@pytest.mark.parametrize(
    "params, words",
    [
        ({"q": "(a", "mode": "regex"}, "not a valid regular expression"),
        ({"q": "x" * 300}, "at most 256"),
        ({"mode": "nope"}, "not one of"),
        ({"limit": 0}, "limit 0"),
        ({"limit": 100_000}, "limit 100000"),
        ({"offset": -5}, "offset -5"),
        ({"offset": "x"}, "offset"),
        ({"q": "x-y", "mode": "id"}, "not a token id"),
    ],
)
def test_vocab_refusals_name_the_problem(http, params, words):
    message = assert_error(http.get("/api/tokenizers/gpt2/vocab", params=params), 422)["message"]
    assert words in message, message


def test_vocab_unknown_name_and_model_names(http):
    assert_error(http.get("/api/tokenizers/nope/vocab"), 404, "unknown_tokenizer")
    assert vocab(http, "gpt-4", q="hello", limit=1).tokenizer == "cl100k_base"


def test_both_routes_are_documented_with_the_error_shape(http):
    spec = http.get("/openapi.json").json()
    for path in ("/api/tokenizers/{name}/tokens/{token_id}", "/api/tokenizers/{name}/vocab"):
        operation = spec["paths"][path]["get"]
        assert operation["summary"] and "$ref" in str(operation["responses"]["200"])
        for status in ("404", "422"):
            assert operation["responses"][status]["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/ErrorResponse"
            }
        assert "HTTPValidationError" not in str(operation)


def test_pages_answer_and_redirect_names(http):
    assert http.get("/tokenizers/gpt2").status_code == 200
    page = http.get("/tokenizers/r50k_base/tokens/43453", follow_redirects=False)
    assert page.status_code == 307 and page.headers["location"] == "/tokenizers/gpt2/tokens/43453"
    missing = http.get("/tokenizers/nope")
    assert missing.status_code == 404 and "unknown tokenizer" in missing.text
    assert http.get("/tokenizers/gpt2/tokens/99999").status_code == 422
