"""The `mistral` chat format (app/chat/formats/mistral_format.py) against mistral-common's
`encode_chat_completion`, on conversations generated here: mostly orders Mistral takes
(system prompts anywhere before the answer, merged turns, empty and Unicode content,
special-token strings, spaces at the ends) and random orders it refuses. Either both refuse
or the ids are equal."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.chat.messages import ChatMessage
from app.chat.render import render
from app.errors import InvalidInput
from tests.reference import mistral_chat_ids

MISTRALS = ["mistral_v1", "mistral_v3", "mistral_tekken"]
HYPOTHESIS = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
content = st.one_of(
    st.text(max_size=60),
    st.sampled_from(
        [
            "",
            " ",
            "  x  ",
            "\n\n",
            "[INST]",
            "[/INST] <s></s>",
            "▁Hi▁",
            "👋🏽 한국어 café",
            " lead",
            "trail ",
            "<|im_start|>",
            "1234 5678",
        ]
    ),
)


@st.composite
def likely_chats(draw):
    """system?, user/assistant turns (sometimes doubled), a user last; sometimes anything at all."""
    if draw(st.integers(0, 4)) == 0:
        roles = draw(st.lists(st.sampled_from(["system", "user", "assistant"]), min_size=1, max_size=6))
    else:
        roles = ["system"] * draw(st.integers(0, 2))
        for _ in range(draw(st.integers(0, 3))):
            roles += ["user"] * draw(st.integers(1, 2)) + ["system"] * draw(st.integers(0, 1))
            roles += ["assistant"] * draw(st.integers(1, 2))
        roles.append("user")
    return [ChatMessage(role, draw(content if role != "assistant" else content.filter(bool))) for role in roles]


def reference_or_refusal(name, messages):
    try:
        return mistral_chat_ids(name, messages)
    except Exception as error:
        return error


@pytest.mark.parametrize("name", MISTRALS)
def test_ids_equal_mistral_common_or_both_refuse(registry, name):
    tokenizer = registry.get(name)

    @HYPOTHESIS
    @given(messages=likely_chats())
    def check(messages):
        expected = reference_or_refusal(name, messages)
        if isinstance(expected, Exception):
            with pytest.raises(InvalidInput):
                render(tokenizer, messages)
        else:
            rendered = render(tokenizer, messages)
            assert rendered.ids == expected
            tokens = rendered.tokens()
            assert [t.id for t in tokens] == rendered.ids
            assert b"".join(t.bytes for t in tokens) == rendered.text.encode("utf-8")  # tokens spell the prompt
            assert all(rendered.text[t.start : t.end] == t.bytes.decode() for t in tokens if t.special)
            assert sum(rendered.message_counts()) == rendered.count  # no reply priming in Mistral's prompt

    check()


WORKED = [
    ChatMessage("system", "Be brief."),
    ChatMessage("user", "Hi there"),
    ChatMessage("assistant", "Hello!"),
    ChatMessage("user", "Bye"),
]


@pytest.mark.parametrize(
    "name, text",
    [
        (
            "mistral_v1",
            "<s>[INST] Be brief.\n\nHi there [/INST]Hello!</s>[INST] Bye [/INST]",
        ),  # system on the first turn
        ("mistral_v3", "<s>[INST]Hi there[/INST]Hello!</s>[INST]Be brief.\n\nBye[/INST]"),  # on the last
        ("mistral_tekken", "<s>[INST]Hi there[/INST]Hello!</s>[INST]Be brief.\n\nBye[/INST]"),
    ],
)
def test_worked_example(registry, name, text):
    rendered = render(registry.get(name), WORKED)
    assert rendered.text == text and rendered.ids == mistral_chat_ids(name, WORKED)
    specials = [t.id for t in rendered.tokens() if t.special]
    assert specials == ([1, 2] if name == "mistral_v1" else [1, 3, 4, 2, 3, 4])
    # the system prompt's content tokens count for the system message, the [INST] framing for its user
    assert rendered.message_counts()[0] > 0 and rendered.overhead < rendered.count


@pytest.mark.parametrize(
    "messages, words",
    [
        ([ChatMessage("user", "hi", name="ada")], "no names"),
        ([ChatMessage("assistant", "hi")], "starts with a user or system"),
        ([ChatMessage("user", "hi"), ChatMessage("assistant", "yo")], "ends with a user message"),
        ([ChatMessage("user", "hi"), ChatMessage("assistant", ""), ChatMessage("user", "x")], "empty assistant"),
        (
            [
                ChatMessage("user", "hi"),
                ChatMessage("assistant", "a"),
                ChatMessage("system", "s"),
                ChatMessage("user", "x"),
            ],
            "system message right after an assistant",
        ),
        ([ChatMessage("developer", "hi")], "use one of system, user, assistant"),
    ],
)
@pytest.mark.parametrize("name", MISTRALS)
def test_refusals_say_what_to_do(registry, name, messages, words):
    with pytest.raises(InvalidInput) as raised:
        render(registry.get(name), messages)
    assert words in raised.value.message
