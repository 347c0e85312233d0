"""Hugging Face `tokenizers` backend: any `tokenizer.json` (BPE, WordPiece, Unigram, WordLevel).

Ids equal `tokenizers.Tokenizer.encode(text, add_special_tokens=False).ids`; the work is
done by `encode_batch` of one text, which releases the GIL (`encode` holds it), so a long
text does not stop the server's event loop. With
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
text, so no normalizer shows (see `text_pieces`).

Left out: pair inputs, post-processors (the templates that add [CLS] or BOS), and the CTC
decoder and regex `Replace` in a decoder (their tokens show as the raw token strings;
`decode` stays exact). Files are untrusted: over MAX_JSON_BYTES, not UTF-8 JSON, or not
loadable by the library is an `InvalidInput` at construction.
"""

from __future__ import annotations

import itertools
import json
import re
import threading

import tokenizers
from app.backends import huggingface_chunks
from app.errors import InvalidInput
from app.tokenizers.base import Tokenizer
from app.tokenizers.tokens import CONTINUATION_BYTES

MAX_JSON_BYTES = 64 << 20  # the largest tokenizer.json files in use are ~20 MB
_BYTE_PIECE = re.compile(rb"<0x([0-9A-Fa-f]{2})>")
_CLEANUP = (
    (b" .", b"."),
    (b" ?", b"?"),
    (b" !", b"!"),
    (b" ,", b","),
    (b" ' ", b"'"),
    (b" n't", b"n't"),
    (b" 'm", b"'m"),
    (b" do not", b" don't"),
    (b" 's", b"'s"),
    (b" 've", b"'ve"),
    (b" 're", b"'re"),
)


def _byte_level_table() -> dict[str, int]:
    """GPT-2's stand-in character -> the byte it stands for (printable bytes stand for themselves)."""
    printable = {*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)}
    table, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            table[chr(byte)] = byte
        else:
            table[chr(256 + extra)] = byte
            extra += 1
    return table


_UNBYTE = _byte_level_table()


def unbyte(token: str) -> bytes:
    """A byte-level token's bytes; one with a character outside the table stays as its UTF-8, as in the library."""
    try:
        return bytes([_UNBYTE[char] for char in token])
    except KeyError:
        return token.encode("utf-8")


def _steps(component, key: str) -> list[dict]:
    """A decoder or pre-tokenizer as the flat list of its steps' configs (JSON from the library)."""

    def flat(config: dict) -> list[dict]:
        return [s for c in config[key] for s in flat(c)] if config.get("type") == "Sequence" else [config]

    return [] if component is None else flat(json.loads(component.__getstate__()))


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
        self._decoders = None if library.decoder is None else _steps(library.decoder, "decoders")
        self._byte_level_only = [s["type"] for s in self._decoders or ()] == ["ByteLevel"]
        added = library.get_added_tokens_decoder()  # id -> AddedToken
        self._added = {i: token.content for i, token in added.items()}
        self._special_tokens = {token.content: i for i, token in added.items() if token.special}
        self._special_ids = frozenset(self._special_tokens.values())
        ids = sorted(set(library.get_vocab(with_added_tokens=True).values()))
        self._strings = {i: s for i in ids if (s := library.id_to_token(i)) is not None}  # id -> the library's string
        own = _own_bytes_function(library, self._decoders or [])
        self._bytes = {i: s.encode("utf-8") if i in added else own(s) for i, s in self._strings.items()}
        self._vocab_size = ids[-1] + 1 if ids else 0
        self._sequence_bytes = self._bytes  # with ByteLevel as the only decoder: each id's bytes in a sequence
        if self._byte_level_only and any(unbyte(added[i].content) != self._bytes[i] for i in added):
            self._sequence_bytes = {i: unbyte(s) for i, s in self._strings.items()}  # as the library decodes

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
        return token_id in self._strings

    def piece(self, token_id: int) -> str:
        """The library's own string for an id (`Ġ`, `▁`, `##`, `<0x0A>` as in the file)."""
        return self._strings[token_id]

    def id_to_bytes(self, token_id: int) -> bytes:
        return self._bytes[token_id]

    def encode(self, text: str, allow_special: bool = False) -> list[int]:
        return self._encode(text, allow_special).ids

    def encode_with_pieces(self, text: str, allow_special: bool = False) -> tuple[list[int], list[bytes]]:
        encoding = self._encode(text, allow_special)
        ids = encoding.ids
        return ids, text_pieces(text, encoding.offsets, [self._bytes[i] for i in ids])

    def chunks(self, text: str, allow_special: bool = False) -> list[tuple[int, int]]:
        library = (self._matching or self._load_matching()) if allow_special and self._special_tokens else self._plain
        return huggingface_chunks.chunks(library, text, self._encode(text, allow_special), self._added)

    def pieces_of(self, text: str, ids: list[int], allow_special: bool = False) -> list[bytes]:
        # Stricter than the base: token bytes that spell only the start of the text would leave
        # out text no token covers at its end (trailing spaces that BERT's pre-tokenizer drops).
        pieces = self.token_bytes(ids)
        if b"".join(pieces) == text.encode("utf-8"):
            return pieces
        return self.encode_with_pieces(text, allow_special)[1][: len(ids)]

    def token_bytes(self, ids: list[int]) -> list[bytes]:
        if self._byte_level_only:
            return [self._sequence_bytes[i] for i in ids]
        strings = [self._strings[i] for i in ids]
        if self._decoders is None:  # the library joins the tokens with spaces
            return [s.encode("utf-8") if n == 0 else b" " + s.encode("utf-8") for n, s in enumerate(strings)]
        return _run_decoders(self._decoders, strings)

    def decode(self, ids: list[int]) -> str:
        return self._plain.decode(ids, skip_special_tokens=False)

    def _encode(self, text: str, allow_special: bool) -> tokenizers.Encoding:
        library = (self._matching or self._load_matching()) if allow_special and self._special_tokens else self._plain
        try:
            # encode_batch lets go of the GIL while it works (encode holds it): the event loop and
            # other requests run on while a long text is encoded. Same ids and offsets.
            return library.encode_batch([text], add_special_tokens=False)[0]
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


def _own_bytes_function(library: tokenizers.Tokenizer, decoders: list[dict]):
    """token string -> the bytes it stands for, by what the file's pre-tokenizer, decoder and model say."""
    steps = decoders + _steps(library.pre_tokenizer, "pretokenizers")
    types = {step["type"] for step in steps}
    model, model_type = library.model, type(library.model).__name__
    if "ByteLevel" in types:
        return unbyte
    byte_fallback = (
        "ByteFallback" in types
        or bool(getattr(model, "byte_fallback", False))
        or (model_type == "Unigram" and json.loads(model.__getstate__()).get("byte_fallback", False))
    )
    marks = [s["replacement"] for s in steps if s["type"] == "Metaspace"] + [
        s["pattern"]["String"]
        for s in decoders
        if s["type"] == "Replace" and "String" in s["pattern"] and s["content"] == " "
    ]
    prefixes = [s["prefix"] for s in decoders if s["type"] == "WordPiece"]
    prefixes += [model.continuing_subword_prefix] if model_type == "WordPiece" else []
    suffixes = [s["suffix"] for s in decoders if s["type"] == "BPEDecoder"]

    def own(token: str) -> bytes:
        if byte_fallback and (match := _BYTE_PIECE.fullmatch(token.encode("utf-8"))):
            return bytes([int(match[1], 16)])
        if prefixes and prefixes[0] and token.startswith(prefixes[0]):
            token = token[len(prefixes[0]) :]
        for mark in marks[:1] + suffixes[:1]:
            token = token.replace(mark, " ")
        return token.encode("utf-8")

    return own


def text_pieces(text: str, offsets: list[tuple[int, int]], own: list[bytes]) -> list[bytes]:
    """For each token (its character span of `text`, its own bytes), the bytes of `text` it
    stands for. They join to all of `text`'s UTF-8 whenever there is a token at all.

    Tokens whose spans overlap form a cluster (several tokens for one character: the bytes of
    an emoji, the `f` and `i` NFKC makes of `ﬁ`). From the cluster's end back, tokens whose
    own bytes are the text there keep them (byte pieces, a `▁` that is a space in the text);
    a first token that is only a space the text does not have (a prepended `▁`) gets b"";
    the others take the text up to their span's end, and a run of them left with nothing
    shares the character before: one byte each, the last of the run the rest (with more
    tokens than bytes, the extra get none). A token with an empty span gets b"". Text no
    token covers (whitespace a pre-tokenizer drops) goes to the next token, or, at the end
    of the text, to the last one."""
    data = text.encode("utf-8")
    if b"".join(own) == data:
        return list(own)
    at, char, byte = {}, 0, 0  # character offset -> byte offset
    for position in sorted({p for span in offsets for p in span}):
        byte += len(text[char:position].encode("utf-8"))
        char, at[position] = position, byte
    pieces = [b""] * len(offsets)
    cursor, i = 0, 0
    while i < len(offsets):
        start, end = offsets[i]
        if start >= end:
            i += 1
            continue
        j = i + 1
        while j < len(offsets) and offsets[j][0] < end:
            end = max(end, offsets[j][1])
            j += 1
        members = [k for k in range(i, j) if offsets[k][0] < offsets[k][1]]
        high = position = max(at[end], cursor)
        keep = len(members)
        while keep:
            k = members[keep - 1]
            begin = position - len(own[k])
            if not own[k] or begin < max(cursor, at[offsets[k][0]]) or data[begin:position] != own[k]:
                break
            pieces[k], position, keep = own[k], begin, keep - 1
        rest = members[:keep]
        if len(rest) > 1 and own[rest[0]].strip(b" ") == b"" and not data.startswith(own[rest[0]], cursor):
            rest = rest[1:]  # a prepended `▁` (the text has no space there): it stands for nothing
        if rest:
            ends = [min(max(at[offsets[k][1]], cursor), position) for k in rest[:-1]] + [position]
            _share(data, rest, ends, cursor, pieces)
        elif position > cursor:
            pieces[members[0]] = data[cursor:position] + pieces[members[0]]
        cursor, i = high, j
    if offsets and cursor < len(data):
        pieces[-1] += data[cursor:]
    return pieces


def _share(data: bytes, members: list[int], ends: list[int], low: int, pieces: list[bytes]) -> None:
    """Give `members` the bytes from `low` up to each one's end in turn; a token left with
    nothing shares the last character of the run's first token (see `text_pieces`)."""
    spans = []
    for stop in ends:
        stop = max(stop, low)
        spans.append((low, stop))
        low = stop
    first = 0
    while first < len(spans):
        last = first + 1
        while last < len(spans) and spans[last][0] == spans[last][1]:
            last += 1
        a, b = spans[first]
        if last - first > 1 and b > a:
            z = b - 1
            while z > a and data[z] in CONTINUATION_BYTES:
                z -= 1  # the start of the shared character
            cuts = [a] + [min(z + m, b) for m in range(1, last - first)] + [b]
            spans[first:last] = list(itertools.pairwise(cuts))
        first = last
    for k, (a, b) in zip(members, spans, strict=True):
        pieces[k] = data[a:b]


def _run_decoders(steps: list[dict], strings: list[str]) -> list[bytes]:
    """Each token's share of the library's decoded text: its decoders, applied per token."""
    pieces = [s.encode("utf-8") for s in strings]
    groups = [[i] for i in range(len(pieces))]  # what the next step sees as one token
    for step in steps:
        kind = step["type"]
        if kind == "ByteLevel":
            pieces = [unbyte(p.decode("utf-8", "replace")) for p in pieces]
            groups = [list(range(len(pieces)))] if pieces else []
        elif kind == "Fuse":
            groups = [list(range(len(pieces)))] if pieces else []
        elif kind == "ByteFallback":  # a run of <0xNN> pieces that is valid UTF-8 becomes one token
            fused, run = [], []
            for group in [*groups, None]:
                match = _BYTE_PIECE.fullmatch(pieces[group[0]]) if group and len(group) == 1 else None
                if match and group:
                    pieces[group[0]] = bytes([int(match[1], 16)])
                    run.append(group[0])
                    continue
                if run:
                    fused += [run] if _is_utf8(b"".join(pieces[k] for k in run)) else [[k] for k in run]
                    run = []
                fused += [group] if group is not None else []
            groups = fused
        elif kind == "Replace" and "String" in step["pattern"]:
            old, new = step["pattern"]["String"].encode("utf-8"), step["content"].encode("utf-8")
            pieces = [p.replace(old, new) for p in pieces]
        elif kind == "Metaspace":
            mark = step["replacement"].encode("utf-8")
            for n, group in enumerate(groups):
                space = b"" if n == 0 and step["prepend_scheme"] != "never" else b" "
                for k in group:
                    pieces[k] = pieces[k].replace(mark, space)
        elif kind == "WordPiece":
            prefix = step["prefix"].encode("utf-8")
            for n, group in enumerate(groups):
                if n:
                    head = pieces[group[0]]
                    pieces[group[0]] = head[len(prefix) :] if head.startswith(prefix) else b" " + head
                for k in group if step["cleanup"] else ():
                    for old, new in _CLEANUP:
                        pieces[k] = pieces[k].replace(old, new)
        elif kind == "Strip":
            char = step["content"].encode("utf-8")
            for group in groups:
                _strip(pieces, group, char, step["start"], front=True)
                _strip(pieces, group[::-1], char, step["stop"], front=False)
        elif kind == "BPEDecoder":
            suffix = step["suffix"].encode("utf-8")
            for n, group in enumerate(groups):
                for k in group:
                    pieces[k] = pieces[k].replace(suffix, b"" if n == len(groups) - 1 else b" ")
    return pieces


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _strip(pieces: list[bytes], group: list[int], char: bytes, count: int, front: bool) -> None:
    for _ in range(count):
        k = next((k for k in group if pieces[k]), None)
        if k is None or not (pieces[k].startswith(char) if front else pieces[k].endswith(char)):
            return
        pieces[k] = pieces[k][len(char) :] if front else pieces[k][: -len(char)]


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
