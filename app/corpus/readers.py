"""The documents of one part of a corpus, read in bounded memory.

`documents(part, options, problems)` yields `(text, UTF-8 bytes)` for each document of the
part, in order. A document is: a text file up to `max_document_bytes`, or a piece of a
longer one (see `piece_start`); the `--field` string of a JSON line; the `--column` string
of a Parquet row. At most about `max_document_bytes` (six times that for one JSON line,
whose escapes take room) is held at once, besides a Parquet row group's column.

Nothing here raises for bad data: a file that cannot be read (missing, permission, bad
gzip, a damaged Parquet file) is one bad file, the documents before the failure are kept;
a document that cannot be used (not UTF-8, not JSON, no such field, not a string, null,
over the size limit) is one bad record. Both go to `problems` with where they are.
Lone surrogates from JSON escapes become U+FFFD, as in the API (`clean_text`).

Left out: seeking inside .jsonl.gz files (one task reads each whole), other encodings.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator

from app.corpus.parts import CorpusOptions, Document, Part, Source, first_line, text_value
from app.corpus.problems import Problems
from app.corpus.sources import pieces_in

WINDOW = 1 << 20  # how far past a piece's nominal start a line end is looked for
BLOCK = 1 << 16


def documents(part: Part, options: CorpusOptions, problems: Problems) -> Iterator[Document]:
    source = part.source
    if source.format == "gz":
        problems.file(
            source.index, 0, f"{source.shown}: compressed text is not read (only .jsonl.gz is); decompress it first"
        )
        return
    if source.format == "parquet":
        from app.corpus.parquet import read as reader
    else:
        reader = {"text": _text, "jsonl": _jsonl, "jsonl.gz": _jsonl_gz}[source.format]
    try:
        yield from reader(part, options, problems)
    except OSError as error:
        problems.file(source.index, part.start, f"{source.shown}: cannot read it ({first_line(error)}); skipped")


def piece_start(file, k: int, piece_bytes: int, size: int) -> int:
    """Where piece k of a text file starts: just after the first line end in the WINDOW from
    k * piece_bytes, else at the first character boundary from there. Computed from the
    bytes there alone, so any task can find its pieces without reading the ones before."""
    nominal = k * piece_bytes
    if k == 0 or nominal >= size:
        return min(nominal, size)
    file.seek(nominal)
    searched, limit = 0, min(WINDOW, piece_bytes, size - nominal)
    while searched < limit:
        block = file.read(min(BLOCK, limit - searched))
        if not block:
            break
        at = block.find(b"\n")
        if at >= 0:
            return nominal + searched + at + 1
        searched += len(block)
    file.seek(nominal)
    head = file.read(3)
    skip = 0
    while skip < len(head) and 0x80 <= head[skip] < 0xC0:  # UTF-8 continuation bytes
        skip += 1
    return nominal + skip


def _text(part: Part, options: CorpusOptions, problems: Problems) -> Iterator[Document]:
    source, piece = part.source, options.max_document_bytes
    count = pieces_in(source.size, piece)
    with open(source.path, "rb") as file:
        start = piece_start(file, part.start, piece, source.size)
        for k in range(part.start, part.stop):
            end = piece_start(file, k + 1, piece, source.size) if k + 1 < count else source.size
            if end <= start and count > 1:
                continue
            file.seek(start)
            data = file.read(end - start)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as error:
                where = start + error.start
                problems.record(
                    source.index,
                    where,
                    f"{source.shown}: not UTF-8 text (bad byte at offset {where:,}); skipped (convert it to UTF-8)",
                )
            else:
                yield text, len(data)
            start = end


def _jsonl(part: Part, options: CorpusOptions, problems: Problems) -> Iterator[Document]:
    source, limit = part.source, 6 * options.max_document_bytes
    with open(source.path, "rb") as file:
        position = part.start
        if position > 0:  # the part's first line is the first one that starts at or after `start`
            file.seek(position - 1)
            position = position - 1 + _skip_line(file)
        while position < part.stop:
            line, length = _read_line(file, limit)
            if not length:
                break
            found = _record(line, source, position, f"at byte {position:,}", options, problems, limit)
            if found is not None:
                yield found
            position += length


def _jsonl_gz(part: Part, options: CorpusOptions, problems: Problems) -> Iterator[Document]:
    source, limit = part.source, 6 * options.max_document_bytes
    number = 0
    try:
        with gzip.open(source.path, "rb") as file:
            while True:
                line, length = _read_line(file, limit)
                if not length:
                    return
                number += 1
                found = _record(line, source, number, f"line {number:,}", options, problems, limit)
                if found is not None:
                    yield found
    except (OSError, EOFError, zlib.error) as error:
        reason = first_line(error) or "truncated"
        problems.file(
            source.index,
            number + 1,
            f"{source.shown}: not a readable gzip file ({reason}); skipped"
            if number == 0
            else f"{source.shown}: unreadable after line {number:,} ({reason}); the rest of the file was skipped",
        )


def _read_line(file, limit: int) -> tuple[bytes | None, int]:
    """The next line and the bytes it takes; None for a line over `limit` (skipped, not held)."""
    line = file.readline(limit + 1)
    if len(line) <= limit or line.endswith(b"\n"):
        return line, len(line)
    return None, len(line) + _skip_line(file)


def _skip_line(file) -> int:
    """Read past the next line end (or to the end), a block at a time; the bytes read."""
    skipped = 0
    while True:
        block = file.readline(BLOCK)
        skipped += len(block)
        if not block or block.endswith(b"\n"):
            return skipped


def _record(
    line: bytes | None,
    source: Source,
    position: int,
    where: str,
    options: CorpusOptions,
    problems: Problems,
    limit: int,
) -> Document | None:
    def bad(message: str) -> Document | None:
        problems.record(source.index, position, f"{source.shown} {where}: {message}; skipped")
        return None  # the record is skipped

    if line is None:
        return bad(f"a line over {limit:,} bytes (raise --max-document-size)")
    if not line.strip():
        return None  # blank lines are not records
    try:
        value = json.loads(line)
    except UnicodeDecodeError as error:
        return bad(f"not UTF-8 ({error.reason})")
    except ValueError as error:
        return bad(f"not JSON ({getattr(error, 'msg', error)})")
    name = options.field_name
    if not isinstance(value, dict):
        return bad(f"a JSON {type(value).__name__}, not an object with a {name!r} field")
    if name not in value:
        return bad(f"no {name!r} field (it has: {', '.join(list(value)[:10]) or 'none'}); choose one with --field")
    return text_value(value[name], source, position, where, name, problems, options.max_document_bytes)
