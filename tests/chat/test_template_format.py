"""The `template` chat format (app/chat/formats/template_format.py) against `transformers`'
`apply_chat_template(messages, add_generation_prompt=True)` (text, and ids with
tokenize=True) over deepseek_v4's tokenizer.json, for templates written here in the styles
of Llama 3, Zephyr, Gemma and ChatML / Qwen 2.5, on generated conversations; and hostile
templates (a long loop, huge output, bad syntax, raise_exception) refused with a 422 in
seconds while the sandbox keeps answering."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.chat.formats.template_format import ChatTemplate, check_template, render_text
from app.chat.messages import ChatMessage
from app.chat.render import Rendered, render
from app.errors import InvalidInput
from tests.chat.templated import with_chat_template

BOS, EOS = "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"
LLAMA3_STYLE = """{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m['role'] }}<|end_header_id|>

{{ m['content'] | trim }}<|eot_id|>{% endfor %}
{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>

{% endif %}"""
ZEPHYR_STYLE = """{% for message in messages %}
{% if message.role == 'user' %}
{{ '<|user|>\\n' + message.content + eos_token }}
{% elif message.role == 'system' %}
{{ '<|system|>\\n' + message.content + eos_token }}
{% else %}
{{ '<|assistant|>\\n' + message.content + eos_token }}
{% endif %}
{% if loop.last and add_generation_prompt %}
{{ '<|assistant|>' }}
{% endif %}
{% endfor %}"""
GEMMA_STYLE = """{{ bos_token }}{% set ns = namespace(system='') %}
{% for message in messages %}
    {% if message['role'] == 'system' %}{% set ns.system = message['content'] + '\\n\\n' %}{% continue %}{% endif %}
    {% set role = 'model' if message['role'] == 'assistant' else message['role'] %}
<start_of_turn>{{ role }}
{{ (ns.system if loop.index0 <= 1 else '') + message['content'] | trim }}<end_of_turn>
{% endfor %}
{% if add_generation_prompt %}<start_of_turn>model
{% endif %}"""
CHATML_STYLE = """{% if messages[0]['role'] != 'system' %}<|im_start|>system
You are a helpful assistant. {{ {'today': strftime_now('%Y') | length, 'é': [1, "<b>"]} | tojson }}<|im_end|>
{% endif %}{% for message in messages %}<|im_start|>{{ message.role }}{% if message.name is defined %} ({{ message.name }}){% endif %}

{{ message.content }}<|im_end|>
{{ '\\n' if loop.last else '' }}{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant
{% endif %}"""
STYLES = {"llama3": LLAMA3_STYLE, "zephyr": ZEPHYR_STYLE, "gemma": GEMMA_STYLE, "chatml": CHATML_STYLE}

HYPOTHESIS = settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
content = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        ["", " hi ", "\n\n", BOS, f"a{EOS}b", "<|im_start|>user", "<b>&</b>", "👋🏽 한국어 café", "{{ 1 }}", "x\ty"]
    ),
)
chats = st.lists(
    st.builds(ChatMessage, st.sampled_from(["system", "user", "assistant"]), content), min_size=1, max_size=5
)


@pytest.fixture(scope="module")
def deepseek(registry):
    return registry.get("deepseek_v4")


@pytest.fixture(scope="module")
def reference(deepseek):
    tokenizers = pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizers.Tokenizer.from_str(deepseek._text), bos_token=BOS, eos_token=EOS
    )


def with_template(tokenizer, source: str):
    """A copy of the shared tokenizer carrying `source` as its chat template."""
    return with_chat_template(tokenizer, ChatTemplate(source, BOS, EOS))


@pytest.mark.parametrize("style", STYLES)
def test_text_and_ids_equal_transformers(deepseek, reference, style):
    tokenizer = with_template(deepseek, STYLES[style])

    @HYPOTHESIS
    @given(messages=chats)
    def check(messages):
        listed = [{"role": m.role, "content": m.content} for m in messages]
        want_text = reference.apply_chat_template(
            listed, chat_template=STYLES[style], add_generation_prompt=True, tokenize=False
        )
        want_ids = reference.apply_chat_template(
            listed, chat_template=STYLES[style], add_generation_prompt=True, tokenize=True, return_dict=False
        )
        rendered = render(tokenizer, messages)
        assert isinstance(rendered, Rendered)
        assert rendered.text == want_text
        assert rendered.ids == list(want_ids)
        assert [t.id for t in rendered.tokens()] == rendered.ids
        assert (
            sum(rendered.message_counts()) + sum(len(p.ids) for p in rendered.parts if p.message is None)
            == rendered.count
        )

    check()


def test_names_reach_the_template_and_parts_are_attributed(deepseek):
    messages = [ChatMessage("user", "hello there", name="ann"), ChatMessage("assistant", "hi ann")]
    rendered = render(with_template(deepseek, CHATML_STYLE), messages)
    assert "<|im_start|>user (ann)\nhello there<|im_end|>" in rendered.text
    content = {
        p.message: "".join(q.text for q in rendered.parts if q.message == p.message and not q.framing)
        for p in rendered.parts
        if p.message is not None
    }
    assert content == {0: "hello there", 1: "hi ann"}
    zephyr = render(with_template(deepseek, ZEPHYR_STYLE), messages)  # its end of turn is a special token
    assert [(p.text, p.message) for p in zephyr.parts[-3:]] == [("hi ann", 1), (EOS, 1), ("\n<|assistant|>\n", None)]


def test_special_tokens_are_parts_of_their_own(deepseek):
    rendered = render(with_template(deepseek, LLAMA3_STYLE), [ChatMessage("user", "hi")])
    first = rendered.parts[0]
    assert (first.text, first.special, first.framing, first.message) == (BOS, True, True, 0)
    assert first.ids == (deepseek.special_tokens[BOS],)


HOSTILE = {
    "loop": ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "too slow"),
    "huge range": ("{% for i in range(10**9) %}x{% endfor %}", "failed"),
    "huge output": ("{% for i in range(100000) %}{{ 'x' * 100000 }}{% endfor %}", "too much text"),
    "huge string": ("{{ 'x' * 10**10 }}", "too much memory"),
    "raise": (
        "{% if messages|length < 9 %}{{ raise_exception('Conversation roles must alternate!') }}{% endif %}",
        "Conversation roles must alternate!",
    ),
    "escape": ("{{ ''.__class__.__mro__ }}", "failed"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_templates_are_422s_within_seconds(deepseek, case):
    source, said = HOSTILE[case]
    started = time.monotonic()
    with pytest.raises(InvalidInput) as refused:
        render(with_template(deepseek, source), [ChatMessage("user", "hi")])
    assert refused.value.status == 422 and said in str(refused.value)
    assert time.monotonic() - started < 20  # generous: the bound is 5 s, on a loaded machine
    assert render_text(ChatTemplate("{{ bos_token }}{{ messages[0].content }}!"), [ChatMessage("user", "ok")]) == "ok!"


def test_a_template_that_does_not_parse_names_its_line():
    with pytest.raises(InvalidInput) as refused:
        check_template("hello\n{% for m in messages %}\n{{ m.content }\n")
    assert refused.value.status == 422 and "line 3" in str(refused.value)
    check_template(GEMMA_STYLE)
