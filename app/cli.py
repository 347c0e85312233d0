"""The `tokenprism` command: list, encode, decode, count, tokenize, train, add, remove, serve.

A thin shell over the engine. Files and stdin are read as exact UTF-8 bytes (a `\\r\\n`
stays `\\r\\n`); ids go out and come in as JSON arrays. Every failure a user can cause
ends with one line on stderr that says what to do, and exit status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from app.cli_store import CliError, add_store_commands
from app.errors import TokenprismError
from app.settings import SettingsError, get_settings
from app.tokenizers.registry import get_registry
from app.tokenizers.tokens import parse_ids

EXIT_USAGE = 2


def read_text(source: str) -> str:
    """The exact text of a file, or of stdin for '-'."""
    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except FileNotFoundError:
        raise CliError(f"no such file: {source}; check the path")
    except IsADirectoryError:
        raise CliError(f"{source} is a directory; give a file")
    except PermissionError:
        raise CliError(f"cannot read {source}: permission denied")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        where = "stdin" if source == "-" else source
        raise CliError(f"{where} is not UTF-8 text (bad byte at offset {error.start}); convert it to UTF-8 first")


def write_text(text: str) -> None:
    sys.stdout.buffer.write(text.encode("utf-8"))
    if sys.stdout.isatty() and not text.endswith("\n"):
        sys.stdout.buffer.write(b"\n")
    sys.stdout.flush()


def cmd_list(args) -> None:
    entries = get_registry().entries()
    width = max(len(e.name) for e in entries)
    print(f"{'NAME':<{width}}  {'KIND':<13}  {'VOCAB':>7}  DESCRIPTION")
    for entry in entries:
        print(f"{entry.name:<{width}}  {entry.kind:<13}  {entry.vocab_size:>7}  {entry.description}")


def cmd_encode(args) -> None:
    tokenizer = get_registry().get(args.tokenizer)
    ids = tokenizer.encode(read_text(args.file), allow_special=args.allow_special)
    print(json.dumps(ids))


def cmd_decode(args) -> None:
    tokenizer = get_registry().get(args.tokenizer)
    ids = tokenizer.validate_ids(parse_ids(read_text(args.file)))
    write_text(tokenizer.decode(ids))


def cmd_tokenize(args) -> None:
    tokenizer = get_registry().get(args.tokenizer)
    text = read_text(args.file)
    if args.json:  # the same token objects as POST /api/tokenize, written by the same code
        from app.web.edge.json_body import token_list

        ids = tokenizer.encode(text, allow_special=args.allow_special)
        print(token_list(ids, tokenizer.pieces_of(text, ids, args.allow_special), tokenizer.special_ids))
        return
    tokens = tokenizer.tokenize(text, allow_special=args.allow_special)
    for token in tokens:
        shown = json.dumps(text[token.start : token.end] if token.is_partial else token.text, ensure_ascii=False)
        flag = " special" if token.special else (" part of a character" if token.is_partial else "")
        print(f"{token.id:>7}  {token.bytes.hex(' '):<24}  [{token.start}:{token.end}] {shown}{flag}")
    print(f"{len(tokens)} tokens, {len(text)} characters", file=sys.stderr)


def read_messages(source: str) -> list:
    """OpenAI-style chat messages from a JSON file: [{"role", "content", "name"?}, ...]."""
    from app.chat.messages import ChatMessage

    try:
        raw = json.loads(read_text(source))
    except json.JSONDecodeError as error:
        raise CliError(f"{source} is not JSON ({error.msg} at line {error.lineno}); give a JSON array of messages")
    if isinstance(raw, dict) and "messages" in raw:
        raw = raw["messages"]
    if not isinstance(raw, list) or not raw:
        raise CliError(f'{source} must hold a non-empty JSON array of messages like [{{"role": "user", "content": "hi"}}]')
    messages = []
    for position, item in enumerate(raw):
        fields = item if isinstance(item, dict) else {}
        values = [fields.get(key) for key in ("role", "content")]
        name = fields.get("name")
        if not all(isinstance(v, str) for v in values) or not isinstance(name, (str, type(None))) or set(fields) - {"role", "content", "name"}:
            raise CliError(f'message {position} in {source} must have string "role" and "content" (and optionally "name"), nothing else')
        messages.append(ChatMessage(*values, name))
    return messages


def cmd_count_chat(args, names: list[str]) -> None:
    from app.chat.render import render

    registry = get_registry()
    messages = read_messages(args.messages)
    rendered = {name: render(registry.get(name), messages) for name in names}
    if args.json:
        print(json.dumps({name: {"prompt_tokens": r.count, "format": r.format, "per_message": r.message_counts(),
                                 "overhead": r.overhead} for name, r in rendered.items()}, indent=2))
        return
    for name, r in rendered.items():
        print(f"{name}: {r.count} prompt tokens ({r.format}; per message: {r.message_counts()}; "
              f"framing {r.overhead})")


def cmd_count(args) -> None:
    registry = get_registry()
    names = list(dict.fromkeys(registry.resolve(n) for n in (args.tokenizer or ["cl100k_base"])))
    if args.messages:
        if args.files:
            raise CliError("give either files or --messages, not both")
        return cmd_count_chat(args, names)
    if not args.files:
        raise CliError("give one or more files to count ('-' for stdin), or --messages CHAT.json")
    texts = {source: read_text(source) for source in args.files}
    counts = {
        source: {name: len(registry.get(name).encode(text, allow_special=args.allow_special)) for name in names}
        for source, text in texts.items()
    }
    if args.json:
        totals = {name: sum(row[name] for row in counts.values()) for name in names}
        print(json.dumps({"files": counts, "total": totals}, indent=2))
        return
    label = max([len("FILE"), len("TOTAL"), *(len(s) for s in texts)])
    widths = {name: max(len(name), 9) for name in names}
    print(f"{'FILE':<{label}}  " + "  ".join(f"{name:>{widths[name]}}" for name in names))
    for source, row in counts.items():
        print(f"{source:<{label}}  " + "  ".join(f"{row[name]:>{widths[name]},}" for name in names))
    if len(counts) > 1:
        print(f"{'TOTAL':<{label}}  " + "  ".join(f"{sum(r[n] for r in counts.values()):>{widths[n]},}" for n in names))


def cmd_train(args) -> None:
    """Train and save under --name, holding the name's lock until the file is in place."""
    from app.bpe.model import BPETokenizer
    from app.tokenizers.files import write_atomically
    from app.tokenizers.user_models import name_lock, remove_stale_temps

    registry = get_registry()
    if registry.is_builtin(args.name):
        raise CliError(f"{args.name} is a built-in tokenizer; choose another --name")
    path = registry.user_model_path(args.name)
    remove_stale_temps(path.parent)
    with name_lock(path.parent, args.name):
        if path.exists() and not args.force:
            raise CliError(f"a tokenizer named {args.name} exists ({path}); choose another --name or pass --force")
        corpus = [read_text(source) for source in args.corpus]
        started = time.perf_counter()
        tokenizer = BPETokenizer.train(
            corpus,
            args.vocab_size,
            pattern=args.pattern,
            special_tokens=args.special,
            name=args.name,
            description=args.description
            or f"trained with the CLI on {', '.join(Path(s).name for s in args.corpus)}, pattern {args.pattern}",
            progress=ProgressBar(),
        )
        try:
            write_atomically(path, tokenizer.dumps(), overwrite=args.force)
        except FileExistsError:
            raise CliError(f"a tokenizer named {args.name} appeared while training ({path}); pass --force to replace it")
    seconds = time.perf_counter() - started
    print(
        f"trained {args.name}: {tokenizer.vocab_size} tokens in {seconds:.1f} s, saved to {path}\n"
        f"try: tokenprism encode -t {args.name} FILE  (the web app lists it too)",
        file=sys.stderr,
    )


class ProgressBar:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, width: int = 30):
        self.width = width
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        filled = self.width * done // max(total, 1)
        sys.stderr.write(f"\rmerging [{'#' * filled}{'.' * (self.width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def cmd_serve(args) -> None:
    import uvicorn

    from app.web.edge.http_protocol import BoundedHttpToolsProtocol

    if not 1 <= args.workers <= 64:
        raise CliError(f"--workers {args.workers} is out of range; use 1 to 64 (about one per CPU core)")
    uvicorn.run(
        "app.main:create_app", factory=True, host=args.host, port=args.port, workers=args.workers,
        http=BoundedHttpToolsProtocol, loop="auto", log_level=args.log_level, access_log=args.access_log,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tokenprism", description="See how real tokenizers cut your text.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name, handler, help_text):
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(handler=handler)
        return sub

    add("list", cmd_list, "list the tokenizers (name, kind, vocab size)")
    for name, handler, help_text in (
        ("encode", cmd_encode, "print the ids of a file (or stdin) as a JSON array"),
        ("tokenize", cmd_tokenize, "print each token: id, bytes, character range, text"),
    ):
        sub = add(name, handler, help_text)
        sub.add_argument("-t", "--tokenizer", required=True, help="tokenizer name (see `tokenprism list`) or model name (gpt-4o)")
        sub.add_argument("file", nargs="?", default="-", help="file to read; '-' or nothing for stdin")
        sub.add_argument("--allow-special", action="store_true", help="encode <|endoftext|> etc. as special tokens")
        if name == "tokenize":
            sub.add_argument("--json", action="store_true", help="print the tokens as JSON")

    sub = add("decode", cmd_decode, "read a JSON array of ids (file or stdin), print the text")
    sub.add_argument("-t", "--tokenizer", required=True, help="tokenizer or model name")
    sub.add_argument("file", nargs="?", default="-", help="file with the ids; '-' or nothing for stdin")

    sub = add("count", cmd_count, "count tokens of files under one or more tokenizers")
    sub.add_argument("-t", "--tokenizer", action="append", help="tokenizer or model name; repeat for several (default cl100k_base)")
    sub.add_argument("files", nargs="*", help="files to count ('-' for stdin)")
    sub.add_argument("--messages", metavar="CHAT.json", help="count a chat (a JSON array of messages) "
                     "as the model's prompt, in the tokenizer's chat format (as POST /api/chat)")
    sub.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sub.add_argument("--allow-special", action="store_true", help="count <|endoftext|> etc. as special tokens")

    sub = add("train", cmd_train, "train a byte-level BPE on text files; it becomes usable everywhere by name")
    sub.add_argument("corpus", nargs="+", help="UTF-8 text files to train on")
    sub.add_argument("--vocab-size", type=int, required=True,
                     help="size of the vocabulary, from 256 + specials to 1,048,576")
    sub.add_argument("--pattern", choices=["gpt4", "gpt2", "none"], default="gpt4", help="split pattern (default gpt4)")
    sub.add_argument("--name", required=True, help="name to save it under (a-z, 0-9, _ . -)")
    sub.add_argument("--special", action="append", default=[], help="a special token string; repeat for several")
    sub.add_argument("--description", help="one line shown in the tokenizer lists")
    sub.add_argument("--force", action="store_true", help="replace an existing tokenizer of that name")

    add_store_commands(add)

    sub = add("serve", cmd_serve, "run the web app")
    sub.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sub.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    sub.add_argument("--workers", type=int, default=1,
                     help="server processes (uvicorn's workers; default 1). Each loads the tokenizers it "
                     "serves on its own: see the README for the memory each costs")
    sub.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"],
                     help="uvicorn's log level (default info)")
    sub.add_argument("--no-access-log", dest="access_log", action="store_false", help="do not log every request")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        get_settings()
        args.handler(args)
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


if __name__ == "__main__":
    sys.exit(main())
