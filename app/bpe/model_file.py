"""The `.bpe` model file: versioned plain text, checksummed, one merge per line.

    tokenprism-bpe v2
    sha256 <hex digest of every byte after this line>
    name "tokenprism_4k"
    description "..."
    pattern gpt4                  (gpt2, gpt4, none; or custom plus a line: regex "...")
    bytes 33 34 ...               (only when byte b's id is not b: the ids of bytes 0..255)
    special 4095 "<|endoftext|>"  (one line per special token: id and string)
    merges 3839
    counts yes                    (only when the counts are known: each merge line ends with one)
                                  (a blank line ends the header)
    101 32 48213                  (merge i: the two ids that make id 256 + i, and how many
    ...                            times the pair occurred when training chose it)

Version 1 files (no `counts` line, two ids a line) still load, their counts unknown; this
module writes version 2.

Strings are JSON-quoted so any text fits on one line. `loads` refuses anything damaged,
truncated, edited, of another version or malformed with a `TokenizerFileError` naming
the file; it reads only regular files, and refuses more than MAX_FILE_BYTES, a header
over 256 KB or more than MAX_MERGES merges before it builds anything. This module parses and
formats; it neither builds tokenizers nor writes files. The `.vocab` listing
(`vocab_text`) is for people and is never read back.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from app.errors import TokenizerFileError
from app.tokenizers.storage.files import open_regular

MAGIC = "tokenprism-bpe"
VERSION = "v2"
READS = ("v1", VERSION)
MAX_MERGES = 1 << 20
MAX_FILE_BYTES = 48 * 1024 * 1024  # MAX_MERGES lines of two ids and a count take at most 42 MB
_NUMBER_DIGITS = 20  # an id or count has fewer digits
_HEADER_LIMIT = 256 * 1024  # bytes of header before giving up


@dataclass(frozen=True)
class Header:
    name: str
    vocab_size: int
    description: str
    pattern_name: str


@dataclass
class Model:
    header: Header
    merges: list[tuple[int, int]]
    special_tokens: dict[str, int] = field(default_factory=dict)
    byte_ids: list[int] | None = None
    pattern_regex: str | None = None
    merge_counts: list[int] | None = None  # None: not recorded (version 1, or not trained here)
    first_merge_line: int = 0  # the line number of merge 0, for error messages


def file_error(source: str, problem: str) -> TokenizerFileError:
    return TokenizerFileError(f"tokenizer file {source}: {problem}; train it again or restore it from a backup")


def dumps(
    header: Header,
    *,
    merges: list[tuple[int, int]],
    special_tokens: dict[str, int],
    byte_ids: tuple[int, ...] | None = None,
    pattern_regex: str | None = None,
    merge_counts: tuple[int, ...] | None = None,
) -> bytes:
    lines = [
        f"name {_quote(header.name)}",
        f"description {_quote(header.description)}",
        f"pattern {header.pattern_name}",
    ]
    if pattern_regex is not None:
        lines.append(f"regex {_quote(pattern_regex)}")
    if byte_ids is not None:
        lines.append("bytes " + " ".join(map(str, byte_ids)))
    lines += [f"special {token_id} {_quote(token)}" for token, token_id in special_tokens.items()]
    lines.append(f"merges {len(merges)}")
    if merge_counts is None:
        lines.append("")
        lines += [f"{left} {right}" for left, right in merges]
    else:
        lines += ["counts yes", ""]
        lines += [f"{left} {right} {count}" for (left, right), count in zip(merges, merge_counts, strict=True)]
    body = ("\n".join(lines) + "\n").encode("utf-8")
    return f"{MAGIC} {VERSION}\nsha256 {hashlib.sha256(body).hexdigest()}\n".encode("ascii") + body


def loads(data: bytes, source: str) -> Model:
    first, _, rest = data.partition(b"\n")
    version = _check_version(first, source)
    checksum_line, _, body = rest.partition(b"\n")
    if not checksum_line.startswith(b"sha256 "):
        raise file_error(source, "line 2 is not 'sha256 <digest>'")
    actual = hashlib.sha256(body).hexdigest()
    if checksum_line[7:].decode("ascii", errors="replace") != actual:
        raise file_error(source, f"fails its checksum (body sha256 {actual}); the file is damaged, truncated or edited")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise file_error(source, f"is not UTF-8 ({error})") from None
    header_text, blank, merge_text = text.partition("\n\n")
    if not blank:
        raise file_error(source, "has no blank line after its header")
    if len(header_text) > _HEADER_LIMIT:
        raise file_error(source, f"has a header longer than {_HEADER_LIMIT // 1024} KB")
    model, merge_count = _parse_header(header_text.split("\n"), source, version)
    if merge_text and not merge_text.endswith("\n"):
        raise file_error(source, "does not end with a newline")
    if (found := merge_text.count("\n")) != merge_count:
        raise file_error(source, f"header says {merge_count} merges but the file has {found}")
    merge_lines = merge_text.split("\n")[:-1]
    model.first_merge_line = len(header_text.split("\n")) + 4
    width, what = (3, "two ids and a count") if model.merge_counts is not None else (2, "two ids")
    for number, line in enumerate(merge_lines, start=model.first_merge_line):
        parts = line.split(" ")
        if len(parts) != width or not all(p.isascii() and p.isdigit() and len(p) < _NUMBER_DIGITS for p in parts):
            raise file_error(source, f"line {number} is {line[:80]!r}, not {what}")
        model.merges.append((int(parts[0]), int(parts[1])))
        if model.merge_counts is not None:
            model.merge_counts.append(int(parts[2]))
    return model


def read_file(path: Path) -> bytes:
    try:
        with open_regular(path) as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise file_error(str(path), f"cannot be read ({error.strerror})") from None
    if len(data) > MAX_FILE_BYTES:
        raise file_error(str(path), f"is larger than {MAX_FILE_BYTES:,} bytes, more than any model needs")
    return data


def read_header(path: Path) -> Header:
    """The header alone, from the first lines of the file (the checksum is not verified)."""
    try:
        with open_regular(path) as handle:
            version = _check_version(handle.readline(200).rstrip(b"\n"), str(path))
            handle.readline(200)
            lines, size = [], 0
            while (line := handle.readline(_HEADER_LIMIT)) not in (b"\n", b""):
                size += len(line)
                if size > _HEADER_LIMIT:
                    raise file_error(str(path), f"has a header longer than {_HEADER_LIMIT // 1024} KB")
                lines.append(line.decode("utf-8", errors="replace").rstrip("\n"))
    except OSError as error:
        raise file_error(str(path), f"cannot be read ({error.strerror})") from None
    return _parse_header(lines, str(path), version)[0].header


def vocab_text(vocab: list[bytes], merges: dict[tuple[int, int], int], special_tokens: dict[str, int]) -> str:
    """One line per token: '[bytes] id' for the 256 bytes, '[left][right] -> [token] id' for merges."""
    lines = [f"[{_show(vocab[i])}] {i}" for i in range(256)]
    lines += [f"[{_show(vocab[a])}][{_show(vocab[b])}] -> [{_show(vocab[i])}] {i}" for (a, b), i in merges.items()]
    lines += [f"special {_quote(token)} {i}" for token, i in special_tokens.items()]
    return "\n".join(lines) + "\n"


def _check_version(first: bytes, source: str) -> str:
    """The file's format version, one of READS."""
    for version in READS:
        if first == f"{MAGIC} {version}".encode():
            return version
    if first.startswith(MAGIC.encode() + b" "):
        found = first[len(MAGIC) + 1 :].decode("utf-8", errors="replace")
        raise file_error(source, f"is format version {found!r}, this tokenprism reads only {' and '.join(READS)}")
    raise file_error(source, f"is not a tokenprism BPE model (its first line must be '{MAGIC} {VERSION}')")


def _parse_header(lines: list[str], source: str, version: str) -> tuple[Model, int]:
    """The model without its merges, and how many merges the header announces."""
    fields_known = (
        "name",
        "description",
        "pattern",
        "regex",
        "bytes",
        "merges",
        *(("counts",) if version != "v1" else ()),
    )
    fields: dict[str, str] = {}
    specials: dict[str, int] = {}
    for number, line in enumerate(lines, start=3):
        key, _, value = line.partition(" ")
        try:
            if key == "special":
                token_id, _, token = value.partition(" ")
                token = _unquote(token)
                if token in specials or int(token_id) in specials.values():
                    raise ValueError(f"special token {token!r} or id {token_id} appears twice")
                specials[token] = int(token_id)
            elif key in fields_known and key not in fields:
                fields[key] = value
            else:
                raise ValueError(f"unknown or repeated header field {key!r}")
        except ValueError as error:
            raise file_error(source, f"header line {number} ({line[:80]!r}) is invalid: {error}") from None
    missing = [k for k in ("name", "description", "pattern", "merges") if k not in fields]
    if missing:
        raise file_error(source, f"header lacks {', '.join(missing)}")
    try:
        merge_count = int(fields["merges"])
        byte_ids = [int(v) for v in fields["bytes"].split(" ")] if "bytes" in fields else None
        name, description = _unquote(fields["name"]), _unquote(fields["description"])
        regex = _unquote(fields["regex"]) if "regex" in fields else None
    except ValueError as error:
        raise file_error(source, f"header is invalid: {error}") from None
    if fields["pattern"] not in ("gpt2", "gpt4", "none", "custom") or (fields["pattern"] == "custom") != (
        regex is not None
    ):
        raise file_error(source, f"pattern {fields['pattern']!r} is unknown or lacks its regex line")
    if byte_ids is not None and sorted(byte_ids) != list(range(256)):
        raise file_error(source, "its bytes line is not a permutation of 0..255")
    if fields.get("counts", "yes") != "yes":
        raise file_error(source, f"its counts line says {fields['counts'][:40]!r}; it is 'counts yes' or absent")
    if not 0 <= merge_count <= MAX_MERGES:
        raise file_error(source, f"merge count {merge_count} is out of range; a model has 0 to {MAX_MERGES:,} merges")
    vocab_size = max([255 + merge_count, *specials.values()]) + 1
    header = Header(name, vocab_size, description, fields["pattern"])
    return Model(header, [], specials, byte_ids, regex, [] if "counts" in fields else None), merge_count


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _unquote(value: str) -> str:
    text = json.loads(value)
    if not isinstance(text, str):
        raise ValueError(f"{value!r} is not a quoted string")
    return text


def _show(token: bytes) -> str:
    text = token.decode("utf-8", errors="replace")
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)
