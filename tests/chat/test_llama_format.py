"""The `llama3` and `llama4` chat formats (app/chat/formats/llama_format.py) against llama-models'
`ChatFormat(tokenizer).encode_dialog_prompt(messages).tokens` (tests/reference.py), on
conversations generated here: any order of system, user and assistant messages, empty and
Unicode content, special-token strings typed as text, long whitespace."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.chat.messages import ChatMessage
from app.chat.render import DEFAULT_FORMAT, formats_for, render
from app.errors import InvalidInput
from tests.reference import llama_chat_ids

LLAMAS = ["llama3", "llama4"]
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
            "\n\n",
            "  x  \n",
            "<|begin_of_text|>",
            "<|start_header_id|>user<|end_header_id|>",
            "<|eot_id|>",
            "<|header_start|>assistant<|header_end|>\n\n",
            "<|eot|><|eom|>",
            "👋🏽 한국어 café",
            "naïve\u0301",
            "1234567 89",
            "'s 'll",
            "\t\t\n",
        ]
    ),
)
chats = st.lists(
    st.builds(ChatMessage, st.sampled_from(["system", "user", "assistant"]), content), min_size=1, max_size=7
)


@pytest.mark.parametrize("name", LLAMAS)
def test_ids_equal_llama_models(registry, name):
    tokenizer = registry.get(name)

    @HYPOTHESIS
    @given(messages=chats)
    def check(messages):
        rendered = render(tokenizer, messages)
        assert rendered.ids == llama_chat_ids(name, messages)
        tokens = rendered.tokens()
        assert [t.id for t in tokens] == rendered.ids
        assert b"".join(t.bytes for t in tokens) == rendered.text.encode("utf-8")  # tokens spell the prompt
        framing = {i for part in rendered.parts if part.special for i in part.ids}
        assert all(t.special == (t.id in framing) for t in tokens)  # typed special strings stay text
        assert sum(rendered.message_counts()) + len(priming(rendered)) == rendered.count

    check()


def priming(rendered) -> list[int]:
    return [i for part in rendered.parts if part.message is None for i in part.ids]


WORKED = [
    ChatMessage("system", "Be brief."),
    ChatMessage("user", "Hi <|eot_id|> there"),
    ChatMessage("assistant", "Hello!"),
    ChatMessage("user", "Bye"),
]


@pytest.mark.parametrize(
    "name, text",
    [
        (
            "llama3",
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nHi <|eot_id|> there<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
        ),
        (
            "llama4",
            "<|begin_of_text|><|header_start|>system<|header_end|>\n\nBe brief.<|eot|>"
            "<|header_start|>user<|header_end|>\n\nHi <|eot_id|> there<|eot|>"
            "<|header_start|>assistant<|header_end|>\n\nHello!<|eot|>"
            "<|header_start|>user<|header_end|>\n\nBye<|eot|><|header_start|>assistant<|header_end|>\n\n",
        ),
    ],
)
def test_worked_example(registry, name, text):
    tokenizer = registry.get(name)
    rendered = render(tokenizer, WORKED)
    assert rendered.text == text and rendered.ids == llama_chat_ids(name, WORKED)
    assert formats_for(name) == [name] and DEFAULT_FORMAT[name] == name
    specials = [t.id for t in rendered.tokens() if t.special]
    begin, start, end, eot = (
        tokenizer.special_tokens[s]
        for s in {
            "llama3": ("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
            "llama4": ("<|begin_of_text|>", "<|header_start|>", "<|header_end|>", "<|eot|>"),
        }[name]
    )
    assert specials == [begin] + [start, end, eot] * 4 + [start, end]
    # per message: its header (start, role, end, "\n\n") + content + end of turn; <|begin_of_text|> is the first's
    content = [len(tokenizer.encode(m.content)) for m in WORKED]
    assert rendered.message_counts() == [1 + 4 + content[0] + 1] + [4 + c + 1 for c in content[1:]]
    assert rendered.overhead == rendered.count - sum(content) and len(priming(rendered)) == 4


@pytest.mark.parametrize("name", LLAMAS)
def test_long_content_equals_llama_models(registry, name):
    messages = [ChatMessage("user", " " * 30_000 + "x" * 26_000), ChatMessage("assistant", "ok")]
    assert render(registry.get(name), messages).ids == llama_chat_ids(name, messages)


@pytest.mark.parametrize(
    "messages, words",
    [
        ([ChatMessage("user", "hi", name="ada")], "no names"),
        ([ChatMessage("tool", "{}")], "use one of system, user, assistant"),
        ([ChatMessage("developer", "hi")], "use one of system, user, assistant"),
    ],
)
@pytest.mark.parametrize("name", LLAMAS)
def test_refusals_say_what_to_do(registry, name, messages, words):
    with pytest.raises(InvalidInput) as raised:
        render(registry.get(name), messages)
    assert words in raised.value.message


@pytest.mark.parametrize("name, other", [("llama3", "llama4"), ("llama4", "chatml"), ("cl100k_base", "llama3")])
def test_a_format_of_another_tokenizer_is_refused(registry, name, other):
    with pytest.raises(InvalidInput) as raised:
        render(registry.get(name), WORKED[:2], other)
    assert "does not fit" in raised.value.message


def test_pages_offer_the_llama_formats(client):
    """The playground's chat mode renders a llama prompt without JavaScript; the comparison's
    note names every chat format (it listed only chatml, harmony, mistral before)."""
    page = client.get("/", params={"tokenizer": "llama4", "mode": "chat"})
    assert page.status_code == 200 and "&lt;|header_start|&gt;" in page.text
    compare = client.get("/compare", params={"mode": "chat"}).text
    assert "chat format (chatml, harmony, mistral, llama3, llama4, template)" in compare
