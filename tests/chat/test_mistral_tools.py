"""The `mistral` format's tools (app/chat/formats/mistral_format.py, app/chat/formats/mistral_tools.py) against
mistral-common's `encode_chat_completion(ChatCompletionRequest.from_openai(messages, tools))`,
on chats generated here: definitions, assistant tool calls and tool results in the orders
Mistral takes, and broken ones (wrong ids, names, orders, schemas). Either both refuse or the
ids are equal, for mistral_v3 and mistral_tekken; mistral_v1 refuses tools."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.chat.formats.mistral_format import MISTRAL
from app.chat.messages import ChatMessage, Tool, ToolCall
from app.chat.render import render
from app.errors import InvalidInput
from tests.reference import mistral_chat_reference

TOOLED = ["mistral_v3", "mistral_tekken"]
HYPOTHESIS = settings(
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def openai_rows(messages, tools):
    """Our chat as an OpenAI request's messages and tools."""
    rows = []
    for m in messages:
        row = {"role": m.role, "content": m.content}
        if m.tool_calls:
            row["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in m.tool_calls
            ]
            row["content"] = m.content or None
        if m.role == "tool":
            row["tool_call_id"] = m.tool_call_id
            if m.name is not None:
                row["name"] = m.name
        elif m.name is not None:
            row["name"] = m.name
        rows.append(row)
    listed = [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in tools
    ]
    return rows, listed


def reference(name, messages, tools):
    """mistral-common's ids, or the exception it raises."""
    from mistral_common.protocol.instruct.request import ChatCompletionRequest

    try:
        if any(m.name is not None and m.role != "tool" for m in messages):
            raise ValueError("mistral-common's messages have no name but a tool result's")
        rows, listed = openai_rows(messages, tools)
        request = ChatCompletionRequest.from_openai(rows, tools=listed or None)
        return mistral_chat_reference(name).encode_chat_completion(request).tokens
    except Exception as error:
        return error


def mostly(good, bad):
    """`good`, one time in twenty `bad`."""
    return st.integers(0, 19).flatmap(lambda n: bad if n == 0 else good)


NAMES = ["get_weather", "search", "send-mail", "f"]
call_ids = mostly(
    st.sampled_from(["abcDEF123", "000000000", "Zz9Zz9Zz9", "q1w2e3r4t"]),
    st.sampled_from(["", "null", "abc", "call_abc123", "abcDEF12!", "abcDEF123\n"]),
)
text = st.one_of(st.text(max_size=30), st.sampled_from(["", "[INST]", "[TOOL_CALLS] x", 'é "quoted" \\ 👋🏽', " "]))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False, width=32) | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)
json_texts = st.one_of(
    json_values.map(lambda v: json.dumps(v, ensure_ascii=False)),
    json_values.map(lambda v: json.dumps(v, indent=1)),  # spaces and \uXXXX escapes mistral-common re-serialises
    text,  # mostly not JSON: written as a JSON string
)
properties = st.dictionaries(
    st.sampled_from(["city", "unit", "q", "días", "n"]),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["string", "integer", "number", "boolean"])},
        optional={"description": text, "enum": st.lists(st.text(max_size=5), max_size=3), "minimum": st.integers(0, 9)},
    ),
    max_size=3,
)
good_schemas = st.builds(
    lambda p, r: {"type": "object", "properties": p, **({"required": sorted(p)[:1]} if r else {})},
    properties,
    st.booleans(),
)
bad_schemas = st.sampled_from(
    [
        {"type": "strnig"},
        {"type": []},
        {"type": ["string", "string"]},
        {"required": "city"},
        {"required": ["a", "a"]},
        {"properties": {"x": 5}},
        {"minLength": -1},
        {"maxItems": 1.5},
        {"pattern": "("},
        {"items": []},
        {"patternProperties": {"[": {}}},
        {"anyOf": []},
        {"multipleOf": 0},
        {"enum": "a"},
        {"description": 3},
        {"properties": {"x": {"type": "object", "properties": {"y": {"minimum": "0"}}}}},
        {"dependencies": {"a": ["b", "b"]}},
        {"uniqueItems": 1},
        {"maxLength": True},
    ]
)
tools_lists = st.lists(
    st.builds(
        Tool,
        mostly(st.sampled_from(NAMES), st.sampled_from(["", "bad name", "x" * 65, "ok\n"])),
        st.none() | text,
        mostly(st.none() | good_schemas | st.just({}), bad_schemas),
    ),
    max_size=3,
).map(tuple)


@st.composite
def tool_chats(draw):
    """system?, user, then turns of text or calls (with a result per call, sometimes one too few or
    many), a user or a tool result last; sometimes the roles in any order."""

    def calls():
        return tuple(
            ToolCall(draw(call_ids), draw(mostly(st.sampled_from(NAMES), st.just("no such!"))), draw(json_texts))
            for _ in range(draw(st.integers(1, 3)))
        )

    def result(call_id):
        return ChatMessage(
            "tool",
            draw(json_texts),
            name=draw(st.none() | mostly(st.sampled_from(NAMES), st.just("bad name"))),
            tool_call_id=call_id,
        )

    if draw(st.integers(0, 5)) == 0:
        roles = draw(
            st.lists(st.sampled_from(["system", "user", "assistant", "tool", "calls"]), min_size=1, max_size=6)
        )
        return [
            ChatMessage("assistant", "", tool_calls=calls())
            if role == "calls"
            else result(draw(call_ids))
            if role == "tool"
            else ChatMessage(role, draw(text.filter(bool)))
            for role in roles
        ]
    messages = [ChatMessage("system", draw(text))] * draw(st.integers(0, 1)) + [ChatMessage("user", draw(text))]
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.integers(0, 2)):
            made = calls()
            messages.append(ChatMessage("assistant", "", tool_calls=made))
            answered = [c.id for c in made] + [draw(call_ids)] * (draw(st.integers(0, 9)) == 0)
            messages += [result(i) for i in answered[: len(answered) - (draw(st.integers(0, 9)) == 0)]]
        else:
            messages.append(ChatMessage("assistant", draw(text.filter(bool))))
        if draw(st.booleans()):
            messages.append(ChatMessage("user", draw(text)))
    if messages[-1].role == "assistant":
        messages.append(ChatMessage("user", draw(text)))
    return messages


def check_parts(rendered):
    tokens = rendered.tokens()
    assert [t.id for t in tokens] == rendered.ids
    assert b"".join(t.bytes for t in tokens) == rendered.text.encode("utf-8")  # tokens spell the prompt
    content = sum(len(p.ids) for p in rendered.parts if not p.framing and not p.tools)
    assert rendered.overhead + rendered.tools_count + content == rendered.count
    assert sum(rendered.message_counts()) + rendered.tools_count == rendered.count  # definitions are in no message
    assert all(p.message is None for p in rendered.parts if p.tools)


@pytest.mark.parametrize("name", TOOLED)
def test_ids_equal_mistral_common_or_both_refuse(registry, name):
    tokenizer = registry.get(name)

    @HYPOTHESIS
    @given(messages=tool_chats(), tools=tools_lists)
    def check(messages, tools):
        expected = reference(name, messages, tools)
        if isinstance(expected, Exception):
            with pytest.raises(InvalidInput):
                MISTRAL.render(tokenizer, messages, tools)
        else:
            rendered = MISTRAL.render(tokenizer, messages, tools)
            assert rendered.ids == expected
            check_parts(rendered)

    check()


WEATHER = Tool("get_weather", "Get the wéather", {"type": "object", "properties": {"city": {"type": "string"}}})
WORKED = [
    ChatMessage("system", "Be brief."),
    ChatMessage("user", "Paris?"),
    ChatMessage("assistant", "", tool_calls=(ToolCall("abcDEF123", "get_weather", '{"city":"Paris"}'),)),
    ChatMessage("tool", '{"temp": 21}', tool_call_id="abcDEF123"),
    ChatMessage("assistant", "21 °C"),
    ChatMessage("user", "Thanks"),
]
WORKED_TEXT = (
    '<s>[INST]Paris?[/INST][TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "abcDEF123"}]</s>'
    '[TOOL_RESULTS]{"content": {"temp": 21}, "call_id": "abcDEF123"}[/TOOL_RESULTS]21 °C</s>'
    '[AVAILABLE_TOOLS][{"type": "function", "function": {"name": "get_weather", "description": "Get the wéather", '
    '"parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}][/AVAILABLE_TOOLS]'
    "[INST]Be brief.\n\nThanks[/INST]"
)


@pytest.mark.parametrize(
    "name, specials",
    [("mistral_v3", [1, 3, 4, 5, 2, 8, 9, 2, 6, 7, 3, 4]), ("mistral_tekken", [1, 3, 4, 9, 2, 7, 8, 2, 5, 6, 3, 4])],
)
def test_worked_example(registry, name, specials):
    rendered = render(registry.get(name), WORKED, tools=(WEATHER,))
    assert rendered.text == WORKED_TEXT and rendered.ids == reference(name, WORKED, (WEATHER,))
    assert [t.id for t in rendered.tokens() if t.special] == specials
    check_parts(rendered)
    tools_text = "".join(p.text for p in rendered.parts if p.tools)
    assert tools_text.startswith("[AVAILABLE_TOOLS][{") and tools_text.endswith("}}}}}][/AVAILABLE_TOOLS]")
    assert rendered.tools_count > 20 and rendered.message_counts()[2] > 10 and rendered.message_counts()[3] > 5
    # a call's arguments and a result's content are content; the JSON around them, framing
    content = {i: "".join(p.text for p in rendered.parts if p.message == i and not p.framing) for i in (2, 3)}
    assert "Paris" in content[2] and '"name"' not in content[2] and "21" in content[3] and "call_id" not in content[3]


@pytest.mark.parametrize(
    "messages, tools",
    [
        ([ChatMessage("user", "hi")], (WEATHER,)),
        (WORKED, ()),
        ([ChatMessage("user", "hi"), ChatMessage("tool", "{}", tool_call_id="abcDEF123")], ()),
    ],
)
def test_mistral_v1_has_no_tools(registry, messages, tools):
    with pytest.raises(InvalidInput) as raised:  # the format itself: render() first refuses calls to no listed tool
        MISTRAL.render(registry.get("mistral_v1"), messages, tools)
    assert "mistral_v1" in raised.value.message and "mistral_v3 or mistral_tekken" in raised.value.message


CALL = (ToolCall("abcDEF123", "get_weather", "{}"),)


@pytest.mark.parametrize(
    "messages, tools, words",
    [
        ([ChatMessage("user", "hi")], (Tool("bad name"),), "not a Mistral function name"),
        ([ChatMessage("user", "hi")], (Tool("f", parameters={"type": "strnig"}),), "'type' must be one of array"),
        (
            [ChatMessage("user", "hi")],
            (Tool("f", parameters={"properties": {"a": {"pattern": "("}}}),),
            "the schema's properties['a']'s 'pattern' must be a valid regular expression",
        ),
        (
            [
                ChatMessage("user", "hi"),
                ChatMessage("assistant", "", tool_calls=(ToolCall("call_1", "f", "{}"),)),
                ChatMessage("tool", "{}", tool_call_id="call_1"),
            ],
            (),
            "exactly 9 letters or digits",
        ),
        (
            [ChatMessage("user", "hi"), ChatMessage("assistant", "", tool_calls=CALL), ChatMessage("tool", "{}")],
            (),
            "without a tool_call_id",
        ),
        (
            [ChatMessage("user", "hi"), ChatMessage("tool", "{}", tool_call_id="abcDEF123")],
            (),
            "a tool message right after a user message",
        ),
        (
            [
                ChatMessage("user", "hi"),
                ChatMessage("assistant", "yes", tool_calls=CALL),
                ChatMessage("tool", "{}", tool_call_id="abcDEF123"),
            ],
            (),
            "both content and tool calls",
        ),
        (
            [
                ChatMessage("user", "hi"),
                ChatMessage("assistant", "", tool_calls=CALL),
                ChatMessage("assistant", "a"),
                ChatMessage("user", "x"),
            ],
            (),
            "fewer tool results than calls",
        ),
        (
            [
                ChatMessage("user", "hi"),
                ChatMessage("assistant", "", tool_calls=CALL),
                ChatMessage("tool", "{}", tool_call_id="abcDEF123"),
                ChatMessage("tool", "{}", tool_call_id="abcDEF123"),
                ChatMessage("assistant", "a"),
                ChatMessage("user", "x"),
            ],
            (),
            "more tool results than calls",
        ),
        (
            [
                ChatMessage("user", "hi"),
                ChatMessage("assistant", "a"),
                ChatMessage("assistant", "", tool_calls=CALL),
                ChatMessage("tool", "{}", tool_call_id="abcDEF123"),
            ],
            (),
            "one with text and one with tool calls",
        ),
    ],
)
@pytest.mark.parametrize("name", TOOLED)
def test_refusals_name_the_problem(registry, name, messages, tools, words):
    assert isinstance(reference(name, messages, tools), Exception)  # mistral-common refuses these too
    with pytest.raises(InvalidInput) as raised:
        MISTRAL.render(registry.get(name), messages, tools)
    assert words in raised.value.message


def test_deeply_nested_arguments_are_refused_not_a_crash(registry):
    messages = [
        ChatMessage("user", "hi"),
        ChatMessage("assistant", "", tool_calls=(ToolCall("abcDEF123", "f", "[" * 100_000 + "]" * 100_000),)),
        ChatMessage("tool", "{}", tool_call_id="abcDEF123"),
    ]
    with pytest.raises(InvalidInput) as raised:
        MISTRAL.render(registry.get("mistral_v3"), messages, ())
    assert "nested too deeply" in raised.value.message


@pytest.mark.parametrize("escaped", ['"\\ud800"', '{"a": "x\\udfff"}'])
def test_lone_surrogate_escapes_are_u_fffd(registry, escaped):
    """Tekken writes a lone surrogate as U+FFFD (mistral-common's ids); SentencePiece cannot take
    one (mistral-common fails), so mistral_v3 gets U+FFFD's ids too, as everywhere in the API."""

    def chat(arguments):
        return [
            ChatMessage("user", "hi"),
            ChatMessage("assistant", "", tool_calls=(ToolCall("abcDEF123", "f", arguments),)),
            ChatMessage("tool", arguments, tool_call_id="abcDEF123"),
        ]

    replaced = escaped.replace("\\ud800", "\ufffd").replace("\\udfff", "\ufffd")
    tekken = MISTRAL.render(registry.get("mistral_tekken"), chat(escaped), ())
    assert tekken.ids == reference("mistral_tekken", chat(escaped), ()) and "\ufffd" in tekken.text
    v3 = MISTRAL.render(registry.get("mistral_v3"), chat(escaped), ())
    assert v3.ids == reference("mistral_v3", chat(replaced), ())


def calling(*ids):
    return ChatMessage("assistant", "", tool_calls=tuple(ToolCall(i, "f", '{"n": 1}') for i in ids))


def answer(call_id, content="ok"):
    return ChatMessage("tool", content, tool_call_id=call_id)


EDGES = {
    "only a system prompt": [ChatMessage("system", "s")],
    "a tool result first": [answer("abcDEF123"), ChatMessage("user", "u")],
    "three calls, three results": [
        ChatMessage("user", "u"),
        calling("abcDEF123", "Zz9Zz9Zz9", "q1w2e3r4t"),
        answer("abcDEF123"),
        answer("Zz9Zz9Zz9"),
        answer("q1w2e3r4t"),
    ],
    "ends with results": [ChatMessage("user", "u"), calling("abcDEF123"), answer("abcDEF123", "")],
    "results then text": [
        ChatMessage("user", "u"),
        calling("abcDEF123"),
        answer("abcDEF123", "[1, 2]"),
        ChatMessage("assistant", "done  "),
        ChatMessage("user", ""),
    ],
}


@pytest.mark.parametrize("chat", EDGES, ids=list(EDGES))
@pytest.mark.parametrize("name", TOOLED)
def test_edge_chats_equal_mistral_common(registry, name, chat):
    rendered = MISTRAL.render(registry.get(name), EDGES[chat], (WEATHER, Tool("f")))
    assert rendered.ids == reference(name, EDGES[chat], (WEATHER, Tool("f")))
    check_parts(rendered)
