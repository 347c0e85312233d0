"""Hostile input against every endpoint, over real HTTP: always a 4xx in the one error shape.

The inputs of DESIGN.md's "Limits and hostile input": a million spaces (tiktoken's regex
panics near that, so the limit must stop it first), lone surrogates in raw JSON,
special-token strings, huge id lists, deeply nested JSON, wrong JSON types for every
field, an empty body, wrong content types and non-UTF-8 bytes. Inputs the API accepts
by design (a lone surrogate, a special-token string) must give a 200 with a sane answer.
The last test checks the server is still healthy after all of it.
"""

from __future__ import annotations

import json

import httpx
import pytest

from .helpers import assert_error

VALID = {
    "/api/tokenize": {"tokenizer": "cl100k_base", "text": "hello world"},
    "/api/count": {"text": "hello world", "tokenizers": ["cl100k_base"]},
    "/api/compare": {"text": "hello world", "tokenizers": ["cl100k_base", "gpt2"]},
    "/api/decode": {"tokenizer": "cl100k_base", "ids": [15339, 1917]},
}
ENDPOINTS = list(VALID)
JSON = {"content-type": "application/json"}
NESTED = 100_000


@pytest.mark.parametrize("path", ENDPOINTS)
def test_the_valid_bodies_are_valid(http, path):
    """So that every rejection below is caused by the one thing each test changes."""
    assert http.post(path, json=VALID[path]).status_code == 200


RAW_BODIES = {
    "empty body": (b"", JSON),
    "no content type": (b'{"text": "hi"}', {}),
    "text/plain": (b'{"text": "hi"}', {"content-type": "text/plain"}),
    "form": (b"text=hi&tokenizer=gpt2", {"content-type": "application/x-www-form-urlencoded"}),
    "multipart": (b"--x\r\n\r\nhi\r\n--x--\r\n", {"content-type": "multipart/form-data; boundary=x"}),
    "truncated JSON": (b'{"text": "hi", "tokenizer": ', JSON),
    "not JSON": (b"hello", JSON),
    "non-UTF-8 bytes": (b'{"tokenizer": "gpt2", "text": "\xff\xfe\xc3\x28"}', JSON),
    "latin-1 charset": (
        '{"tokenizer": "gpt2", "text": "café"}'.encode("latin-1"),
        {"content-type": "application/json; charset=latin-1"},
    ),
    "nested arrays": (b"[" * NESTED + b"]" * NESTED, JSON),
    "nested objects": (b'{"a":' * NESTED + b"1" + b"}" * NESTED, JSON),
    "nested in a field": (b'{"tokenizer": "gpt2", "text": ' + b"[" * NESTED + b"]" * NESTED + b"}", JSON),
    "JSON array": (b"[]", JSON),
    "JSON null": (b"null", JSON),
    "JSON number": (b"42", JSON),
    "JSON string": (b'"hello"', JSON),
    "NaN": (b'{"tokenizer": "gpt2", "text": NaN, "ids": NaN}', JSON),
    "huge number": (b'{"tokenizer": "gpt2", "text": 1' + b"0" * 5000 + b', "ids": [1' + b"0" * 5000 + b"]}", JSON),
    "unknown field": (b'{"tokenizer": "gpt2", "text": "hi", "ids": [1], "surprise": 1}', JSON),
    "surrogate as a key": (b'{"\\ud800": 1}', JSON),
}


@pytest.mark.parametrize("path", ENDPOINTS)
@pytest.mark.parametrize("case", list(RAW_BODIES))
def test_raw_hostile_bodies(http, path, case):
    body, headers = RAW_BODIES[case]
    assert_error(http.post(path, content=body, headers=headers))


@pytest.mark.parametrize("path", ENDPOINTS)
def test_body_over_the_limit_is_413(http, path):
    filler = "x" * 4_100_000
    body = {**VALID[path], "text": filler} if path != "/api/decode" else {**VALID[path], "ids": [1] * 2_100_000}
    assert_error(http.post(path, json=body), 413, "body_too_large")


def test_streamed_body_over_the_limit_is_413(http):
    def chunks():
        yield b'{"tokenizer": "gpt2", "text": "'
        for _ in range(50):
            yield b"y" * 100_000
        yield b'"}'

    try:
        response = http.post("/api/tokenize", content=chunks(), headers=JSON)
    except httpx.TransportError:
        return  # the server may close the connection while the client is still sending: also a refusal
    assert_error(response, 413, "body_too_large")


# ---- every field, every wrong JSON type ----

JSON_VALUES = {"null": None, "true": True, "int": 1, "float": 1.5, "string": "x", "array": [], "object": {}}
FIELD_TYPES = {  # field -> the JSON kinds it accepts
    "tokenizer": {"string"},
    "text": {"string"},
    "allow_special": {"true"},
    "tokenizers": {"array"},
    "ids": {"array"},
    "texts": {"array"},
    "messages": {"array"},
}
FIELDS = {
    "/api/tokenize": ["tokenizer", "text", "allow_special"],
    "/api/count": ["text", "tokenizers", "allow_special", "texts", "messages"],
    "/api/compare": ["text", "tokenizers", "allow_special"],
    "/api/decode": ["tokenizer", "ids"],
}
OPTIONAL = {("/api/count", "text"), ("/api/count", "tokenizers"), ("/api/compare", "tokenizers")}
WRONG_TYPES = [
    (path, field, kind)
    for path, fields in FIELDS.items()
    for field in fields
    for kind in JSON_VALUES
    if kind not in FIELD_TYPES[field] and not (kind == "null" and (path, field) in OPTIONAL)
]


@pytest.mark.parametrize("path, field, kind", WRONG_TYPES, ids=[f"{p}-{f}-{k}" for p, f, k in WRONG_TYPES])
def test_wrong_json_type_for_every_field(http, path, field, kind):
    body = dict(VALID[path])
    if field in ("texts", "messages"):
        body.pop("text")
    body[field] = JSON_VALUES[kind]
    error = assert_error(http.post(path, json=body), 422)
    assert field in error["message"], error


ELEMENTS = [
    ("/api/count", "tokenizers", [1]),
    ("/api/count", "tokenizers", [None]),
    ("/api/count", "tokenizers", [["gpt2"]]),
    ("/api/compare", "tokenizers", [{"name": "gpt2"}]),
    ("/api/count", "texts", [1]),
    ("/api/count", "texts", [None]),
    ("/api/count", "texts", [["a"]]),
    ("/api/count", "messages", ["hello"]),
    ("/api/count", "messages", [{"role": "user"}]),
    ("/api/count", "messages", [{"content": "hi"}]),
    ("/api/count", "messages", [{"role": 1, "content": "hi"}]),
    ("/api/count", "messages", [{"role": "user", "content": None}]),
    ("/api/count", "messages", [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]),
    ("/api/count", "messages", [{"role": "user", "content": "hi", "name": 5}]),
    ("/api/count", "messages", [{"role": "user", "content": "hi", "tool_calls": []}]),
]


@pytest.mark.parametrize("path, field, value", ELEMENTS, ids=[f"{p}-{f}-{json.dumps(v)[:40]}" for p, f, v in ELEMENTS])
def test_wrong_elements_inside_lists(http, path, field, value):
    body = {k: v for k, v in VALID[path].items() if not (field in ("texts", "messages") and k == "text")}
    body[field] = value
    error = assert_error(http.post(path, json=body), 422)
    assert field in error["message"], error


# ---- text and ids over the limits ----

MILLION_SPACES = " " * 1_000_000


@pytest.mark.parametrize(
    "path, body",
    [
        ("/api/tokenize", {"tokenizer": "cl100k_base", "text": MILLION_SPACES}),
        ("/api/tokenize", {"tokenizer": "o200k_base", "text": MILLION_SPACES}),
        ("/api/count", {"text": MILLION_SPACES}),
        ("/api/count", {"texts": [MILLION_SPACES], "tokenizers": ["cl100k_base"]}),
        ("/api/count", {"texts": [" " * 300_000, " " * 300_000], "tokenizers": ["cl100k_base"]}),
        ("/api/count", {"messages": [{"role": "user", "content": MILLION_SPACES}]}),
        ("/api/compare", {"text": MILLION_SPACES}),
        ("/api/compare", {"text": "a" * 500_001, "tokenizers": ["gpt2"]}),
    ],
    ids=[
        "tokenize-cl100k",
        "tokenize-o200k",
        "count",
        "count-texts",
        "count-texts-total",
        "count-messages",
        "compare",
        "compare-one-over",
    ],
)
def test_text_over_the_limit_is_413_before_any_tokenizer(http, path, body):
    error = assert_error(http.post(path, json=body), 413, "text_too_large")
    assert "500,000" in error["message"]


def test_text_at_the_limit_is_tokenized(http):
    body = http.post("/api/count", json={"text": " " * 500_000, "tokenizers": ["cl100k_base", "o200k_base"]}).json()
    assert body["characters"] == 500_000 and all(count > 0 for count in body["counts"].values())


def test_too_many_texts_and_messages(http):
    from app.web.schemas import MAX_MESSAGES, MAX_TEXTS

    assert_error(http.post("/api/count", json={"texts": [""] * (MAX_TEXTS + 1)}), 413, "too_many_texts")
    messages = [{"role": "user", "content": ""}] * (MAX_MESSAGES + 1)
    assert_error(http.post("/api/count", json={"messages": messages}), 413, "too_many_messages")


def test_huge_id_list_is_413(http):
    error = assert_error(http.post("/api/decode", json={"tokenizer": "gpt2", "ids": [0] * 500_001}), 413)
    assert "500,000" in error["message"]


def test_id_list_at_the_token_budget_is_decoded_and_one_more_is_413(http):
    budget = 250_000  # the default max_response_tokens
    body = http.post("/api/decode", json={"tokenizer": "cl100k_base", "ids": [15339] * budget}).json()
    assert body["count"] == budget and body["text"] == "hello" * budget
    error = assert_error(
        http.post("/api/decode", json={"tokenizer": "cl100k_base", "ids": [15339] * (budget + 1)}),
        413,
        "too_many_tokens",
    )
    assert "250,001" in error["message"] and "/api/count" in error["message"]


BAD_IDS = [
    ("negative", [1, -1], "-1", 1),
    ("too large", [100277], "100277", 0),
    ("far too large", [10**30], str(10**30), 0),
    ("gap", [15339, 100270], "100270", 1),
    ("true", [True], "True", 0),
    ("false", [False], "False", 0),
    ("string", [1, 2, "5"], "'5'", 2),
    ("float", [1.0], "1.0", 0),
    ("fraction", [0.5], "0.5", 0),
    ("null", [None], "None", 0),
    ("array", [[1]], "array", 0),
    ("object", [{"id": 1}], "object", 0),
    ("nested deep", [json.loads("[" * 500 + "]" * 500)], "array", 0),
    ("long string", ["9" * 100_000], "100,000 characters", 0),
    ("surrogate", ["\ud800"], "\\ud800", 0),
]


@pytest.mark.parametrize("case, ids, named, position", BAD_IDS, ids=[case for case, *_ in BAD_IDS])
def test_bad_ids_are_422_naming_the_id(http, case, ids, named, position):
    body = json.dumps({"tokenizer": "cl100k_base", "ids": ids}).encode()  # ASCII-escaped: a lone surrogate stays one
    error = assert_error(http.post("/api/decode", content=body, headers=JSON), 422, "bad_token_id")
    assert named in error["message"] and f"position {position}" in error["message"], error
    assert len(error["message"]) < 300


def test_infinite_and_nan_ids_sent_raw(http):
    for raw in (b"1e999", b"-Infinity", b"NaN"):
        body = b'{"tokenizer": "gpt2", "ids": [' + raw + b"]}"
        assert_error(http.post("/api/decode", content=body, headers=JSON), 422, "bad_token_id")


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base", "mistral_v1", "tokenprism_4k"])
def test_out_of_range_for_every_tokenizer(http, name):
    size = http.get(f"/api/tokenizers/{name}").json()["vocab_size"]
    error = assert_error(http.post("/api/decode", json={"tokenizer": name, "ids": [0, size]}), 422, "bad_token_id")
    assert str(size) in error["message"]
    assert http.post("/api/decode", json={"tokenizer": name, "ids": [0, size - 1]}).status_code == 200


# ---- unknown tokenizers and odd names ----


# (tokenizer names are case-sensitive; "GPT2" would be the model gpt2, model names match in any case)
@pytest.mark.parametrize(
    "name", ["gpt5", "", "CL100K_BASE", "../../etc/passwd", "x" * 100, "<script>", "cl100k_base\u0000"]
)
def test_unknown_or_malformed_tokenizer_name(http, name):
    assert_error(http.post("/api/tokenize", json={"tokenizer": name, "text": "hi"}))
    assert_error(http.post("/api/decode", json={"tokenizer": name, "ids": [1]}))
    assert_error(http.post("/api/count", json={"text": "hi", "tokenizers": [name]}))


def test_unknown_tokenizer_is_404_listing_the_valid_names(http):
    for path, body in [
        ("/api/tokenize", {"tokenizer": "nope", "text": "hi"}),
        ("/api/decode", {"tokenizer": "nope", "ids": [1]}),
        ("/api/count", {"text": "hi", "tokenizers": ["gpt2", "nope"]}),
        ("/api/compare", {"text": "hi", "tokenizers": ["nope"]}),
    ]:
        error = assert_error(http.post(path, json=body), 404, "unknown_tokenizer")
        assert "'nope'" in error["message"] and "gpt2, cl100k_base, o200k_base, mistral_v1" in error["message"]


@pytest.mark.parametrize(
    "path", ["/api/tokenizers/%ED%A0%80", "/api/tokenizers/%FF", "/api/tokenizers/" + "x" * 5000, "/api/%00"]
)
def test_odd_paths(http, path):
    assert_error(http.get(path), 404)


# ---- accepted by design ----


@pytest.mark.parametrize("path", ["/api/tokenize", "/api/count", "/api/compare"])
def test_lone_surrogates_in_raw_json_become_replacement_characters(http, path):
    body = json.dumps(VALID[path]).replace("hello world", "a\\ud800b\\udfffc").encode()
    response = http.post(path, content=body, headers=JSON)
    assert response.status_code == 200, response.text
    if path == "/api/tokenize":
        tokens = response.json()["tokens"]
        assert b"".join(bytes.fromhex(t["bytes"]) for t in tokens).decode() == "a\ufffdb\ufffdc"
    if path == "/api/count":
        assert response.json()["characters"] == 5


def test_lone_surrogates_in_chat_messages_and_batches(http):
    body = b'{"messages": [{"role": "user", "content": "\\ud800", "name": "\\udc00"}]}'
    response = http.post("/api/count", content=body, headers=JSON)
    assert response.status_code == 200, response.text
    body = b'{"texts": ["\\ud800", "ok", "\\udfff\\ud800"], "tokenizers": ["gpt2", "mistral_v1", "tokenprism_4k"]}'
    response = http.post("/api/count", content=body, headers=JSON)
    assert response.status_code == 200, response.text
    assert [item["characters"] for item in response.json()["items"]] == [1, 2, 2]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base", "mistral_v1", "tokenprism_4k"])
@pytest.mark.parametrize("allow_special", [False, True])
def test_special_token_strings(http, name, allow_special):
    text = "<|endoftext|><|fim_prefix|><|endofprompt|><s></s><unk>"
    response = http.post("/api/tokenize", json={"tokenizer": name, "text": text, "allow_special": allow_special})
    assert response.status_code == 200, response.text
    tokens = response.json()["tokens"]
    assert b"".join(bytes.fromhex(t["bytes"]) for t in tokens) == text.encode()
    if not allow_special:
        assert not any(t["special"] for t in tokens)


def test_the_server_survived(http):
    assert http.get("/healthz").json() == {"status": "ok"}
    assert http.post("/api/tokenize", json=VALID["/api/tokenize"]).status_code == 200
