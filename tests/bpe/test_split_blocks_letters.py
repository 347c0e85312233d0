"""The two-byte letters split_blocks.h's windows read as ASCII letters (split_blocks_letters.h):
every character of U+0080-U+07FF, letter or not, cut by the windows where the one-chunk-at-a-time
split (pretokenize.c, tiktoken's classes) cuts it, in the contexts where a window's rules could
go wrong (after and before each case, an apostrophe, a digit, a space, a mark), at every place of
a window; and the engine's ids on text of such letters equal tiktoken's.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bpe import _pretokenize_check
from app.bpe.families import DEEPSEEK, NAMES, O200K, TEKKEN

FAMILIES = [O200K, TEKKEN, DEEPSEEK]
IDS = [NAMES[f] for f in FAMILIES]
TWO_BYTE = [chr(cp) for cp in range(0x80, 0x800) if not 0xD800 <= cp < 0xE000]
# each character between these (its case against theirs, a contraction, a digit, a mark, spaces)
CONTEXTS = [
    "a{}b",
    "A{}B",
    "a{}B",
    "A{}b",
    " {}",
    "{}'s",
    "{}'S",
    "1{}",
    "{}1",
    "{}\u0301x",
    ".{}",
    "{} ",
    "{}{}",
    "x{}{}X",
]
# letters of each kind the windows read or stop at: Lu, Ll (Latin, Greek, Cyrillic), Lt, Lm, Lo, Mn, Sm, Zs, So
SAMPLE = [*"ÀÜßéŁłſΩωДдЖж", "\u01c5", "\u02b0", "\u00aa", "\u05d0", "\u0627", "\u0301", "\u00d7", "\u00a0", "\u00a9"]
ASCII = [*"aAzZ 0'sS\n\t.!-"]


def windows(family: int, text: str) -> list[tuple[int, int]]:
    return _pretokenize_check.chunks(family, text, False, True)


def one_at_a_time(family: int, text: str) -> list[tuple[int, int]]:
    return _pretokenize_check.chunks(family, text)


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
@pytest.mark.parametrize("context", CONTEXTS)
def test_every_two_byte_character_in_each_context(family, context):
    for shift in (0, 1, 29, 62, 63):  # the characters fall at every place of a window between them
        text = "x" * shift + " ".join(context.format(c, c) for c in TWO_BYTE)
        assert windows(family, text) == one_at_a_time(family, text), f"shift {shift}"


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_letters_at_every_place_of_a_window(family):
    for word in ("Überprüfung", "żółć", "ΑΒΓδεζ", "ДОМдом", "straße's", "ÉCOLEécole", "xÀ", "Ωx"):
        for before in range(130):
            for filler in ("x" * before, ("ab " * 50)[:before], ("é " * 70)[:before]):
                text = filler + word + " end"
                assert windows(family, text) == one_at_a_time(family, text), repr(text)


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
@settings(max_examples=800, deadline=None)
@given(parts=st.lists(st.sampled_from(SAMPLE) | st.sampled_from(ASCII), max_size=150))
def test_random_mixes(family, parts):
    text = "".join(parts)
    assert windows(family, text) == one_at_a_time(family, text)


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from(SAMPLE) | st.sampled_from(ASCII) | st.sampled_from(TWO_BYTE), max_size=200))
def test_the_engines_ids_are_tiktokens(o200k, parts):
    encoder, reference = o200k
    text = "".join(parts)
    assert encoder.encode(text) == reference.encode_ordinary(text)
