"""The `tokenprism` command: list, encode, decode, tokenize, count, train, add, remove, shares, serve.

A thin shell over the engine; this module builds the parser and runs a command, and each
concern has its module: `tokens` (list, encode, decode, tokenize, serve), `count`,
`train`, `store` (add, remove), `shares` (prune), with `io` (reading files and stdin, `CliError`),
`corpus_args` (the corpus options count and train share) and `progress`. Every failure a
user can cause ends with one line on stderr that says what to do, and exit status 2;
never a traceback. A corpus job whose work fails (a worker dies) exits with status 1.
"""

from __future__ import annotations

import argparse
import sys

from app.cli.count import add_count_command
from app.cli.io import CliError
from app.cli.shares import add_shares_command
from app.cli.store import add_store_commands
from app.cli.tokens import add_commands, add_serve
from app.cli.train import add_train_command
from app.corpus.runner import RunError
from app.errors import TokenprismError
from app.settings import SettingsError, get_settings

EXIT_USAGE = 2
EXIT_FAILED = 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tokenprism", description="See how real tokenizers cut your text.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name, handler, help_text):
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(handler=handler)
        return sub

    add_commands(add)
    add_count_command(add)
    add_train_command(add)
    add_store_commands(add)
    add_shares_command(add)
    add_serve(add)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        get_settings()
        args.handler(args)
    except RunError as error:
        print(f"tokenprism: error: {error.message}", file=sys.stderr)
        return EXIT_FAILED
    except (CliError, TokenprismError, SettingsError) as error:
        message = str(error) if isinstance(error, CliError) else error.message
        print(f"tokenprism: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    return 0
