"""`tokenprism count`: tokens of files, directories and datasets, or of a chat, per tokenizer.

Over a corpus (see `app.corpus`): a table per tokenizer of tokens, tokens per byte,
characters per token and the difference from the best, a line about the corpus, and with
--by file|dir|ext a breakdown; --json prints the whole report for machines. Given only
text files and no --by, it prints one row per file and a TOTAL, as it always has. What
could not be read is listed after the tables (and counted in the JSON), with a warning on
stderr; it never stops the count. With --messages CHAT.json it counts a chat's prompt as
the model receives it (the rendering POST /api/chat uses), with the tools of --tools
TOOLS.json or of the chat file. With --model, what the text costs
as each model's prompt and its share of the context window (count_budget.py).
"""

from __future__ import annotations

import json
import os
import sys

from app.cli import count_budget
from app.cli.corpus_args import add_corpus_arguments, corpus_options, show_progress, workers_of
from app.cli.io import CliError, read_chat
from app.cli.progress import Progress, human_bytes
from app.corpus.count import BY, CountReport, count_corpus
from app.corpus.portable import specs_for
from app.corpus.runner import make_runner
from app.corpus.sources import open_plan
from app.tokenizers.registry import get_registry


def cmd_count(args) -> None:
    registry = get_registry()
    asked = count_budget.models_asked(args.model, registry)
    names = count_budget.tokenizers_with(args.tokenizer, asked)
    if args.tools and not args.messages:
        raise CliError("--tools goes with --messages CHAT.json (the chat the tools are offered in)")
    if args.messages:
        if args.paths:
            raise CliError("give either files or --messages, not both")
        return count_chat(args, list(dict.fromkeys(registry.resolve(n) for n in names)), asked)
    if not args.paths:
        raise CliError("give one or more files or directories to count ('-' for stdin), or --messages CHAT.json")
    if args.by == "script":
        return count_by_script(args, list(dict.fromkeys(registry.resolve(n) for n in names)), asked)
    specs = specs_for(names, registry)
    with open_plan(args.paths, corpus_options(args)) as plan:
        files_bytes = plan.total_bytes
        workers = workers_of(args, plan.from_stdin)
        plan.spread(workers)
        legacy = (
            args.by is None
            and not any(os.path.isdir(path) for path in args.paths)
            and all(source.format == "text" for source in plan.sources)
        )
        by = "file" if legacy else (None if args.by in (None, "none") else args.by)
        progress = Progress(show_progress(args))
        try:
            with make_runner(workers, args.dask, len(plan.tasks())) as runner:
                report = count_corpus(plan, specs, runner, by=by, allow_special=args.allow_special, progress=progress)
        finally:
            progress.finish()
    if progress.live:
        rate = human_bytes(report.total[1] / max(report.seconds, 1e-9))
        print(
            f"counted {human_bytes(report.total[1])} of text ({human_bytes(files_bytes)} of files) in "
            f"{report.seconds:.1f} s ({rate}/s of text) on {report.runner}",
            file=sys.stderr,
        )
    if args.json:
        extra = {"models": count_budget.as_report(asked, report.tokens)} if asked else {}
        print(json.dumps({**report.to_json(), **extra}, indent=2, ensure_ascii=False))
    else:
        print_report(report, legacy, asked)
    if report.problems:
        print(f"tokenprism: warning: skipped {report.problems.summary()}; see the report", file=sys.stderr)


def print_report(report: CountReport, legacy: bool, asked: count_budget.Asked = ()) -> None:
    names = report.names
    if legacy:  # one row per file and a TOTAL: the table `count FILE...` has always printed (+ the models' columns)
        rows = [
            [group, *(f"{n:,}" for n in row[4:]), *count_budget.cells(asked, dict(zip(names, row[4:], strict=True)))]
            for group, row in report.groups.items()
        ]
        if len(rows) > 1:
            rows.append(["TOTAL", *(f"{n:,}" for n in report.total[3:]), *count_budget.cells(asked, report.tokens)])
        print_table(["FILE", *names, *count_budget.columns(asked)], rows)
    else:
        stats = report.stats()
        print_table(
            ["TOKENIZER", "TOKENS", "TOKENS/BYTE", "CHARS/TOKEN", "VS BEST"],
            [
                [
                    name,
                    f"{s['tokens']:,}",
                    f"{s['tokens_per_byte']:.4f}",
                    f"{s['characters_per_token']:.2f}",
                    "best" if s["tokens"] == min(report.total[3:]) else f"+{100 * s['vs_best']:.1f}%",
                ]
                for name, s in stats.items()
            ],
        )
        documents, size, characters = report.total[:3]
        print(
            f"\n{_plural(report.files, 'file')}, {_plural(documents, 'document')}, {_plural(size, 'byte')}, "
            f"{_plural(characters, 'character')}"
        )
        if report.by is not None:
            print()
            rows = [
                [group, *(f"{n:,}" for n in row[:3]), *(f"{n:,}" for n in row[4:])]
                for group, row in report.groups.items()
            ]
            rows.append(
                [
                    "TOTAL",
                    f"{report.files:,}",
                    *(f"{n:,}" for n in report.total[:2]),
                    *(f"{n:,}" for n in report.total[3:]),
                ]
            )
            print_table([report.by.upper(), "FILES", "DOCUMENTS", "BYTES", *names], rows)
        if asked:
            print()
            print_table(*count_budget.model_rows(asked, report.tokens))
    print_notes(count_budget.notes(asked, report.tokens))
    if report.problems:
        print(f"\nskipped: {report.problems.summary()}")
        for message in report.problems.messages():
            print(f"  {message}")
        if (more := report.problems.total - len(report.problems.examples)) > 0:
            print(f"  ... and {more:,} more")


def count_by_script(args, names: list[str], asked: count_budget.Asked) -> None:
    """--by script (count_scripts.py): one table of tokens per character by script."""
    from app.cli import count_scripts  # only this mode needs it

    if asked:
        raise CliError("--by script goes without --model (it splits tokens, not costs); name tokenizers with -t")
    with open_plan(args.paths, corpus_options(args)) as plan:
        tally = count_scripts.tally_plan(plan, names, get_registry(), args.allow_special)
        problems = plan.problems
    if args.json:
        print(
            json.dumps({**count_scripts.as_json(tally), "problems": problems.to_dict()}, indent=2, ensure_ascii=False)
        )
    else:
        print_table(*count_scripts.table(tally))
        if problems:
            print(f"\nskipped: {problems.summary()}")
            for message in problems.messages():
                print(f"  {message}")
    if problems:
        print(f"tokenprism: warning: skipped {problems.summary()}; see the report", file=sys.stderr)


def print_table(header: list[str], rows: list[list[str]]) -> None:
    """Columns aligned: the first to the left, the others (numbers) to the right."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [row[0].ljust(widths[0]), *(cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True))]
        print("  ".join(cells).rstrip())


def print_notes(notes: list[str]) -> None:
    if notes:
        print()
    for note in notes:
        print(f"note: {note}")


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def count_chat(args, names: list[str], asked: count_budget.Asked = ()) -> None:
    from app.chat.render import render

    registry = get_registry()
    messages, tools = read_chat(args.messages, args.tools)
    rendered = {name: render(registry.get(name), messages, tools=tools) for name in names}
    tokens = {name: r.count for name, r in rendered.items()}
    if args.json:
        extra = {"models": count_budget.as_report(asked, tokens)} if asked else {}
        print(
            json.dumps(
                {
                    **{
                        name: {
                            "prompt_tokens": r.count,
                            "format": r.format,
                            "per_message": r.message_counts(),
                            "overhead": r.overhead,
                            "tools": r.tools_count,
                        }
                        for name, r in rendered.items()
                    },
                    **extra,
                },
                indent=2,
            )
        )
        return
    for name, r in rendered.items():
        print(
            f"{name}: {r.count} prompt tokens ({r.format}; per message: {r.message_counts()}; "
            f"framing {r.overhead}" + (f"; tools {r.tools_count})" if tools else ")")
        )
    if asked:
        print()
        print_table(*count_budget.model_rows(asked, tokens))
    print_notes(count_budget.notes(asked, tokens))


def add_count_command(add) -> None:
    sub = add(
        "count",
        cmd_count,
        "count tokens of files, directories and datasets (.jsonl, .parquet) under one "
        "or more tokenizers, on local processes or a Dask cluster",
    )
    sub.add_argument(
        "-t", "--tokenizer", action="append", help="tokenizer or model name; repeat for several (default cl100k_base)"
    )
    sub.add_argument(
        "--model",
        action="append",
        metavar="MODEL",
        help="also show what the text costs as this model's prompt (input cost, share of its context "
        "window; for a dataset, the total input cost); counts with its tokenizer; repeat for several",
    )
    add_corpus_arguments(sub, "count")
    sub.add_argument(
        "--by",
        choices=[*BY, "script", "none"],
        help="also break the counts down by file, folder or extension (default: by file when given "
        "only text files, else none); 'script': instead, tokens per character by Unicode script "
        "(Latin, Hangul, Han, Emoji, Common, ...), read in this process",
    )
    sub.add_argument(
        "--messages",
        metavar="CHAT.json",
        help="count a chat (a JSON array of messages, or a request "
        'body with "messages" and "tools") as the model\'s prompt, in the tokenizer\'s chat format '
        "(as POST /api/chat)",
    )
    sub.add_argument(
        "--tools",
        metavar="TOOLS.json",
        help="with --messages: the tools offered (a JSON array of "
        "OpenAI function tools), counted as the format writes them",
    )
    sub.add_argument("--json", action="store_true", help="print the whole report as JSON instead of tables")
    sub.add_argument("--allow-special", action="store_true", help="count <|endoftext|> etc. as special tokens")
