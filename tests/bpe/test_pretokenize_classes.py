"""The Unicode class table the C pretokenizer reads is tiktoken's, on every code point.

The table is generated at build time by asking tiktoken's own regex (app/bpe/unicode_classes.py);
here it is read back out of the built extension and compared with tiktoken asked again now,
so a tiktoken upgrade that moves a class fails here. Also the facts docs/decisions.md rests
on: neither Python's unicodedata nor the `regex` module would have given the same table.
"""

from __future__ import annotations

import unicodedata

from app.bpe import _pretokenize_check
from app.bpe import unicode_classes as uc
from tests.bpe.pretokenize_oracle import STAND_IN, disagreements, regex_table, tiktoken_table


def test_the_built_table_is_tiktokens_class_of_every_code_point():
    built, truth = _pretokenize_check.table(), tiktoken_table()
    wrong = [f"U+{cp:04X}" for cp in uc.code_points() if built[cp] != truth[cp]]
    assert wrong == []


def test_the_table_has_letters_of_every_kind_marks_numbers_and_white_space():
    counts = {name: tiktoken_table().count(cls) for cls, name in enumerate(uc.NAMES) if cls != uc.PUNCT}
    assert counts["NEWLINE"] == 2 and counts["SPACE"] == 23  # White_Space: 25 code points
    assert min(counts.values()) > 0
    assert tiktoken_table()[0x1C89] == uc.LU  # Unicode 16 (tiktoken's), not in Python 3.11's unicodedata 14


def test_the_table_is_two_stage_and_small():
    index, blocks = uc.two_stage(bytearray(tiktoken_table()))
    assert len(blocks) <= 256  # a byte numbers a block
    assert len(index) + len(blocks) * (1 << uc.BLOCK_BITS) < 64_000


def test_the_stand_ins_are_classed_alike_by_tiktoken_and_the_regex_module():
    for cls, char in STAND_IN.items():
        assert tiktoken_table()[ord(char)] == regex_table()[ord(char)] == cls, char


def test_white_space_is_the_same_for_both_and_the_rest_differs():
    # \s is left as it is in the tests' reference; the letter classes are not (a newer Unicode).
    ours, theirs = tiktoken_table(), regex_table()
    assert [cp for cp in uc.code_points() if (ours[cp] >= uc.SPACE) != (theirs[cp] >= uc.SPACE)] == []
    assert len(disagreements()) > 1000


def test_pythons_unicodedata_would_be_wrong_too():
    def category(cp: int) -> int:
        cat = unicodedata.category(chr(cp))
        named = {"Lu": uc.LU, "Ll": uc.LL, "Lt": uc.LT, "Lm": uc.LM, "Lo": uc.LO, "Nd": uc.NUMBER}
        return named.get(cat, uc.MARK if cat[0] == "M" else uc.NUMBER if cat[0] == "N" else -1)

    ours = tiktoken_table()
    wrong = [cp for cp in uc.code_points() if ours[cp] < uc.SPACE and category(cp) not in (ours[cp], -1)]
    missing = [cp for cp in uc.code_points() if uc.OTHER < ours[cp] < uc.SPACE and category(cp) == -1]
    assert len(wrong) + len(missing) > 1000
