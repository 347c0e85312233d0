"""tiktoken's ids, computed by the C engine (`_engine.c`) with the GIL released.

`Encoder.for_pattern(pattern, ranks, name)` gives an encoder for a vocabulary whose split
pattern is one of the engine's families (`family_of`), else None. Its `encode`, `count`,
`encode_batch` and `count_batch` give exactly tiktoken's `encode_ordinary` ids (plus
`id_offset`): special-token strings are plain text here, the caller cuts real special
tokens out first. A str with lone surrogates is encoded as tiktoken's Python `encode`
does: its surrogates become U+FFFD (through UTF-16 with "surrogatepass", decoded with
"replace").

`_engine.FULL_UNICODE` says whether the linked pretokenizer knows non-ASCII text (it does;
an ASCII-only stand-in did before it was written): while False, `accepts` is True for
ASCII text only and callers use tiktoken for the rest.

Encoders built from the same ranks, pattern and id offset share one C engine (o200k_base
and o200k_harmony). Left out: decoding, and the special tokens themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from weakref import WeakValueDictionary

from app.bpe import _engine, heap
from app.bpe._engine import Engine
from app.bpe.families import FAMILIES
from app.errors import InvalidInput

FULL_UNICODE: bool = _engine.FULL_UNICODE
heap.keep()  # the lists of ids are reused memory, not fresh pages (heap.py)


def family_of(pattern: str) -> int | None:
    """The engine's family for a split pattern (app.bpe.families), None when it has none (a
    user's file with another pattern: tiktoken encodes it)."""
    return FAMILIES.get(pattern)


class _Built:
    """One C engine and the tokens (rank order) it was built from. Every Encoder of it holds
    it, so it stays findable in _BUILT while any of them lives (not only the first or last)."""

    __slots__ = ("__weakref__", "engine", "tokens")

    def __init__(self, engine: Engine, tokens: list[bytes]):
        self.engine, self.tokens = engine, tokens


# (family, id_offset, number and hash of the tokens) -> the engine built from them, while an
# Encoder holds it: tokenizers with the same ranks and pattern share it (it is immutable and
# thread-safe; o200k_base and o200k_harmony: one engine, ~30 MB).
_BUILT: WeakValueDictionary[tuple[int, int, int, int], _Built] = WeakValueDictionary()


def _without_surrogates(text: str) -> str:
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def tokens_by_rank(ranks: dict[bytes, int]) -> list[bytes] | None:
    """The tokens in rank order, or None when the ranks are not 0..n-1. Ranks read from a file
    in rank order (every shipped one) are in order already: no sort."""
    if list(ranks.values()) == list(range(len(ranks))):
        return list(ranks)
    tokens = sorted(ranks, key=ranks.__getitem__)
    return tokens if [ranks[token] for token in tokens] == list(range(len(tokens))) else None


class Encoder:
    _core: Engine
    _built: _Built

    def __init__(self, family: int, ranks: dict[bytes, int], name: str, id_offset: int = 0):
        tokens = tokens_by_rank(ranks)
        if tokens is None:
            raise InvalidInput(f"ranks for {name!r} must be 0..n-1; these are not")
        key = (family, id_offset, len(tokens), hash(tuple(tokens)))
        built = _BUILT.get(key)
        if built is None or built.tokens != tokens:
            try:
                built = _Built(Engine(family, tokens, id_offset), tokens)
            except ValueError as error:
                raise InvalidInput(f"ranks for {name!r} do not make a tiktoken vocabulary: {error}") from None
            _BUILT[key] = built
        self._built, self._core = built, built.engine

    @classmethod
    def for_pattern(cls, pattern: str, ranks: dict[bytes, int], name: str, id_offset: int = 0) -> Encoder | None:
        family = family_of(pattern)
        return None if family is None else cls(family, ranks, name, id_offset)

    @staticmethod
    def accepts(text: str) -> bool:
        """Whether this build's pretokenizer cuts `text` exactly (any text once FULL_UNICODE)."""
        return FULL_UNICODE or text.isascii()

    def plain_methods(self) -> tuple[Callable[[str], list[int]], Callable[[str], int]] | None:
        """The C engine's encode and count, to call directly when this build takes every text
        (they raise UnicodeEncodeError on lone surrogates: then call this encoder's), else None."""
        return (self._core.encode, self._core.count) if FULL_UNICODE else None

    def encode(self, text: str) -> list[int]:
        try:
            return self._core.encode(text)
        except UnicodeEncodeError:
            return self._core.encode(_without_surrogates(text))

    def count(self, text: str) -> int:
        try:
            return self._core.count(text)
        except UnicodeEncodeError:
            return self._core.count(_without_surrogates(text))

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        try:
            return self._core.encode_batch(texts)
        except UnicodeEncodeError:
            return self._core.encode_batch([_without_surrogates(text) for text in texts])

    def count_batch(self, texts: list[str]) -> list[int]:
        try:
            return self._core.count_batch(texts)
        except UnicodeEncodeError:
            return self._core.count_batch([_without_surrogates(text) for text in texts])

    def encode_cut(self, text: str, cuts: list[int]) -> list[int]:
        """The ids of text's pieces between the character offsets `cuts` (increasing, inside the
        text), each encoded on its own, in one call and without copying the pieces."""
        try:
            return self._core.encode_cut(text, cuts)
        except UnicodeEncodeError:  # a lone surrogate is one character, as its replacement
            return self._core.encode_cut(_without_surrogates(text), cuts)

    def count_cut(self, text: str, cuts: list[int]) -> int:
        try:
            return self._core.count_cut(text, cuts)
        except UnicodeEncodeError:
            return self._core.count_cut(_without_surrogates(text), cuts)
