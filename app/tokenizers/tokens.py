"""The `Token` type every tokenizer produces, and what is derived from a list of them.

A `Token` is an id, the exact bytes it stands for, and the smallest character range
`[start, end)` of the text that contains those bytes. From a token list this module
derives segments (tokens that split a character are grouped with it), per-text stats,
and the character ranges themselves. It knows nothing about any particular tokenizer,
nor about HTML.
"""

from __future__ import annotations

import codecs
import json
import re
import threading
from dataclasses import dataclass
from itertools import accumulate, repeat
from operator import le
from typing import NamedTuple

import regex

from app.errors import BadTokenId

CONTINUATION_BYTES = bytes(range(0x80, 0xC0))  # UTF-8 continuation bytes: never start a character
_GRAPHEME = regex.compile(r"\X")  # one user-perceived character
# Characters that can join a grapheme cluster with the one before or after (UAX #29): where
# none occurs, every code point boundary is a cluster boundary and `segments` skips `\X`.
_MAY_JOIN = regex.compile(
    r"[\r\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}\p{GCB=Prepend}\p{GCB=Regional_Indicator}"
    r"\p{GCB=L}\p{GCB=V}\p{GCB=T}\p{GCB=LV}\p{GCB=LVT}]"
)


class Token(NamedTuple):
    """Immutable; a named tuple because a 100 KB text makes tens of thousands of them."""

    id: int
    bytes: bytes
    start: int
    end: int
    special: bool = False

    @property
    def text(self) -> str:
        """The token's bytes as text; a byte that is only part of a character shows as U+FFFD."""
        return self.bytes.decode("utf-8", errors="replace")

    @property
    def is_partial(self) -> bool:
        """True when the bytes are not whole UTF-8 characters (a piece of an emoji, say)."""
        try:
            self.bytes.decode("utf-8")
        except UnicodeDecodeError:
            return True
        return False


class Segment(NamedTuple):
    """A run of tokens whose character ranges overlap: what the UI shows as one span."""

    start: int
    end: int
    tokens: tuple[Token, ...] = ()

    @property
    def ids(self) -> list[int]:
        return [t.id for t in self.tokens]

    @property
    def is_split_character(self) -> bool:
        return len(self.tokens) > 1


def clean_text(text: str) -> str:
    """Replace each lone surrogate (JSON can carry them, UTF-8 cannot) with one U+FFFD;
    a high and low surrogate that stand as a pair become the character they encode."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16-le", errors="surrogatepass").decode("utf-16-le", errors="replace")


def char_ranges(pieces: list[bytes]) -> list[tuple[int, int]]:
    """Character ranges for byte pieces whose concatenation is valid UTF-8.

    A piece that starts inside a character starts at that character; a piece that ends
    inside one ends after it, so pieces that split a character share its range. An empty
    piece gets an empty range at the current position.
    """
    if b"".join(pieces).isascii():  # one character per byte: the ranges are running sums
        ends = list(accumulate(map(len, pieces)))
        return list(zip([0, *ends[:-1]], ends, strict=True)) if ends else []
    ranges = []
    chars_started = 0
    for piece in pieces:
        if not piece:
            ranges.append((chars_started, chars_started))
            continue
        starts_inside = piece[0] in CONTINUATION_BYTES
        start = chars_started - 1 if starts_inside else chars_started
        chars_started += len(piece.translate(None, CONTINUATION_BYTES))
        ranges.append((start, chars_started))
    return ranges


def text_and_ranges(pieces: list[bytes]) -> tuple[str, list[tuple[int, int]]]:
    """Decode byte pieces that may not be valid UTF-8 (ids chosen by a user) exactly as
    `bytes.decode("utf-8", errors="replace")` does, with the character range of every piece."""
    joined = b"".join(pieces)
    try:
        return joined.decode("utf-8"), char_ranges(pieces)
    except UnicodeDecodeError:
        pass
    _bad_spans.spans = []
    text = joined.decode("utf-8", errors=_RECORDING_REPLACE)
    char_of_byte, chars, position = [], 0, 0
    for bad_start, bad_end in [*_bad_spans.spans, (len(joined), len(joined))]:
        for byte in joined[position:bad_start]:
            if byte not in CONTINUATION_BYTES:
                chars += 1
            char_of_byte.append(chars - 1)
        if bad_end > bad_start:
            char_of_byte.extend([chars] * (bad_end - bad_start))  # all become one U+FFFD
            chars += 1
        position = bad_end
    ranges, offset = [], 0
    for piece in pieces:
        if piece:
            ranges.append((char_of_byte[offset], char_of_byte[offset + len(piece) - 1] + 1))
        else:
            start = char_of_byte[offset] if offset < len(char_of_byte) else len(text)
            ranges.append((start, start))
        offset += len(piece)
    return text, ranges


_RECORDING_REPLACE = "tokenprism-recording-replace"
_bad_spans = threading.local()


def _record_and_replace(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeDecodeError)  # registered for decoding only
    _bad_spans.spans.append((error.start, error.end))
    return "\ufffd", error.end


codecs.register_error(_RECORDING_REPLACE, _record_and_replace)


def make_tokens(
    ids: list[int], pieces: list[bytes], ranges: list[tuple[int, int]], special_ids=frozenset()
) -> list[Token]:
    if len(ids) != len(pieces) or len(ids) != len(ranges):
        raise ValueError(f"{len(ids)} ids, {len(pieces)} pieces and {len(ranges)} ranges do not line up")
    flags = map(special_ids.__contains__, ids) if special_ids else repeat(False)
    # tuple.__new__ over rows builds each Token in C (Token._make is a Python call per token);
    # not strict: `flags` may be an endless repeat(False)
    return (
        list(map(tuple.__new__, repeat(Token), zip(ids, pieces, *zip(*ranges, strict=True), flags, strict=False)))
        if ids
        else []
    )


def segments(tokens: list[Token], text: str | None = None) -> list[Segment]:
    """Group consecutive tokens whose character ranges overlap into segments.

    Given the `text`, also join neighbours whose boundary falls inside one user-perceived
    character (a grapheme cluster: a ZWJ emoji, a flag, a letter and its combining
    accent), so that such a character shows once with all its ids."""
    groups = _overlapping(tokens)
    if text is None or not groups:
        return groups
    end = groups[-1].end
    if text[:end].isascii() or not _MAY_JOIN.search(text, 0, end):
        return groups  # (near enough) every code point boundary is a grapheme boundary
    boundaries = {0, end, *accumulate(map(len, _GRAPHEME.findall(text, 0, end)))}
    joined: list[Segment] = []
    for group in groups:
        last = joined[-1] if joined else None
        if last and last.start != last.end and group.start != group.end and group.start not in boundaries:
            joined[-1] = Segment(last.start, max(last.end, group.end), last.tokens + group.tokens)
        else:
            joined.append(group)
    return joined


def _overlapping(tokens: list[Token]) -> list[Segment]:
    starts = [t.start for t in tokens]
    ends = [t.end for t in tokens]
    if all(map(le, ends, starts[1:])):  # no token reaches into the next (the usual case): one segment each
        return list(map(tuple.__new__, repeat(Segment), zip(starts, ends, zip(tokens), strict=True)))
    result: list[Segment] = []
    group: list[Token] = []
    group_start = group_end = 0
    for token in tokens:
        if group and token.start < group_end:
            group.append(token)
            group_end = max(group_end, token.end)
            continue
        if group:
            result.append(Segment(group_start, group_end, tuple(group)))
        group, group_start, group_end = [token], token.start, token.end
    if group:
        result.append(Segment(group_start, group_end, tuple(group)))
    return result


@dataclass(frozen=True, slots=True)
class Stats:
    tokens: int
    characters: int
    bytes: int
    words: int

    @property
    def chars_per_token(self) -> float:
        return self.characters / self.tokens if self.tokens else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def tokens_per_word(self) -> float:
        return self.tokens / self.words if self.words else 0.0

    def to_dict(self) -> dict:
        return {
            "tokens": self.tokens,
            "characters": self.characters,
            "bytes": self.bytes,
            "words": self.words,
            "chars_per_token": round(self.chars_per_token, 4),
            "bytes_per_token": round(self.bytes_per_token, 4),
            "tokens_per_word": round(self.tokens_per_word, 4),
        }


def text_stats(text: str, token_count: int) -> Stats:
    return Stats(
        tokens=token_count,
        characters=len(text),
        bytes=len(text.encode("utf-8")),
        words=len(text.split()),
    )


_ASCII_ID = re.compile(r"[+-]?[0-9]{1,30}")  # not \d: int() would also take "١٢" or "１２"
_JSON_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"?'  # a JSON string, or the rest of the text if unclosed
_STRING_OR_BRACKET = re.compile(_JSON_STRING + r"|[\[\]{}]", re.DOTALL)
_STRING_OR_COMMA = re.compile(_JSON_STRING + r"|,", re.DOTALL)
_WRITE_THEM = "write them as [15339, 1917] or as 15339 1917"
_FLAT = "send a flat array of whole numbers like [15339, 1917]"


def parse_ids(raw: str) -> list[object]:
    """Ids typed by a person: a flat JSON array, or numbers separated by spaces or commas.

    Whatever is not a whole number of ASCII digits stays as it was written (`"abc"`,
    `1.5`, `"١٢"`), so the engine's check names it and its position. Arrays or objects
    inside the array are refused, at any depth, without recursing into them."""
    raw = raw.strip()
    if not raw:
        return []
    if raw.startswith("{"):
        raise BadTokenId(f"the ids are not a JSON array; {_WRITE_THEM}")
    if not raw.startswith("["):
        items = [item for item in re.split(r"[\s,;]+", raw) if item]
        return [int(item) if _ASCII_ID.fullmatch(item) else item for item in items]
    _refuse_nesting(raw)
    try:
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise BadTokenId(
            f"the ids are not a valid JSON array ({error.msg}, at character {error.pos + 1}); {_WRITE_THEM}"
        ) from None
    except ValueError:  # int() refuses a number of over 4,300 digits
        raise BadTokenId(f"a token id in the array has thousands of digits; {_FLAT}") from None
    except RecursionError:  # _refuse_nesting should have caught any nesting first
        raise BadTokenId(f"the ids are nested too deeply; {_FLAT}") from None


def _refuse_nesting(raw: str) -> None:
    """A `BadTokenId` naming the first array or object inside the top-level array `raw`,
    found by counting brackets outside of strings (json.loads would recurse into it)."""
    if raw.count("[") == 1 and "{" not in raw:
        return
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(raw):
        mark = match.group()
        if mark in ("[", "{"):
            depth += 1
            if depth > 1:
                position = sum(m.group() == "," for m in _STRING_OR_COMMA.finditer(raw, 0, match.start()))
                kind = "a JSON array" if mark == "[" else "a JSON object"
                raise BadTokenId(f"token id at position {position} is {kind}, not a number; {_FLAT}")
        elif mark in ("]", "}"):
            depth -= 1
            if depth == 0:
                return  # the top-level array is closed; json.loads names anything after it
