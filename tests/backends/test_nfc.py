"""`nfc`, NFC a line at a time: the same string as `unicodedata.normalize("NFC", text)` on
every text, however its lines cut it (a mark or a jamo just after a newline, a line that is
NFC next to one that is not), and what the Qwen tokenizer encodes through.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.backends.nfc import nfc
from tests.reference import qwen_reference

# Pieces NFC rewrites or joins, and newlines between them.
PIECES = [
    "\n",
    "\r\n",
    "e",
    "\u0301",  # combining acute: composes with the "e" before it
    "\u0323",  # combining dot below: reordered before the acute
    "\u212b",  # angstrom sign: NFC rewrites it alone
    "\u1100",  # Hangul leading consonant ...
    "\u1161",  # ... vowel ...
    "\u11a8",  # ... trailing consonant: they compose to one syllable
    "\u0b47",  # Oriya vowel sign E, and the two marks it composes with
    "\u0b3e",
    "\u0b57",
    "\u0f73",  # Tibetan: decomposes to two non-starters
    "\ud800",  # a lone surrogate (NFC keeps it)
    "naïve ",
    "東京",
]
texts = st.lists(st.one_of(st.sampled_from(PIECES), st.characters(codec="utf-8")), max_size=80).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=texts)
def test_a_line_at_a_time_is_nfc_of_the_whole(text):
    assert nfc(text) == unicodedata.normalize("NFC", text)


def test_nothing_composes_across_a_newline():
    for text in ["e\n\u0301", "\u1100\n\u1161", "\u0b47\n\u0b3e", "a\u0301\nb\u0323\u0301\n\u212b"]:
        assert nfc(text) == unicodedata.normalize("NFC", text)
    assert nfc("e\n\u0301") == "e\n\u0301"
    assert nfc("e\u0301\ne\u0301") == "\u00e9\n\u00e9"


def test_the_qwen_tokenizer_encodes_the_nfc_of_each_line(registry):
    text = "Ame\u0301lie\nna\u0308ive \u212b\n\u1100\u1161\u11a8 e\u0323\u0301\n" * 40 + "plain line\n" * 40
    assert registry.get("qwen3_6").encode(text) == qwen_reference().encode(
        text, allowed_special=set(), disallowed_special=()
    )


@pytest.mark.slow
def test_every_code_point_in_the_contexts_nfc_joins_or_reorders():
    """Each code point alone, after a base letter and before a mark, between jamo, after a
    precomposed letter and a mark of lower class, and next to a newline: one long text per
    context, the whole compared with Python's NFC of it."""
    contexts = ["{}", "e{}\u0301", "{}\u0301", "\u1100{}\u1161", "\u00e9\u0323{}", "{}\u0327\u0301", "\n{}\n"]
    code_points = [chr(cp) for cp in range(0x110000)]
    for context in contexts:
        for at in range(0, len(code_points), 1 << 17):
            text = "x".join(context.format(c) for c in code_points[at : at + (1 << 17)])
            assert nfc(text) == unicodedata.normalize("NFC", text), (context, hex(at))
