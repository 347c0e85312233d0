"""`tokenprism list`, `encode`, `decode`, `tokenize` and `serve`: one text, one tokenizer."""

from __future__ import annotations

import json
import os
import sys

from app.cli.io import CliError, read_text, write_text
from app.tokenizers.registry import get_registry
from app.tokenizers.tokens import parse_ids


def cmd_list(args) -> None:
    registry = get_registry()
    entries = registry.entries()
    width = max(len(e.name) for e in entries)
    print(f"{'NAME':<{width}}  {'KIND':<13}  {'VOCAB':>7}  {'CHAT':<8}  DESCRIPTION")
    for entry in entries:
        chat = ",".join(registry.chat_formats(entry.name)) or "-"
        print(f"{entry.name:<{width}}  {entry.kind:<13}  {entry.vocab_size:>7}  {chat:<8}  {entry.description}")


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


def cmd_serve(args) -> None:
    import uvicorn

    from app.settings import get_settings
    from app.web.edge.http_protocol import BoundedHttpToolsProtocol

    if not 1 <= args.workers <= 64:
        raise CliError(f"--workers {args.workers} is out of range; use 1 to 64 (about one per CPU core)")
    from app.pricing.facts import load_facts

    load_facts(get_settings().data_dir)  # a bad model-facts file: one line and exit 2, before uvicorn starts
    os.environ["TOKENPRISM_BIND_HOST"] = (
        args.host
    )  # the app's default allowed Hosts (edge/hosts.py); workers inherit it
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        http=BoundedHttpToolsProtocol,
        loop="auto",
        log_level=args.log_level,
        access_log=args.access_log,
        # the protocol reads the other timeouts itself; uvicorn annotates this one int but hands it to
        # loop.call_later, which takes the float the setting is
        timeout_keep_alive=get_settings().keepalive_timeout_s,  # type: ignore[arg-type]
    )


def add_commands(add) -> None:
    """Register list, encode, tokenize, decode with `add(name, handler, help)` (serve is added last, in main)."""
    add("list", cmd_list, "list the tokenizers (name, kind, vocab size)")
    for name, handler, help_text in (
        ("encode", cmd_encode, "print the ids of a file (or stdin) as a JSON array"),
        ("tokenize", cmd_tokenize, "print each token: id, bytes, character range, text"),
    ):
        sub = add(name, handler, help_text)
        sub.add_argument(
            "-t", "--tokenizer", required=True, help="tokenizer name (see `tokenprism list`) or model name (gpt-4o)"
        )
        sub.add_argument("file", nargs="?", default="-", help="file to read; '-' or nothing for stdin")
        sub.add_argument("--allow-special", action="store_true", help="encode <|endoftext|> etc. as special tokens")
        if name == "tokenize":
            sub.add_argument("--json", action="store_true", help="print the tokens as JSON")

    sub = add("decode", cmd_decode, "read a JSON array of ids (file or stdin), print the text")
    sub.add_argument("-t", "--tokenizer", required=True, help="tokenizer or model name")
    sub.add_argument("file", nargs="?", default="-", help="file with the ids; '-' or nothing for stdin")


def add_serve(add) -> None:
    sub = add("serve", cmd_serve, "run the web app")
    sub.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sub.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    sub.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes (uvicorn's workers; default 1). Each loads the tokenizers it "
        "serves on its own: see docs/serving.md for the memory each costs",
    )
    sub.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="uvicorn's log level (default info)",
    )
    sub.add_argument("--no-access-log", dest="access_log", action="store_false", help="do not log every request")
