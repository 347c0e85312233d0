"""The one interface every tokenizer answers, whatever its backend.

A backend implements `encode`, `id_to_bytes` and `has_id` (and may override
`token_bytes` when it can produce all pieces faster, `count`/`count_batch` when it can
count without building what counting does not need, `encode_batch` when one call encodes
many texts faster (without the GIL), or `decode` to match a reference
library). Everything the visualizer and the API need (`tokenize`, `tokens_for_ids`,
id validation) is built here from those, once for all backends. No I/O happens here:
files are read by `app.tokenizers.storage.files`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable

from app.errors import BadTokenId
from app.tokenizers.tokens import Token, char_ranges, clean_text, make_tokens, text_and_ranges

KINDS = ("bpe", "tiktoken", "sentencepiece", "huggingface")


class Tokenizer(ABC):
    name: str
    kind: str
    description: str
    # an app.chat.formats.template_format.ChatTemplate when the tokenizer was added with one (a class on a
    # higher floor, so its readers narrow it with isinstance)
    chat_template: object = None
    chunks_note: str | None = None  # for a tokenizer with no split (chunks is None): what it does instead

    @property
    @abstractmethod
    def vocab_size(self) -> int:
        """One more than the largest id (ids in between may be gaps, see `has_id`)."""

    @property
    def special_tokens(self) -> dict[str, int]:
        """Special-token strings and their ids ({} when the tokenizer has none)."""
        return {}

    @abstractmethod
    def encode(self, text: str, allow_special: bool = False) -> list[int]:
        """Ids for `text`. Special-token strings are plain text unless `allow_special`."""

    def encode_batch(self, texts: list[str], allow_special: bool = False) -> list[list[int]]:
        """`encode` of each text (a backend with a batch encoder overrides this)."""
        return [self.encode(text, allow_special) for text in texts]

    def count(self, text: str, allow_special: bool = False) -> int:
        """How many ids `encode` gives, without keeping them (a backend that can count
        without building ids, offsets or strings overrides this)."""
        return len(self.encode(text, allow_special))

    def count_batch(self, texts: list[str], allow_special: bool = False) -> list[int]:
        """`count` of each text (a backend with a batch encoder overrides this)."""
        return [self.count(text, allow_special) for text in texts]

    @abstractmethod
    def id_to_bytes(self, token_id: int) -> bytes:
        """The bytes one id stands for on its own (a special token: its string)."""

    @abstractmethod
    def has_id(self, token_id: int) -> bool:
        """Whether `token_id` is a real entry of the vocabulary."""

    def token_bytes(self, ids: list[int]) -> list[bytes]:
        """The bytes of each id in sequence, such that they join to the decoded bytes."""
        return [self.id_to_bytes(i) for i in ids]

    def decode(self, ids: list[int]) -> str:
        return text_and_ranges(self.token_bytes(ids))[0]

    @property
    def special_ids(self) -> frozenset[int]:
        return frozenset(self.special_tokens.values())

    def tokenize(self, text: str, allow_special: bool = False) -> list[Token]:
        """Tokens of `text`; their bytes join to its UTF-8 and their ranges cover it in order."""
        text = clean_text(text)
        return self.tokens_of(text, self.encode(text, allow_special), allow_special)

    def tokens_of(self, text: str, ids: list[int], allow_special: bool = False) -> list[Token]:
        """Tokens for `ids`, the first ids (or all) of `encode(text)`: the head of the text only."""
        pieces = self.pieces_of(text, ids, allow_special)
        return make_tokens(ids, pieces, char_ranges(pieces), self.special_ids)

    def pieces_of(self, text: str, ids: list[int], allow_special: bool = False) -> list[bytes]:
        """For the first ids (or all) of `encode(text)`, the bytes of `text` each stands for.

        The ids' own bytes, when they spell the start of the text (always, for byte-level
        BPE); otherwise (a backend that rewrites text, such as SentencePiece's literal `▁`)
        the backend's exact pieces of the whole text, cut to as many."""
        pieces = self.token_bytes(ids)
        if text.encode("utf-8").startswith(b"".join(pieces)):
            return pieces
        return self.encode_with_pieces(text, allow_special)[1][: len(ids)]

    def chunks(self, text: str, allow_special: bool = False) -> list[tuple[int, int]] | None:
        """The character ranges (start, end) the pre-tokenizer cuts `text` into before merging; no
        token crosses one (app/tokenizers/chunks.py). None when there is no split: see `chunks_note`."""
        return None

    def encode_with_pieces(self, text: str, allow_special: bool = False) -> tuple[list[int], list[bytes]]:
        """Ids of `text` and, for each, the bytes of `text` it stands for."""
        ids = self.encode(text, allow_special=allow_special)
        return ids, self.token_bytes(ids)

    def tokens_for_ids(self, ids: Iterable[object]) -> tuple[str, list[Token]]:
        """Validate user-given ids, then the decoded text and its tokens (ranges into that text)."""
        checked = self.validate_ids(ids)
        pieces = self.token_bytes(checked)
        text, ranges = text_and_ranges(pieces)
        return text, make_tokens(checked, pieces, ranges, self.special_ids)

    def validate_ids(self, ids: Iterable[object]) -> list[int]:
        """Ids as ints, or a `BadTokenId` naming the first bad one and its position."""
        checked = []
        for position, value in enumerate(ids):
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadTokenId(
                    f"token id at position {position} is {_shown(value)}, not an integer; "
                    f"send whole numbers from 0 to {self.vocab_size - 1}"
                )
            if value < 0 or value >= self.vocab_size:
                raise BadTokenId(
                    f"token id {_shown(value)} at position {position} is out of range for {self.name}; "
                    f"ids go from 0 to {self.vocab_size - 1}"
                )
            if not self.has_id(value):
                raise BadTokenId(
                    f"token id {value} at position {position} is not in {self.name}'s vocabulary "
                    f"(a gap between its regular and special tokens); remove it"
                )
            checked.append(value)
        return checked

    def info(self) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "vocab_size": self.vocab_size,
            "description": self.description,
        }


def _shown(value: object, limit: int = 60) -> str:
    """A user's value for an error message: as written, or its start and its length when long."""
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else repr(value)
    return text if len(text) <= limit else f"{text[:40]}… ({len(text):,} characters)"
