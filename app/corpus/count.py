"""Counting a corpus under several tokenizers: totals, the figures people compare, breakdowns.

`count_corpus(plan, specs, runner)` runs `work.count_task` over the plan's tasks and adds
the results up: per tokenizer its tokens, tokens per byte (of UTF-8 text), characters per
token and the difference from the tokenizer with the fewest tokens; with `by` ("file",
"dir" or "ext") the same per group, in corpus order. Sums do not depend on the order tasks
finish in, nor on how the corpus was cut into tasks.

Memory: the totals, plus one row per group when `by` is given (one per file for "file").
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from app.corpus.portable import TokenizerSpec
from app.corpus.problems import Problems
from app.corpus.runner import Runner
from app.corpus.sources import Plan, Source
from app.corpus.work import count_task

BY = ("file", "dir", "ext")
Progress = Callable[[str, int, int], None]  # (stage, done, total)


def group_of(source: Source, by: str) -> str:
    if by == "file":
        return source.shown
    if by == "dir":
        return os.path.dirname(source.shown) or "."
    name = os.path.basename(source.shown).lower()
    stem, dot, suffix = name.rpartition(".")
    if not dot or not stem:
        return "(none)"
    if suffix == "gz" and "." in stem:
        return "." + stem.rpartition(".")[2] + ".gz"
    return "." + suffix


@dataclass
class CountReport:
    names: list[str]
    by: str | None = None
    total: list[int] = field(default_factory=list)  # [documents, bytes, characters, tokens per tokenizer...]
    groups: dict[str, list[int]] = field(default_factory=dict)  # group -> [files, documents, bytes, chars, tokens...]
    files: int = 0
    problems: Problems = field(default_factory=Problems)
    seconds: float = 0.0
    runner: str = ""
    workers: int = 1

    @property
    def tokens(self) -> dict[str, int]:
        return dict(zip(self.names, self.total[3:], strict=True))

    def stats(self) -> dict[str, dict]:
        """Per tokenizer: tokens, tokens per byte, characters per token, and `vs_best`, the
        fraction more tokens than the tokenizer with the fewest (0.0 for that one)."""
        _documents, size, characters = self.total[:3]
        best = min(self.total[3:], default=0)
        return {
            name: {
                "tokens": tokens,
                "tokens_per_byte": tokens / size if size else 0.0,
                "characters_per_token": characters / tokens if tokens else 0.0,
                "vs_best": (tokens - best) / best if best else 0.0,
            }
            for name, tokens in self.tokens.items()
        }

    def to_json(self) -> dict:
        documents, size, characters = self.total[:3]
        report = {
            "tokenizers": self.names,
            "total": self.tokens,
            "stats": self.stats(),
            "files_read": self.files,
            "documents": documents,
            "bytes": size,
            "characters": characters,
            "problems": self.problems.to_dict(),
            "runner": self.runner,
            "workers": self.workers,
            "seconds": round(self.seconds, 3),
        }
        if self.by is not None:
            report["by"] = self.by
            report["groups"] = {
                group: {
                    "files": row[0],
                    "documents": row[1],
                    "bytes": row[2],
                    "characters": row[3],
                    "tokens": dict(zip(self.names, row[4:], strict=True)),
                }
                for group, row in self.groups.items()
            }
        if self.by == "file":  # the shape `count --json` has always had
            report["files"] = {group: dict(zip(self.names, row[4:], strict=True)) for group, row in self.groups.items()}
        return report


def count_corpus(
    plan: Plan,
    specs: tuple[TokenizerSpec, ...],
    runner: Runner,
    *,
    by: str | None = None,
    allow_special: bool = False,
    progress: Progress | None = None,
) -> CountReport:
    started = time.perf_counter()
    width = 3 + len(specs)
    report = CountReport(
        [spec.name for spec in specs],
        by,
        [0] * width,
        files=len(plan.sources),
        runner=runner.name,
        workers=runner.workers,
    )
    report.problems.add(plan.problems)
    rows: dict[str, tuple[int, list[int]]] = {}  # group -> (first source index, [files, ...])
    seen: set[int] = set()
    done, total = 0, plan.total_bytes
    if progress:
        progress("counting", 0, total)
    for task, result in runner.run(count_task, plan.tasks(), specs, plan.options, allow_special):
        for index, row in result.sources.items():
            report.total = [a + b for a, b in zip(report.total, row, strict=True)]
            if by is not None:
                source = plan.sources[index]
                _first, group = rows.setdefault(group_of(source, by), (index, [0] * (1 + width)))
                group[0] += index not in seen
                seen.add(index)
                group[1:] = [a + b for a, b in zip(group[1:], row, strict=True)]
        report.problems.add(result.problems)
        done += task.size
        if progress:
            progress("counting", done, total)
    report.groups = {group: row for group, (_, row) in sorted(rows.items(), key=lambda item: item[1][0])}
    report.seconds = time.perf_counter() - started
    return report
