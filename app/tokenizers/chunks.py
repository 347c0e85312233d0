"""Chunks: the pieces a pre-tokenizer cuts text into before BPE merges within each one.

A chunk is a `(start, end)` character range of the text; the chunks of a text follow each
other and cover it, and no token crosses a chunk's end. The helpers here serve every
backend's `Tokenizer.chunks`: `of_pattern` runs a split regex (`finditer`, the spans of
`regex.findall`) by a deadline (`app.bpe.split.deadline`: a pattern from an uploaded file
may backtrack; the built-ins take a tenth of it on any text), `of_lengths` turns chunk strings that cover a text into ranges,
`around_specials` keeps each special-token string a chunk of its own (as tiktoken and own
BPE cut them out before splitting the rest), found by `specials_pattern` (a trie of the
strings, which every special-token search uses), `shifted` moves ranges by an offset.
What is left out: tokenizers with no split (SentencePiece, own BPE trained with pattern
"none") answer None and say in words what they do instead (`Tokenizer.chunks_note`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from itertools import accumulate, groupby, pairwise

import regex

from app.errors import InvalidInput

Chunk = tuple[int, int]

SENTENCEPIECE_NOTE = (
    "SentencePiece cuts no chunks with a regex: it turns each space into ▁ (and adds one in front "
    "of the text), then picks pieces over the whole text at once."
)
NO_PATTERN_NOTE = (
    'Trained with no split pattern ("none"): the whole text is one chunk, so merges may cross spaces and punctuation.'
)


def of_pattern(pattern: regex.Pattern, text: str, until: float, tokenizer: str) -> list[Chunk]:
    """The spans of `pattern`'s matches in `text`, found by `until` (time.monotonic seconds)."""
    try:
        return [match.span() for match in pattern.finditer(text, timeout=max(until - time.monotonic(), 0.001))]
    except TimeoutError:
        raise InvalidInput(
            f"tokenizer {tokenizer}'s split pattern is too slow to show the chunks of this text (it backtracks); "
            "send a shorter text, or leave chunks out",
            code="split_pattern_too_slow",
        ) from None


def of_lengths(pieces: list[str], start: int = 0) -> list[Chunk]:
    """Ranges for chunk strings that follow each other from `start`."""
    ends = list(accumulate(map(len, pieces), initial=start))
    return list(pairwise(ends))


def shifted(chunks: Iterable[Chunk], offset: int) -> list[Chunk]:
    return [(start + offset, end + offset) for start, end in chunks]


def around_specials(text: str, specials: regex.Pattern | None, split: Callable[[str], list[Chunk]]) -> list[Chunk]:
    """`split` on the text between matches of `specials` (None: the whole text), each match a chunk."""
    if specials is None:
        return split(text)
    chunks: list[Chunk] = []
    position = 0
    for match in specials.finditer(text):
        if match.start() > position:
            chunks += shifted(split(text[position : match.start()]), position)
        chunks.append(match.span())
        position = match.end()
    if position < len(text):
        chunks += shifted(split(text[position:]), position)
    return chunks


TRIE_GROUPS = 32  # how deeply specials_pattern nests its groups at most (the regex parser recurses on them)


def specials_pattern(strings: Iterable[str]) -> regex.Pattern | None:
    """A pattern matching any of the special-token `strings`, the longest where several start
    at one place; None for none. Written as a trie (`<\\|(?:begin_of_text\\|>|end_of_text\\|>)`):
    at each place the regex engine follows one branch a character, where one alternation of the
    strings tried every one of them in turn (llama4's 2,048 on 400,000 characters of `<|`: 5.4 s
    then, 20 ms now; its compile 0.36 -> 0.08 s). Below TRIE_GROUPS groups a node's strings are
    one alternation, longest first."""
    source = specials_source(strings)
    return regex.compile(source) if source is not None else None


def specials_source(strings: Iterable[str]) -> str | None:
    """specials_pattern's regex, uncompiled (to sit in a larger pattern); None for no strings."""
    found = sorted(set(strings))
    return _trie(found, 0, 0) if found else None


def _trie(strings: list[str], at: int, groups: int) -> str:
    """The pattern for `strings` (sorted, distinct, sharing their first `at` characters) from
    character `at` on, longest first; it sits `groups` groups deep."""
    literal = ""
    while True:
        ends = len(strings[0]) == at  # a string that ends here sorts before the longer ones
        longer = strings[1:] if ends else strings
        if ends or len({s[at] for s in longer}) != 1:
            break
        literal, at = literal + regex.escape(longer[0][at]), at + 1
    if not longer:
        return literal
    if groups >= TRIE_GROUPS:
        rests = sorted({s[at:] for s in strings}, key=lambda rest: (-len(rest), rest))
        return literal + "(?:" + "|".join(map(regex.escape, rests)) + ")"
    branches = [_trie(list(group), at, groups + 1) for _, group in groupby(longer, key=lambda s: s[at])]
    return literal + "(?:" + "|".join(branches + [""] * ends) + ")"
