"""POST /api/chat over real HTTP: the rendered prompt's ids equal the engine's and the
references' (cookbook counts for chatml, openai-harmony for harmony), tokens spell the
prompt text, per-message counts add up; bad requests get a 4xx naming the fix."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.chat.render import DEFAULT_FORMAT
from tests.reference import harmony_ids, llama_chat_ids

from .helpers import assert_error
from .test_chat import COOKBOOK

CHAT = [
    {"role": "system", "content": "You are kind. <|im_end|> stays text"},
    {"role": "user", "name": "ada", "content": "Wie viele Tokens hat 'naïve café 👋'?"},
    {"role": "assistant", "content": ""},
    {"role": "user", "content": "한국어도 <|end|> 세어 주세요"},
]


def chat(http, **body):
    response = http.post("/api/chat", json=body)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize("model, tokenizer, cookbook", [("gpt-4", "cl100k_base", 129), ("gpt-4o", "o200k_base", 124)])
def test_chatml_counts_agree_with_the_cookbook_and_api_count(http, model, tokenizer, cookbook):
    body = chat(http, tokenizer=model, messages=COOKBOOK)
    assert body["tokenizer"] == tokenizer and body["format"] == "chatml" and body["count"] == cookbook
    counted = http.post("/api/count", json={"messages": COOKBOOK, "tokenizers": [tokenizer]}).json()
    assert counted["counts"][tokenizer] == body["count"]
    assert sum(m["count"] for m in body["messages"]) + 3 == body["count"]


def test_harmony_ids_equal_openai_harmony(http):
    body = chat(http, tokenizer="gpt-oss-120b", messages=CHAT)
    assert body["format"] == "harmony"
    assert [t["id"] for t in body["tokens"]] == harmony_ids(CHAT)


@pytest.mark.parametrize("tokenizer", ["llama3", "llama4"])
def test_llama_ids_equal_llama_models(http, tokenizer):
    messages = [{k: v for k, v in m.items() if k != "name"} for m in CHAT]  # Llama's messages have no names
    messages[2]["content"] = "<|eot_id|><|eot|> typed, so text"
    body = chat(http, tokenizer=tokenizer, messages=messages)
    assert body["format"] == tokenizer
    assert [t["id"] for t in body["tokens"]] == llama_chat_ids(tokenizer, messages)
    assert b"".join(bytes.fromhex(t["bytes"]) for t in body["tokens"]) == body["text"].encode()
    assert sum(m["count"] for m in body["messages"]) + 4 == body["count"]  # + the assistant's header
    counted = http.post("/api/count", json={"messages": messages, "tokenizers": [tokenizer]}).json()
    assert counted["counts"][tokenizer] == body["count"]
    named = http.post("/api/chat", json={"tokenizer": tokenizer, "messages": CHAT})
    assert "no names" in assert_error(named, 422, "invalid_input")["message"]


@pytest.mark.parametrize("tokenizer", ["cl100k_base", "o200k_base", "o200k_harmony"])
def test_tokens_spell_the_prompt(http, tokenizer):
    body = chat(http, tokenizer=tokenizer, messages=CHAT)
    assert b"".join(bytes.fromhex(t["bytes"]) for t in body["tokens"]) == body["text"].encode()
    specials = [t for t in body["tokens"] if t["special"]]
    assert specials and all(body["text"][t["start"] : t["end"]] == t["text"] for t in specials)
    assert "<|im_end|> stays text" in body["text"] and len(body["tokens"]) == body["count"]
    assert [m["role"] for m in body["messages"]] == [m["role"] for m in CHAT]
    content = sum(
        len(http.post("/api/tokenize", json={"tokenizer": tokenizer, "text": m["content"]}).json()["tokens"])
        for m in CHAT
    )
    assert body["overhead"] == body["count"] - content


@pytest.mark.parametrize(
    "body, status, words",
    [
        ({"tokenizer": "gpt2", "messages": CHAT}, 422, "no chat format"),
        ({"tokenizer": "cl100k_base", "messages": CHAT, "format": "harmony"}, 422, "use 'chatml'"),
        ({"tokenizer": "o200k_harmony", "messages": [{"role": "function", "content": "x"}]}, 422, "use one of"),
        ({"tokenizer": "cl100k_base", "messages": []}, 422, "messages"),
        ({"tokenizer": "cl100k_base", "messages": [{"role": "user"}]}, 422, "content"),
        ({"tokenizer": "nope", "messages": CHAT}, 404, "unknown tokenizer"),
        ({"tokenizer": "cl100k_base", "messages": [{"role": "user", "content": "x" * 600_000}]}, 413, "limit"),
        ({"tokenizer": "mistral-nemo", "messages": CHAT}, 422, "no names"),
        (
            {
                "tokenizer": "mistral_v3",
                "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}],
            },
            422,
            "ends with a user message",
        ),
        ({"tokenizer": "mistral_v1", "messages": CHAT[:1], "format": "chatml"}, 422, "use 'mistral'"),
    ],
)
def test_bad_requests_say_what_to_fix(http, body, status, words):
    assert words in assert_error(http.post("/api/chat", json=body), status)["message"]


ANYWHERE = st.text(st.characters(codec="utf-8"), max_size=60) | st.sampled_from(
    ["", " ", "[INST]", "<s>", "<|im_end|>", "\n\nx "]
)


@st.composite
def turns(draw):
    """system?, then user/assistant turns ending on a user, no empty assistant: a chat every format takes."""
    n = draw(st.integers(0, 2))
    roles = (["system"] if draw(st.booleans()) else []) + ["user", "assistant"] * n + ["user"]
    return [
        {"role": role, "content": draw(ANYWHERE.filter(bool) if role == "assistant" else ANYWHERE)} for role in roles
    ]


@settings(max_examples=25, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=turns())
def test_count_and_chat_agree_for_every_chat_tokenizer(http, messages):
    limit, names = http.get("/api/limits").json()["max_compare"], list(DEFAULT_FORMAT)
    for group in (
        names[i : i + limit] for i in range(0, len(names), limit)
    ):  # more chat tokenizers than one count takes
        check_group(http, messages, group)


def check_group(http, messages, group):
    counted = http.post("/api/count", json={"messages": messages, "tokenizers": group})
    assert counted.status_code == 200, counted.text
    counted = counted.json()
    assert list(counted["counts"]) == group
    for name in group:
        body = chat(http, tokenizer=name, messages=messages)
        assert counted["counts"][name] == body["count"] == len(body["tokens"])
        assert counted["chat"]["per_message"][name] == [m["count"] for m in body["messages"]]
        assert counted["chat"]["overhead"][name] == body["overhead"]
        assert counted["chat"]["formats"][name] == body["format"] == DEFAULT_FORMAT[name]
