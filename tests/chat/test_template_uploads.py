"""Reading a user's chat template file (app/chat/formats/template_files.py) without a server: which
shape a file is (a bare Jinja template starts with `{{` or `{%` as often as a JSON config
starts with `{`), the refusals and their messages, and a rendered chat's per-message counts
when the template drops a message."""

from __future__ import annotations

import json

import pytest

from app.chat.formats import template_files
from app.chat.formats.template_format import ChatTemplate
from app.chat.messages import ChatMessage
from app.chat.render import render
from app.errors import InvalidInput
from tests.chat.templated import with_chat_template
from tests.chat.test_template_format import BOS, EOS, STYLES


@pytest.mark.parametrize("style", STYLES)
def test_a_bare_template_is_a_template_whatever_it_starts_with(style):
    source = STYLES[style]
    assert template_files.read(source.encode(), "chat_template.jinja") == ChatTemplate(source)
    assert template_files.read(("\n" + source).encode()) == ChatTemplate("\n" + source)
    assert template_files.read(b'{# a comment #}{{ "{" }}') == ChatTemplate('{# a comment #}{{ "{" }}')


def test_json_configs_in_every_shape():
    config = {"chat_template": STYLES["chatml"], "bos_token": {"content": BOS, "special": True}, "eos_token": EOS}
    assert template_files.read(
        json.dumps(config, indent=2).encode("utf-8-sig"), "tokenizer_config.json"
    ) == ChatTemplate(STYLES["chatml"], BOS, EOS)
    named = {"chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D"}]}
    assert template_files.read(json.dumps(named).encode()) == ChatTemplate("D", others=(("tool_use", "T"),))
    only = {"chat_template": [{"name": "rag", "template": "R"}]}
    assert template_files.read(json.dumps(only).encode()) == ChatTemplate("R")


@pytest.mark.parametrize(
    "data, said",
    [
        (b"{{ messages[0].content }\n", "line 1"),
        (b"hello\n{% for m in messages %}\n{{ m.content }}\n", "line 3"),
        (b'{"chat_template": "ok"\n,,}', "not valid JSON (line 2)"),
        (b'{"chat_template": "a\\n{% if %}"}', "line 2"),
        (b'{"model_max_length": 4096}', 'without a "chat_template"'),
        (b'{"chat_template": [{"name": "a", "template": "A"}, {"name": "b", "template": "B"}]}', "none is 'default'"),
        (
            b'{"chat_template": [{"name": "default", "template": "ok"}, {"name": "tool_use", "template": "{% for %}"}]}',
            "template 'tool_use'",
        ),
        (b'{"chat_template": 7}', "neither"),
        (b'{"chat_template": "x", "eos_token": 7}', "eos_token"),
        ("caf\xe9 {{ x }}".encode("latin-1"), "not UTF-8"),
        (b"  \n", "empty"),
        (b"x" * (template_files.MAX_FILE_BYTES + 1), "over 4,194,304"),
        (b"x" * (template_files.MAX_TEMPLATE_CHARS + 1), "over 100,000"),
    ],
)
def test_refusals_say_what_is_wrong(data, said):
    with pytest.raises(InvalidInput) as refused:
        template_files.read(data, "cfg")
    assert refused.value.status == 422 and said in refused.value.message, refused.value.message


def test_every_message_has_a_count_when_the_template_drops_some(registry):
    tokenizer = with_chat_template(registry.get("deepseek_v4"), ChatTemplate(STYLES["llama3"], BOS, EOS))
    messages = [ChatMessage("user", "hi"), ChatMessage("system", ""), ChatMessage("user", "  \n ")]
    rendered = render(tokenizer, messages)
    counts = rendered.message_counts()
    assert len(counts) == 3 and counts[0] > 0
    assert sum(counts) + sum(len(p.ids) for p in rendered.parts if p.message is None) == rendered.count
    assert len(render(tokenizer, messages[1:]).message_counts()) == 2
