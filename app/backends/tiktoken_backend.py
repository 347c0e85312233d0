"""tiktoken-backed tokenizers: gpt2 (r50k_base), cl100k_base, o200k_base, o200k_harmony
(and, through `qwen_backend`, qwen3_6).

Each is a `tiktoken.Encoding` built from the verified local ranks file with the pattern
and special tokens of `openai_encodings`; `tiktoken.get_encoding` (which downloads) is
never used. Ids therefore equal tiktoken's own: `encode(text, disallowed_special=())`,
or `allowed_special="all"` when special tokens are allowed. When the split pattern has a
family in the C engine (`app.bpe.engine`), `encode`, `count` and `count_batch` go through
it instead, several times faster and with the GIL released, with the same ids
(tests/backends/test_engine_exact.py): special tokens, when allowed, are cut out of the
text first and the plain parts encoded. Token bytes and decoding come from our own list of
the tokens. tiktoken's Encoding (~40 MB and ~0.1 s for o200k_base) is built at once only
when texts need it (a pattern of no engine family: a user's file), else only if asked for
(`encoding`, see LazyEncoding); a special id with several names (o200k_harmony's 200018)
is decoded as tiktoken does, by an Encoding of the special tokens alone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import contextmanager
from functools import partial

import regex
import tiktoken

from app.bpe import split
from app.bpe.engine import Encoder, tokens_by_rank
from app.errors import InvalidInput
from app.tokenizers import chunks
from app.tokenizers.base import Tokenizer
from app.tokenizers.openai_encodings import OpenAIEncoding


@contextmanager
def split_failures_as_422(name: str):
    """tiktoken's regex engine panics (pyo3's PanicException, a BaseException) or raises
    ValueError("Regex error while tokenizing: ...") on some pathological texts, such as a
    million spaces between two letters: a clean InvalidInput instead. (Only texts the C
    engine does not take get here: a user's file with a pattern of no engine family.)"""
    try:
        yield
    except BaseException as error:
        regex_error = isinstance(error, ValueError) and str(error).startswith("Regex error")
        if type(error).__name__ != "PanicException" and not regex_error:
            raise
        raise InvalidInput(
            f"{name} could not split this text (its regex engine gave up, "
            "typically on a very long run of whitespace); send a shorter text"
        ) from None


def tiktoken_encoding(spec: OpenAIEncoding, pieces: list[bytes], specials: dict[str, int]) -> tiktoken.Encoding:
    """tiktoken's Encoding of the tokens `pieces` (in rank order) with `spec`'s pattern."""
    ranks = {piece: rank for rank, piece in enumerate(pieces)}
    n_vocab = spec.explicit_n_vocab if len(pieces) + len(specials) == spec.explicit_n_vocab else None
    return tiktoken.Encoding(
        spec.name, pat_str=spec.pattern, mergeable_ranks=ranks, special_tokens=specials, explicit_n_vocab=n_vocab
    )


_BYTES = [bytes([b]) for b in range(256)]  # the pieces of an Encoding built for its special tokens alone


class LazyEncoding:
    """A tiktoken Encoding built the first time `get` is called (once, whichever thread asks)."""

    def __init__(self, build: Callable[[], tiktoken.Encoding]):
        self._build: Callable[[], tiktoken.Encoding] | None = build
        self._built: tiktoken.Encoding | None = None
        self._lock = threading.Lock()

    @property
    def built(self) -> bool:
        return self._built is not None

    def get(self) -> tiktoken.Encoding:
        if self._built is None:
            with self._lock:
                if self._built is None and self._build is not None:
                    self._built, self._build = self._build(), None
        assert self._built is not None
        return self._built


class TiktokenTokenizer(Tokenizer):
    kind = "tiktoken"

    def __init__(self, spec: OpenAIEncoding, ranks: dict[bytes, int]):
        self._spec = spec
        self.name = spec.name
        self.description = spec.description
        self._special_tokens = dict(spec.special_tokens)
        self._special_ids = frozenset(self._special_tokens.values())  # once: has_id runs per id of a decode
        self._regular_count = len(ranks)
        if max(ranks.values()) != len(ranks) - 1:
            raise ValueError(f"{spec.file}: ranks are not 0..{len(ranks) - 1}")
        # id -> bytes of the regular tokens: a list lookup per id costs a tenth of tiktoken's
        # decode_single_token_bytes, which copies the bytes anew each time
        self._pieces: list[bytes] = tokens_by_rank(ranks) or sorted(ranks, key=ranks.__getitem__)
        self._vocab_size = max(len(ranks), max(self._special_tokens.values(), default=0) + 1)
        if spec.explicit_n_vocab is not None and spec.explicit_n_vocab != self._vocab_size:
            raise ValueError(f"{spec.file}: {self._vocab_size} ids, not {spec.explicit_n_vocab}")
        self._engine = Encoder.for_pattern(spec.pattern, ranks, spec.name)
        # The C engine's own methods when it takes every text: a plain encode or count is then
        # one C call (a 1 KB text costs a few microseconds; Python layers would double it).
        plain = self._engine.plain_methods() if self._engine is not None else None
        self._plain_encode: Callable[[str], list[int]] | None = plain[0] if plain else None
        self._plain_count: Callable[[str], int] | None = plain[1] if plain else None
        # built from the list, not `ranks` (which it would keep alive) nor `self` (a cycle); at
        # once when some texts go to tiktoken, so that the registry's memory budget counts it
        self._encoding = LazyEncoding(partial(tiktoken_encoding, spec, self._pieces, self._special_tokens))
        if plain is None:
            self._encoding.get()
        self._specials_only = LazyEncoding(partial(tiktoken_encoding, spec, _BYTES, self._special_tokens))
        # The first two characters of each special token ("<|" for OpenAI's): a text without
        # any of them holds no special token, a check that stays cheap with o200k_harmony's 1,090.
        self._special_starts = frozenset(token[:2] for token in self._special_tokens)
        # id -> its names, for an id with several (o200k_harmony's 200018: <|endofprompt|> and
        # <|reserved_200018|>): decoding gives one, the text may hold the other
        names: dict[int, list[bytes]] = {}
        for token, token_id in self._special_tokens.items():
            names.setdefault(token_id, []).append(token.encode("utf-8"))
        self._special_names = {token_id: found for token_id, found in names.items() if len(found) > 1}
        # id -> bytes of the special ids with one name (tiktoken's choice among several is its own)
        self._special_bytes = {token_id: found[0] for token_id, found in names.items() if len(found) == 1}
        self._pattern = regex.compile(spec.pattern)
        self._specials_pattern = chunks.specials_pattern(self._special_tokens)

    def __reduce__(self):
        """Pickled as its spec and its tokens in rank order, rebuilt from them (the C `Merger`
        engine does not pickle); a subclass (qwen) stays itself."""
        return (_rebuild, (type(self), self._spec, self._pieces))

    @property
    def pieces(self) -> tuple[bytes, ...]:
        """The bytes of each regular token, in rank (id) order."""
        return tuple(self._pieces)

    @property
    def pattern(self) -> str:
        """The split pattern (a regex) that cuts text into the chunks BPE works in."""
        return self._spec.pattern

    @property
    def encoding(self) -> tiktoken.Encoding:
        return self._encoding.get()

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
        return 0 <= token_id < self._regular_count or token_id in self._special_ids

    def _parts(self, text: str, allow_special: bool) -> list[str | int]:
        """The text as plain parts (str) and, when allowed, the ids of the special tokens between them."""
        if not (allow_special and self._specials_pattern and any(start in text for start in self._special_starts)):
            return [text]
        parts: list[str | int] = []
        position = 0
        for match in self._specials_pattern.finditer(text):
            parts += [text[position : match.start()], self._special_tokens[match.group()]]
            position = match.end()
        parts.append(text[position:])
        return parts

    def _engine_for(self, text: str) -> Encoder | None:
        """The C engine when it encodes `text`, None when tiktoken does."""
        return self._engine if self._engine is not None and self._engine.accepts(text) else None

    def encode(self, text: str, allow_special: bool = False) -> list[int]:
        if self._plain_encode is not None and not allow_special:  # the lean path: one C call
            try:
                return self._plain_encode(text)
            except UnicodeEncodeError:  # lone surrogates: the Encoder replaces them
                pass
        engine = self._engine_for(text)
        if engine is not None:
            parts = self._parts(text, allow_special)
            if len(parts) == 1:
                return engine.encode(text)
            ids: list[int] = []
            for part in parts:
                if isinstance(part, int):
                    ids.append(part)
                else:
                    ids += engine.encode(part)
            return ids
        with split_failures_as_422(self.name):
            if allow_special:
                return self.encoding.encode(text, allowed_special="all", disallowed_special=())
            return self.encoding.encode(text, allowed_special=set(), disallowed_special=())

    def count(self, text: str, allow_special: bool = False) -> int:
        if self._plain_count is not None and not allow_special:
            try:
                return self._plain_count(text)
            except UnicodeEncodeError:
                pass
        engine = self._engine_for(text)
        if engine is not None:
            parts = self._parts(text, allow_special)
            return sum(1 if isinstance(part, int) else engine.count(part) for part in parts)
        return len(self.encode(text, allow_special))

    def _batch_engine(self, texts: list[str], allow_special: bool) -> Encoder | None:
        """The C engine when it takes every text whole (no special token to cut out), else None."""
        engine = self._engine
        plain = not allow_special or all(len(self._parts(text, True)) == 1 for text in texts)
        return engine if engine is not None and plain and all(map(engine.accepts, texts)) else None

    def encode_batch(self, texts: list[str], allow_special: bool = False) -> list[list[int]]:
        engine = self._batch_engine(texts, allow_special)
        return engine.encode_batch(texts) if engine is not None else super().encode_batch(texts, allow_special)

    def count_batch(self, texts: list[str], allow_special: bool = False) -> list[int]:
        engine = self._batch_engine(texts, allow_special)
        return engine.count_batch(texts) if engine is not None else super().count_batch(texts, allow_special)

    def id_to_bytes(self, token_id: int) -> bytes:
        if 0 <= token_id < self._regular_count:
            return self._pieces[token_id]
        found = self._special_bytes.get(token_id)
        if found is not None:
            return found
        if token_id in self._special_names:  # several names: tiktoken's choice
            return self._specials_only.get().decode_single_token_bytes(token_id)
        raise KeyError(str(token_id))  # as tiktoken's decode_single_token_bytes

    def chunks(self, text: str, allow_special: bool = False) -> list[tuple[int, int]]:
        specials, until = self._specials_pattern if allow_special else None, split.deadline(text)
        return chunks.around_specials(
            text, specials, lambda part: chunks.of_pattern(self._pattern, part, until, self.name)
        )

    def token_bytes(self, ids: list[int]) -> list[bytes]:
        pieces = self._pieces
        try:
            if min(ids, default=0) >= 0:
                return [pieces[i] for i in ids]  # ~25 ns an id: a million hold the GIL ~25 ms
        except IndexError:  # a special id
            pass
        return [self.id_to_bytes(i) for i in ids]

    def encode_with_pieces(self, text: str, allow_special: bool = False) -> tuple[list[int], list[bytes]]:
        ids, pieces = super().encode_with_pieces(text, allow_special)
        if allow_special and self._special_names:  # a special id with several names: the one in the text
            data, offset = text.encode("utf-8"), 0
            for index, token_id in enumerate(ids):
                if token_id in self._special_names and not data.startswith(pieces[index], offset):
                    names = self._special_names[token_id]
                    pieces[index] = next(name for name in names if data.startswith(name, offset))
                offset += len(pieces[index])
        return ids, pieces

    def decode(self, ids: list[int]) -> str:
        return b"".join(self.token_bytes(ids)).decode("utf-8", errors="replace")  # as tiktoken's decode


def _rebuild(cls: type[TiktokenTokenizer], spec: OpenAIEncoding, pieces: list[bytes]) -> TiktokenTokenizer:
    return cls(spec, {piece: rank for rank, piece in enumerate(pieces)})
