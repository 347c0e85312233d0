"""Which files a corpus is, in which order, and how its work is cut into tasks.

`open_plan(paths, options)` turns the paths a user gives into `Source`s in corpus order.
A file is taken as given. A directory is walked recursively: its files by name, then its
folders by name; hidden names (starting with '.') and symlinked folders are skipped; a file
is kept when it matches an --include glob (if any) and no --exclude glob (an --exclude glob
also prunes folders). A glob without '/' is matched against the name, one with '/' against
the path below the directory; `*` crosses folders. '-' (stdin) and other streams (a pipe)
are copied to a temp file first, removed when the plan is closed. A file met twice is read
once. The format comes from the name: `.jsonl`/`.ndjson`, the same with `.gz`, `.parquet`;
any other name is UTF-8 text.

`Plan.tasks()` cuts the work into `Task`s of about `task_bytes`, never inside a document:
small files are grouped; a text file longer than `max_document_bytes` is cut into pieces
at fixed places (`readers.piece_start`), a .jsonl file into byte ranges (a line belongs to
the range its first byte is in), a Parquet file into runs of row groups; a .jsonl.gz file
is one task. So the documents, and their order, are the same however the work is split.

A mistake in what was asked (a missing path, --field with no .jsonl among the inputs,
Parquet without pyarrow) raises `CorpusError` before any work starts; a file that cannot
be read is a problem of the plan (`Problems`), reported with the results.

Left out: remote URLs (s3://...), compressed text other than .jsonl.gz, symlinked folders.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass, field

from app.corpus.parts import CorpusOptions, Part, Source, first_line
from app.corpus.problems import Problems
from app.errors import InvalidInput

__all__ = [
    "CorpusError",
    "CorpusOptions",
    "Part",
    "Plan",
    "Source",
    "Task",
    "first_line",
    "format_of",
    "open_plan",
    "pieces_in",
]

JSONL_SUFFIXES = (".jsonl", ".ndjson")
MAX_PARTS_PER_TASK = 1000  # small files grouped into one task


class CorpusError(InvalidInput):
    """A mistake in what was asked; the CLI prints it on one line and exits with status 2."""


def format_of(name: str) -> str:
    lower = name.lower()
    if lower.endswith(tuple(s + ".gz" for s in JSONL_SUFFIXES)):
        return "jsonl.gz"
    if lower.endswith(JSONL_SUFFIXES):
        return "jsonl"
    if lower.endswith(".parquet"):
        return "parquet"
    return "gz" if lower.endswith(".gz") else "text"  # other .gz files are refused, each as a problem


@dataclass(frozen=True)
class Task:
    index: int
    parts: tuple[Part, ...]

    @property
    def size(self) -> int:
        return sum(part.size for part in self.parts)


@dataclass
class Plan:
    sources: list[Source]
    options: CorpusOptions
    problems: Problems = field(default_factory=Problems)  # files refused while planning
    temp_dir: str | None = None
    from_stdin: bool = False
    _tasks: list[Task] | None = field(default=None, repr=False)

    @property
    def total_bytes(self) -> int:
        return sum(source.size for source in self.sources)

    def close(self) -> None:
        if self.temp_dir is not None:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.temp_dir = None

    def __enter__(self) -> Plan:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def tasks(self) -> list[Task]:
        """The tasks, in corpus order (made once, then kept)."""
        if self._tasks is None:
            self._tasks = self._make_tasks()
        return self._tasks

    def _make_tasks(self) -> list[Task]:
        parts = [part for source in self.sources for part in _parts(source, self.options)]
        tasks: list[Task] = []
        current: list[Part] = []
        for part in parts:
            if current and (
                sum(p.size for p in current) + part.size > self.options.task_bytes or len(current) >= MAX_PARTS_PER_TASK
            ):
                tasks.append(Task(len(tasks), tuple(current)))
                current = []
            current.append(part)
        if current:
            tasks.append(Task(len(tasks), tuple(current)))
        return tasks


def pieces_in(size: int, max_document_bytes: int) -> int:
    """How many documents a text file of `size` bytes is read as."""
    return max(1, -(-size // max_document_bytes))


def _parts(source: Source, options: CorpusOptions) -> list[Part]:
    task, size = options.task_bytes, source.size
    if source.format == "text":
        piece = options.max_document_bytes
        per_task = max(1, task // piece)
        count = pieces_in(size, piece)
        return [
            Part(source, k, min(count, k + per_task), min(size, (k + per_task) * piece) - min(size, k * piece))
            for k in range(0, count, per_task)
        ]
    if source.format == "jsonl":
        return [
            Part(source, start, min(size, start + task), min(size, start + task) - start)
            for start in range(0, max(size, 1), task)
        ]
    if source.format == "parquet" and source.row_groups:
        parts, first, held, done, whole = [], 0, 0, 0, sum(source.row_groups) or 1
        for group, group_size in enumerate(source.row_groups):
            held += group_size
            if held >= task or group == len(source.row_groups) - 1:
                share = size * (done + held) // whole - size * done // whole  # the parts' sizes add up to the file's
                parts.append(Part(source, first, group + 1, share))
                first, held, done = group + 1, 0, done + held
        return parts
    return [Part(source, 0, 0, size)]  # .jsonl.gz, refused .gz, a Parquet file without row groups


def open_plan(paths: list[str], options: CorpusOptions) -> Plan:
    """The corpus behind `paths`, in order; close it (or use `with`) to remove stdin's copy."""
    if not paths:
        raise CorpusError("give one or more files or directories ('-' for stdin)")
    plan = Plan([], options)
    try:
        _fill(plan, paths)
    except BaseException:
        plan.close()
        raise
    return plan


def _fill(plan: Plan, paths: list[str]) -> None:
    options = plan.options
    found: list[tuple[str, str]] = []  # (path to open, name to show)
    walked = False
    for given in paths:
        if given == "-":
            found.append((_spool(plan, sys.stdin.buffer, "-"), "-"))
            plan.from_stdin = True
            continue
        try:
            info = os.stat(given)
        except FileNotFoundError:
            raise CorpusError(f"no such file or directory: {given}; check the path") from None
        except OSError as error:
            raise CorpusError(f"cannot open {given}: {_reason(error)}; check the path") from None
        if stat.S_ISDIR(info.st_mode):
            walked = True
            found += _walk(given, options, plan.problems, len(found))
        elif stat.S_ISREG(info.st_mode):
            found.append((given, given))
        else:  # a pipe such as <(zcat data.gz): read once, now
            try:
                with open(given, "rb") as stream:
                    found.append((_spool(plan, stream, given), given))
            except OSError as error:
                raise CorpusError(f"cannot read {given}: {_reason(error)}") from None
    if (options.include or options.exclude) and not walked:
        raise CorpusError(
            "--include and --exclude filter the files found in directories, and no directory was "
            "given; give a directory or drop them"
        )
    formats = {format_of(shown) for _, shown in found}
    if options.field is not None and not formats & {"jsonl", "jsonl.gz"}:
        raise CorpusError(
            f"--field applies to .jsonl and .jsonl.gz files, and none are among the inputs; drop "
            f"--field {options.field} or give .jsonl files"
        )
    if options.column is not None and "parquet" not in formats:
        raise CorpusError(
            f"--column applies to .parquet files, and none are among the inputs; drop "
            f"--column {options.column} or give .parquet files"
        )
    if "parquet" in formats:
        try:
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            raise CorpusError(
                "reading .parquet files needs pyarrow; install it with pip install 'tokenprism[parquet]'"
            ) from None
    seen: set[tuple[int, int]] = set()
    for path, shown in found:
        try:
            info = os.stat(path)
        except OSError as error:
            plan.problems.file(len(plan.sources), 0, f"{shown}: cannot read it ({_reason(error)}); skipped")
            continue
        if (info.st_dev, info.st_ino) in seen:
            continue
        seen.add((info.st_dev, info.st_ino))
        source = Source(len(plan.sources), path, shown, format_of(shown), info.st_size)
        if source.format == "parquet":
            from app.corpus.parquet import with_row_groups

            grouped = with_row_groups(source, options.column_name, plan.problems)
            if grouped is None:
                continue
            source = grouped
        plan.sources.append(source)
    if not plan.sources and not plan.problems:
        raise CorpusError(
            f"no files to read in {', '.join(paths)}"
            + (" that match --include and --exclude" if options.include or options.exclude else "")
            + "; check the paths"
        )


def _walk(top: str, options: CorpusOptions, problems: Problems, order: int) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []

    def failed(error: OSError) -> None:
        problems.file(order + len(found), 0, f"{error.filename}: cannot list it ({_reason(error)}); skipped")

    for root, folders, files in os.walk(top, onerror=failed):
        below = os.path.relpath(root, top)
        folders[:] = sorted(
            f for f in folders if not f.startswith(".") and not _matches(options.exclude, _joined(below, f), f)
        )
        for name in sorted(files):
            relative = _joined(below, name)
            if name.startswith(".") or _matches(options.exclude, relative, name):
                continue
            if options.include and not _matches(options.include, relative, name):
                continue
            path = os.path.join(root, name)
            try:
                regular = stat.S_ISREG(os.stat(path).st_mode)
            except OSError:
                regular = True  # a broken link: reported when it is opened
            if not regular:
                problems.file(order + len(found), 0, f"{os.path.join(top, relative)}: not a regular file; skipped")
                continue
            found.append((path, os.path.join(top, relative)))
    return found


def _joined(below: str, name: str) -> str:
    return name if below == "." else f"{below}/{name}".replace(os.sep, "/")


def _matches(globs: tuple[str, ...], relative: str, name: str) -> bool:
    return any(fnmatch.fnmatchcase(relative if "/" in glob else name, glob) for glob in globs)


def _spool(plan: Plan, stream, shown: str) -> str:
    """Copy a stream to a temp file (in blocks: any size, bounded memory); its path."""
    if plan.temp_dir is None:
        plan.temp_dir = tempfile.mkdtemp(prefix="tokenprism-corpus-")
    path = os.path.join(plan.temp_dir, f"stream-{len(os.listdir(plan.temp_dir))}")
    with open(path, "wb") as copy:
        shutil.copyfileobj(stream, copy, 1 << 20)
    return path


def _reason(error: OSError) -> str:
    return (error.strerror or first_line(error)).lower()
