"""What the chat editor offers and keeps (app/web/pages/chat_form.py): a name field only when
a format takes names (each format's `takes_names`, which must agree with what it renders), and
each card's place before the button pressed (`origins`, for live.js)."""

from __future__ import annotations

import pytest

from app.chat.messages import ChatMessage
from app.chat.render import DEFAULT_FORMAT, FORMATS, render
from app.errors import InvalidInput
from app.web.pages.chat_form import apply_op, names_for, origins


@pytest.mark.parametrize("tokenizer", sorted(DEFAULT_FORMAT))
def test_takes_names_says_what_the_format_does_with_a_name(registry, tokenizer):
    chat_format = FORMATS[DEFAULT_FORMAT[tokenizer]]
    named = [ChatMessage("user", "hi", "ada")]
    if chat_format.takes_names:
        assert ":ada" in render(registry.get(tokenizer), named).text
    else:
        with pytest.raises(InvalidInput, match="no names"):
            render(registry.get(tokenizer), named)


def test_names_are_offered_when_a_format_takes_them_or_none_has_a_format(registry):
    assert names_for(registry, ["cl100k_base"]) and names_for(registry, ["o200k_harmony"])
    assert not any(
        names_for(registry, [name]) for name in ("llama3", "llama4", "mistral_v1", "mistral_v3", "mistral_tekken")
    )
    assert names_for(registry, ["gpt2"]) and names_for(registry, [None])  # no chat format: nothing refuses a name
    assert names_for(registry, ["llama3", "cl100k_base", "gpt2"])  # the comparison: one column takes them
    assert not names_for(registry, ["llama3", "mistral_tekken", "gpt2"])


def test_origins_follow_apply_op():
    a, b, c = ChatMessage("system", "a"), ChatMessage("user", "b"), ChatMessage("assistant", "c")
    for op in ["", "add", "up:2", "down:0", "remove:1", "up:0", "remove:9", "nonsense"]:
        after = apply_op([a, b, c], op)
        assert [None if m not in (a, b, c) else [a, b, c].index(m) for m in after] == origins(op, 3), op
    assert origins("remove:0", 1) == [0] and origins("add", 0) == [None]
