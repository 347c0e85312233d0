"""`tokenprism train`: learn a byte-level BPE from a corpus and save it under a name.

The corpus is read as `count` reads one (files, directories, .jsonl, .parquet; see
`app.corpus`), and its chunk counting, the pass that dominates on large corpora, runs on
the same workers (--workers, --dask); the merge loop runs here. The training itself goes
through the one job runner (`app.jobs.JobRunner.run_inline`), the same code path as the
web's training jobs: it takes the name's lock, trains, writes `NAME.bpe` atomically and
records the run in `<data dir>/jobs.sqlite3` (so `GET /api/train/{job}` shows it and
`DELETE` stops it). This module only turns options into a `TrainSpec` and the result into
lines on stderr.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from app.bpe.model import MAX_VOCAB_SIZE
from app.cli.corpus_args import add_corpus_arguments, corpus_options, show_progress, workers_of
from app.cli.io import CliError
from app.cli.progress import Progress
from app.corpus.runner import make_runner
from app.corpus.sources import open_plan
from app.corpus.training import chunk_counts
from app.errors import NameTaken
from app.jobs import JobRunner, TrainSpec
from app.jobs.spec import check_spec
from app.settings import get_settings
from app.tokenizers.registry import get_registry


def cmd_train(args) -> None:
    if not args.paths:
        raise CliError("give the files or directories to train on ('-' for stdin)")
    description = args.description or f"trained with the CLI on {_describe(args.paths)}, pattern {args.pattern}"
    spec = check_spec(
        TrainSpec(
            name=args.name,
            vocab_size=args.vocab_size,
            pattern=args.pattern,
            special_tokens=tuple(args.special),
            replace=args.force,
            description=description,
        ),
        get_registry(),
        max_vocab=MAX_VOCAB_SIZE,
    )  # no web limits here: the CLI takes any size
    counted: dict[str, Any] = {}
    with open_plan(args.paths, corpus_options(args)) as plan:
        workers = workers_of(args, plan.from_stdin)
        progress = Progress(show_progress(args), stage_lines=True)

        def count(regex):  # called by the runner once the name is locked
            with make_runner(workers, args.dask, len(plan.tasks())) as runner:
                counted["result"] = chunk_counts(plan, regex, runner, progress)
                counted["runner"] = runner.name
            return counted["result"].counts

        runner = JobRunner.for_settings(get_settings())
        try:
            summary = runner.run_inline(spec, count, progress=lambda done, total: progress("merging", done, total))
        except NameTaken:
            raise CliError(f"a tokenizer named {args.name} exists; choose another --name or pass --force") from None
        finally:
            runner.close()
            progress.finish()
    chunks = counted["result"]
    if chunks.problems:
        print(f"skipped: {chunks.problems.summary()}", file=sys.stderr)
        for message in chunks.problems.messages():
            print(f"  {message}", file=sys.stderr)
    path = get_settings().user_tokenizer_dir / f"{args.name}.bpe"
    print(
        f"trained {args.name}: {summary['vocab_size']} tokens in {summary['seconds']:.1f} s "
        f"({chunks.documents:,} documents, {chunks.bytes:,} bytes, {len(chunks.counts):,} distinct chunks, "
        f"counted on {counted['runner']}), saved to {path} (job {summary['job']})\n"
        f"try: tokenprism encode -t {args.name} FILE  (the web app lists it too)",
        file=sys.stderr,
    )


def _describe(paths: list[str]) -> str:
    names = [os.path.basename(os.path.normpath(path)) or path for path in paths]
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def add_train_command(add) -> None:
    sub = add(
        "train",
        cmd_train,
        "train a byte-level BPE on a corpus (files, directories, .jsonl, .parquet); "
        "it becomes usable everywhere by name",
    )
    add_corpus_arguments(sub, "train on")
    sub.add_argument(
        "--vocab-size", type=int, required=True, help="size of the vocabulary, from 256 + specials to 1,048,576"
    )
    sub.add_argument("--pattern", choices=["gpt4", "gpt2", "none"], default="gpt4", help="split pattern (default gpt4)")
    sub.add_argument("--name", required=True, help="name to save it under (a-z, 0-9, _ . -)")
    sub.add_argument("--special", action="append", default=[], help="a special token string; repeat for several")
    sub.add_argument("--description", help="one line shown in the tokenizer lists")
    sub.add_argument("--force", action="store_true", help="replace an existing tokenizer of that name")
