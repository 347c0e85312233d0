"""Model names over real HTTP: GET /api/models, model names in every field that takes a
tokenizer name (answers name the tokenizer), the 404 of a model whose tokenizer is not
shipped, and the playground's `?tokenizer=gpt-4o`."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from app.tokenizers import models
from app.web import schemas

from .helpers import BUILTIN_NAMES, assert_error

TEXT = "Which model? 모델 🤖 <|endoftext|> gpt-4o-2024-08-06"


def test_models_lists_the_table_with_availability(http):
    response = http.get("/api/models")
    assert response.status_code == 200
    body = schemas.ModelsResponse.model_validate(response.json())
    rows = {(m.name, m.prefix): m for m in body.models}
    assert len([m for m in body.models if m.covered_by is None]) == len(models.MODELS)  # then the facts-only names
    names = {t["name"] for t in http.get("/api/tokenizers").json()["tokenizers"]}
    gpt4o = rows[("gpt-4o", False)]
    assert (gpt4o.tokenizer, gpt4o.vendor, gpt4o.family, gpt4o.available) == ("o200k_base", "OpenAI", "chat", True)
    assert rows[("gpt-4o-", True)].tokenizer == "o200k_base"
    assert rows[("davinci", False)].tokenizer == "gpt2" and rows[("davinci", False)].available
    old = rows[("text-davinci-003", False)]
    assert (old.tokenizer, old.available) == ("p50k_base", False)
    assert rows[("mistral-7b-v0.1", False)].tokenizer == "mistral_v1"
    for model in body.models:  # available exactly when the tokenizer is listed
        assert model.available == (model.tokenizer in names), model
    prefixes = [m.name for m in body.models if m.prefix and m.vendor == "OpenAI"]
    assert prefixes.index("ft:gpt-4o") < prefixes.index("ft:gpt-4")  # lookup order: the first match wins


def test_models_is_documented_like_the_other_gets(http):
    operation = http.get("/openapi.json").json()["paths"]["/api/models"]["get"]
    assert operation["summary"] and operation["description"]
    assert operation["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ModelsResponse"
    }


def test_tokenizers_say_which_models_use_them(http):
    body = schemas.TokenizersResponse.model_validate(http.get("/api/tokenizers").json())
    used = {t.name: t.models for t in body.tokenizers}
    assert "gpt-4o" in used["o200k_base"] and "gpt-4o-*" in used["o200k_base"]
    assert "gpt-3.5-turbo" in used["cl100k_base"] and "davinci" in used["gpt2"]
    assert used["tokenprism_4k"] == []
    detail = schemas.TokenizerDetail.model_validate(http.get("/api/tokenizers/gpt-4o").json())
    assert detail.name == "o200k_base" and "gpt-4.1" in detail.models


@pytest.mark.parametrize("name", ["gpt-4o", "GPT-4o", "gpt-4o-2024-08-06", "o3"])
def test_tokenize_with_a_model_name(http, tiktoken_reference, name):
    response = http.post("/api/tokenize", json={"tokenizer": name, "text": TEXT})
    assert response.status_code == 200, response.text
    body = schemas.TokenizeResponse.model_validate(response.json())
    assert body.tokenizer == "o200k_base"
    assert [t.id for t in body.tokens] == tiktoken_reference["o200k_base"].encode_ordinary(TEXT)


def test_compare_count_and_decode_with_model_names(http, tiktoken_reference):
    response = http.post(
        "/api/compare", json={"text": TEXT, "tokenizers": ["gpt-4o", "gpt-4", "o200k_base", "davinci"]}
    )
    assert response.status_code == 200, response.text
    results = schemas.CompareResponse.model_validate(response.json()).results
    assert [r.tokenizer for r in results] == ["o200k_base", "cl100k_base", "gpt2"]  # gpt-4o and o200k_base: once
    for result in results:
        assert [t.id for t in result.tokens] == tiktoken_reference[result.tokenizer].encode_ordinary(TEXT)

    counts = http.post("/api/count", json={"text": TEXT, "tokenizers": ["gpt-4.1", "mistral-7b-v0.1"]}).json()["counts"]
    assert set(counts) == {"o200k_base", "mistral_v1"}
    assert counts["o200k_base"] == len(tiktoken_reference["o200k_base"].encode_ordinary(TEXT))

    ids = tiktoken_reference["cl100k_base"].encode_ordinary("hello world")
    decoded = http.post("/api/decode", json={"tokenizer": "gpt-3.5-turbo", "ids": ids}).json()
    assert decoded["tokenizer"] == "cl100k_base" and decoded["text"] == "hello world"


@pytest.mark.parametrize(
    "method, path, body",
    [
        ("POST", "/api/tokenize", {"tokenizer": "text-davinci-003", "text": "x"}),
        ("POST", "/api/compare", {"text": "x", "tokenizers": ["gpt-4o", "code-davinci-002"]}),
        ("POST", "/api/count", {"text": "x", "tokenizers": ["text-davinci-edit-001"]}),
        ("POST", "/api/decode", {"tokenizer": "text-davinci-003", "ids": [1]}),
        ("GET", "/api/tokenizers/text-davinci-003", None),
    ],
)
def test_a_model_whose_tokenizer_is_not_shipped_is_a_404(http, method, path, body):
    error = assert_error(http.request(method, path, json=body), 404, "unknown_tokenizer")
    model = (body or {}).get("tokenizer") or next(
        (n for n in (body or {}).get("tokenizers", []) if n != "gpt-4o"), None
    )
    assert (model or "text-davinci-003") in error["message"]
    assert "p50k" in error["message"] and "does not ship" in error["message"]


def test_an_unknown_name_points_to_the_model_list(http):
    error = assert_error(http.post("/api/tokenize", json={"tokenizer": "gpt5", "text": "x"}), 404, "unknown_tokenizer")
    assert all(name in error["message"] for name in BUILTIN_NAMES)
    assert "or a model name such as gpt-4o (GET /api/models)" in error["message"]


# ---- the playground page, without a browser -------------------------------------------


class Elements(HTMLParser):
    """Every element's tag, attributes and text (the text of its subtree), in document order."""

    def __init__(self, html: str):
        super().__init__()
        self.found: list[dict] = []
        self.open: list[dict] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, "attrs": dict(attrs), "text": ""}
        self.found.append(element)
        if tag not in ("input", "meta", "link", "br", "img", "source"):
            self.open.append(element)

    def handle_endtag(self, tag):
        while self.open:
            if self.open.pop()["tag"] == tag:
                break

    def handle_data(self, data):
        for element in self.open:
            element["text"] += data

    def select(self, tag: str, **attrs: str) -> list[dict]:
        return [
            e
            for e in self.found
            if e["tag"] == tag and all(e["attrs"].get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]


def test_playground_address_with_a_model_name(http, tiktoken_reference):
    response = http.get("/", params={"tokenizer": "gpt-4o", "text": "hello world"})
    assert response.status_code == 200
    page = Elements(response.text)
    [picker] = page.select("select", name="tokenizer")
    selected = [o["attrs"]["value"] for o in page.select("option") if "selected" in o["attrs"]]
    assert selected[0] == "o200k_base" and picker["attrs"]["id"] == "tokenizer"
    assert selected[1:] == ["system", "user"]  # the chat editor's role selects (hidden outside chat mode)
    [resolved] = page.select("p", data_role="resolved")
    assert "gpt-4o" in resolved["text"] and "o200k_base" in resolved["text"]
    [used_by] = page.select("div", data_role="used-by")
    assert "gpt-4.1" in used_by["text"] and "gpt-4o" in used_by["text"]
    [search] = page.select("input", name="model")
    assert search["attrs"]["value"] == "gpt-4o"
    [count] = [e for e in page.found if e["attrs"].get("data-role") == "token-count"]
    assert count["attrs"]["data-count"] == str(len(tiktoken_reference["o200k_base"].encode_ordinary("hello world")))
    assert any(o["attrs"].get("value") == "gpt-4o" for o in page.select("option", data_kind="model"))


def test_playground_form_keeps_the_model_name_only_when_it_agrees_with_the_select(http):
    agree = http.post("/", data={"tokenizer": "o200k_base", "model": "gpt-4.1", "text": "hi"})
    assert agree.status_code == 303 and agree.headers["location"].startswith("/?tokenizer=gpt-4.1&")
    disagree = http.post("/", data={"tokenizer": "gpt2", "model": "gpt-4o", "text": "hi"})
    assert disagree.headers["location"].startswith("/?tokenizer=gpt2&")
    nonsense = http.post("/", data={"tokenizer": "gpt2", "model": "<b>nope</b>", "text": "hi"})
    assert nonsense.headers["location"].startswith("/?tokenizer=gpt2&")


def test_playground_names_a_model_that_is_not_shipped(http):
    response = http.get("/", params={"tokenizer": "text-davinci-003", "text": "x"})
    assert response.status_code == 404
    page = Elements(response.text)
    [message] = page.select("div", data_role="message")
    assert message["attrs"]["data-code"] == "unknown_tokenizer"
    assert "text-davinci-003" in message["text"] and "p50k_base" in message["text"]
