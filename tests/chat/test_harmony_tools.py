"""The harmony format with function tools, calls and results (app/chat/formats/harmony_format.py):
ids equal openai-harmony's `render_conversation_for_completion(conversation, Role.ASSISTANT)`
on chats and JSON schemas generated here (every schema feature the library renders: types,
enums, nested objects, arrays, type lists, oneOf, nullable, titles, examples, defaults of
every JSON kind, Unicode), and the counts add up (overhead + tools + content)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.chat.formats.harmony_format import HARMONY
from app.chat.formats.harmony_schema import tools_section
from app.chat.messages import ChatMessage, Tool, ToolCall
from app.errors import InvalidInput
from tests.reference import harmony_reference


def render(tokenizer, messages, tools=()):
    """The harmony format itself: render() first runs the checks every format shares
    (app/chat/tools.py), which refuse some chats openai-harmony renders (arguments that are
    not JSON, calls to unlisted tools); this file compares the rendering alone."""
    return HARMONY.render(tokenizer, messages, tools)


HYPOTHESIS = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

text = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        ["", " ", "\n", "a\r\nb\n\nc\n", "a\r", "<|end|>", "👋🏽 한국어 café", "<|call|>", "# Tools", "  trailing  "]
    ),
)
keys = st.one_of(st.from_regex(r"[a-z_][a-zA-Z0-9_]{0,10}", fullmatch=True), st.text(min_size=1, max_size=8))
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False, allow_infinity=False), text
)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3), max_leaves=6
)
type_names = st.sampled_from(["string", "number", "integer", "boolean", "array", "object", "null", "date"])
annotations = st.fixed_dictionaries(
    {},
    optional={
        "description": text,
        "title": text,
        "default": json_values,
        "nullable": st.one_of(st.booleans(), scalars),
        "examples": st.lists(st.one_of(text, scalars), max_size=3),
    },
)


def annotated(base):
    return st.builds(lambda schema, extra: {**schema, **extra}, base, annotations)


leaves = annotated(
    st.one_of(
        st.builds(dict),
        st.fixed_dictionaries(
            {"type": st.just("string")}, optional={"enum": st.lists(st.one_of(text, scalars), max_size=4)}
        ),
        st.fixed_dictionaries({"type": type_names}),
        st.fixed_dictionaries({"type": st.lists(st.one_of(type_names, scalars), max_size=3)}),
        st.fixed_dictionaries({"type": st.sampled_from(["integer", "number"]), "enum": st.lists(scalars, max_size=3)}),
    )
)


@st.composite
def objects(draw, children):
    properties = draw(st.dictionaries(keys, children, max_size=4))
    schema = {"type": "object", "properties": properties}
    if draw(st.booleans()):
        schema["required"] = draw(
            st.lists(st.one_of(st.sampled_from(sorted(properties) or ["x"]), keys, scalars), max_size=4)
        )
    return draw(annotated(st.just(schema)))


def extend(children):
    return st.one_of(
        objects(children),
        annotated(st.fixed_dictionaries({"type": st.just("array")}, optional={"items": children})),
        annotated(st.fixed_dictionaries({"oneOf": st.lists(children, max_size=3)})),
        annotated(st.fixed_dictionaries({"oneOf": scalars, "type": type_names})),
    )


schemas = st.recursive(leaves, extend, max_leaves=12)
parameters = st.one_of(st.none(), st.just({}), objects(schemas), schemas.filter(lambda s: isinstance(s, dict)))
tool_lists = st.lists(
    st.builds(Tool, st.from_regex(r"[A-Za-z0-9_-]{1,20}", fullmatch=True), st.none() | text, parameters),
    max_size=4,
    unique_by=lambda tool: tool.name,
)
arguments = st.one_of(json_values.map(lambda v: json.dumps(v, ensure_ascii=False)), text)
names = st.one_of(st.none(), st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True))


@st.composite
def chats(draw, tools):
    functions = [tool.name for tool in tools] or ["lookup"]
    messages, calls = [], []
    if draw(st.booleans()):
        messages.append(ChatMessage("system", draw(text)))
    for _ in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(["system", "developer", "user", "assistant", "call", "result"]))
        if kind == "call":
            made = tuple(
                ToolCall(f"call_{len(calls) + n}", draw(st.sampled_from(functions)), draw(arguments))
                for n in range(draw(st.integers(1, 3)))
            )
            calls += made
            messages.append(ChatMessage("assistant", draw(st.just("") | text), draw(names), tool_calls=made))
        elif kind == "result" and calls:
            call = draw(st.sampled_from(calls))
            messages.append(
                ChatMessage("tool", draw(text), draw(st.sampled_from([None, call.name])), tool_call_id=call.id)
            )
        elif kind != "result":
            messages.append(ChatMessage(kind, draw(text), draw(names)))
    return messages or [ChatMessage("user", "hi")]


def harmony_ids(messages, tools) -> list[int]:
    """openai-harmony's ids for our chat, mapped as app/chat/formats/harmony_format.py documents: the
    first developer message takes the tools, else a developer message of its own after the
    leading system messages; calls on commentary to functions.NAME; results from functions.NAME."""
    from openai_harmony import Author, Conversation, DeveloperContent, Message, Role, ToolDescription

    described = [ToolDescription.new(t.name, t.description or "", t.parameters) for t in tools]
    holder = next((i for i, m in enumerate(messages) if m.role == "developer"), None) if tools else None
    leading = next((i for i, m in enumerate(messages) if m.role != "system"), len(messages))
    only_tools = Message.from_role_and_content(Role.DEVELOPER, DeveloperContent.new().with_function_tools(described))
    out, called = [], {}
    for index, m in enumerate(messages):
        if tools and holder is None and index == leading:
            out.append(only_tools)
        if index == holder:
            content = DeveloperContent.new().with_instructions(m.content).with_function_tools(described)
            out.append(Message.from_author_and_content(Author.new(Role.DEVELOPER, m.name), content))
        elif m.role == "tool":
            author = Author.new(Role.TOOL, f"functions.{called[m.tool_call_id]}")
            out.append(
                Message.from_author_and_content(author, m.content)
                .with_channel("commentary")
                .with_recipient("assistant")
            )
        else:
            if m.content or not m.tool_calls:
                out.append(Message.from_author_and_content(Author.new(Role(m.role), m.name), m.content))
            for call in m.tool_calls:
                called[call.id] = call.name
                out.append(
                    Message.from_author_and_content(Author.new(Role.ASSISTANT, m.name), call.arguments)
                    .with_channel("commentary")
                    .with_recipient(f"functions.{call.name}")
                    .with_content_type("<|constrain|>json")
                )
    if tools and holder is None and leading == len(messages):
        out.append(only_tools)
    return harmony_reference().render_conversation_for_completion(Conversation.from_messages(out), Role.ASSISTANT)


def check_counts(tokenizer, rendered, messages, tools):
    content = sum(len(part.ids) for part in rendered.parts if not part.framing)
    assert rendered.overhead + rendered.tools_count + content == rendered.count
    assert (rendered.tools_count > 0) == bool(tools)
    outside = sum(len(part.ids) for part in rendered.parts if part.message is None and not part.tools)
    assert sum(rendered.message_counts()) + rendered.tools_count + outside == rendered.count
    assert len(rendered.message_counts()) == len(messages)
    tokens = rendered.tokens()
    assert [t.id for t in tokens] == rendered.ids
    assert b"".join(t.bytes for t in tokens) == rendered.text.encode("utf-8")
    if tools:  # the tools' parts spell the # Tools section, after the "\n\n" before it in a chat's developer
        # message, and the end of its instructions where a token spans that seam (":\n\n" is one token)
        written = "".join(part.text for part in rendered.parts if part.tools)
        developer = next((m.content for m in messages if m.role == "developer"), None)
        seam = written.removesuffix(tools_section(tools))
        assert written.endswith(tools_section(tools))
        assert seam == "" if developer is None else f"# Instructions\n\n{developer}\n\n".endswith(seam) and seam


def test_tools_calls_and_results_equal_openai_harmony(registry):
    tokenizer = registry.get("o200k_harmony")

    @HYPOTHESIS
    @given(data=st.data(), tools=tool_lists)
    def check(data, tools):
        messages = data.draw(chats(tools))
        rendered = render(tokenizer, messages, tools=tools)
        assert rendered.ids == harmony_ids(messages, tools)
        check_counts(tokenizer, rendered, messages, tools)

    check()


def test_defaults_of_every_number_print_as_the_library_does(registry):
    """Floats and big integers in a default are serde_json's (1e16, 0.00001, 1.8446744073709552e19)."""
    tokenizer = registry.get("o200k_harmony")
    numbers = st.one_of(
        st.floats(allow_nan=False, allow_infinity=False),
        st.integers(-(2**80), 2**80),
        st.sampled_from([0.0, -0.0, 1e15, 1e16, 1e17, 1e-5, 1e-4, 123456789012.5, 2**63, -(2**63) - 1, 2**64]),
    )

    @HYPOTHESIS
    @given(defaults=st.lists(numbers, min_size=1, max_size=20))
    def check(defaults):
        tools = [Tool("f", None, {"type": "object", "properties": {"n": {"type": "number", "default": defaults}}})]
        messages = [ChatMessage("user", "hi")]
        assert render(tokenizer, messages, tools=tools).ids == harmony_ids(messages, tools)

    check()


WEATHER = [
    Tool("get_location", "Gets the location of the user."),
    Tool(
        "get_current_weather",
        "Gets the current weather in the provided location.",
        {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "format": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
            },
            "required": ["location"],
        },
    ),
]


def test_the_documented_example(registry):
    """openai-harmony's format guide's two-function developer message, call and result."""
    assert tools_section(WEATHER) == (
        "# Tools\n\n## functions\n\nnamespace functions {\n\n// Gets the location of the user.\ntype get_location = () => any;\n\n"
        "// Gets the current weather in the provided location.\ntype get_current_weather = (_: {\n"
        "// The city and state, e.g. San Francisco, CA\nlocation: string,\n"
        'format?: "celsius" | "fahrenheit", // default: celsius\n}) => any;\n\n} // namespace functions'
    )
    messages = [
        ChatMessage("system", "You are ChatGPT."),
        ChatMessage("developer", "Use a friendly tone."),
        ChatMessage("user", "What is the weather like in SF?"),
        ChatMessage(
            "assistant", "", tool_calls=(ToolCall("c1", "get_current_weather", '{"location":"San Francisco"}'),)
        ),
        ChatMessage("tool", '{"sunny": true, "temperature": 20}', tool_call_id="c1"),
    ]
    rendered = render(registry.get("o200k_harmony"), messages, tools=WEATHER)
    assert rendered.ids == harmony_ids(messages, WEATHER)
    assert rendered.text.startswith(
        "<|start|>system<|message|>You are ChatGPT.<|end|><|start|>developer<|message|>"
        "# Instructions\n\nUse a friendly tone.\n\n# Tools\n\n## functions"
    )
    assert (
        "<|start|>assistant to=functions.get_current_weather<|channel|>commentary <|constrain|>json<|message|>"
        '{"location":"San Francisco"}<|call|><|start|>functions.get_current_weather to=assistant<|channel|>'
        'commentary<|message|>{"sunny": true, "temperature": 20}<|end|><|start|>assistant'
    ) in rendered.text
    check_counts(registry.get("o200k_harmony"), rendered, messages, WEATHER)
    # the call's arguments and the result are content; the tools are neither content nor overhead; the
    # token ".\n\n" spans the instructions' end and the tools' start: it goes where its last character is
    content = [part.text for part in rendered.parts if not part.framing and part.text]
    assert content == [
        "You are ChatGPT.",
        "Use a friendly tone",
        "What is the weather like in SF?",
        '{"location":"San Francisco"}',
        '{"sunny": true, "temperature": 20}',
    ]
    assert rendered.tools_count == len(registry.get("o200k_harmony").encode(".\n\n" + tools_section(WEATHER)))


def test_without_a_developer_message_the_tools_get_one_of_their_own(registry):
    tokenizer = registry.get("o200k_harmony")
    messages = [ChatMessage("system", "s"), ChatMessage("user", "hi")]
    rendered = render(tokenizer, messages, tools=WEATHER)
    assert rendered.ids == harmony_ids(messages, WEATHER)
    assert rendered.text.startswith("<|start|>system<|message|>s<|end|><|start|>developer<|message|># Tools\n\n")
    check_counts(tokenizer, rendered, messages, WEATHER)
    mine = [part for part in rendered.parts if part.message is None]
    assert {part.text for part in mine if part.framing and not part.tools} >= {"<|start|>", "developer", "<|end|>"}


@pytest.mark.parametrize(
    "messages, tools, words",
    [
        ([ChatMessage("tool", "x")], (), "without a tool_call_id"),
        ([ChatMessage("tool", "x", tool_call_id="nope")], (), "no earlier assistant message made"),
        (
            [
                ChatMessage("assistant", "", tool_calls=(ToolCall("a", "f", "{}"),)),
                ChatMessage("tool", "x", "g", tool_call_id="a"),
            ],
            (),
            "leave the name out",
        ),
        ([ChatMessage("user", "x", tool_calls=(ToolCall("a", "f", "{}"),))], (), "only assistant messages call tools"),
        ([ChatMessage("user", "x", tool_call_id="a")], (), "only tool messages answer calls"),
        ([ChatMessage("user", "x")], [Tool("f", None, {"type": "object", "default": float("nan")})], "finite number"),
        (
            [ChatMessage("user", "x")],
            [Tool("f", None, {"type": "object", "properties": {"a": {"default": 10**400}}})],
            "finite number",
        ),
    ],
)
def test_what_harmony_cannot_render_is_a_clear_refusal(registry, messages, tools, words):
    with pytest.raises(InvalidInput, match=words):
        render(registry.get("o200k_harmony"), messages, tools=tools)


def test_a_tool_message_named_for_its_function_needs_no_id(registry):
    messages = [ChatMessage("user", "hi"), ChatMessage("tool", "42", "get_location")]
    rendered = render(registry.get("o200k_harmony"), messages)
    assert rendered.text.endswith(
        "<|start|>functions.get_location to=assistant<|channel|>commentary<|message|>42<|end|><|start|>assistant"
    )
