"""Tools over real HTTP: /api/chat and /api/count take `tools`, `tool_calls` and `tool_call_id`,
answer the tools' tokens apart (`tools`), agree with each other, and answer every hostile
tool input with a 4xx that names it, never a 500.

Two servers: the session's (`http`, the real formats: a format without tools must say so,
one with tools must count them, so these tests check real counts once a format renders
tools), and one started here in this process with a stand-in format that renders tools
(tests/chat/tools_fake.py) in place of chatml, to check the counts and the agreement now.
"""

from __future__ import annotations

import json
import tempfile
import threading
import time

import httpx
import pytest
import uvicorn

from app.chat.render import DEFAULT_FORMAT, render
from app.local_server import free_port
from app.main import create_app
from app.settings import Settings
from app.web import schemas
from tests.api.test_chat import cookbook
from tests.chat.test_tools_parse import WEATHER, call, chat, nested, read
from tests.chat.tools_fake import content_count, installed

from .helpers import assert_error

CHAT = chat()


@pytest.fixture(scope="module")
def fake_http():
    """This process's app over real HTTP, chatml replaced by the stand-in format that renders tools."""
    with installed(), tempfile.TemporaryDirectory() as data:
        server = uvicorn.Server(
            uvicorn.Config(create_app(Settings(data_dir=data)), host="127.0.0.1", port=free_port(), log_level="warning")
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.started
        base = f"http://{server.config.host}:{server.config.port}"
        with httpx.Client(base_url=base, timeout=60) as client:
            yield client
        server.should_exit = True
        thread.join(timeout=10)


def test_tool_counts_are_answered_apart_and_count_agrees_with_chat(fake_http, registry):
    for name in ("cl100k_base", "o200k_base"):
        answer = fake_http.post("/api/chat", json={"tokenizer": name, "messages": CHAT, "tools": [WEATHER]})
        assert answer.status_code == 200, answer.text
        schemas.ChatResponse.model_validate(answer.json())
        got = answer.json()
        without = fake_http.post("/api/chat", json={"tokenizer": name, "messages": CHAT[:1]}).json()
        assert got["tools"] > 0 and without["tools"] == 0
        assert sum(m["count"] for m in got["messages"]) + got["tools"] + 3 == got["count"]
        messages, tools = read(CHAT, [WEATHER])
        rendered = render(registry.get(name), messages, tools=tools)  # the stand-in, in this process
        assert (got["count"], got["tools"], got["overhead"]) == (
            rendered.count,
            rendered.tools_count,
            rendered.overhead,
        )
        assert got["overhead"] + got["tools"] + content_count(rendered) == got["count"]
        assert [m["role"] for m in got["messages"]] == ["user", "assistant", "tool"]
        assert '{"city": "Paris"}' in got["text"]  # the call's arguments are in the assistant message
        counted = fake_http.post("/api/count", json={"messages": CHAT, "tools": [WEATHER], "tokenizers": [name]})
        assert counted.status_code == 200, counted.text
        schemas.CountResponse.model_validate(counted.json())
        row = counted.json()
        assert row["counts"] == {name: got["count"]}
        assert row["chat"]["tools"] == {name: got["tools"]}
        assert row["chat"]["overhead"] == {name: got["overhead"]}
        assert row["chat"]["per_message"] == {name: [m["count"] for m in got["messages"]]}
        schema = json.dumps(WEATHER["function"]["parameters"], ensure_ascii=False)
        fields = [
            "user",
            "Weather?",
            "assistant",
            "",
            "call_1",
            "get_weather",
            '{"city": "Paris"}',
            "tool",
            "sunny",
            "call_1",
            "get_weather",
            "Weather in a city",
            schema,
        ]
        assert row["characters"] == sum(map(len, fields))


def test_a_tool_result_with_the_legacy_function_role_reaches_the_format(fake_http):
    messages = [{"role": "user", "content": "2+2?"}, {"role": "function", "name": "add", "content": "4"}]
    answer = fake_http.post(
        "/api/chat",
        json={
            "tokenizer": "o200k_base",
            "messages": messages,
            "tools": [{"type": "function", "function": {"name": "add"}}],
        },
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["messages"][1]["role"] == "function"


@pytest.mark.parametrize("name", list(DEFAULT_FORMAT))
def test_each_real_format_counts_tools_or_says_it_has_none(http, name):
    """A format without tools refuses them with a 422 that says so; one that renders them counts
    them apart, /api/chat and /api/count agreeing. (The call id is 9 letters or digits, the
    only ids Mistral's formats take.)"""
    body = {"messages": chat(call("abcDEF123"), answer="abcDEF123"), "tools": [WEATHER]}
    answer = http.post("/api/chat", json={"tokenizer": name, **body})
    counted = http.post("/api/count", json={"tokenizers": [name], **body})
    if answer.status_code == 422:
        message = assert_error(answer, 422)["message"]
        assert "has no tools" in message or "does not render" in message or "does not know" in message, message
        assert assert_error(counted, 422)["message"] == message
        return
    assert answer.status_code == 200, answer.text
    got = answer.json()
    assert got["tools"] > 0
    assert counted.json()["counts"] == {name: got["count"]} and counted.json()["chat"]["tools"] == {name: got["tools"]}


def test_chats_without_tools_answer_as_before_with_tools_zero(http, tiktoken_reference):
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi 👋", "name": "ada"}]
    expected, per_message = cookbook(lambda text: tiktoken_reference["cl100k_base"].encode(text), messages)
    answer = http.post("/api/chat", json={"tokenizer": "cl100k_base", "messages": messages}).json()
    assert (answer["count"], [m["count"] for m in answer["messages"]], answer["tools"]) == (expected, per_message, 0)
    counted = http.post("/api/count", json={"messages": messages, "tokenizers": ["cl100k_base"]}).json()
    assert counted["counts"] == {"cl100k_base": expected} and counted["chat"]["tools"] == {"cl100k_base": 0}


HOSTILE = [  # (body fields, words the 4xx message must hold)
    ({"tools": 5}, '"tools" is a number'),
    ({"tools": "get_weather"}, '"tools" is a string'),
    ({"tools": [None]}, "tools[0] is null"),
    ({"tools": [{"type": "function", "function": {"name": "a b"}}]}, "1 to 64 letters"),
    ({"tools": [{"type": "function", "function": {}}]}, "has no name"),
    ({"tools": [{"type": "function", "function": {"name": "f", "parameters": [1]}}]}, "parameters is an array"),
    ({"tools": [WEATHER, WEATHER]}, "listed twice"),
    ({"tools": [{"type": "function", "function": {"name": f"f{i}"}} for i in range(10_000)]}, "10,000 tools sent"),
    ({"tools": [{"type": "function", "function": {"name": "f", "parameters": nested(200)}}]}, "nested more than 32"),
    ({"messages": chat(call(arguments="{oops")), "tools": [WEATHER]}, "is not JSON"),
    ({"messages": chat(call(arguments={"city": "Paris"})), "tools": [WEATHER]}, "arguments is an object"),
    ({"messages": chat(call(name="rm_rf")), "tools": [WEATHER]}, "'rm_rf' is no listed tool"),
    ({"messages": chat()}, 'add its definition to "tools"'),
    ({"messages": chat(answer="nope"), "tools": [WEATHER]}, "answers no earlier call"),
    ({"messages": chat(answer=["x"]), "tools": [WEATHER]}, "tool_call_id is an array"),
    ({"messages": [{"role": "assistant", "content": None, "tool_calls": {"id": 1}}]}, "tool_calls is an object"),
    ({"messages": [{"role": "user", "content": None}]}, "messages[0] has no content"),
    (
        {
            "messages": [{"role": "assistant", "content": None, "tool_calls": [call(f"c{i}") for i in range(129)]}],
            "tools": [WEATHER],
        },
        "129 tool calls",
    ),
]


@pytest.mark.parametrize("path", ["/api/chat", "/api/count"])
@pytest.mark.parametrize("fields, words", HOSTILE, ids=[words for _, words in HOSTILE])
def test_hostile_tools_get_a_422_naming_them(http, path, fields, words):
    body = {"messages": CHAT, **fields, **({"tokenizer": "cl100k_base"} if path == "/api/chat" else {})}
    started = time.monotonic()
    error = assert_error(http.post(path, json=body), 422)
    assert words in error["message"], error
    assert time.monotonic() - started < 10  # bounded: refused before anything is rendered


def test_tools_over_the_text_limit_are_a_413(http):
    limit = http.get("/api/limits").json()["max_text_chars"]
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(limit // 20)}}
    body = {"messages": CHAT, "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": wide}}]}
    for path, extra in (("/api/chat", {"tokenizer": "o200k_base"}), ("/api/count", {})):
        error = assert_error(http.post(path, json={**body, **extra}), 413, "text_too_large")
        assert "the message fields and tools add up to" in error["message"]


def test_raw_hostile_bodies_never_500(http):
    too_deep = '{"messages": [{"role": "user", "content": "x"}], "tools": ' + "[" * 100_000 + "]" * 100_000 + "}"
    nan = (
        '{"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": '
        '{"name": "f", "parameters": {"default": NaN}}}]}'
    )
    for raw, words in ((too_deep, "nested too deeply"), (nan, "holds nan, which is not JSON")):
        for path in ("/api/count", "/api/chat"):
            answer = http.post(
                path,
                content=raw.replace("{", '{"tokenizer": "cl100k_base", ', 1) if path == "/api/chat" else raw,
                headers={"content-type": "application/json"},
            )
            assert words in assert_error(answer)["message"]


def test_tools_without_messages_are_refused_by_count(http):
    error = assert_error(http.post("/api/count", json={"text": "hi", "tools": [WEATHER]}), 422)
    assert '"tools" go with "messages"' in error["message"]


def test_a_format_without_tools_says_so(http):
    body = {"messages": CHAT[:1], "tools": [WEATHER]}
    for path, extra in (("/api/chat", {"tokenizer": "mistral_v1"}), ("/api/count", {"tokenizers": ["mistral_v1"]})):
        error = assert_error(http.post(path, json={**body, **extra}), 422)
        assert "has no tools" in error["message"], error


def test_the_answer_says_chatml_counts_follow_the_api_not_a_published_format(http):
    body = {"messages": chat(call("abcDEF123"), answer="abcDEF123"), "tools": [WEATHER]}
    chatml = http.post("/api/chat", json={"tokenizer": "cl100k_base", **body}).json()
    assert "OpenAI" in chatml["note"] and "reported" in chatml["note"]
    assert http.post("/api/chat", json={"tokenizer": "o200k_harmony", **body}).json()["note"] is None
    counted = http.post("/api/count", json={"tokenizers": ["cl100k_base", "mistral_v3"], **body}).json()
    assert counted["chat"]["notes"] == {"cl100k_base": chatml["note"], "mistral_v3": None}
