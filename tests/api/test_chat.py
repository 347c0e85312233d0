"""Chat prompt counting over /api/count "messages", checked against OpenAI's cookbook rule.

The rule of "How to count tokens with tiktoken" is written out here (`cookbook`): 3 tokens
per message, the tokens of every field value, 1 more per name, 3 priming the reply. Its
six-message example is checked against the numbers the OpenAI API reported there: 129
prompt tokens for gpt-4 / gpt-3.5-turbo-0613 (cl100k_base), 124 for gpt-4o (o200k_base).
The app renders chats in the chatml format (app/chat/render.py); these counts must agree.
"""

from __future__ import annotations

import pytest

from app.chat.messages import ChatMessage

from .helpers import assert_error

COOKBOOK = [
    {
        "role": "system",
        "content": "You are a helpful, pattern-following assistant that translates corporate jargon into plain English.",
    },
    {"role": "system", "name": "example_user", "content": "New synergies will help drive top-line growth."},
    {"role": "system", "name": "example_assistant", "content": "Things working well together will increase revenue."},
    {
        "role": "system",
        "name": "example_user",
        "content": "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.",
    },
    {
        "role": "system",
        "name": "example_assistant",
        "content": "Let's talk later when we're less busy about how to do better.",
    },
    {
        "role": "user",
        "content": "This late pivot means we don't have time to boil the ocean for the client deliverable.",
    },
]
WORKED = [
    {"role": "system", "content": "You count tokens. Answer in one word."},
    {"role": "user", "name": "ada", "content": "Wie viele Tokens hat 'naïve café 👋'? <|endoftext|>"},
    {"role": "assistant", "content": "Elf."},
]


def as_messages(dicts: list[dict]) -> list[ChatMessage]:
    return [ChatMessage(m["role"], m["content"], m.get("name")) for m in dicts]


def cookbook(encode, messages) -> tuple[int, list[int]]:
    """The cookbook rule written out: (prompt tokens, tokens per message); `encode` gives the ids
    of a plain string, `messages` are dicts or ChatMessages."""
    per_message = []
    for message in messages:
        row = (
            message
            if isinstance(message, dict)
            else {
                "role": message.role,
                "content": message.content,
                **({"name": message.name} if message.name is not None else {}),
            }
        )
        tokens = 3 + len(encode(row["role"])) + len(encode(row["content"]))  # <|start|>{role/name}\n{content}<|end|>\n
        if "name" in row:
            tokens += len(encode(row["name"])) + 1
        per_message.append(tokens)
    return sum(per_message) + 3, per_message  # + <|start|>assistant<|message|>


def by_hand(encoding, messages: list[dict]) -> int:
    return cookbook(lambda text: encoding.encode(text, disallowed_special=()), messages)[0]


# ---- the API ----


@pytest.mark.parametrize("name, expected", [("cl100k_base", 129), ("o200k_base", 124)])
def test_cookbook_example_over_http(http, tiktoken_reference, name, expected):
    response = http.post("/api/count", json={"messages": COOKBOOK, "tokenizers": [name]})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["counts"] == {name: expected}
    assert by_hand(tiktoken_reference[name], COOKBOOK) == expected


def test_worked_example_computed_by_hand(http, tiktoken_reference):
    response = http.post("/api/count", json={"messages": WORKED})
    assert response.status_code == 200, response.text
    body = response.json()
    assert list(body["counts"]) == ["cl100k_base", "o200k_base"]  # the default: OpenAI's chat encodings
    for name in ("cl100k_base", "o200k_base"):
        assert body["counts"][name] == by_hand(tiktoken_reference[name], WORKED)
        assert sum(body["chat"]["per_message"][name]) + 3 == body["counts"][name]
        assert body["chat"]["formats"][name] == "chatml"
    fields = [value for m in WORKED for value in m.values()]
    assert body["characters"] == sum(map(len, fields)) and body["bytes"] == sum(len(v.encode()) for v in fields)
    # the special-token string in the content is plain text: more than one token
    encoding = tiktoken_reference["cl100k_base"]
    assert len(encoding.encode("<|endoftext|>", disallowed_special=())) > 1


def test_worked_example_numbers(tiktoken_reference):
    """The same worked example, spelled out field by field for cl100k_base."""
    encoding = tiktoken_reference["cl100k_base"]
    n = lambda text: len(encoding.encode(text, disallowed_special=()))  # noqa: E731
    system = 3 + n("system") + n("You count tokens. Answer in one word.")
    user = 3 + n("user") + n(WORKED[1]["content"]) + n("ada") + 1
    assistant = 3 + n("assistant") + n("Elf.")
    assert by_hand(encoding, WORKED) == system + user + assistant + 3


@pytest.mark.parametrize("name", ["gpt2", "qwen3_6", "tokenprism_4k"])
def test_chat_with_an_undefined_tokenizer_is_422_naming_the_defined_ones(http, name):
    response = http.post("/api/count", json={"messages": WORKED, "tokenizers": ["cl100k_base", name]})
    error = assert_error(response, 422, "invalid_input")
    assert name in error["message"] and "cl100k_base, o200k_base" in error["message"]


def test_chat_alias_and_messages_rules(http):
    assert_error(http.post("/api/count", json={"messages": []}), 422)
    error = assert_error(
        http.post("/api/count", json={"messages": WORKED, "allow_special": True}), 422, "invalid_input"
    )
    assert "allow_special" in error["message"]
    assert_error(http.post("/api/count", json={"messages": WORKED, "tokenizers": ["nope"]}), 404, "unknown_tokenizer")


def test_message_with_an_empty_name_still_costs_the_name_token(http, tiktoken_reference):
    messages = [{"role": "user", "content": "hi", "name": ""}]
    body = http.post("/api/count", json={"messages": messages, "tokenizers": ["cl100k_base"]}).json()
    assert body["counts"]["cl100k_base"] == by_hand(tiktoken_reference["cl100k_base"], messages)
