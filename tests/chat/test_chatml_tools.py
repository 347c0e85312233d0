"""chatml with tools (app/chat/formats/chatml_format.py): the count of every published request equals
the prompt tokens OpenAI's API reported for it (tests/chat/chatml_tool_cases.json names the
sources), the parts add up, the tools API's calls and results count as the legacy rule does,
and a text chat renders as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.chat.formats.chatml_format import CHATML
from app.chat.formats.chatml_functions import namespace_text
from app.chat.messages import ChatMessage, Tool, ToolCall
from app.chat.render import render
from app.errors import InvalidInput

CASES = json.loads((Path(__file__).parent / "chatml_tool_cases.json").read_text(encoding="utf-8"))
PUBLISHED = [(name, index) for name in ("cl100k_base", "o200k_base") for index in range(len(CASES[name]["cases"]))]
WEATHER = Tool(
    "get_weather",
    "Weather in a city",
    {
        "type": "object",
        "required": ["city"],
        "properties": {
            "city": {"type": "string", "description": "The city"},
            "unit": {"type": "string", "enum": ["c", "f"]},
        },
    },
)


def request(case: dict) -> tuple[list[ChatMessage], tuple[Tool, ...], str | None]:
    """A published request (OpenAI's legacy shape) as our chat types and a tool_choice."""
    messages = []
    for position, m in enumerate(case["messages"]):
        calls = tuple(
            ToolCall(f"call_{position}", c["name"], c.get("arguments", ""))
            for c in ([m["function_call"]] if "function_call" in m else [])
        )
        messages.append(ChatMessage(m["role"], m.get("content") or "", m.get("name"), calls))
    tools = tuple(Tool(f["name"], f.get("description"), f.get("parameters")) for f in case.get("functions", ()))
    choice = case.get("function_call")
    return messages, tools, choice["name"] if isinstance(choice, dict) else choice


def assert_adds_up(rendered) -> None:
    content = sum(len(p.ids) for p in rendered.parts if not p.framing and not p.tools)
    assert rendered.overhead + rendered.tools_count + content == rendered.count
    outside = sum(len(p.ids) for p in rendered.parts if p.message is None and not p.tools)
    assert sum(rendered.message_counts()) + rendered.tools_count + outside == rendered.count
    tokens = rendered.tokens()
    assert [t.id for t in tokens] == rendered.ids
    assert b"".join(t.bytes for t in tokens) == rendered.text.encode("utf-8")


@pytest.mark.parametrize("name, index", PUBLISHED, ids=[f"{n}-{i}" for n, i in PUBLISHED])
def test_every_published_case_counts_what_the_api_reported(registry, name, index):
    case = CASES[name]["cases"][index]
    messages, tools, choice = request(case)
    rendered = CHATML.render(registry.get(name), messages, tools, tool_choice=choice)
    assert rendered.count == case["tokens"]
    assert_adds_up(rendered)
    assert (rendered.tools_count > 0) == bool(tools)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_published_chats_without_calls_count_the_same_through_render(registry, name):
    """render() (what the API and the CLI call) gives the format's count: role function is known."""
    for case in CASES[name]["cases"]:
        messages, tools, choice = request(case)
        if choice in (None, "auto") and not any(m.tool_calls for m in messages):
            assert render(registry.get(name), messages, "chatml", tools).count == case["tokens"]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_tools_close_the_first_system_message_or_make_their_own(registry, name):
    tokenizer = registry.get(name)
    chat = [ChatMessage("user", "hi"), ChatMessage("system", "Be brief"), ChatMessage("system", "Really")]
    rendered = CHATML.render(tokenizer, chat, (WEATHER,))
    tools = [p for p in rendered.parts if p.tools]
    assert {p.message for p in tools} == {1} and all(p.framing for p in tools)
    assert "Be brief\n# Tools: functions\n\nnamespace functions {\n\n// Weather in a city\n" in rendered.text
    assert "Really<|im_end|>" in rendered.text  # only the first system message gets them
    alone = CHATML.render(tokenizer, chat[:1], (WEATHER,))
    assert alone.text.startswith("<|im_start|>system<|im_sep|># Tools: functions\n\nnamespace functions {")
    assert {p.message for p in alone.parts if p.tools} == {None}
    # the rule: the definitions' text and 9 tokens, 4 fewer in a system message (+ its "\n" here)
    definitions = len(tokenizer.encode(namespace_text((WEATHER,))))
    assert (alone.tools_count, rendered.tools_count) == (definitions + 9, definitions + 5 + 1)
    for each in (rendered, alone):
        assert_adds_up(each)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_a_tools_api_call_and_its_result_count_as_the_legacy_function_call_and_message(registry, name):
    tokenizer = registry.get(name)
    arguments = '{"city": "Paris"}'
    call = ChatMessage("assistant", "", tool_calls=(ToolCall("call_7", "get_weather", arguments),))
    result = ChatMessage("tool", '{"temp": 21}', tool_call_id="call_7")
    chat = [ChatMessage("user", "Weather in Paris?"), call, result]
    rendered = CHATML.render(tokenizer, chat, (WEATHER,))
    legacy = CHATML.render(tokenizer, [*chat[:2], ChatMessage("function", '{"temp": 21}', "get_weather")], (WEATHER,))
    assert rendered.ids == legacy.ids
    n = lambda text: len(tokenizer.encode(text))  # noqa: E731
    counts = rendered.message_counts()
    assert counts[1] == n("assistant") + n("get_weather") + n(arguments) + 6  # the rule: 3 per message, 3 per call
    assert counts[2] == n("get_weather") + n('{"temp": 21}') + 3  # role function, its name: -2 +1
    assert "<|im_start|>assistant<|im_sep|>\nget_weather(" + arguments + ")<|im_end|>" in rendered.text
    arguments_parts = [p for p in rendered.parts if p.text == arguments]
    assert [(p.message, p.framing) for p in arguments_parts] == [(1, False)]
    two = ChatMessage("assistant", "Both:", tool_calls=(*call.tool_calls, ToolCall("call_8", "get_weather", "{}")))
    both = CHATML.render(tokenizer, [chat[0], two], (WEATHER,)).message_counts()[1]
    assert both == n("assistant") + n("Both:") + 2 * n("get_weather") + n(arguments) + n("{}") + 3 + 2 * 3
    assert_adds_up(rendered)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_the_system_newline_counts_as_content_when_it_joins_the_last_token(registry, name):
    tokenizer = registry.get(name)
    for text, joined in (("Hello", False), ("Hello:", True), ("Hello\n", None), ("", None)):
        rendered = CHATML.render(tokenizer, [ChatMessage("system", text)], (WEATHER,))
        content = "".join(p.text for p in rendered.parts if p.message == 0 and not p.framing)
        assert content == (text + "\n" if joined else text)
        padding = [p for p in rendered.parts if p.text == "\n" and p.tools]
        assert len(padding) == (joined is False)


def test_tool_choice_rules(registry):
    tokenizer = registry.get("o200k_base")
    chat = [ChatMessage("user", "hi")]
    auto = CHATML.render(tokenizer, chat, (WEATHER,), tool_choice="auto")
    assert auto.ids == CHATML.render(tokenizer, chat, (WEATHER,)).ids
    forced = CHATML.render(tokenizer, chat, (WEATHER,), tool_choice="get_weather")
    assert forced.text.endswith("<|im_start|>assistant to=functions.get_weather<|im_sep|>")
    assert forced.count == auto.count + len(tokenizer.encode("get_weather")) + 4
    assert CHATML.render(tokenizer, chat, (WEATHER,), tool_choice="none").count == auto.count + 1
    for choice, words in (("required", "no published count"), ("get_time", "no listed tool")):
        with pytest.raises(InvalidInput, match=words):
            CHATML.render(tokenizer, chat, (WEATHER,), tool_choice=choice)
    with pytest.raises(InvalidInput, match="needs tools"):
        CHATML.render(tokenizer, chat, (), tool_choice="none")


@pytest.mark.parametrize("name", ["", None])
def test_a_function_message_without_a_name_is_refused_saying_what_to_add(registry, name):
    chat = [ChatMessage("user", "hi"), ChatMessage("function", "{}", name)]
    with pytest.raises(InvalidInput, match=r"message 1 has role function but no name.*add it"):
        render(registry.get("cl100k_base"), chat)


def test_the_format_says_its_tool_counts_are_the_apis_not_a_published_format():
    assert "API reported" in CHATML.note and "ours" in CHATML.note


TEXT = st.one_of(st.text(max_size=40), st.sampled_from(["", "\n", "<|im_end|>", "Hello:", "👋🏽 café"]))


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_a_text_chat_renders_as_before(registry, name):
    """Without tools: start, role[:name], separator, content, end per message, then the priming."""
    tokenizer = registry.get(name)
    start, end, sep = {"cl100k_base": (100264, 100265, 100266), "o200k_base": (200264, 200265, 200266)}[name]
    roles = st.sampled_from(["system", "user", "assistant", "tool", "developer"])
    names = st.one_of(st.none(), st.from_regex(r"[a-z_]{1,8}", fullmatch=True))

    @settings(max_examples=100, deadline=None, database=None)
    @given(st.lists(st.builds(ChatMessage, roles, TEXT, names), min_size=1, max_size=5))
    def check(messages):
        expected = []
        for m in messages:
            expected += [
                start,
                *tokenizer.encode(m.role if m.name is None else f"{m.role}:{m.name}"),
                sep,
                *tokenizer.encode(m.content),
                end,
            ]
        rendered = render(tokenizer, messages)
        assert rendered.ids == [*expected, start, *tokenizer.encode("assistant"), sep]
        assert rendered.tools_count == 0

    check()
