"""The ASCII fast path of the tiktoken tokenizers against the regex and tiktoken itself.

`_ascii_split.split` must cut exactly where the split pattern does, and the encoders must
give tiktoken's ids (tiktoken's own `get_encoding`, see tests/reference.py), on random
text built from the characters and fragments where the patterns differ, on real files
and on long runs.
"""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bpe import _ascii_split
from app.bpe.ascii_encoder import KINDS
from app.tokenizers.openai_encodings import OPENAI_ENCODINGS
from tests.reference import reference_ids, stdlib_texts

NAMES = ["gpt2", "cl100k_base", "o200k_base"]
FRAGMENTS = [
    "'s",
    "'S",
    "'ll",
    "'LL",
    "'Re",
    "'ve",
    "'d",
    "'t",
    "'m",
    "'x",
    "'",
    " ",
    "  ",
    "\n",
    "\r\n",
    "\t",
    "\x0b",
    "\x0c",
    "\x1c",
    "Hello",
    "WORLD",
    "abcDEF",
    "ABCdef",
    "I'M",
    "don't",
    "123",
    "12345",
    "!!",
    "//",
    "/\n/",
    "...",
    " $",
    "<|endoftext|>",
    "<|fim_prefix|>",
    "    ",
    "\n\n\n",
    " \n ",
]
ascii_text = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.characters(max_codepoint=127)), max_size=40).map("".join)
LONG_RUNS = [
    "1" * 50_000,
    "a" * 50_000,
    " " * 50_000 + "x",
    "!" * 50_000,
    "\n" * 20_000 + " " * 20_000,
    "12 " * 10_000,
    "aB" * 20_000,
    " '" * 20_000,
]


def pattern(name: str) -> regex.Pattern:
    return regex.compile(OPENAI_ENCODINGS[name].pattern)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=400, deadline=None)
@given(text=ascii_text)
def test_split_cuts_where_the_pattern_does(name, text):
    assert _ascii_split.split(KINDS[OPENAI_ENCODINGS[name].pattern], text) == pattern(name).findall(text)


@pytest.mark.parametrize("name", NAMES)
def test_split_on_long_runs(name):
    for text in LONG_RUNS:
        assert _ascii_split.split(KINDS[OPENAI_ENCODINGS[name].pattern], text) == pattern(name).findall(text)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=300, deadline=None)
@given(text=ascii_text, allow_special=st.booleans())
def test_ids_equal_tiktoken(registry, name, text, allow_special):
    tokenizer = registry.get(name)
    assert tokenizer.encode(text, allow_special) == reference_ids(name, text, allow_special)


@pytest.mark.parametrize("name", NAMES)
def test_the_fast_path_itself_on_real_files_and_long_runs(registry, name):
    encoder = registry.get(name)._ascii
    assert encoder is not None
    texts = [text for _, text in stdlib_texts(count=40) if text.isascii()] + LONG_RUNS
    assert len(texts) > len(LONG_RUNS)
    for text in texts:
        assert encoder.encode(text) == reference_ids(name, text), text[:60]


def test_split_refuses_what_it_cannot_cut():
    with pytest.raises(ValueError, match="ASCII"):
        _ascii_split.split(1, "café")
    with pytest.raises(ValueError, match="kind 7"):
        _ascii_split.split(7, "abc")
    assert _ascii_split.split(0, "") == []
