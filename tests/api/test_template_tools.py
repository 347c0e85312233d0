"""Template chats with tools over real HTTP on a server of its own: a tokenizer.json uploaded with
a tokenizer_config.json (a Qwen 2.5 style template as a string; a file with named `default`
and `tool_use` templates); /api/chat and /api/count with `tools`, `tool_calls` and tool results
give `transformers`' `apply_chat_template(..., tools=..., add_generation_prompt=True)` text and
ids, count the tools apart and agree; a call to no listed tool is a 422."""

from __future__ import annotations

import json

import httpx
import pytest

from app.local_server import start_server, stop_server
from tests.chat.template_tools_cases import BOS, EOS, NAMED, QWEN25_STYLE, tokenizer_json
from tests.chat.test_template_tools import CHAT, SEARCH, WEATHER

tokenizers = pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")

TEXT = tokenizer_json()
CONFIGS = {"qwen-tools": QWEN25_STYLE, "named-tools": [{"name": n, "template": t} for n, t in NAMED.items()]}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    process, url = start_server(tmp_path_factory.mktemp("template-tools"))
    try:
        with httpx.Client(base_url=url, timeout=120) as client:
            for name, template in CONFIGS.items():
                config = json.dumps({"chat_template": template, "bos_token": BOS, "eos_token": EOS}).encode()
                added = client.post(
                    "/api/tokenizers",
                    data={"name": name},
                    files={
                        "file": ("tokenizer.json", TEXT.encode()),
                        "chat_template": ("tokenizer_config.json", config),
                    },
                )
                assert added.status_code == 201, added.text
            yield client
    finally:
        stop_server(process)


def reference(name: str):
    made = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizers.Tokenizer.from_str(TEXT), bos_token=BOS, eos_token=EOS
    )
    made.chat_template = CONFIGS[name] if isinstance(CONFIGS[name], str) else dict(NAMED)
    return made


@pytest.mark.parametrize("name", CONFIGS)
def test_chat_and_count_with_tools_equal_transformers(server, name):
    tools = [WEATHER, SEARCH]
    want_text = reference(name).apply_chat_template(CHAT, tools=tools, add_generation_prompt=True, tokenize=False)
    want_ids = list(
        reference(name).apply_chat_template(
            CHAT, tools=tools, add_generation_prompt=True, tokenize=True, return_dict=False
        )
    )
    chat = server.post("/api/chat", json={"tokenizer": name, "messages": CHAT, "tools": tools})
    assert chat.status_code == 200, chat.text
    body = chat.json()
    assert body["format"] == "template"
    assert body["text"] == want_text
    assert [t["id"] for t in body["tokens"]] == want_ids
    assert body["tools"] > 0 and body["overhead"] > 0 and body["overhead"] + body["tools"] < body["count"]
    assert all(m["count"] > 0 for m in body["messages"]) and len(body["messages"]) == len(CHAT)
    counted = server.post("/api/count", json={"tokenizers": [name], "messages": CHAT, "tools": tools})
    assert counted.status_code == 200, counted.text
    assert counted.json()["counts"] == {name: len(want_ids)}
    chat_counts = counted.json()["chat"]
    assert chat_counts["tools"] == {name: body["tools"]}
    assert chat_counts["overhead"] == {name: body["overhead"]}
    assert chat_counts["per_message"][name] == [m["count"] for m in body["messages"]]
    plain = server.post("/api/chat", json={"tokenizer": name, "messages": CHAT[:2]}).json()
    assert plain["tools"] == 0 and "<tools>" not in plain["text"]


def test_a_call_to_no_listed_tool_is_a_422(server):
    answer = server.post("/api/chat", json={"tokenizer": "qwen-tools", "messages": CHAT, "tools": [SEARCH]})
    assert answer.status_code == 422
    assert "get_weather" in answer.json()["error"]["message"]
