"""The C pretokenizer (app/bpe/csrc/split/pretokenize.c) cuts text exactly where each family's split
pattern does under tiktoken's regex, on every input, in linear time.

Checked against the `regex` module's `finditer` with the same pattern, on tiktoken's Unicode
classes (tests/bpe/pretokenize_oracle.py): on random text mixing every class, on every code
point in a few contexts, and on long hostile runs; and the chunks decide the ids: tiktoken's
ids for a text are its BPE of these chunks, one by one.
"""

from __future__ import annotations

import time

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bpe import _pretokenize_check
from app.bpe import unicode_classes as uc
from app.bpe.families import FAMILIES, NAMES, PATTERNS
from tests.bpe.pretokenize_oracle import expected
from tests.reference import stdlib_texts, tiktoken_reference

FAMILY_IDS = [NAMES[f] for f in PATTERNS]
ALPHABET = [
    *"aZ 09'sStTlLeEvVrRdDmMxX\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85!./,-_\"",
    *"\u00a0\u2028\u2029\u3000\u1680\u200b",  # White_Space and not (U+200B)
    *"\u017f\u212a",  # ſ folds to s in (?i:'s); the Kelvin sign to k
    *"\u00e9\u00c9\u01c5\u02b0\u3005\u4e2d\u0e01\u00df\u03a9\u03c9\u0410\u0436",  # letters: Ll Lu Lt Lm Lo
    *"\u0301\u0e31\u0903\u20dd",  # marks: Mn, Mc, Me
    *"\u0663\u0967\u2160\u00bd\u00b2",  # numbers: Nd of other scripts, Nl, No
    *"\U0001f600\u200d\U0001f44d\U0001f3fd\ufe0f",  # emoji, ZWJ, a skin tone, a variation selector
    *"\u1c89\u0295\ua7cb\U00010d4e",  # where tiktoken's Unicode and the regex module's differ
]
FRAGMENTS = ["'s", "'S", "'\u017f", "'ll", "'LL", "'Ve", "'re", "'d", "'M", "'t", "\r\n", "  ", "\n\n", " \n ", "/\n/"]
# Runs longer than the eight bytes the ASCII fast path reads at once, ending on every kind of byte.
FRAGMENTS += [
    "internationalization",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "abcdefghijklmnopqrstuvwxyz",
    "lowerUPPERlowerUPPERz",
]
FRAGMENTS += ["@`[{", "zzzzzzzzZ", "AAAAAAAAz", "0123456789", "____....////"]
# Runs of characters both upper and lower to o200k (Lo, Lm, M: pretokenize.c's caseless_chunk),
# two and three bytes wide, alone and after a space.
FRAGMENTS += ["\u4e2d\u6587\u5b57\u7b26", " \ud55c\uad6d\uc5b4", "\u0628\u064e\u062a", "\u30a2\u30fc\u30c8", "\uff0c"]


def chunks(family: int, text: str) -> list[tuple[int, int]]:
    return _pretokenize_check.chunks(family, text)


@pytest.mark.parametrize("family", list(PATTERNS), ids=FAMILY_IDS)
@settings(max_examples=1500, deadline=None)
@given(parts=st.lists(st.sampled_from(ALPHABET) | st.sampled_from(FRAGMENTS), max_size=24))
def test_chunks_are_the_patterns_on_random_text_of_every_class(family, parts):
    text = "".join(parts)
    assert chunks(family, text) == expected(family, text)


@pytest.mark.parametrize("family", list(PATTERNS), ids=FAMILY_IDS)
@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "a",
        "'",
        "'s",
        "a\n  ",
        "a\n\n ",
        "x  \n",
        " \n \n",
        "a \u00a0\n\u3000",
        "\u0301A",
        "\u0301 ",
        "HELLO world",
    ],
)
def test_chunks_at_the_edges(family, text):
    assert chunks(family, text) == expected(family, text)


UNASSIGNED_PLANES = (0x40000, 0xE0000)  # planes 4 to 13: no character assigned in any Unicode version yet


@pytest.mark.slow
@pytest.mark.parametrize("family", list(PATTERNS), ids=FAMILY_IDS)
def test_every_code_point_alone_after_letters_and_spaces_and_in_runs(family):
    step = 1 << 16
    for first in range(0, uc.LAST + 1, step):
        chars = [chr(cp) for cp in range(first, min(first + step, uc.LAST + 1)) if not 0xD800 <= cp <= 0xDFFF]
        if UNASSIGNED_PLANES[0] <= first < UNASSIGNED_PLANES[1]:  # one class throughout (the table's test checks each)
            chars = chars[::4099] + chars[-1:]
        text = "".join(f"A{c}a {c}{c}1" for c in chars)
        assert chunks(family, text) == expected(family, text), f"in U+{first:04X}..U+{first + step - 1:04X}"


HOSTILE = {
    "spaces": " " * 1_000_000,
    "spaces then a letter": " " * 1_000_000 + "x",
    "one letter": "a" * 1_000_000,
    "capitals": "A" * 1_000_000,
    "capitals then a mark": "A" * 1_000_000 + "\u0301",
    "marks": "\u0301" * 1_000_000,
    "digits": "7" * 1_000_000,
    "punctuation": "!" * 1_000_000,
    "alternating classes": "a1!\u0301 " * 200_000,
    "crlf": "\r\n" * 500_000,
    "crlf then spaces": "\r\n" * 250_000 + " " * 500_000 + "x",
    "a 4-byte character": "\U0001f600" * 250_000,
    "apostrophes": "'" * 1_000_000,
    "no-break spaces": "\u00a0" * 1_000_000,
}


@pytest.mark.slow
@pytest.mark.parametrize("family", list(PATTERNS), ids=FAMILY_IDS)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_runs_split_as_the_pattern_does(family, name):
    text = HOSTILE[name]
    assert chunks(family, text) == expected(family, text)


@pytest.mark.parametrize("family", list(PATTERNS), ids=FAMILY_IDS)
def test_hostile_runs_take_linear_time(family):
    # 16 MB of each: quadratic work would take hours; the bound is generous, not a speed claim.
    started = time.perf_counter()
    for text in HOSTILE.values():
        data = (text * 16).encode()
        assert _pretokenize_check.count(family, data) >= 1
    assert time.perf_counter() - started < 30


def test_an_unknown_family_is_refused():
    with pytest.raises(ValueError, match=f"family {len(NAMES)} is not one of"):
        chunks(len(NAMES), "text")


MULTILINGUAL = (
    "Ελληνικά κείμενα, русский текст, العربية, हिन्दी में लिखा, 日本語の文章、中文，한국어 문장. "
    "naïve café — ÆØÅ 12,345.67 ١٢٣ १२३ 😀👍🏽 I'M HERE, we'll SEE'S\r\n\ttabs\u00a0and\u3000spaces\n\n  "
)


@pytest.mark.parametrize("family", list(PATTERNS), ids=FAMILY_IDS)
def test_chunks_are_the_patterns_on_real_text(family):
    for _, text in [*stdlib_texts(4, 20_000), ("multilingual", MULTILINGUAL)]:
        assert chunks(family, text) == expected(family, text)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_tiktokens_ids_are_the_bpe_of_these_chunks(name):
    encoding = tiktoken_reference(name)
    family = FAMILIES[encoding._pat_str]
    for _, text in [*stdlib_texts(4, 8_000), ("multilingual", MULTILINGUAL * 5)]:
        ours = [i for start, end in chunks(family, text) for i in encoding._encode_single_piece(text[start:end])]
        assert ours == encoding.encode_ordinary(text)


def ascii_pairs() -> dict[bytes, int]:
    """Ranks of every byte and every pair of ASCII bytes: BPE pairs up each chunk's ASCII, so a
    boundary that moves by one character shows in the ids."""
    ranks = {bytes([b]): b for b in range(256)}
    ranks |= {bytes([a, b]): 256 + 128 * a + b for a in range(128) for b in range(128)}
    return ranks


@pytest.mark.parametrize("family", list(PATTERNS), ids=FAMILY_IDS)
@pytest.mark.parametrize("ranks", ["o200k_base", "ascii pairs"])
def test_tiktokens_own_regex_under_each_pattern_gives_the_ids_of_these_chunks(family, ranks):
    # tiktoken itself (not the regex module) with each family's pattern: wherever it cut
    # elsewhere, BPE would merge across one of our boundaries or stop inside a chunk.
    mergeable = tiktoken_reference("o200k_base")._mergeable_ranks if ranks == "o200k_base" else ascii_pairs()
    encoding = tiktoken.Encoding(NAMES[family], pat_str=PATTERNS[family], mergeable_ranks=mergeable, special_tokens={})
    edges = ["a\n  ", "a\n\n ", " \n \n", "x  \n", "\u0301A", "I'M", "we'\u017f", "\u1c89\u0295\ua7cb \U00010d4e"]
    for text in [*edges, MULTILINGUAL, "".join(FRAGMENTS + ALPHABET) * 3, stdlib_texts(2, 8_000)[1][1]]:
        ours = [i for start, end in chunks(family, text) for i in encoding._encode_single_piece(text[start:end])]
        assert ours == encoding.encode_ordinary(text), repr(text[:40])


@pytest.mark.parametrize("family", list(PATTERNS), ids=FAMILY_IDS)
@settings(max_examples=500, deadline=None)
@given(
    data=st.binary(max_size=64)
    | st.lists(st.sampled_from([b"\xc5", b"\xbf", b"\xf0\x9f", b"\xe4", b"'", b"a", b" "])).map(b"".join)
)
def test_any_bytes_even_not_utf8_end_in_chunks_that_move_forward(family, data):
    # Not UTF-8 is the caller's to avoid (pretokenize.h), but it must not read past the end or stall.
    assert 0 <= _pretokenize_check.count(family, data) <= len(data)
