"""What the C pretokenizer's chunks are checked against (tests only).

The truth is the chunks of the family's pattern under tiktoken's regex engine. The `regex`
module runs the same patterns but on a newer Unicode version, so its classes differ from
tiktoken's on ~17,000 code points. `tiktoken_view(text)` replaces each of those by a
character of the class tiktoken gives it (one the two agree on), character for character;
`expected(family, text)` is then the `regex` module's chunks of that: the pattern's chunks
as tiktoken's Unicode classes make them. The classes tiktoken gives are asked of tiktoken
itself (app/bpe/unicode_classes.py).
"""

from __future__ import annotations

from functools import cache

import regex

from app.bpe import unicode_classes as uc
from app.bpe.families import PATTERNS

# A character of each class, on which tiktoken and the `regex` module agree (test_pretokenize_classes.py).
STAND_IN = {
    uc.OTHER: "!",
    uc.LU: "A",
    uc.LL: "a",
    uc.LT: "\u01c5",
    uc.LM: "\u02b0",
    uc.LO: "\u4e2d",
    uc.MARK: "\u0301",
    uc.NUMBER: "\u0663",
    uc.SPACE: "\u3000",
}


@cache
def tiktoken_table() -> bytes:
    """The class of every code point, as tiktoken's regex has them (~2 s, once)."""
    return bytes(uc.classes())


@cache
def regex_table() -> bytes:
    """The class of every code point, as the `regex` module has them."""
    table, text = bytearray(uc.LAST + 1), "".join(map(chr, uc.code_points()))
    for cls, pattern in uc.PATTERNS.items():
        for char in regex.findall(pattern, text):
            table[ord(char)] = cls
    table[ord("\r")] = table[ord("\n")] = uc.NEWLINE
    return bytes(table)


@cache
def disagreements() -> dict[int, str]:
    """Code point -> the stand-in of its tiktoken class, where the `regex` module classes it otherwise."""
    ours, theirs = tiktoken_table(), regex_table()
    return {cp: STAND_IN[ours[cp]] for cp in uc.code_points() if ours[cp] != theirs[cp]}


def tiktoken_view(text: str) -> str:
    return text.translate(disagreements())


@cache
def compiled(family: int) -> regex.Pattern[str]:
    return regex.compile(PATTERNS[family])


def expected(family: int, text: str) -> list[tuple[int, int]]:
    """The (start, end) character offsets of the chunks tiktoken's regex finds in `text`."""
    return [m.span() for m in compiled(family).finditer(tiktoken_view(text))]
