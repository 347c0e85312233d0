"""The options `count` and `train` share for reading a corpus and running its tasks.

Inputs: paths (files, directories, '-'), --include/--exclude, --field, --column, and the
sizes --max-document-size and --task-size (a number of bytes, or with K, M or G; no
--task-size: cut for the workers, `Plan.spread`). Running:
--workers (a local process pool; default the CPU count) or --dask (local, or a scheduler's
tcp://HOST:PORT). Progress: --progress/--no-progress (default: when stderr is a terminal).
Every bad value is a `CliError` naming the option and the allowed range.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from app.cli.io import CliError
from app.corpus.sources import CorpusOptions

SIZES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
SIZE_RANGE = (1 << 10, 1 << 30)  # 1 KiB to 1 GiB, for both sizes
MAX_WORKERS = 256


def parse_size(option: str, value: str) -> int:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMG]?)(?:i?B)?\s*", value, re.IGNORECASE)
    if not match:
        raise CliError(f"{option} {value!r} is not a size; write a number of bytes, or with K, M or G (8M)")
    size = int(float(match[1]) * SIZES[match[2].upper()])
    low, high = SIZE_RANGE
    if not low <= size <= high:
        raise CliError(f"{option} {value} is out of range; use 1K to 1G")
    return size


def add_corpus_arguments(sub, what: str) -> None:
    sub.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help=f"files or directories to {what} ('-' for stdin); directories are read recursively",
    )
    sub.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="in directories, read only files matching GLOB ('*.py', 'docs/*.md'); repeat for several",
    )
    sub.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="in directories, skip files and folders matching GLOB; repeat for several",
    )
    sub.add_argument("--field", metavar="NAME", help="the text field of .jsonl / .jsonl.gz records (default text)")
    sub.add_argument("--column", metavar="NAME", help="the text column of .parquet files (default text; needs pyarrow)")
    sub.add_argument(
        "--max-document-size",
        default="8M",
        metavar="SIZE",
        help="longest document read at once (default 8M): a longer text file is read in pieces cut "
        "after a line end; a longer record is skipped and reported",
    )
    sub.add_argument(
        "--task-size",
        metavar="SIZE",
        help="bytes of input per task sent to a worker (default: the corpus cut so that every worker gets "
        "tasks, 256K to 8M each)",
    )
    sub.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help=f"worker processes on this machine (default: the CPU count, {os.cpu_count()} here); "
        "also the size of --dask local",
    )
    sub.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run the tasks on Dask: a scheduler's tcp://HOST:8786, or 'local' to start a "
        "LocalCluster (needs pip install 'tokenprism[dask]')",
    )
    sub.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show a progress bar on stderr (default: when stderr is a terminal)",
    )


def corpus_options(args) -> CorpusOptions:
    return CorpusOptions(
        include=tuple(args.include),
        exclude=tuple(args.exclude),
        field=args.field,
        column=args.column,
        max_document_bytes=parse_size("--max-document-size", args.max_document_size),
        task_bytes=None if args.task_size is None else parse_size("--task-size", args.task_size),
    )


def workers_of(args, from_stdin: bool) -> int:
    """The local worker count; checks --workers and --dask together."""
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise CliError(f"--workers {args.workers} is out of range; use 1 to {MAX_WORKERS}")
    if args.dask not in (None, "local"):
        if args.workers is not None:
            raise CliError(
                "--workers sets the size of the local pool or of --dask local; a cluster's workers "
                "are started where it runs (dask worker), so drop --workers"
            )
        if from_stdin:
            raise CliError("stdin cannot be read by a cluster's workers; write it to a file on a path they share")
    return args.workers or os.cpu_count() or 1


def show_progress(args) -> bool:
    return sys.stderr.isatty() if args.progress is None else args.progress
