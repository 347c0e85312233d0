"""The corpus's shapes, shared by the planner (sources.py), the readers (readers.py) and the
Parquet reader (parquet.py), below all three: the options (`CorpusOptions`), one input file
(`Source`), a slice of one (`Part`), a document as read (`Document`), the check every text
value passes (`text_value`: text, not over the size limit) and an error's first line.
Left out: finding the files and reading them.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.corpus.problems import Problems
from app.tokenizers.tokens import clean_text

Document = tuple[str, int]


@dataclass(frozen=True)
class CorpusOptions:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    field: str | None = None  # None: "text", and no check that .jsonl files are among the inputs
    column: str | None = None
    max_document_bytes: int = 8 << 20
    task_bytes: int | None = None  # None: as `Plan.spread` cuts it (at most 8 MiB)

    @property
    def field_name(self) -> str:
        return self.field or "text"

    @property
    def column_name(self) -> str:
        return self.column or "text"


@dataclass(frozen=True)
class Source:
    index: int  # position in corpus order
    path: str  # what is opened
    shown: str  # its name in reports: as given, or the directory as given joined with the path below it
    format: str
    size: int  # bytes on disk
    row_groups: tuple[int, ...] = ()  # Parquet: each row group's size in bytes (uncompressed)


@dataclass(frozen=True)
class Part:
    source: Source
    start: int = 0  # text: first piece; .jsonl: first byte; Parquet: first row group
    stop: int = 0  # the piece, byte or row group after the last
    size: int = 0  # bytes on disk, for progress


def first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0][:200]


def text_value(
    value: object, source: Source, position: int, where: str, name: str, problems: Problems, limit: int
) -> Document | None:
    if not isinstance(value, str):
        shown = (
            "null"
            if value is None
            else {int: "a number", float: "a number", bool: "true or false", list: "a list", dict: "an object"}.get(
                type(value), "not a string"
            )
        )
        problems.record(source.index, position, f"{source.shown} {where}: {name!r} is {shown}, not text; skipped")
        return None
    if value.isascii():
        size = len(value)
    else:
        value = clean_text(value)
        size = len(value.encode("utf-8"))
    if size > limit:
        problems.record(
            source.index,
            position,
            f"{source.shown} {where}: a text of {size:,} bytes, over --max-document-size ({limit:,}); skipped",
        )
        return None
    return value, size
