"""The `template` format with tools (app/chat/formats/template_format.py, app/chat/formats/template_parts.py)
against `transformers`' `apply_chat_template(messages, tools=tools, add_generation_prompt=True)`
(text, and ids with tokenize=True), for templates written here in the styles of Llama 3.1 and
Qwen 2.5 and a file with a named `tool_use` template, on generated chats with tools, calls and
results; how the parts are attributed (tools apart, calls and results in their messages, the
counts adding up); and the bounds still holding with tools."""

from __future__ import annotations

import copy
import json
import time

import pytest
from hypothesis import HealthCheck, given, settings

from app.backends.huggingface.backend import HuggingFaceTokenizer
from app.chat.formats import template_parts
from app.chat.formats.template_format import ChatTemplate
from app.chat.render import render
from app.chat.tools import chat_message, parse_tools
from app.errors import InvalidInput
from tests.chat.template_tools_cases import (
    BOS,
    EOS,
    HERMES_TOOL_USE,
    NAMED,
    PLAIN_DEFAULT,
    STYLES,
    tokenizer_json,
    tool_chats,
)
from tests.chat.templated import with_chat_template

tokenizers = pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")

HYPOTHESIS = settings(
    max_examples=30,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
SEARCH = {"type": "function", "function": {"name": "search"}}
CHAT = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "18 C and sunny"},
    {"role": "assistant", "content": "It is 18 C."},
]


@pytest.fixture(scope="module")
def small():
    text = tokenizer_json()
    return (
        HuggingFaceTokenizer("small-tools", "", text.encode()),
        transformers.PreTrainedTokenizerFast(
            tokenizer_object=tokenizers.Tokenizer.from_str(text), bos_token=BOS, eos_token=EOS
        ),
    )


def with_template(tokenizer, source: str, others: dict | None = None):
    return with_chat_template(tokenizer, ChatTemplate(source, BOS, EOS, tuple((others or {}).items())))


def ours(messages: list[dict], tools: list[dict] | None) -> dict:
    """The chat as the API reads it: render's keyword arguments."""
    return {
        "messages": [
            chat_message(i, m["role"], m.get("content"), m.get("name"), m.get("tool_calls"), m.get("tool_call_id"))
            for i, m in enumerate(messages)
        ],
        "tools": parse_tools(tools),
    }


def check_adds_up(rendered) -> None:
    content = sum(len(p.ids) for p in rendered.parts if not p.framing)
    assert rendered.overhead + rendered.tools_count + content == rendered.count
    assert (
        sum(rendered.message_counts()) + sum(len(p.ids) for p in rendered.parts if p.message is None) == rendered.count
    )
    assert [t.id for t in rendered.tokens()] == rendered.ids
    assert all(p.framing and p.message is None for p in rendered.parts if p.tools)


@pytest.mark.parametrize("style", STYLES)
def test_generated_chats_with_tools_equal_transformers(small, style):
    tokenizer, reference = small
    templated = with_template(tokenizer, STYLES[style])

    @HYPOTHESIS
    @given(chat=tool_chats())
    def check(chat):
        messages, tools = chat
        want_text = reference.apply_chat_template(
            copy.deepcopy(messages),
            tools=copy.deepcopy(tools),
            chat_template=STYLES[style],
            add_generation_prompt=True,
            tokenize=False,
        )
        want_ids = reference.apply_chat_template(
            copy.deepcopy(messages),
            tools=copy.deepcopy(tools),
            chat_template=STYLES[style],
            add_generation_prompt=True,
            tokenize=True,
            return_dict=False,
        )
        rendered = render(templated, **ours(messages, tools))
        assert rendered.text == want_text
        assert rendered.ids == list(want_ids)
        check_adds_up(rendered)
        tools_text = "".join(p.text for p in rendered.parts if p.tools)
        assert all(tool["function"]["name"] in tools_text for tool in tools)

    check()


def parts_of(rendered, message: int, framing: bool) -> str:
    return "".join(p.text for p in rendered.parts if p.message == message and p.framing == framing and not p.tools)


def test_qwen_style_parts(small):
    tokenizer, reference = small
    rendered = render(with_template(tokenizer, STYLES["qwen2.5"]), **ours(CHAT, [WEATHER, SEARCH]))
    assert rendered.text == reference.apply_chat_template(
        CHAT, tools=[WEATHER, SEARCH], add_generation_prompt=True, chat_template=STYLES["qwen2.5"], tokenize=False
    )
    tools_text = "".join(p.text for p in rendered.parts if p.tools)
    assert "# Tools" in tools_text and json.dumps(WEATHER) in tools_text and json.dumps(SEARCH) in tools_text
    assert [parts_of(rendered, i, False) for i in range(5)] == [
        "You are terse.",
        "Weather in Paris?",
        '{"city": "Paris"}',
        "18 C and sunny",
        "It is 18 C.",
    ]
    assert '"name": "get_weather"' in parts_of(rendered, 2, True)  # the call's name is its message's framing
    assert "<tool_response>" in parts_of(rendered, 3, True)
    assert all(rendered.message_counts())
    check_adds_up(rendered)
    bare = render(with_template(tokenizer, STYLES["qwen2.5"]), **ours(CHAT[:2], None))
    assert rendered.tools_count > 40 and bare.tools_count == 0


def test_llama_style_parts(small):
    tokenizer, reference = small
    chat = [CHAT[1], CHAT[2], {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 18}'}]
    rendered = render(with_template(tokenizer, STYLES["llama3.1"]), **ours(chat, [WEATHER]))
    assert rendered.text == reference.apply_chat_template(
        chat, tools=[WEATHER], add_generation_prompt=True, chat_template=STYLES["llama3.1"], tokenize=False
    )
    tools_text = "".join(p.text for p in rendered.parts if p.tools)
    assert "Environment: ipython" in tools_text and json.dumps(WEATHER, indent=4) in tools_text
    # the first user message sits after the tools; the call's arguments and the result are written by
    # tojson (a token that starts before the opening quote is framing)
    user, arguments, result = (parts_of(rendered, i, False) for i in range(3))
    assert user == "Weather in Paris?"
    assert arguments in json.dumps('{"city": "Paris"}') and 'Paris\\"}"' in arguments
    assert result in json.dumps('{"temp": 18}') and '18}"' in result
    assert "<|python_tag|>" in parts_of(rendered, 1, True)
    check_adds_up(rendered)


def test_named_tool_use_template_is_chosen_with_tools(small):
    tokenizer, reference = small
    templated = with_template(tokenizer, PLAIN_DEFAULT, {"tool_use": HERMES_TOOL_USE})
    named = copy.copy(reference)
    named.chat_template = dict(NAMED)
    chat = CHAT[1:4]
    with_tools = render(templated, **ours(chat, [WEATHER]))
    assert with_tools.text.startswith("<|im_start|>system\nYou are a function calling model. <tools> [")
    assert with_tools.text == named.apply_chat_template(
        chat, tools=[WEATHER], add_generation_prompt=True, tokenize=False
    )
    assert with_tools.ids == list(
        named.apply_chat_template(chat, tools=[WEATHER], add_generation_prompt=True, tokenize=True, return_dict=False)
    )
    check_adds_up(with_tools)
    without = render(templated, **ours(CHAT[1:2], None))
    assert without.text == named.apply_chat_template(CHAT[1:2], add_generation_prompt=True, tokenize=False)
    assert "<tools>" not in without.text


def test_a_template_that_needs_its_tools_still_renders_without_a_tools_count(small):
    tokenizer, reference = small
    source = "{% if tools is none %}{{ raise_exception('tools please') }}{% endif %}" + PLAIN_DEFAULT
    rendered = render(with_template(tokenizer, source), **ours(CHAT[1:2], [WEATHER]))
    assert rendered.text == reference.apply_chat_template(
        CHAT[1:2], tools=[WEATHER], chat_template=source, add_generation_prompt=True, tokenize=False
    )
    assert rendered.tools_count == 0
    check_adds_up(rendered)


def test_tools_mask_diffs_the_middle_and_bounds_it(monkeypatch):
    assert template_parts.tools_mask([1, 9, 2, 8, 3], [1, 2, 3]) == ([False, True, False, True, False], True)
    assert template_parts.tools_mask([1, 2], [1, 2]) == ([False, False], True)
    assert template_parts.tools_mask([5, 1, 2], [7, 1, 2]) == ([True, False, False], True)
    monkeypatch.setattr(template_parts, "DIFF_CELLS", 2)
    assert template_parts.tools_mask([1, 9, 2, 8, 3], [1, 2, 3]) == ([False, True, True, True, False], False)


def test_past_the_diff_bound_the_middle_is_the_tools_but_its_contents(small, monkeypatch):
    tokenizer, _ = small
    templated = with_template(tokenizer, STYLES["llama3.1"])  # the middle holds the system prompt
    diffed = render(templated, **ours(CHAT, [WEATHER, SEARCH]))
    monkeypatch.setattr(template_parts, "DIFF_CELLS", 0)
    bounded = render(templated, **ours(CHAT, [WEATHER, SEARCH]))
    assert bounded.ids == diffed.ids
    assert [parts_of(bounded, i, False) for i in range(5)] == [parts_of(diffed, i, False) for i in range(5)]
    assert bounded.tools_count >= diffed.tools_count
    check_adds_up(bounded)


LOOP = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"


def test_bounds_hold_with_tools(small):
    tokenizer, _ = small
    started = time.monotonic()
    with pytest.raises(InvalidInput) as refused:  # loops only when given tools
        render(with_template(tokenizer, "{% if tools %}" + LOOP + "{% endif %}ok"), **ours(CHAT[1:2], [WEATHER]))
    assert "too slow" in str(refused.value)
    with pytest.raises(InvalidInput) as refused:
        render(with_template(tokenizer, "{{ tools | tojson * 10**6 }}"), **ours(CHAT[1:2], [WEATHER]))
    assert "too much text" in str(refused.value) or "too much memory" in str(refused.value)
    # loops only without tools: the chat still renders, its tools uncounted
    rendered = render(
        with_template(tokenizer, "{% if not tools %}" + LOOP + "{% endif %}ok"), **ours(CHAT[1:2], [WEATHER])
    )
    assert rendered.text == "ok" and rendered.tools_count == 0
    assert time.monotonic() - started < 40  # generous: each bound is 5 s, on a loaded machine
