"""What a built bpe model does with text: the Tokenizer interface over its vocabulary and the
C extension's `Merger`. Encoding splits text with the pattern (under `split`'s checks for a
custom one) and hands the chunks to the `Merger`, which takes each chunk's ids from a cache
or merges it. Leaves building, training, saving and loading a model to `model`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import regex

from app.bpe import split
from app.bpe.patterns import CUSTOM_PATTERN
from app.errors import BadTokenId
from app.tokenizers import chunks
from app.tokenizers.base import Tokenizer

if TYPE_CHECKING:
    from app.bpe._core import Merger

_CACHE_LIMIT = 100_000  # chunks; the cache stops growing at this and is emptied by the next encode


class BPEEncoder(Tokenizer):
    """The fields are set by `model.BPETokenizer`, which is the class to build."""

    pattern_name: str
    _vocab: list[bytes]  # id -> bytes
    _merger: Merger
    _special_tokens: dict[str, int]
    _special_by_id: dict[int, bytes]
    _vocab_size: int
    _split: Callable[[str], list[str]] | None  # findall: str -> chunks; None: one chunk
    _special_split: regex.Pattern[str] | None
    _cache: dict[str, bytes]  # chunk -> its ids as native int32s, filled by the Merger

    @property
    def pieces(self) -> tuple[bytes, ...]:
        """The bytes of each regular token, in id order."""
        return tuple(self._vocab)

    @property
    def splitter(self) -> Callable[[str], list[str]] | None:
        """The pattern's findall (text -> chunks, no deadline of its own); None: the text is one chunk."""
        return self._split

    @property
    def vocab_size(self) -> int:
        return self._vocab_size

    @property
    def special_tokens(self) -> dict[str, int]:
        return self._special_tokens

    def has_id(self, token_id: int) -> bool:
        return 0 <= token_id < len(self._vocab) or token_id in self._special_by_id

    def id_to_bytes(self, token_id: int) -> bytes:
        if 0 <= token_id < len(self._vocab):
            return self._vocab[token_id]
        try:
            return self._special_by_id[token_id]
        except KeyError:
            raise BadTokenId(
                f"token id {token_id} is not in {self.name}'s vocabulary; ids go from 0 to {self._vocab_size - 1}"
            ) from None

    def token_bytes(self, ids: list[int]) -> list[bytes]:
        vocab = self._vocab
        try:
            return [vocab[i] if i >= 0 else self.id_to_bytes(i) for i in ids]
        except IndexError:
            return [self.id_to_bytes(i) for i in ids]

    def decode(self, ids: list[int]) -> str:
        return b"".join(self.token_bytes(ids)).decode("utf-8", errors="replace")

    def encode(self, text: str, allow_special: bool = False) -> list[int]:
        if not allow_special or self._special_split is None:
            return self.encode_ordinary(text)
        deadline = self._deadline(text)
        ids: list[int] = []
        for index, part in enumerate(self._special_split.split(text)):
            if index % 2:
                ids.append(self._special_tokens[part])
            elif part:
                ids.extend(self._encode_part(part, deadline))
        return ids

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of `text`, special-token strings taken as plain text."""
        return self._encode_part(text, self._deadline(text))

    def _encode_part(self, text: str, deadline: float | None) -> list[int]:
        if self._split is None:
            return self._merger.merge(text.encode("utf-8", errors="surrogatepass"))
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        chunks = self._split(text) if deadline is None else split.split(self._split, text, deadline, self.name)
        return self._merger.encode_chunks(chunks, self._cache, _CACHE_LIMIT)

    def chunks(self, text: str, allow_special: bool = False) -> list[tuple[int, int]] | None:
        findall = self._split
        if findall is None:
            return None
        deadline = self._deadline(text)
        specials = self._special_split if allow_special else None
        return chunks.around_specials(
            text,
            specials,
            lambda part: chunks.of_lengths(
                findall(part) if deadline is None else split.split(findall, part, deadline, self.name)
            ),
        )

    def _deadline(self, text: str) -> float | None:
        """When splitting `text` must be done by; None for PATTERNS, which are linear and cover all text."""
        return split.deadline(text) if self.pattern_name == CUSTOM_PATTERN else None
