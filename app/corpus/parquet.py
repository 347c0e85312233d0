"""Parquet files, through pyarrow (an optional extra: `pip install tokenprism[parquet]`).

`with_row_groups` reads a file's footer while planning: the text column must exist and hold
strings (or a dictionary of strings), else the file is one problem; the row groups' sizes
are kept so that tasks can take runs of them. `read` yields the column's strings of a run
of row groups, PARQUET_BATCH_ROWS at a time; a null is a bad record, a damaged page ends the
part as a bad file. Memory: pyarrow holds a row group's column while its rows are read.

Left out: nested columns (a top-level column only), filters, remote files.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from app.corpus.parts import CorpusOptions, Document, Part, Source, first_line, text_value
from app.corpus.problems import Problems

PARQUET_BATCH_ROWS = 256


def with_row_groups(source: Source, column: str, problems: Problems) -> Source | None:
    """The source with its row groups' sizes; None (and a problem) when it cannot be read as text rows."""
    try:
        metadata = pq.read_metadata(source.path)
        schema = metadata.schema.to_arrow_schema()
    except (OSError, ValueError, pa.ArrowException) as error:
        problems.file(source.index, 0, f"{source.shown}: not a readable Parquet file ({first_line(error)}); skipped")
        return None
    if column not in schema.names:
        problems.file(
            source.index,
            0,
            f"{source.shown}: has no column {column!r} (its columns: "
            f"{', '.join(schema.names[:20])}); choose one with --column",
        )
        return None
    kind = schema.field(column).type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or str(kind) == "string_view"):
        problems.file(
            source.index,
            0,
            f"{source.shown}: column {column!r} holds {kind}, not text; choose a string column with --column",
        )
        return None
    groups = tuple(metadata.row_group(i).total_byte_size for i in range(metadata.num_row_groups))
    return Source(source.index, source.path, source.shown, source.format, source.size, groups)


def read(part: Part, options: CorpusOptions, problems: Problems) -> Iterator[Document]:
    source, limit = part.source, options.max_document_bytes
    group = part.start
    try:
        parquet = pq.ParquetFile(source.path)
        for group in range(part.start, part.stop):
            row = 0
            batches = parquet.iter_batches(
                batch_size=PARQUET_BATCH_ROWS, row_groups=[group], columns=[options.column_name], use_threads=False
            )
            for batch in batches:
                for value in batch.column(0).to_pylist():
                    where = f"row group {group}, row {row:,}"
                    found = text_value(value, source, group * 2**32 + row, where, options.column_name, problems, limit)
                    row += 1
                    if found is not None:
                        yield found
    except (OSError, ValueError, pa.ArrowException) as error:
        problems.file(
            source.index,
            group * 2**32,
            f"{source.shown}: unreadable at row group {group} ({first_line(error)}); the rest of the part was skipped",
        )
