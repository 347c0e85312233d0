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

from app.bpe import _engine
from app.bpe._engine import Engine
from app.bpe.families import FAMILIES
from app.errors import InvalidInput

FULL_UNICODE: bool = _engine.FULL_UNICODE


def family_of(pattern: str) -> int | None:
    """The engine's family for a split pattern (app.bpe.families), None when it has none (a
    user's file with another pattern: tiktoken encodes it)."""
    return FAMILIES.get(pattern)


# (family, id_offset, number and hash of the tokens) -> an Encoder built from them, while one lives:
# tokenizers with the same ranks and pattern share its C engine (it is immutable and thread-safe).
_BUILT: WeakValueDictionary[tuple[int, int, int, int], Encoder] = WeakValueDictionary()


def _without_surrogates(text: str) -> str:
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class Encoder:
    _core: Engine
    _tokens: list[bytes]

    def __init__(self, family: int, ranks: dict[bytes, int], name: str, id_offset: int = 0):
        tokens = sorted(ranks, key=ranks.__getitem__)
        if [ranks[token] for token in tokens] != list(range(len(tokens))):
            raise InvalidInput(f"ranks for {name!r} must be 0..n-1; these are not")
        key = (family, id_offset, len(tokens), hash(tuple(tokens)))
        twin = _BUILT.get(key)
        shared = twin.engine_of(tokens) if twin is not None else None
        if shared is not None:  # o200k_base and o200k_harmony: one engine (~30 MB)
            self._core, self._tokens = shared, tokens
            _BUILT[key] = self  # the engine stays findable while any of its encoders lives
            return
        try:
            self._core = Engine(family, tokens, id_offset)
        except ValueError as error:
            raise InvalidInput(f"ranks for {name!r} do not make a tiktoken vocabulary: {error}") from None
        self._tokens = tokens
        _BUILT[key] = self

    def engine_of(self, tokens: list[bytes]) -> Engine | None:
        """This encoder's C engine when it was built from `tokens` (rank order), else None."""
        return self._core if self._tokens == tokens else None

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
