"""Tools read from JSON and checked (app/chat/tools.py): each refusal names the field and the
fix, the bounds hold, what is read round-trips, and `render()` runs the checks before any format."""

from __future__ import annotations

import json

import pytest

from app.chat.messages import ChatMessage, Tool, ToolCall
from app.chat.render import render
from app.chat.tools import (
    MAX_CALLS,
    MAX_JSON_DEPTH,
    MAX_TOOLS,
    chat_message,
    chat_texts,
    check_tool_chat,
    cleaned,
    parse_tools,
)
from app.errors import InvalidInput, TextTooLarge
from app.settings import Settings
from app.web import engine_calls
from tests.chat.tools_fake import content_count, installed

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def call(call_id="call_1", name="get_weather", arguments='{"city": "Paris"}'):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def chat(*calls, answer="call_1"):
    return [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": None, "tool_calls": list(calls or [call()])},
        {"role": "tool", "tool_call_id": answer, "content": "sunny"},
    ]


def read(messages, tools):
    """As the API and the CLI read a chat, then the generic checks."""
    parsed = [
        chat_message(i, m.get("role"), m.get("content"), m.get("name"), m.get("tool_calls"), m.get("tool_call_id"))
        for i, m in enumerate(messages)
    ]
    parsed_tools = parse_tools(tools)
    check_tool_chat(parsed, parsed_tools)
    return parsed, parsed_tools


def nested(depth: int) -> dict:
    """An object nested `depth` levels deep (the outermost is level 1)."""
    value: dict = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def test_a_tool_chat_reads_into_the_chat_types():
    messages, tools = read(chat(), [WEATHER])
    assert tools == (Tool("get_weather", "Weather in a city", WEATHER["function"]["parameters"]),)
    assert messages[1] == ChatMessage("assistant", "", None, (ToolCall("call_1", "get_weather", '{"city": "Paris"}'),))
    assert messages[2] == ChatMessage("tool", "sunny", None, (), "call_1")
    assert parse_tools(None) == () and parse_tools([]) == ()


def test_optional_fields_and_the_legacy_function_role_are_accepted():
    tools = [
        {"type": "function", "function": {"name": "a-b_9", "strict": True}},
        {"type": "function", "function": {"name": "x" * 64, "description": None, "parameters": None}},
    ]
    messages, parsed = read(
        [
            {"role": "function", "name": "a-b_9", "content": "42"},
            {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "a-b_9", "arguments": "[]"}}]},
        ],
        tools,
    )
    assert [t.name for t in parsed] == ["a-b_9", "x" * 64] and parsed[0].parameters is None
    assert messages[0] == ChatMessage("function", "42", "a-b_9")
    assert messages[1].tool_calls == (ToolCall("c", "a-b_9", "[]"),)


REFUSED = [  # (messages, tools, words the message must hold)
    (chat(), 5, ['"tools" is a number', "array of tools"]),
    (chat(), {"type": "function"}, ['"tools" is an object']),
    (chat(), ["get_weather"], ["tools[0] is a string", "object like"]),
    (chat(), [{"type": "code_interpreter"}], ["tools[0].type is 'code_interpreter'", '"type": "function"']),
    (chat(), [{"type": "function"}], ["tools[0].function is null"]),
    (chat(), [{"type": "function", "function": []}], ["tools[0].function is an array"]),
    (chat(), [{"type": "function", "function": {"description": "x"}}], ["tools[0].function has no name"]),
    (chat(), [{"type": "function", "function": {"name": 7}}], ["tools[0].function.name is a number"]),
    (chat(), [{"type": "function", "function": {"name": "get weather"}}], ["'get weather'", "1 to 64 letters"]),
    (chat(), [{"type": "function", "function": {"name": ""}}], ["tools[0].function.name is ''"]),
    (chat(), [{"type": "function", "function": {"name": "x" * 65}}], ["1 to 64"]),
    (chat(), [WEATHER, WEATHER], ["tools[1].function.name 'get_weather' is listed twice"]),
    (
        chat(),
        [{"type": "function", "function": {"name": "f", "parameters": []}}],
        ["parameters is an array", "JSON schema object"],
    ),
    (chat(), [{"type": "function", "function": {"name": "f", "parameters": "{}"}}], ["parameters is a string"]),
    (chat(), [{"type": "function", "function": {"name": "f", "args": {}}}], ["field 'args'", "name, description"]),
    (chat(), [{"type": "function", "function": {"name": "f", "strict": "yes"}}], ["strict is a string"]),
    (chat(), [{"type": "function", "function": {"name": "f", "description": 1}}], ["description is a number"]),
    (chat(), [{"type": "function", "function": {"name": "f", "parameters": {"x": float("nan")}}}], ["nan", "not JSON"]),
    (
        chat(),
        [{"type": "function", "function": {"name": "f", "parameters": nested(MAX_JSON_DEPTH + 1)}}],
        ["tools[0].function.parameters is nested more than 32 levels"],
    ),
    (
        [{"role": "assistant", "content": None, "tool_calls": call()}],
        [WEATHER],
        ["messages[0].tool_calls is an object"],
    ),
    (
        [{"role": "assistant", "content": None, "tool_calls": ["x"]}],
        [WEATHER],
        ["messages[0].tool_calls[0] is a string"],
    ),
    (chat({"type": "function", "function": call()["function"]}), [WEATHER], ['tool_calls[0] has no "id"']),
    (chat({**call(), "id": 3}), [WEATHER], ["tool_calls[0].id is a number"]),
    (chat(call(call_id="")), [WEATHER], ["tool_calls[0].id is empty"]),
    (chat({"id": "call_1"}), [WEATHER], ['tool_calls[0] has no "function"']),
    (chat({**call(), "type": "custom"}), [WEATHER], ["tool_calls[0].type is 'custom'"]),
    (chat({"id": "call_1", "function": {"arguments": "{}"}}), [WEATHER], ['function has no "name"']),
    (chat({"id": "call_1", "function": {"name": "get_weather"}}), [WEATHER], ['function has no "arguments"']),
    (chat(call(arguments={"city": "Paris"})), [WEATHER], ["arguments is an object", "string of JSON"]),
    (chat(call(arguments="{city: Paris}")), [WEATHER], ["arguments '{city: Paris}' is not JSON"]),
    (chat(call(arguments="NaN")), [WEATHER], ["arguments 'NaN' is not JSON"]),
    (chat(call(arguments="[" * 100_000)), [WEATHER], ["is not JSON"]),
    (chat(call(arguments=json.dumps(nested(MAX_JSON_DEPTH + 1)))), [WEATHER], ["arguments is nested more than 32"]),
    (chat(call(name="get_time")), [WEATHER], ["'get_time' is no listed tool", "one of get_weather"]),
    (chat(), None, ["'get_weather' is no listed tool", 'add its definition to "tools"']),
    (chat(call(), call()), [WEATHER], ["tool_calls[1].id 'call_1' is used by an earlier call"]),
    (chat(answer="call_9"), [WEATHER], ["messages[2].tool_call_id 'call_9' answers no earlier call"]),
    (chat(answer=9), [WEATHER], ["messages[2].tool_call_id is a number"]),
    ([{"role": "tool", "tool_call_id": "call_1", "content": "x"}, *chat()[:2]], [WEATHER], ["answers no earlier call"]),
    (
        [{"role": "user", "content": "x", "tool_calls": [call()]}],
        [WEATHER],
        ["messages[0] has tool_calls but role 'user'"],
    ),
    ([{"role": "user", "content": "x", "tool_calls": []}], [WEATHER], ["messages[0] has tool_calls but role 'user'"]),
    (
        [*chat()[:2], {"role": "user", "content": "x", "tool_call_id": "call_1"}],
        [WEATHER],
        ["tool_call_id but role 'user'"],
    ),
    ([{"role": "user", "content": None}], None, ["messages[0] has no content", "only an assistant"]),
    ([{"role": "assistant", "content": None}], None, ["messages[0] has no content"]),
    ([{"role": "assistant", "content": None, "tool_calls": []}], None, ["messages[0] has no content"]),
]


@pytest.mark.parametrize("messages, tools, words", REFUSED, ids=[words[0][:50] for *_, words in REFUSED])
def test_each_refusal_names_the_problem(messages, tools, words):
    with pytest.raises(InvalidInput) as error:
        read(messages, tools)
    for word in words:
        assert word in error.value.message, error.value.message
    assert error.value.status == 422


def test_bounds_hold_at_their_limits():
    tool = {"type": "function", "function": {"name": "f", "parameters": nested(MAX_JSON_DEPTH)}}
    read([{"role": "user", "content": "x"}], [tool])  # 32 deep is fine
    many = [{"type": "function", "function": {"name": f"f{i}"}} for i in range(MAX_TOOLS)]
    read([{"role": "user", "content": "x"}], many)
    with pytest.raises(InvalidInput, match="129 tools sent; the limit is 128") as error:
        read([{"role": "user", "content": "x"}], [*many, {"type": "function", "function": {"name": "g"}}])
    assert error.value.code == "too_many_tools"
    calls = [call(f"c{i}") for i in range(MAX_CALLS)]
    read(chat(*calls, answer="c0"), [WEATHER])
    with pytest.raises(InvalidInput, match="129 tool calls in messages\\[1\\]; the limit is 128"):
        read(chat(*calls, call("c128"), answer="c0"), [WEATHER])
    with pytest.raises(InvalidInput, match="129 tools"):  # values built directly are bounded too
        check_tool_chat([], [Tool(f"f{i}") for i in range(MAX_TOOLS + 1)])


def test_ten_thousand_tools_are_refused_before_any_is_read():
    with pytest.raises(InvalidInput, match="10,000 tools sent"):
        parse_tools([{"bad": "tool"}] * 10_000)


def test_the_text_limit_counts_the_tools_and_the_calls():
    settings = Settings(max_text_chars=1_000)
    messages, tools = read(chat(), [WEATHER])
    assert sum(map(len, chat_texts(messages, tools))) < 1_000
    engine_calls.check_chat(messages, tools, settings)
    big = Tool("f", None, {"enum": ["x" * 400, "y" * 400]})
    with pytest.raises(TextTooLarge, match="the message fields and tools add up to"):
        engine_calls.check_chat(messages, (*tools, big), settings)
    long_call = ChatMessage("assistant", "", None, (ToolCall("c", "get_weather", json.dumps({"a": "z" * 990})),))
    with pytest.raises(TextTooLarge):
        engine_calls.check_chat([long_call], tools, settings)


def test_lone_surrogates_are_cleaned_everywhere():
    messages, tools = read(
        chat(call(arguments='{"c": "\\ud800"}')),
        [
            {
                "type": "function",
                "function": {"name": "get_weather", "description": "\ud800", "parameters": {"\udc00": ["\ud800"]}},
            }
        ],
    )
    messages[1] = ChatMessage("assistant", "", None, (ToolCall("call_1\ud800", "get_weather", '"\ud800"'),))
    clean_messages, clean_tools = cleaned(messages, tools)
    assert clean_tools[0].description == "\ufffd" and clean_tools[0].parameters == {"\ufffd": ["\ufffd"]}
    assert clean_messages[1].tool_calls[0] == ToolCall("call_1\ufffd", "get_weather", '"\ufffd"')
    for text in chat_texts(clean_messages, clean_tools):
        text.encode("utf-8")


def test_render_runs_the_generic_checks_before_the_format(registry):
    messages, tools = read(chat(), [WEATHER])
    bad = [messages[0], ChatMessage("assistant", "", None, (ToolCall("c", "nope", "{}"),))]
    with pytest.raises(InvalidInput, match="'nope' is no listed tool"):
        render(registry.get("cl100k_base"), bad, tools=tools)
    with pytest.raises(InvalidInput, match="llama3 chat format has no tools"):
        render(registry.get("llama3"), messages[:1], tools=tools)


def test_a_format_that_renders_tools_counts_them_apart(registry):
    messages, tools = read(chat(), [WEATHER])
    with installed():
        rendered = render(registry.get("o200k_base"), messages, tools=tools)
        plain = render(registry.get("o200k_base"), [messages[0]])
    assert rendered.tools_count == len(
        registry.get("o200k_base").encode(
            'get_weather({"properties": {"city": {"type": "string"}}, "required": ["city"], "type": "object"}) '
            "Weather in a city\n"
        )
    )
    assert rendered.overhead + rendered.tools_count + content_count(rendered) == rendered.count
    assert sum(rendered.message_counts()) + rendered.tools_count + 3 == rendered.count
    assert plain.tools_count == 0 and plain.overhead + content_count(plain) == plain.count
