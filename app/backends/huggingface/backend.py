"""Hugging Face `tokenizers` backend: any `tokenizer.json` (BPE, WordPiece, Unigram, WordLevel).

Ids equal `tokenizers.Tokenizer.encode(text, add_special_tokens=False).ids`; the work is
done by `encode_batch` of one text, which releases the GIL (`encode` holds it), so a long
text does not stop the server's event loop. Counting (`count`, `count_batch`) asks the
library's `encode_batch_fast`, which keeps no offsets and encodes a batch's texts on its own
threads (TOKENIZERS_PARALLELISM=false keeps it to one); for a file with DeepSeek's rules, a
long text is cut into pieces where that is exact (`cuts`) and ASCII text is cut into
the library's chunks by our own regex, each distinct chunk counted once (`ascii_counter`). With
`allow_special`, added tokens marked special are matched in the text as the library does;
without it they are plain text (the library's `encode_special_tokens`). Added tokens not
marked special are vocabulary to the library and are matched in both modes. Truncation and
padding set in the file are switched off: all of a text is shown. `decode` is the library's
`decode(ids, skip_special_tokens=False)`.

An id on its own (`id_to_bytes`) stands for bytes chosen from the file's model,
pre-tokenizer and decoder, never from its name: byte-level tokens map back through GPT-2's
byte-to-unicode table; a `<0xNN>` piece of a byte-fallback model is that byte; Metaspace's
`▁` is a space; a WordPiece continuation loses its `##`; an added token is its string.
A sequence of ids (`token_bytes`) goes through the file's decoders as the library applies
them (ByteLevel, ByteFallback, Metaspace, WordPiece, Replace, Strip, Fuse, BPEDecoder; no
decoder: tokens joined by spaces), so the pieces join to `decode`, except that an invalid
run of byte-fallback pieces keeps its bytes where the library writes one U+FFFD per piece.
The pieces of an encoded text come from the encoding's character offsets into the user's
text, so no normalizer shows (`pieces` holds these rules). Each id's string and bytes are
made on first use (`id_maps`): counting and encoding never read them.

Left out: pair inputs, post-processors (the templates that add [CLS] or BOS), and the CTC
decoder and regex `Replace` in a decoder (their tokens show as the raw token strings;
`decode` stays exact). Files are untrusted: over MAX_JSON_BYTES, not UTF-8 JSON, or not
loadable by the library is an `InvalidInput` at construction.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import TypeVar

import tokenizers
from app.backends.huggingface import chunks, cuts
from app.backends.huggingface.ascii_counter import AsciiCounter
from app.backends.huggingface.engine import ListedMergesEngine
from app.backends.huggingface.id_maps import IdMaps, highest_id, id_maps
from app.backends.huggingface.pieces import config_steps, run_decoders, text_pieces, unbyte
from app.errors import InvalidInput
from app.tokenizers import budget as memory
from app.tokenizers.base import Tokenizer

__all__ = ["MAX_JSON_BYTES", "HuggingFaceTokenizer", "text_pieces", "unbyte"]

MAX_JSON_BYTES = 64 << 20  # the largest tokenizer.json files in use are ~20 MB
COUNT_BATCH_CHARS = 1 << 20  # count_batch hands the library texts in batches of about this many characters


T = TypeVar("T")


class HuggingFaceTokenizer(Tokenizer):
    kind = "huggingface"

    def __init__(self, name: str, description: str, data: bytes):
        self.name = name
        self.description = description
        self._text = _checked_text(name, data)
        self._plain = library = _load(name, self._text)  # special-token strings are text here
        library.encode_special_tokens = True
        self._matching: tokenizers.Tokenizer | None = None  # the file as it is: built on first use of allow_special
        self._lock = threading.Lock()
        self._cut = cuts.cutter(library)  # None: a long text is counted whole
        self._ascii = AsciiCounter.for_library(library)  # None: the library counts all text
        self._engine = ListedMergesEngine.for_library(library, self._text)  # None: the library encodes all text
        self._decoders = None if library.decoder is None else config_steps(library.decoder, "decoders")
        self._byte_level_only = [s["type"] for s in self._decoders or ()] == ["ByteLevel"]
        added = library.get_added_tokens_decoder()  # id -> AddedToken
        self._added = {i: token.content for i, token in added.items()}
        self._special_tokens = {token.content: i for i, token in added.items() if token.special}
        self._special_ids = frozenset(self._special_tokens.values())
        self._vocab_size = highest_id(library) + 1
        self._id_maps: IdMaps | None = None

    @property
    def _ids(self) -> IdMaps:
        """Each id's string and bytes, made on first use (counting never reads them) and then
        charged to the memory budget with the tokenizer."""
        if self._id_maps is None:
            with self._lock:
                if self._id_maps is None:
                    with memory.measure() as grown:
                        made = id_maps(self._plain, self._decoders or [], self._byte_level_only)
                    self._id_maps = made
                    memory.shared().grow(self, max(grown.grown, memory.floor("huggingface-ids", len(made.strings))))
        return self._id_maps

    def __reduce__(self):
        """Pickled as its file's text, rebuilt from it (the library objects and the lock do not pickle)."""
        return (type(self), (self.name, self.description, self._text.encode("utf-8")))

    @property
    def library(self) -> tokenizers.Tokenizer:
        """The library's tokenizer built from the file, special-token strings as text (for reading, not changing)."""
        return self._plain

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
        return token_id in self._ids.strings

    def piece(self, token_id: int) -> str:
        """The library's own string for an id (`Ġ`, `▁`, `##`, `<0x0A>` as in the file)."""
        return self._ids.strings[token_id]

    def id_to_bytes(self, token_id: int) -> bytes:
        return self._ids.own[token_id]

    def encode(self, text: str, allow_special: bool = False) -> list[int]:
        if self._engine is not None and (ids := self._engine.encode_taken(text)) is not None:
            return ids
        return self._encode(text, allow_special).ids

    def encode_with_pieces(self, text: str, allow_special: bool = False) -> tuple[list[int], list[bytes]]:
        encoding = self._encode(text, allow_special)
        ids = encoding.ids
        return ids, text_pieces(text, encoding.offsets, [self._ids.own[i] for i in ids])

    def chunks(self, text: str, allow_special: bool = False) -> list[tuple[int, int]]:
        return chunks.chunks(self._library(allow_special), text, self._encode(text, allow_special), self._added)

    def pieces_of(self, text: str, ids: list[int], allow_special: bool = False) -> list[bytes]:
        # Stricter than the base: token bytes that spell only the start of the text would leave
        # out text no token covers at its end (trailing spaces that BERT's pre-tokenizer drops).
        pieces = self.token_bytes(ids)
        if b"".join(pieces) == text.encode("utf-8"):
            return pieces
        return self.encode_with_pieces(text, allow_special)[1][: len(ids)]

    def token_bytes(self, ids: list[int]) -> list[bytes]:
        if self._byte_level_only:
            return [self._ids.in_sequence[i] for i in ids]
        strings = [self._ids.strings[i] for i in ids]
        if self._decoders is None:  # the library joins the tokens with spaces
            return [s.encode("utf-8") if n == 0 else b" " + s.encode("utf-8") for n, s in enumerate(strings)]
        return run_decoders(self._decoders, strings)

    def decode(self, ids: list[int]) -> str:
        return self._plain.decode(ids, skip_special_tokens=False)

    def count(self, text: str, allow_special: bool = False) -> int:
        if self._engine is not None and (found := self._engine.count_taken(text)) is not None:
            return found
        return self.count_batch([text], allow_special)[0]

    def count_batch(self, texts: list[str], allow_special: bool = False) -> list[int]:
        """For a file with DeepSeek's rules, our C engine counts the texts it takes (`engine`:
        no added token's string or lone surrogate in them), in one call without the GIL; the rest as
        `_library_counts`."""
        if self._engine is None:
            return self._library_counts(texts, allow_special)
        return self._engine_first(
            texts, self._engine.count_batch, lambda rest: self._library_counts(rest, allow_special)
        )

    def encode_batch(self, texts: list[str], allow_special: bool = False) -> list[list[int]]:
        """As `count_batch`: the texts our C engine takes in one call without the GIL, the rest
        through the library one by one."""
        if self._engine is None:
            return super().encode_batch(texts, allow_special)
        return self._engine_first(
            texts, self._engine.encode_batch, lambda rest: [self._encode(text, allow_special).ids for text in rest]
        )

    def _engine_first(
        self, texts: list[str], engine: Callable[[list[str]], list[T]], library: Callable[[list[str]], list[T]]
    ) -> list[T]:
        """`engine` of the texts the C engine takes and `library` of the others, in the texts' order."""
        assert self._engine is not None
        held = self._engine.held(texts)
        taken = [n for n in range(len(texts)) if n not in held]
        results = dict(zip(taken, engine([texts[n] for n in taken]) if taken else [], strict=True))
        rest = sorted(held)
        results |= dict(zip(rest, library([texts[n] for n in rest]) if rest else [], strict=True))
        return [results[n] for n in range(len(texts))]

    def _library_counts(self, texts: list[str], allow_special: bool) -> list[int]:
        """For a file with DeepSeek's rules, each text in pieces (`cuts`) and its ASCII pieces
        through `ascii_counter`; the rest through the library's batch encoder without offsets
        (`encode_batch_fast`: the same ids, the GIL let go, the texts spread over the library's
        threads), about COUNT_BATCH_CHARS at a time."""
        counts = [0] * len(texts)
        pieces: list[tuple[int, str]] = []  # (which text, a piece of it) for the library
        for n, text in enumerate(texts):
            for piece in self._cut(text) if self._cut else [text]:
                quick = self._ascii.count(piece, self._count_chunks) if self._ascii else None
                if quick is None:
                    pieces.append((n, piece))
                else:
                    counts[n] += quick
        library = self._library(allow_special)
        start = 0
        while start < len(pieces):
            stop, size = start + 1, len(pieces[start][1])
            while stop < len(pieces) and size + len(pieces[stop][1]) <= COUNT_BATCH_CHARS:
                size += len(pieces[stop][1])
                stop += 1
            encodings = self._run(library.encode_batch_fast, [piece for _, piece in pieces[start:stop]])
            for (n, _), encoding in zip(pieces[start:stop], encodings, strict=True):
                counts[n] += len(encoding)
            start = stop
        return counts

    def _count_chunks(self, chunks: list[str]) -> list[int]:
        return [len(encoding) for encoding in self._run(self._plain.encode_batch_fast, chunks)]

    def _encode(self, text: str, allow_special: bool) -> tokenizers.Encoding:
        # encode_batch lets go of the GIL while it works (encode holds it): the event loop and
        # other requests run on while a long text is encoded. Same ids and offsets.
        return self._run(self._library(allow_special).encode_batch, [text])[0]

    def _library(self, allow_special: bool) -> tokenizers.Tokenizer:
        return (self._matching or self._load_matching()) if allow_special and self._special_tokens else self._plain

    def _run(self, encode: Callable[..., list[tokenizers.Encoding]], texts: list[str]) -> list[tokenizers.Encoding]:
        try:
            return encode(texts, add_special_tokens=False)
        except BaseException as error:  # a library error, or a pyo3 PanicException (a BaseException)
            if not isinstance(error, Exception) and type(error).__name__ != "PanicException":
                raise
            raise InvalidInput(
                f"{self.name} could not encode this text ({_first_line(error)}); send a shorter or simpler text"
            ) from None

    def _load_matching(self) -> tokenizers.Tokenizer:
        with self._lock:
            if self._matching is None:
                self._matching = _load(self.name, self._text)
            return self._matching


def _checked_text(name: str, data: bytes) -> str:
    refused = f"{name} is not a usable huggingface tokenizer.json:"
    if len(data) > MAX_JSON_BYTES:
        raise InvalidInput(
            f"{refused} it has {len(data):,} bytes, over the limit of {MAX_JSON_BYTES >> 20} MiB; send a smaller file"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidInput(
            f"{refused} it is not UTF-8 text (byte {error.start:,}); send the tokenizer.json file itself"
        ) from None


def _load(name: str, text: str) -> tokenizers.Tokenizer:
    refused = f"{name} is not a usable huggingface tokenizer.json:"
    try:
        library = tokenizers.Tokenizer.from_str(text)
    except BaseException as error:  # a library error, or a pyo3 PanicException (a BaseException)
        if not isinstance(error, Exception) and type(error).__name__ != "PanicException":
            raise
        try:
            json.loads(text)
        except (ValueError, RecursionError) as bad:
            where = f" at line {bad.lineno}, column {bad.colno}" if isinstance(bad, json.JSONDecodeError) else ""
            shown = bad.msg if isinstance(bad, json.JSONDecodeError) else "nested too deeply"
            raise InvalidInput(
                f"{refused} it is not valid JSON ({shown}{where}); send the whole tokenizer.json file"
            ) from None
        raise InvalidInput(
            f"{refused} the tokenizers library cannot load it ({_first_line(error)}); "
            "send a tokenizer.json saved by the tokenizers library"
        ) from None
    library.no_truncation()
    library.no_padding()
    return library


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0][:200] if lines else type(error).__name__
