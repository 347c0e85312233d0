"""How the ids of a Hugging Face tokenizer.json stand for bytes: alone, in a sequence, and in a text.

`unbyte` maps a byte-level token back through GPT-2's byte-to-unicode table;
`own_bytes_function` picks, from the file's model, pre-tokenizer and decoder, what one
token string stands for on its own; `run_decoders` gives each token its share of the
library's decoded text, applying the file's decoders as the library does; `text_pieces`
gives each token of an encoded text the bytes of that text it stands for, from the
encoding's character offsets. Rules and what is left out: `backend`'s docstring.
No library object is built here.
"""

from __future__ import annotations

import itertools
import json
import re

import tokenizers
from app.tokenizers.tokens import CONTINUATION_BYTES

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
# str.translate's table: each stand-in to the character of its byte, every other character under
# 256 to one above it, so that the Latin-1 encoding of the result fails on any character outside
# the alphabet (in C: a vocabulary's 128,000 tokens in ~0.05 s, not ~0.9 s a character at a time).
_TO_LATIN1 = {ord(char): byte for char, byte in _UNBYTE.items()}
_TO_LATIN1 |= {code: 0xFFFF for code in range(256) if code not in _TO_LATIN1}


def byte_level_bytes(token: str) -> bytes | None:
    """A token's bytes when every character of it is one of the byte-level alphabet's 256, else None."""
    try:
        return token.translate(_TO_LATIN1).encode("latin-1")
    except UnicodeEncodeError:
        return None


def unbyte(token: str) -> bytes:
    """A byte-level token's bytes; one with a character outside the table stays as its UTF-8, as in the library."""
    found = byte_level_bytes(token)
    return token.encode("utf-8") if found is None else found


def config_steps(component, key: str) -> list[dict]:
    """A decoder or pre-tokenizer as the flat list of its steps' configs (JSON from the library)."""

    def flat(config: dict) -> list[dict]:
        return [s for c in config[key] for s in flat(c)] if config.get("type") == "Sequence" else [config]

    return [] if component is None else flat(json.loads(component.__getstate__()))


def own_bytes_function(library: tokenizers.Tokenizer, decoders: list[dict]):
    """token string -> the bytes it stands for, by what the file's pre-tokenizer, decoder and model say."""
    steps = decoders + config_steps(library.pre_tokenizer, "pretokenizers")
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


def run_decoders(steps: list[dict], strings: list[str]) -> list[bytes]:
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
