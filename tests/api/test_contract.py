"""The JSON API contract of DESIGN.md, over real HTTP against the running uvicorn server.

Every response is validated against its model in app/web/schemas/, whose models forbid
undeclared fields: a field the docs do not describe fails here.
"""

from __future__ import annotations

import pytest
from fastapi.routing import APIRoute

from app.web import schemas

from .helpers import BUILTIN_NAMES, assert_error

TEXT = "Hello, world! 👋 안녕하세요 — naïve café\n\tdef f(x): return x**2"


def test_healthz(http):
    response = http.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_tokenizers_lists_the_builtins_first_with_their_facts(http):
    response = http.get("/api/tokenizers")
    assert response.status_code == 200
    body = schemas.TokenizersResponse.model_validate(response.json())
    assert [t.name for t in body.tokenizers][: len(BUILTIN_NAMES)] == BUILTIN_NAMES
    kinds = {t.name: t.kind for t in body.tokenizers}
    assert kinds["gpt2"] == kinds["cl100k_base"] == kinds["o200k_base"] == "tiktoken"
    assert kinds["mistral_v1"] == "sentencepiece" and kinds["tokenprism_4k"] == "bpe"
    sizes = {t.name: t.vocab_size for t in body.tokenizers}
    assert sizes["gpt2"] == 50257 and sizes["cl100k_base"] == 100277 and sizes["mistral_v1"] == 32000
    assert all(t.description for t in body.tokenizers)


CHAT_FORMATS = {
    "cl100k_base": ["chatml"],
    "o200k_base": ["chatml"],
    "o200k_harmony": ["harmony"],
    "mistral_v1": ["mistral"],
    "mistral_v3": ["mistral"],
    "mistral_tekken": ["mistral"],
    "llama3": ["llama3"],
    "llama4": ["llama4"],
}


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_tokenizer_detail(http, name):
    response = http.get(f"/api/tokenizers/{name}")
    assert response.status_code == 200, response.text
    body = schemas.TokenizerDetail.model_validate(response.json())
    assert body.name == name and body.builtin
    assert body.chat_formats == CHAT_FORMATS.get(name, []) and body.chat_counting == bool(body.chat_formats)
    if body.kind == "tiktoken" and name not in ("mistral_tekken", "llama3", "llama4"):
        assert "<|endoftext|>" in body.special_tokens
    if name in ("llama3", "llama4"):  # Meta's: <|begin_of_text|> is the first special id
        assert body.special_tokens["<|begin_of_text|>"] == {"llama3": 128000, "llama4": 200000}[name]
    if name == "mistral_tekken":  # Tekken's 1,000 special ids come first: <unk>, <s>, </s>, [INST]...
        assert body.special_tokens["<s>"] == 1 and len(body.special_tokens) == 1000
    if name == "mistral_v1":
        assert body.special_tokens == {"<unk>": 0, "<s>": 1, "</s>": 2}


def test_tokenizer_detail_resolves_an_alias_and_rejects_unknown_names(http):
    assert http.get("/api/tokenizers/r50k_base").json()["name"] == "gpt2"
    error = assert_error(http.get("/api/tokenizers/gpt5"), 404, "unknown_tokenizer")
    assert "gpt5" in error["message"] and all(name in error["message"] for name in BUILTIN_NAMES)


def test_limits(http):
    body = schemas.LimitsResponse.model_validate(http.get("/api/limits").json())
    assert body.max_text_chars == 500_000 and body.max_texts == schemas.MAX_TEXTS


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_tokenize_contract(http, name):
    response = http.post("/api/tokenize", json={"tokenizer": name, "text": TEXT})
    assert response.status_code == 200, response.text
    raw = response.json()
    body = schemas.TokenizeResponse.model_validate(raw)
    assert set(raw["tokens"][0]) >= {"id", "text", "bytes", "start", "end"}
    assert body.tokenizer == name and body.count == len(body.tokens) > 0
    assert b"".join(bytes.fromhex(t.bytes) for t in body.tokens) == TEXT.encode("utf-8")
    position = 0
    for token in body.tokens:
        assert 0 <= token.start <= token.end <= len(TEXT)
        assert token.start >= position - 1  # in order; a split character is shared with the previous token
        assert bytes.fromhex(token.bytes) in TEXT[token.start : token.end].encode("utf-8")
        position = token.end
    assert position == len(TEXT)
    assert body.stats.tokens == body.count and body.stats.characters == len(TEXT)
    assert body.stats.bytes == len(TEXT.encode("utf-8"))


def test_tokenize_without_allow_special_defaults_to_false(http):
    plain = http.post("/api/tokenize", json={"tokenizer": "cl100k_base", "text": "<|endoftext|>"}).json()
    assert plain["count"] > 1 and not any(t["special"] for t in plain["tokens"])
    special = http.post(
        "/api/tokenize", json={"tokenizer": "cl100k_base", "text": "a<|endoftext|>", "allow_special": True}
    ).json()
    assert [t["id"] for t in special["tokens"]][-1] == 100257 and special["tokens"][-1]["special"]


def test_tokenize_resolves_an_alias_to_the_canonical_name(http):
    assert http.post("/api/tokenize", json={"tokenizer": "r50k_base", "text": "hi"}).json()["tokenizer"] == "gpt2"


def test_count_one_text_with_the_builtins_by_default(http):
    response = http.post("/api/count", json={"text": TEXT})
    assert response.status_code == 200, response.text
    raw = response.json()
    body = schemas.CountResponse.model_validate(raw)
    assert set(raw) == {"counts", "characters", "bytes"}
    assert list(body.counts) == BUILTIN_NAMES[: http.get("/api/limits").json()["max_compare"]]  # the first max_compare
    assert body.characters == len(TEXT) and body.bytes == len(TEXT.encode("utf-8"))
    for name, count in body.counts.items():
        assert count == http.post("/api/tokenize", json={"tokenizer": name, "text": TEXT}).json()["count"]


def test_count_named_tokenizers_keyed_by_canonical_name_once(http):
    body = http.post("/api/count", json={"text": TEXT, "tokenizers": ["r50k_base", "o200k_base", "gpt2"]}).json()
    assert list(body["counts"]) == ["gpt2", "o200k_base"]


def test_count_batch_of_texts(http):
    texts = ["first text", "", "🦜🦜🦜", TEXT]
    response = http.post("/api/count", json={"texts": texts, "tokenizers": ["gpt2", "mistral_v1"]})
    assert response.status_code == 200, response.text
    body = schemas.CountResponse.model_validate(response.json())
    assert len(body.items) == len(texts)
    for text, item in zip(texts, body.items, strict=True):
        assert item.characters == len(text) and item.bytes == len(text.encode("utf-8"))
        for name in ("gpt2", "mistral_v1"):
            single = http.post("/api/count", json={"text": text, "tokenizers": [name]}).json()["counts"][name]
            assert item.counts[name] == single
    assert body.counts == {name: sum(item.counts[name] for item in body.items) for name in ("gpt2", "mistral_v1")}
    assert body.characters == sum(len(t) for t in texts)


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"text": "a", "texts": ["b"]},
        {"tokenizers": ["gpt2"]},
        {"text": "a", "messages": [{"role": "user", "content": "b"}]},
    ],
    ids=["none", "text+texts", "only-tokenizers", "text+messages"],
)
def test_count_needs_exactly_one_input(http, body):
    error = assert_error(http.post("/api/count", json=body), 422, "invalid_input")
    assert "exactly one" in error["message"]


def test_count_rejects_an_empty_tokenizer_list_and_unknown_names(http):
    assert_error(http.post("/api/count", json={"text": "a", "tokenizers": []}), 422, "invalid_request")
    assert_error(http.post("/api/count", json={"text": "a", "tokenizers": ["gpt2"] * 101}), 422, "invalid_request")
    error = assert_error(http.post("/api/count", json={"text": "a", "tokenizers": ["gpt2", "nope"]}), 404)
    assert "'nope'" in error["message"] and "cl100k_base" in error["message"]


def test_compare_defaults_to_the_builtins_and_keeps_the_order_asked(http):
    body = schemas.CompareResponse.model_validate(http.post("/api/compare", json={"text": TEXT}).json())
    assert [r.tokenizer for r in body.results] == BUILTIN_NAMES[: http.get("/api/limits").json()["max_compare"]]
    order = ["mistral_v1", "gpt2", "o200k_base"]
    body = schemas.CompareResponse.model_validate(
        http.post("/api/compare", json={"text": TEXT, "tokenizers": order}).json()
    )
    assert [r.tokenizer for r in body.results] == order
    for result in body.results:
        assert result.stats.tokens == result.count == len(result.tokens)
        assert b"".join(bytes.fromhex(t.bytes) for t in result.tokens) == TEXT.encode("utf-8")


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_decode_contract_round_trips_tokenize(http, name):
    ids = [t["id"] for t in http.post("/api/tokenize", json={"tokenizer": name, "text": TEXT}).json()["tokens"]]
    response = http.post("/api/decode", json={"tokenizer": name, "ids": ids})
    assert response.status_code == 200, response.text
    body = schemas.DecodeResponse.model_validate(response.json())
    assert body.tokenizer == name and body.count == len(ids) == len(body.tokens)
    assert [t.id for t in body.tokens] == ids
    assert body.text == body.tokens_text == TEXT
    for token in body.tokens:
        assert bytes.fromhex(token.bytes) in body.tokens_text[token.start : token.end].encode("utf-8")


def test_decode_of_a_split_character_and_control_tokens(http):
    # cl100k_base cuts 👋 into two tokens: each alone decodes to U+FFFD, together to the emoji
    ids = [
        t["id"] for t in http.post("/api/tokenize", json={"tokenizer": "cl100k_base", "text": "👋"}).json()["tokens"]
    ]
    assert len(ids) > 1
    alone = http.post("/api/decode", json={"tokenizer": "cl100k_base", "ids": ids[:1]}).json()
    assert alone["text"] == "\ufffd"
    # SentencePiece's decode drops <s> and </s>; the tokens still show them
    body = http.post("/api/decode", json={"tokenizer": "mistral_v1", "ids": [1, 22557, 2]}).json()
    assert body["text"] == "Hello"
    assert [t["special"] for t in body["tokens"]] == [True, False, True]
    assert body["tokens_text"].startswith("<s>")


def test_decode_empty_ids(http):
    body = http.post("/api/decode", json={"tokenizer": "gpt2", "ids": []}).json()
    assert body == {"tokenizer": "gpt2", "text": "", "count": 0, "tokens": [], "tokens_text": ""}


@pytest.mark.parametrize(
    "method, path, status, code",
    [
        ("GET", "/api/nothing-here", 404, "not_found"),
        ("GET", "/api/tokenize", 405, "method_not_allowed"),
        ("POST", "/healthz", 405, "method_not_allowed"),
        ("DELETE", "/api/tokenizers", 405, "method_not_allowed"),
    ],
)
def test_http_errors_have_the_error_shape(http, method, path, status, code):
    assert_error(http.request(method, path), status, code)


def test_every_api_route_is_documented(http):
    from app.web import api

    spec = http.get("/openapi.json").json()
    routes = [r for r in api.ROUTES if isinstance(r, APIRoute) and r.include_in_schema]
    assert {r.path for r in routes} >= {
        "/healthz",
        "/api/tokenizers",
        "/api/tokenize",
        "/api/count",
        "/api/compare",
        "/api/decode",
    }
    for route in routes:
        for method in route.methods:
            operation = spec["paths"][route.path][method.lower()]
            assert operation.get("summary"), route.path
            assert "$ref" in str(operation["responses"]["200"]), route.path
            if method == "POST":
                assert "$ref" in str(operation["requestBody"]), route.path
                for status in ("400", "404", "413", "422"):
                    assert operation["responses"][status]["content"]["application/json"]["schema"] == {
                        "$ref": "#/components/schemas/ErrorResponse"
                    }, (route.path, status)
    assert "HTTPValidationError" not in str(spec["paths"])  # every 422 is documented in the one error shape
    for name in ("TokenizeRequest", "CountRequest", "CompareRequest", "DecodeRequest"):
        assert spec["components"]["schemas"][name].get("examples"), name


def test_docs_page_uses_local_swagger_files_and_no_inline_script(http):
    import re

    from app.web.assets import swagger_paths

    response = http.get("/docs")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    html = response.text
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, flags=re.S)
    assert scripts and all('src="' in attrs and not body.strip() for attrs, body in scripts)
    for path in (*swagger_paths(), "js/swagger-init.js"):
        assert f"/static/{path}" in html
        assert http.get(f"/static/{path}").status_code == 200, path
    links = [link for link in re.findall(r'(?:src|href)="([^"]*)"', html) if link != "data:,"]
    assert links and not [link for link in links if link.startswith("//") or "://" in link], links
