"""Chat prompts rendered as the model sees them (app/chat/render.py): chatml's count is the
cookbook's, harmony's ids are openai-harmony's, on conversations generated here (several
messages, names, Unicode, empty content, special-token strings inside content)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.chat.messages import ChatMessage
from app.chat.render import render
from app.errors import InvalidInput
from tests.api.test_chat import COOKBOOK, as_messages, cookbook
from tests.reference import harmony_ids

HYPOTHESIS = settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
content = st.one_of(
    st.text(max_size=80),
    st.sampled_from(
        [
            "",
            " ",
            "\n\n",
            "<|end|>",
            "<|im_start|>user",
            "<|start|>assistant<|message|>",
            "👋🏽 한국어 café",
            "<|endoftext|>",
            "  trailing  ",
        ]
    ),
)
names = st.one_of(st.none(), st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True))


def conversations(roles):
    return st.lists(st.builds(ChatMessage, st.sampled_from(roles), content, names), min_size=1, max_size=6)


@pytest.mark.parametrize("name, cookbook", [("cl100k_base", 129), ("o200k_base", 124)])
def test_chatml_counts_the_cookbook_example_as_the_api_did(registry, name, cookbook):
    rendered = render(registry.get(name), as_messages(COOKBOOK))
    assert rendered.format == "chatml" and rendered.count == cookbook
    assert rendered.text.startswith("<|im_start|>system<|im_sep|>You are") and rendered.text.endswith(
        "<|im_start|>assistant<|im_sep|>"
    )


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_chatml_count_equals_the_cookbook_rule(registry, name):
    tokenizer = registry.get(name)

    @HYPOTHESIS
    @given(messages=conversations(["system", "user", "assistant"]))
    def check(messages):
        rendered = render(tokenizer, messages)
        total, per_message = cookbook(tokenizer.encode, messages)
        # the rule counts role and name apart; chatml writes "role:name": equal unless ":" merges with them
        if all(m.name is None for m in messages):
            assert rendered.count == total and rendered.message_counts() == per_message
        start, end, sep = {"cl100k_base": (100264, 100265, 100266), "o200k_base": (200264, 200265, 200266)}[name]
        assert rendered.ids[-3:] == [start, *tokenizer.encode("assistant"), sep]
        assert rendered.ids.count(start) == len(messages) + 1 and rendered.ids.count(end) == len(messages)

    check()


def test_harmony_ids_equal_openai_harmony(registry):
    tokenizer = registry.get("o200k_harmony")

    @HYPOTHESIS
    @given(messages=conversations(["system", "developer", "user", "assistant"]))
    def check(messages):
        assert render(tokenizer, messages).ids == harmony_ids(messages)

    check()


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "o200k_harmony"])
def test_tokens_spell_the_prompt_and_mark_the_framing(registry, name):
    tokenizer = registry.get(name)

    @HYPOTHESIS
    @given(messages=conversations(["system", "user", "assistant"]))
    def check(messages):
        rendered = render(tokenizer, messages)
        tokens = rendered.tokens()
        assert [t.id for t in tokens] == rendered.ids
        assert b"".join(t.bytes for t in tokens) == rendered.text.encode("utf-8")
        specials = [t for t in tokens if t.special]
        assert len(specials) == 3 * len(messages) + (2 if name != "o200k_harmony" else 1)
        assert all(rendered.text[t.start : t.end] == t.bytes.decode() for t in specials)
        assert sum(rendered.message_counts()) + (3 if name != "o200k_harmony" else 2) == rendered.count
        assert rendered.overhead == rendered.count - sum(len(tokenizer.encode(m.content)) for m in messages)

    check()


@pytest.mark.parametrize(
    "name, fmt, role, message",
    [
        ("gpt2", None, "user", "has no chat format"),
        ("cl100k_base", "harmony", "user", "use 'chatml'"),
        ("o200k_harmony", "chatml", "user", "use 'harmony'"),
        ("o200k_harmony", None, "function", "use one of system, developer, user, assistant, tool"),
    ],
)
def test_refusals_name_what_is_allowed(registry, name, fmt, role, message):
    with pytest.raises(InvalidInput, match=message):
        render(registry.get(name), [ChatMessage(role, "hi")], fmt)
    with pytest.raises(InvalidInput, match="messages is empty"):
        render(registry.get("cl100k_base"), [])
