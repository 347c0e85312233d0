"""Chat templates with tools, written here in the styles of Llama 3.1 (tools in the first user
message, `<|python_tag|>` calls, results as `ipython`), Qwen 2.5 (`<tools>` in the system
message, `<tool_call>` JSON, `<tool_response>`) and a file with a named `tool_use` template;
a small tokenizer.json with their special tokens; and hypothesis chats with tools, calls and
results in OpenAI's JSON (shared by tests/chat and tests/api)."""

from __future__ import annotations

import json

from hypothesis import strategies as st

BOS, EOS = "<s>", "</s>"
SPECIALS = [
    BOS,
    EOS,
    "<|im_start|>",
    "<|im_end|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|python_tag|>",
]
ADDED = ["<tool_call>", "</tool_call>", "<tools>", "</tools>", "<tool_response>", "</tool_response>"]

LLAMA31_STYLE = """{{- bos_token }}
{%- if messages[0].role == 'system' %}
{%- set system = messages[0].content | trim %}
{%- set messages = messages[1:] %}
{%- else %}
{%- set system = '' %}
{%- endif %}
<|start_header_id|>system<|end_header_id|>

{% if tools is not none %}Environment: ipython
{% endif %}Cutting Knowledge Date: December 2023

{{ system }}<|eot_id|>
{%- if tools is not none %}
{%- if messages | length == 0 or messages[0].role != 'user' %}
{{- raise_exception('With tools, the first message after the system prompt is the user\\'s') }}
{%- endif %}
<|start_header_id|>user<|end_header_id|>

Given the following functions, answer with a JSON function call.

{% for t in tools %}{{ t | tojson(indent=4) }}

{% endfor %}{{ messages[0].content | trim }}<|eot_id|>
{%- set messages = messages[1:] %}
{%- endif %}
{%- for message in messages %}
{%- if 'tool_calls' in message %}
<|start_header_id|>assistant<|end_header_id|>

{% for call in message.tool_calls %}<|python_tag|>{"name": "{{ call.function.name }}", "parameters": \
{{ call.function.arguments | tojson }}}{% endfor %}<|eom_id|>
{%- elif message.role in ('tool', 'ipython') %}
<|start_header_id|>ipython<|end_header_id|>

{% if message.content is mapping or message.content is iterable %}{{ message.content | tojson }}\
{% else %}{{ message.content }}{% endif %}<|eot_id|>
{%- else %}
<|start_header_id|>{{ message.role }}<|end_header_id|>

{{ message.content | trim }}<|eot_id|>
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
<|start_header_id|>assistant<|end_header_id|>

{% endif %}"""

QWEN25_STYLE = """{%- if tools %}
<|im_start|>system
{% if messages[0].role == 'system' %}{{ messages[0].content }}{% else %}You are a helpful assistant.{% endif %}


# Tools

You may call functions. Their signatures are within <tools></tools>:
<tools>
{% for tool in tools %}{{ tool | tojson }}
{% endfor %}</tools>

Answer a call as <tool_call>{"name": <function-name>, "arguments": <args-json-object>}</tool_call><|im_end|>
{% elif messages[0].role == 'system' %}<|im_start|>system
{{ messages[0].content }}<|im_end|>
{% else %}<|im_start|>system
You are a helpful assistant.<|im_end|>
{% endif %}
{%- for message in messages %}
{%- if message.role == 'system' and loop.first %}{% continue %}{% endif %}
{%- if message.role == 'tool' %}
{%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}<|im_start|>user{% endif %}

<tool_response>
{{ message.content }}
</tool_response>
{%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}<|im_end|>
{% endif %}
{%- elif message.role == 'assistant' and message.tool_calls is defined %}<|im_start|>assistant
{% if message.content %}{{ message.content }}
{% endif %}
{%- for call in message.tool_calls %}<tool_call>
{"name": "{{ call.function.name }}", "arguments": {% if call.function.arguments is string %}\
{{ call.function.arguments }}{% else %}{{ call.function.arguments | tojson }}{% endif %}}
</tool_call>{% if not loop.last %}
{% endif %}{% endfor %}<|im_end|>
{% else %}<|im_start|>{{ message.role }}{% if message.name is defined %} {{ message.name }}{% endif %}

{{ message.content }}<|im_end|>
{% endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}"""

# a file with two named templates: chats use "default"; with tools, transformers picks "tool_use"
PLAIN_DEFAULT = """{% for m in messages %}<|im_start|>{{ m.role }}
{{ m.content if m.content is defined else '' }}<|im_end|>
{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant
{% endif %}"""
HERMES_TOOL_USE = """<|im_start|>system
You are a function calling model. <tools> {{ tools | tojson }} </tools><|im_end|>
{% for m in messages %}<|im_start|>{{ m.role }}
{% if m.tool_calls is defined %}{% for c in m.tool_calls %}<tool_call>
{"arguments": {{ c.function.arguments | tojson }}, "name": {{ c.function.name | tojson }}}
</tool_call>{% endfor %}{% else %}{{ m.content }}{% endif %}<|im_end|>
{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant
{% endif %}"""
NAMED = {"default": PLAIN_DEFAULT, "tool_use": HERMES_TOOL_USE}
STYLES = {"llama3.1": LLAMA31_STYLE, "qwen2.5": QWEN25_STYLE}


def tokenizer_json() -> str:
    """The byte-level BPE of tests/hf_trained.py with the templates' tokens added."""
    import tokenizers
    from tests.hf_trained import trained_json

    library = tokenizers.Tokenizer.from_str(trained_json("byte_level"))
    library.add_special_tokens(SPECIALS)
    library.add_tokens(ADDED)  # Qwen's tool markers are ordinary added tokens
    return library.to_str()


text = st.one_of(
    st.text(max_size=20),
    st.sampled_from(
        ["", " hi ", "\n", "<|eot_id|>", '{"a": 1}', "<b>&</b>", "👋🏽 café", "{{ 1 }}", "x\ty", '"quoted"']
    ),
)
schemas = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {
            "type": st.just("object"),
            "properties": st.dictionaries(
                st.sampled_from(["city", "unit", "q", "ünï"]),
                st.fixed_dictionaries({"type": st.sampled_from(["string", "integer"]), "description": text}),
                max_size=3,
            ),
            "required": st.lists(st.sampled_from(["city", "q"]), max_size=2, unique=True),
        }
    ),
)
NAMES = ["get_weather", "search", "lookup-2", "x"]


@st.composite
def tool_lists(draw) -> list[dict]:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True))
    tools = []
    for name in names:
        function = {"name": name}
        if (description := draw(st.one_of(st.none(), text))) is not None:
            function["description"] = description
        if (parameters := draw(schemas)) is not None:
            function["parameters"] = parameters
        if draw(st.booleans()):  # OpenAI's `strict`, and keys in another order: a template sees the tool as sent
            function = {"strict": draw(st.booleans()), **dict(reversed(function.items()))}
        tools.append(
            {"type": "function", "function": function}
            if draw(st.booleans())
            else {"function": function, "type": "function"}
        )
    return tools


@st.composite
def tool_chats(draw) -> tuple[list[dict], list[dict]]:
    """(messages, tools) in OpenAI's JSON: an optional system prompt, a user message, then turns of
    assistant text, user text, or assistant calls followed by one result per call."""
    tools = draw(tool_lists())
    names = [tool["function"]["name"] for tool in tools]
    messages = [{"role": "system", "content": draw(text)}] if draw(st.booleans()) else []
    messages.append({"role": "user", "content": draw(text)})
    calls = 0
    for turn in draw(st.lists(st.sampled_from(["assistant", "user", "calls"]), max_size=4)):
        if turn != "calls":
            messages.append({"role": turn, "content": draw(text)})
            continue
        made = []
        for name in draw(st.lists(st.sampled_from(names), min_size=1, max_size=2)):
            calls += 1
            arguments = json.dumps(
                draw(st.dictionaries(st.sampled_from(["city", "q"]), text, max_size=2)),
                ensure_ascii=draw(st.booleans()),
            )
            made.append({"id": f"call{calls}", "type": "function", "function": {"name": name, "arguments": arguments}})
        messages.append(
            {"role": "assistant", "content": draw(st.one_of(st.none(), text.filter(bool))), "tool_calls": made}
        )
        for call in made:
            result = {"role": "tool", "tool_call_id": call["id"], "content": draw(text)}
            if draw(st.booleans()):
                result["name"] = call["function"]["name"]
            messages.append(result)
    return messages, tools
