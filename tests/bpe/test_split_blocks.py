"""The engine's split of ASCII text 64 bytes at a time (app/bpe/csrc/split/split_blocks.h) cuts exactly
where the pattern does, for the families it serves (o200k's and Tekken's).

Checked against the `regex` module's matches (tests/bpe/pretokenize_oracle.py) and against
the one-chunk-at-a-time split (pretokenize.c): on random ASCII text long enough to cross
several windows, with every kind of byte at every place of a window (its first byte, its
last, the text's end), on real text, and on the hostile runs. The engine's ids on such text
are tiktoken's (tests/bpe/test_c_engine*.py check the engine on everything else).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bpe import _pretokenize_check
from app.bpe.families import NAMES, O200K, TEKKEN
from tests.bpe.pretokenize_oracle import expected
from tests.bpe.test_pretokenize import FRAGMENTS, HOSTILE, MULTILINGUAL
from tests.reference import stdlib_texts

FAMILIES = [O200K, TEKKEN]
IDS = [NAMES[f] for f in FAMILIES]
# ASCII of every class the windows tell apart, and a few characters that end a window.
ASCII = [*"aZ 09'sStTlLeEvVrRdDmMxX\t\n\r\x0b\x0c\x1c\x1f\x7f\x00!./,-_\"@[`{~"]
NOT_ASCII = ["\u00e9", "\u0301", "\u00a0", "\u4e2d", "\u017f", "\U0001f600", "\u0663"]
WORDS = [" the", " The", "HTML", "Parser", "don't", " 2024", "  ", "\n\n", " \n ", "/\n/", " ...", "((", "\r\n"]


def blocks(family: int, text: str) -> list[tuple[int, int]]:
    return _pretokenize_check.chunks(family, text, False, True)


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
@settings(max_examples=1500, deadline=None)
@given(
    parts=st.lists(
        st.sampled_from(ASCII) | st.sampled_from(WORDS) | st.sampled_from(FRAGMENTS) | st.sampled_from(NOT_ASCII),
        max_size=120,
    )
)
def test_windows_cut_random_ascii_text_as_the_pattern_does(family, parts):
    text = "".join(parts)
    assert blocks(family, text) == expected(family, text)


# Each probe after 0..130 ASCII bytes: its chunks start and end at every place of a window.
PROBES = [
    "word",
    " word",
    "Word",
    "WORD ",
    "camelCase",
    "it's",
    "IT'S",
    "we'\u017f",
    "abc\u0301",
    "12345",
    "1234\u0663",
    "!!!",
    " !!/\n/x",
    ".word",
    "..word",
    "   x",
    "  \n  x",
    "\t\tx",
    " \r\n",
    "x   ",
    "x\n",
    "x  ",
    "a\u00a0b",
    # whitespace chunks that end at the next start: after a newline, the last of two spaces,
    # and what must not end there (a space before a newline; a run a non-ASCII space continues)
    "\n\n    !x",
    "\n \n 1",
    "x \n  y",
    "\n  \u00a0\ny",
    "\n  \u2003z",
    "\t\t!",
    "  's",
]


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
@pytest.mark.parametrize("probe", PROBES)
def test_every_probe_at_every_place_of_a_window(family, probe):
    for before in range(131):
        for filler in ("x" * before, ("ab " * 50)[:before], (" 1." * 50)[:before]):
            for after in ("", " end", "\n"):
                text = filler + probe + after
                assert blocks(family, text) == expected(family, text), repr(text)


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_windows_cut_real_text_as_one_chunk_at_a_time_does(family):
    for _, text in [*stdlib_texts(6, 40_000), ("multilingual", MULTILINGUAL * 20)]:
        assert blocks(family, text) == _pretokenize_check.chunks(family, text)
        assert blocks(family, text[:5000]) == expected(family, text[:5000])


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_windows_cut_the_hostile_runs_as_the_pattern_does(family, name):
    text = HOSTILE[name]
    assert blocks(family, text) == _pretokenize_check.chunks(family, text)


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from(ASCII) | st.sampled_from(WORDS) | st.sampled_from(NOT_ASCII), max_size=200))
def test_the_engines_ids_on_ascii_text_are_tiktokens(o200k, parts):
    encoder, reference = o200k
    text = "".join(parts)
    assert encoder.encode(text) == reference.encode_ordinary(text)
