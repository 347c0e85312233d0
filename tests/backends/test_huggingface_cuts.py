"""A long text cut for counting (app/backends/huggingface/cuts.py) counts exactly as the whole text:
DeepSeek's rules, cuts forced every few characters, on text built to stress what surrounds a cut."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from app.backends.huggingface import cuts as huggingface_cuts
from tests.backends.test_counting import TEXTS
from tests.hf_trained import KINDS_TRAINED
from tests.hf_trained import train as _train

AROUND_A_CUT = [
    "\n",
    "\n\n",
    "  \n",
    " \t\n",
    "\r\n",
    ".\n",
    "?!\n\n",
    "123\n",
    "1234567\n",
    "日本\n",
    "ｱ\n",
    "e\u0301\n",
    "<｜end▁of▁sentence｜>\n",
    "<think>\n",
    "x",
    "Word",
    "abc def",
    " ",
    "   ",
    "'s",
    "😀",
    "한국어",
    "\u00a0",
    "\u3000",
    "#include",
    "12",
    "()",
]


def _stressed(rnd: random.Random, size: int) -> str:
    return "".join(rnd.choice(AROUND_A_CUT) for _ in range(size))


@pytest.fixture(scope="module")
def deepseek(registry):
    return registry.get("deepseek_v4")


def test_pieces_join_to_the_text_and_are_cut_after_a_line_end_before_a_letter(monkeypatch):
    monkeypatch.setattr(huggingface_cuts, "PIECE_CHARS", 8)
    text = _stressed(random.Random(1), 3000)
    pieces = huggingface_cuts.cut(text)
    assert "".join(pieces) == text and len(pieces) > 50
    assert all(
        piece.endswith("\n") and following[0].isascii() and following[0].isalpha()
        for piece, following in itertools.pairwise(pieces)
    )


@pytest.mark.parametrize("allow_special", [False, True])
def test_a_long_text_counts_as_its_whole(deepseek, monkeypatch, allow_special):
    monkeypatch.setattr(huggingface_cuts, "PIECE_CHARS", 16)
    rnd = random.Random(25)
    texts = [_stressed(rnd, 4000), "\n".join(TEXTS), "".join(TEXTS) * 3, "\nabc" * 500]
    library = deepseek._library(allow_special)
    expected = [len(library.encode(text, add_special_tokens=False).ids) for text in texts]
    assert deepseek.count_batch(texts, allow_special) == expected


@hyp_settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(AROUND_A_CUT), max_size=120).map("".join))
def test_any_text_of_the_stressed_pieces_counts_as_its_whole(registry, text):
    deepseek = registry.get("deepseek_v4")
    original = huggingface_cuts.PIECE_CHARS
    huggingface_cuts.PIECE_CHARS = 2
    try:
        assert deepseek.count(text) == len(deepseek.encode(text))
    finally:
        huggingface_cuts.PIECE_CHARS = original


@pytest.mark.parametrize("kind", KINDS_TRAINED)
def test_other_rules_are_never_cut(kind):
    assert huggingface_cuts.cutter(_train(kind)) is None


def test_an_added_token_that_strips_its_left_stops_the_cuts(deepseek):
    from tokenizers import AddedToken, Tokenizer

    library = Tokenizer.from_str(deepseek.library.to_str())
    assert huggingface_cuts.cutter(library) is not None
    library.add_tokens([AddedToken("Word", lstrip=True)])
    assert huggingface_cuts.cutter(library) is None
