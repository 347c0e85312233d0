"""The chunk-counting pass of training a BPE on a corpus, map-reduced on the workers.

`chunk_counts(plan, regex, runner)`: each task's chunks are counted on a worker
(`work.chunk_task`), and the parts' Counters are added in task order, which is corpus order
(`app.bpe.train.add_counts`). The merges trained from them are then exactly those of a
single-process run over the same documents. The training and saving around it is the one
job runner's (`app.jobs.JobRunner.run_inline`, called by `tokenprism train` with a function
of the split regex that runs this once the name is locked).

Memory: the merged Counter holds every distinct chunk of the corpus with its count, ~100
bytes each (358,007 chunks, 37 MB, for the 200 MB bench corpus), and the merge loop needs
about as much again. That grows with the corpus's vocabulary, more slowly than its size
(natural text keeps bringing new words, numbers and names: roughly a power 0.5-0.7 of its
size), so a corpus of many GB can need GBs here. Plus at most 4 x workers task results
waiting to be added.

`progress(stage, done, total)` is called with stage "counting" (bytes).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from app.bpe.train import add_counts
from app.corpus.problems import Problems
from app.corpus.runner import Runner
from app.corpus.sources import Plan
from app.corpus.work import chunk_task

Progress = Callable[[str, int, int], None]


@dataclass
class ChunkCounts:
    counts: Counter = field(default_factory=Counter)
    documents: int = 0
    bytes: int = 0
    characters: int = 0
    problems: Problems = field(default_factory=Problems)


def chunk_counts(plan: Plan, regex: str | None, runner: Runner, progress: Progress | None = None) -> ChunkCounts:
    """The chunk counts of the whole corpus, counted task by task on the runner's workers."""
    merged = ChunkCounts()
    merged.problems.add(plan.problems)
    done, total = 0, plan.total_bytes
    if progress:
        progress("counting", 0, total)
    for task, part in runner.run(chunk_task, plan.tasks(), (regex,), plan.options, ordered=True):
        add_counts(merged.counts, part.counts)
        merged.documents += part.documents
        merged.bytes += part.bytes
        merged.characters += part.characters
        merged.problems.add(part.problems)
        done += task.size
        if progress:
            progress("counting", done, total)
    return merged
