"""BPE training: the lecture's merges, computed without rescanning the corpus.

The lecture's (naive) algorithm: split the corpus into chunks with the pattern; then
repeatedly count every adjacent pair of ids over all chunks, merge the most frequent
pair everywhere and give it the next id (256, 257, ...). Ties between equally frequent
pairs go to the pair that occurs first: the one whose first occurrence, scanning the
chunks in corpus order and each chunk's current ids left to right, comes earliest. (That
is what Python's `max()` picks from a dict of counts filled in that scanning order.)

Here the corpus is split once into distinct chunks with counts, numbered in order of
first appearance. With one of the named patterns (gpt2's, gpt4's: app/bpe/families.py)
that is the C extension `_chunk_count`: the C pretokenizer on the `regex` module's Unicode
classes, so exactly the `regex` module's chunks, counted on threads without the GIL
(`count_threads`: the cores this process may use, capped), the documents cut into
contiguous groups whose counts are added in order. Any other pattern, or a document with a
lone surrogate, is split by the `regex` module here, in one thread (it needs the GIL for
every match it returns). The merge loop is the C extension `_core` (built by
`pip install -e .`): weighted pair counts, a pair -> chunks index and a lazy max-heap, ties
settled by (lowest chunk number, leftmost position). tests/bpe/test_bpe_vs_naive.py checks
it against the naive algorithm, tests/bpe/test_chunk_count.py the C counting against this
module's Python path.

Counting can run in parts anywhere (app/corpus counts consecutive parts of a corpus on
worker processes): `add_counts` adds the parts' counts in corpus order, which gives the
same counts in the same first-appearance order, so the same merges.

Each merge comes with its count: how many times the pair occurred in the corpus (chunk
weights included) when it was chosen, the value the lecture's `get_stats` gives it.

Left out: special tokens (the caller adds them after the merges) and any I/O.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping

import regex

from app.bpe.families import CL100K, FAMILIES, GPT2

try:
    from app.bpe import _chunk_count
except ImportError:  # not built: the `regex` module counts
    _chunk_count = None  # type: ignore[assignment]

C_FAMILIES = (GPT2, CL100K)  # the named patterns' families (model.PATTERNS), which _chunk_count counts
MAX_THREADS = 8  # counting is memory-bound past a few threads
MIN_THREAD_CHARS = 1 << 20  # a thread is worth starting for at least this much text
BATCH_CHARS = 64 << 20  # documents from an iterator are counted this much at a time (bounded memory)

Progress = Callable[[int, int], None]  # (merges done, merges wanted)
OnMerge = Callable[[int, tuple[int, int], int], None]  # (merge index, pair, its count)


def train_merges(
    documents: Iterable[str],
    pattern: str | None,
    num_merges: int,
    progress: Progress | None = None,
) -> list[tuple[int, int]]:
    """The first `num_merges` pairs the naive algorithm merges (fewer if pairs run out);
    merge i makes id 256 + i. `progress(done, num_merges)` is called after each merge."""
    return merges_from_counts(count_chunks(documents, pattern), num_merges, progress)


def merges_from_counts(
    counts: Mapping[str, int],
    num_merges: int,
    progress: Progress | None = None,
) -> list[tuple[int, int]]:
    """`train_merges` from chunk counts already made (`count_chunks`, or `add_counts` of
    the counts of consecutive parts of the corpus): their order is what breaks ties."""
    return counted_merges(counts, num_merges, progress)[0]


def counted_merges(
    counts: Mapping[str, int],
    num_merges: int,
    progress: Progress | None = None,
    on_merge: OnMerge | None = None,
) -> tuple[list[tuple[int, int]], list[int]]:
    """`merges_from_counts` and each merge's count when it was chosen; `on_merge(i, pair,
    count)` is called as merge i is made, before `progress`."""
    try:
        from app.bpe import _core as _bpe_core
    except ImportError as error:
        raise ImportError(
            f"tokenprism's BPE trainer is a C extension that is not built ({error}); "
            "run `pip install -e .` (or `python setup.py build_ext --inplace`) in the repository"
        ) from None

    def report(done: int, total: int, left: int, right: int, count: int) -> None:
        if on_merge is not None:
            on_merge(done - 1, (left, right), count)
        if progress is not None:
            progress(done, total)

    chunks = [chunk.encode("utf-8", errors="surrogatepass") for chunk in counts]
    callback = report if progress is not None or on_merge is not None else None
    made = _bpe_core.merge_loop(chunks, list(counts.values()), max(num_merges, 0), callback)
    return [(left, right) for left, right, _ in made], [count for _, _, count in made]


def count_threads(characters: int) -> int:
    """How many threads count `characters` of text: one a MIN_THREAD_CHARS, at most the
    cores this process may run on and MAX_THREADS."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, MAX_THREADS, characters // MIN_THREAD_CHARS))


def count_chunks(documents: Iterable[str], pattern: str | None, threads: int | None = None) -> Counter[str]:
    """Distinct chunks -> how often they occur, in order of first appearance. Each
    document is split on its own; with no pattern a document is one chunk. `threads`
    (default `count_threads`) is used only by the C counting of the named patterns."""
    counts: Counter[str] = Counter()
    if pattern is None:
        counts.update(d for d in documents if d)
        return counts
    findall = regex.compile(pattern).findall
    family = FAMILIES.get(pattern)
    if _chunk_count is None or family not in C_FAMILIES:
        for document in documents:
            counts.update(findall(document))
        return counts
    for batch, characters in _batches(documents):
        made = _chunk_count.count_chunks(family, batch, count_threads(characters) if threads is None else threads)
        if made is None:  # a lone surrogate (not UTF-8): the `regex` module splits this batch
            for document in batch:
                counts.update(findall(document))
        else:  # the batches' counts are added in order (`add_counts`)
            chunks, numbers = made
            add_counts(counts, dict(zip(chunks, numbers, strict=True)))
    return counts


def _batches(documents: Iterable[str]) -> Iterable[tuple[list[str], int]]:
    """The documents in consecutive lists of about BATCH_CHARS characters (a list given is one), each with
    its length."""
    if isinstance(documents, list):
        yield documents, sum(map(len, documents))
        return
    batch, characters = [], 0
    for document in documents:
        batch.append(document)
        characters += len(document)
        if characters >= BATCH_CHARS:
            yield batch, characters
            batch, characters = [], 0
    if batch:
        yield batch, characters


def add_counts(total: Counter[str], part: Mapping[str, int]) -> Counter[str]:
    """Add the chunk counts of the next part of the corpus to those of all parts before it.
    Adding the parts' counts in corpus order, part after part, gives exactly `count_chunks`
    of the whole corpus, first-appearance order included (a chunk new to `total` is
    appended, in the part's own order): so parts can be counted anywhere, in any order,
    as long as they are added in order."""
    total.update(part)
    return total


def merge_row(rank: int, pair: tuple[int, int], data: bytes, count: int | None) -> dict:
    """Merge `rank` as the API lists it: {"id", "left", "right", "bytes" (hex), "text", "count"}."""
    return {
        "id": 256 + rank,
        "left": pair[0],
        "right": pair[1],
        "bytes": data.hex(),
        "text": data.decode("utf-8", errors="replace"),
        "count": count,
    }


class FirstMerges:
    """An `on_merge` that keeps the first `shown` merges as `merge_row`s (ids of a model trained
    here: byte b is id b) and hands all kept so far to `report` after each new one."""

    def __init__(self, shown: int, report: Callable[[list[dict]], None]):
        self.shown, self.report = shown, report
        self.vocab = [bytes([b]) for b in range(256)]
        self.rows: list[dict] = []

    def __call__(self, index: int, pair: tuple[int, int], count: int) -> None:
        if index >= self.shown:
            return
        data = self.vocab[pair[0]] + self.vocab[pair[1]]
        self.vocab.append(data)
        self.rows.append(merge_row(index, pair, data, count))
        self.report(list(self.rows))
