"""The task functions that run on the workers (a local process, a pool process or a Dask worker).

`count_task` counts one task's documents under each tokenizer (`count_batch` over runs of
about BATCH_BYTES of them, so no ids are kept); `chunk_task` counts the
pre-token chunks of one task's documents for training (`app.bpe.train.count_chunks`).
Both return plain data that pickles small: per-source sums, or a Counter, plus the task's
`Problems`. Tokenizers come as `TokenizerSpec`s (see `portable`): passed in, or installed
once per pool process by `install`. A document that a tokenizer refuses (tiktoken's regex
gives up on a very long run of spaces, a custom pattern times out) is one bad record,
for every tokenizer, so that all tokenizers count the same documents.

An engine error raised in a worker comes back as `TaskError` (a plain exception that
pickles); anything else is a bug, and comes back as it is.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from app.bpe.train import count_chunks
from app.corpus.parts import Document
from app.corpus.portable import TokenizerSpec
from app.corpus.problems import Problems
from app.corpus.readers import documents
from app.corpus.sources import CorpusOptions, Task
from app.errors import TokenprismError
from app.tokenizers.base import Tokenizer

BATCH_BYTES = 1 << 20  # documents counted together (count_batch) per tokenizer

_installed: tuple = ()  # a pool process's shared data (tokenizer specs, or the split pattern), set by `install`


class TaskError(Exception):
    """An engine error in a worker (a tokenizer file that fails its checksum...), as one line."""


def prepare(shared: tuple) -> None:
    """Build the tokenizers of `shared` here, before worker processes are forked from this one."""
    for spec in shared:
        if isinstance(spec, TokenizerSpec):
            spec.get()


def install(shared: tuple) -> None:
    """Pool initializer: keep what every task of this process shares. The pool already has a process
    per core, so Hugging Face `tokenizers` is kept to one thread here (unless the user set
    TOKENIZERS_PARALLELISM): its own threads would only compete with the other workers."""
    global _installed
    _installed = shared
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@dataclass
class CountResult:
    sources: dict[int, list[int]] = field(default_factory=dict)  # source index -> [documents, bytes, chars, tokens...]
    problems: Problems = field(default_factory=Problems)


@dataclass
class ChunkResult:
    counts: Counter = field(default_factory=Counter)  # chunk -> occurrences, in first-appearance order
    documents: int = 0
    bytes: int = 0
    characters: int = 0
    problems: Problems = field(default_factory=Problems)


def count_task(
    task: Task, specs: tuple[TokenizerSpec, ...] | None, options: CorpusOptions, allow_special: bool = False
) -> CountResult:
    try:
        tokenizers = [spec.get() for spec in (_installed if specs is None else specs)]
    except TokenprismError as error:
        raise TaskError(error.message) from None
    result = CountResult()
    for part in task.parts:
        row = result.sources.setdefault(part.source.index, [0] * (3 + len(tokenizers)))
        for batch in _batches(documents(part, options, result.problems)):
            for (text, size), counts in zip(
                batch, _counts(tokenizers, [text for text, _ in batch], allow_special), strict=True
            ):
                if isinstance(counts, TokenprismError):
                    result.problems.record(
                        part.source.index,
                        -1,
                        f"{part.source.shown}: a document of {size:,} bytes was refused ({counts.message}); skipped",
                    )
                    continue
                row[0] += 1
                row[1] += size
                row[2] += len(text)
                for i, count in enumerate(counts):
                    row[3 + i] += count
    return result


def _batches(documents: Iterable[Document]) -> Iterator[list[Document]]:
    """The documents in runs of at most BATCH_BYTES (a longer document alone), for `count_batch`."""
    batch: list[Document] = []
    held = 0
    for document in documents:
        if batch and held + document[1] > BATCH_BYTES:
            yield batch
            batch, held = [], 0
        batch.append(document)
        held += document[1]
    if batch:
        yield batch


def _counts(tokenizers: list[Tokenizer], texts: list[str], allow_special: bool) -> list[list[int] | TokenprismError]:
    """Per text, its count under each tokenizer, or the error of the first tokenizer that refused it.
    A batch that some tokenizer refuses is counted again one text at a time, to find which."""
    try:
        per_tokenizer = [tokenizer.count_batch(texts, allow_special) for tokenizer in tokenizers]
    except TokenprismError as error:
        if len(texts) == 1:
            return [error]
        return [one for text in texts for one in _counts(tokenizers, [text], allow_special)]
    return [list(counts) for counts in zip(*per_tokenizer, strict=True)] if tokenizers else [[] for _ in texts]


def chunk_task(task: Task, shared: tuple[str | None] | None, options: CorpusOptions) -> ChunkResult:
    """`shared` is `(pattern,)` (None: the installed one), the split regex or None for no split."""
    (pattern,) = _installed if shared is None else shared
    result = ChunkResult()

    def texts():
        for part in task.parts:
            for text, size in documents(part, options, result.problems):
                result.documents += 1
                result.bytes += size
                result.characters += len(text)
                yield text

    # a pool process is one of several: its own threads would only contend with its siblings
    result.counts = count_chunks(texts(), pattern, threads=1 if shared is None else None)
    return result
