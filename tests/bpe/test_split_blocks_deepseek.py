"""DeepSeek's split of ASCII 64 bytes at a time (split_blocks_deepseek.h, in split_blocks.h's
windows, as the engine cuts) gives the Hugging Face library's pieces: checked against the library
on random text of every ASCII kind, and against the one-chunk-at-a-time split
(pretokenize_deepseek.c, which tests/bpe/test_pretokenize_deepseek.py checks against the library)
with each kind of chunk at every place of a window, on real text and on the hostile runs. The
engine's ids on such text are the library's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bpe import _pretokenize_check, families
from tests.bpe.test_pretokenize import HOSTILE, MULTILINGUAL
from tests.reference import huggingface_reference, stdlib_texts

DEEPSEEK = families.DEEPSEEK
# every ASCII byte, two-byte letters and marks the windows read (Ll, Lu, Lm, Lo, Mn), and wider
# characters that end a window or continue its chunks (two-byte digits, symbols, punctuation, spaces)
EDGES = [*map(chr, range(128)), "é", "Ω", "д", "\u02b0", "\u05d0", "\u0627", "\u0301", "\u0345"]
EDGES += ["\u0663", "\u00d7", "\u00b7", "“", "\u00a0", "\u3000", "東", "\u3042"]
WORDS = [" the", "\tx", "\n\n", " \n ", "...", "((", ".x", " .x", "x.y", "123456", "  ", "a1b", "\r\n"]


def windows(text: str) -> list[tuple[int, int]]:
    return _pretokenize_check.chunks(DEEPSEEK, text, False, True)


def one_at_a_time(text: str) -> list[tuple[int, int]]:
    return _pretokenize_check.chunks(DEEPSEEK, text)


def library(text: str) -> list[tuple[int, int]]:
    return [span for _, span in huggingface_reference().pre_tokenizer.pre_tokenize_str(text)]


def test_deepseek_is_cut_in_windows():
    assert _pretokenize_check.windows(DEEPSEEK)  # else every test below would pass without them
    assert not _pretokenize_check.windows(families.CL100K)


@settings(max_examples=1500, deadline=None)
@given(parts=st.lists(st.sampled_from(EDGES) | st.sampled_from(WORDS), max_size=160))
def test_windows_cut_random_text_as_the_library_does(parts):
    text = "".join(parts)
    assert windows(text) == library(text)


# Each probe after 0..130 bytes: its chunks start and end at every place of a window.
PROBES = [
    "word",
    " word",
    "\tword",
    ".word",
    "..word",
    " .word",
    "x.y",
    "x..y",
    "1.x",
    "a1b2c3",
    "12345",
    "!!!\n\nx",
    " ((\r\n  y",
    "   x",
    "  \n  x",
    "\n \n 1",
    "x   ",
    "x\n",
    " \x01x",
    "\x7f.x",
    "a\u00e9b",
    ".\u00e9",
    "(caf\u00e9s",  # A1 takes the ASCII letters only: "(caf", "\u00e9s"
    ".e\u0301x",
    " \u00e9t\u00e9",
    "  \u0434\u043e\u043c",
    "x\u00d7y",
    " \u3000x",
    "x 東京",
]


@pytest.mark.parametrize("probe", PROBES)
def test_every_probe_at_every_place_of_a_window(probe):
    for before in range(131):
        for filler in ("x" * before, ("ab " * 50)[:before], (" 1." * 50)[:before]):
            for after in ("", " end", "\n"):
                text = filler + probe + after
                assert windows(text) == one_at_a_time(text), repr(text)
    text = ("ab " * 50)[:61] + probe
    assert windows(text) == library(text)


def test_windows_cut_real_text_as_one_chunk_at_a_time_does():
    for _, text in [*stdlib_texts(6, 40_000), ("multilingual", MULTILINGUAL * 20)]:
        assert windows(text) == one_at_a_time(text)
        assert windows(text[:5000]) == library(text[:5000])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(HOSTILE))
def test_windows_cut_the_hostile_runs_as_one_chunk_at_a_time_does(name):
    assert windows(HOSTILE[name]) == one_at_a_time(HOSTILE[name])


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from(EDGES) | st.sampled_from(WORDS), max_size=200))
def test_the_engines_ids_on_such_text_are_the_librarys(registry, parts):
    text = "".join(parts)
    assert (
        registry.get("deepseek_v4").encode(text) == huggingface_reference().encode(text, add_special_tokens=False).ids
    )
