"""Mistral's Tekken tokenizer (Mistral NeMo, Pixtral, Ministral) on tiktoken.

A tekken JSON file holds a tiktoken-style vocabulary (`vocab`: rank and base64 bytes per
entry) and a `config` (split pattern, vocabulary size, number of special tokens). It is
built as mistral-common's `Tekkenizer` builds it (mistral_common/tokens/tokenizers/tekken.py,
mistral-common 1.13.1):

- the first `default_num_special_tokens` ids (1,000) are special: the file's
  `special_tokens` when it lists them, else Tekkenizer's twenty defaults (`<unk>`, `<s>`,
  `</s>`, `[INST]`, ...), then fillers `<SPECIAL_20>` ... `<SPECIAL_999>`;
- the regular vocabulary is the first `default_vocab_size - default_num_special_tokens`
  entries of `vocab` (130,072 of tekken_240911's 150,000): tiktoken ranks, encoded with
  the file's pattern and no special tokens;
- a regular token's id is its rank plus the number of special tokens.

Ids therefore equal `Tekkenizer.encode(text, bos=False, eos=False)`; the C engine
(`app.bpe.engine`) computes them when the file's pattern has a family there, tiktoken
otherwise. Tekkenizer never parses special tokens out of text, so `allow_special` has no
effect here (as with SentencePiece). `decode` drops special ids and decodes each run of regular ids on its
own, as `Tekkenizer.decode` does (its default policy, IGNORE); the tokens of
`tokens_for_ids` still show the special tokens' names.
"""

from __future__ import annotations

import base64
import binascii
import json
from functools import partial
from itertools import groupby

import regex
import tiktoken

from app.backends.tiktoken_backend import LazyEncoding, split_failures_as_422
from app.bpe import split
from app.bpe.engine import Encoder
from app.errors import TokenizerFileError
from app.tokenizers import chunks
from app.tokenizers.base import Tokenizer

# Tekkenizer.DEPRECATED_SPECIAL_TOKENS: ids 0-19 of a file that lists no special tokens
# (mistral-common 1.13.1, mistral_common/tokens/tokenizers/tekken.py and base.py's SpecialTokens).
DEFAULT_SPECIAL_TOKENS = (
    "<unk>",
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "[AVAILABLE_TOOLS]",
    "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]",
    "[TOOL_CALLS]",
    "[IMG]",
    "<pad>",
    "[IMG_BREAK]",
    "[IMG_END]",
    "[PREFIX]",
    "[MIDDLE]",
    "[SUFFIX]",
    "[SYSTEM_PROMPT]",
    "[/SYSTEM_PROMPT]",
    "[TOOL_CONTENT]",
)
FILLER_TEMPLATE = "<SPECIAL_{id}>"  # Tekkenizer.SPECIAL_TOKEN_TEMPLATE


class TekkenTokenizer(Tokenizer):
    kind = "tiktoken"

    def __init__(self, name: str, description: str, data: bytes, source: str):
        self._build(name, description, *_parse_tekken(data, source))

    def _build(
        self, name: str, description: str, pattern: str, ranks: dict[bytes, int], specials: list[str], vocab_size: int
    ):
        self.name = name
        self.description = description
        self._offset = len(specials)  # regular ids come after the special ones
        self._vocab_size = vocab_size
        self._special_names = [token.encode("utf-8") for token in specials]
        self._special_tokens = {token: token_id for token_id, token in enumerate(specials)}
        self._special_ids = frozenset(range(self._offset))
        self._pieces = sorted(ranks, key=ranks.__getitem__)  # rank -> its bytes
        self._pattern = regex.compile(pattern)
        self.pattern = pattern  # the split regex, as the file gives it
        self._engine = Encoder.for_pattern(pattern, ranks, name, id_offset=self._offset)
        # built at once only when some texts go to tiktoken (see tiktoken_backend)
        self._encoding = LazyEncoding(partial(_tiktoken_encoding, name, pattern, self._pieces))
        if self._engine is None or self._engine.plain_methods() is None:
            self._encoding.get()

    def __reduce__(self):
        """Pickled as what the file gave (the C engine does not pickle), rebuilt from it."""
        ranks = {token: token_id - self._offset for token, token_id in self.regular_tokens().items()}
        specials = list(self._special_tokens)
        return (TekkenTokenizer.rebuilt, (self.name, self.description, self.pattern, ranks, specials, self._vocab_size))

    @classmethod
    def rebuilt(
        cls, name: str, description: str, pattern: str, ranks: dict[bytes, int], specials: list[str], vocab_size: int
    ) -> TekkenTokenizer:
        """A tokenizer from what its file gave (see __reduce__)."""
        tokenizer = cls.__new__(cls)
        cls._build(tokenizer, name, description, pattern, ranks, specials, vocab_size)
        return tokenizer

    def regular_tokens(self) -> dict[bytes, int]:
        """Each regular token's bytes -> its id (after the special ids)."""
        offset = self._offset
        return {piece: offset + rank for rank, piece in enumerate(self._pieces)}

    @property
    def vocab_size(self) -> int:
        return self._vocab_size

    @property
    def special_tokens(self) -> dict[str, int]:
        return self._special_tokens

    @property
    def special_ids(self) -> frozenset[int]:
        return self._special_ids

    def has_id(self, token_id: int) -> bool:
        return 0 <= token_id < self._vocab_size

    def _engine_for(self, text: str) -> Encoder | None:
        """The C engine when it encodes `text` (the file's pattern has a family), None when tiktoken does."""
        return self._engine if self._engine is not None and self._engine.accepts(text) else None

    def encode(self, text: str, allow_special: bool = False) -> list[int]:
        engine = self._engine_for(text)
        if engine is not None:
            return engine.encode(text)
        with split_failures_as_422(self.name):
            ranks = self._encoding.get().encode_ordinary(text)
        offset = self._offset
        return [rank + offset for rank in ranks]

    def count(self, text: str, allow_special: bool = False) -> int:
        engine = self._engine_for(text)
        return engine.count(text) if engine is not None else len(self.encode(text))

    def _batch_engine(self, texts: list[str]) -> Encoder | None:
        """The C engine when it takes every text, else None."""
        engine = self._engine
        return engine if engine is not None and all(map(engine.accepts, texts)) else None

    def encode_batch(self, texts: list[str], allow_special: bool = False) -> list[list[int]]:
        engine = self._batch_engine(texts)
        return engine.encode_batch(texts) if engine is not None else super().encode_batch(texts)

    def count_batch(self, texts: list[str], allow_special: bool = False) -> list[int]:
        engine = self._batch_engine(texts)
        return engine.count_batch(texts) if engine is not None else super().count_batch(texts)

    def chunks(self, text: str, allow_special: bool = False) -> list[tuple[int, int]]:
        # special tokens are never parsed out of text
        return chunks.of_pattern(self._pattern, text, split.deadline(text), self.name)

    def id_to_bytes(self, token_id: int) -> bytes:
        if 0 <= token_id < self._offset:
            return self._special_names[token_id]
        if self._offset <= token_id < self._offset + len(self._pieces):
            return self._pieces[token_id - self._offset]
        raise KeyError(token_id)

    def token_bytes(self, ids: list[int]) -> list[bytes]:
        return [self.id_to_bytes(i) for i in ids]

    def decode(self, ids: list[int]) -> str:
        """The text of the regular ids: each run between special ids decoded on its own, invalid
        UTF-8 replaced (what tiktoken's decode of each run gave)."""
        offset = self._offset
        return "".join(
            b"".join(self.id_to_bytes(i) for i in run).decode("utf-8", errors="replace")
            for special, run in groupby(ids, lambda i: i < offset)
            if not special
        )


def _tiktoken_encoding(name: str, pattern: str, pieces: list[bytes]) -> tiktoken.Encoding:
    ranks = {piece: rank for rank, piece in enumerate(pieces)}
    return tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens={})


def _parse_tekken(data: bytes, source: str) -> tuple[str, dict[bytes, int], list[str], int]:
    """(pattern, regular token bytes -> rank, special token strings by id, vocabulary size)
    of a tekken JSON file, checked as Tekkenizer checks it."""
    try:
        model = json.loads(data)
        config = model["config"]
        pattern = config["pattern"]
        vocab_size = int(config["default_vocab_size"])
        special_count = int(config["default_num_special_tokens"])
        vocab = model["vocab"]
        listed = model.get("special_tokens")
        specials = list(DEFAULT_SPECIAL_TOKENS) if listed is None else [entry["token_str"] for entry in listed]
        regular = vocab_size - special_count
        if not 0 <= regular <= len(vocab) or len(specials) > special_count:
            raise ValueError(
                f"{len(vocab)} vocabulary entries and {len(specials)} special tokens do not fit "
                f"a vocabulary of {vocab_size} with {special_count} special ids"
            )
        if listed is not None and [entry["rank"] for entry in listed] != list(range(len(listed))):
            raise ValueError("special token ranks are not 0, 1, 2, ...")
        specials += [FILLER_TEMPLATE.format(id=i) for i in range(len(specials), special_count)]
        if len(set(specials)) != len(specials):
            raise ValueError("special token strings repeat")
        ranks: dict[bytes, int] = {}
        for rank, entry in enumerate(vocab[:regular]):
            token = base64.b64decode(entry["token_bytes"], validate=True)
            if entry["rank"] != rank or token in ranks or (rank < 256 and token != bytes([rank])):
                raise ValueError(f"vocabulary entry {rank} is out of order or repeated")
            ranks[token] = rank
    except (ValueError, KeyError, TypeError, AttributeError, binascii.Error) as error:
        raise TokenizerFileError(f"{source} is not a tekken tokenizer file: {error}") from None
    return pattern, ranks, specials, vocab_size
