"""`tokenprism add` and `tokenprism remove`: bring a tokenizer file, or take one away.

`add FILE --name NAME` checks the file as an upload is checked (uploads.py: kind detected
from the content unless --kind, loaded and tested in a limited child process) and stores
it in the data directory, where the CLI and the web app find it at once; with
`--chat-template FILE` (a tokenizer_config.json or .jinja) its chats use that template. `remove NAME`
deletes a tokenizer that was added or trained; built-ins cannot be removed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from app.chat.formats import template_files
from app.cli.io import CliError
from app.settings import get_settings
from app.tokenizers.registry import get_registry
from app.tokenizers.user import uploads


def cmd_add(args) -> None:
    settings = get_settings()
    registry = get_registry()
    registry.check_new_name(args.name)
    path = Path(args.file)
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise CliError(f"{args.file} is not a regular file; give a tokenizer file")
        if size > settings.max_upload_bytes:
            raise CliError(
                f"{args.file} is {size:,} bytes; the limit is {settings.max_upload_bytes:,} "
                "(TOKENPRISM_MAX_UPLOAD_BYTES)"
            )
        data = path.read_bytes()
    except FileNotFoundError:
        raise CliError(f"no such file: {args.file}; check the path") from None
    except PermissionError:
        raise CliError(f"cannot read {args.file}: permission denied") from None
    special = None
    if args.special is not None:
        try:
            special = json.loads(args.special)
        except ValueError:
            raise CliError("--special must be a JSON object such as '{\"<|endoftext|>\": 100257}'") from None
    template = _read_template(args.chat_template) if args.chat_template else None
    facts, data = uploads.check(
        data,
        args.name,
        args.description or "",
        kind=args.kind,
        pattern=args.pattern,
        special_tokens=special,
        source_name=path.name,
        max_vocab=settings.max_upload_vocab,
        chat_template=template,
    )
    stored = uploads.store(settings.user_tokenizer_dir, args.name, facts, data, replace=args.force)
    chat = f", chat template from {args.chat_template}" if template else ""
    print(
        f"added {args.name}: {facts.kind}, {facts.vocab_size:,} ids{chat}, sha256 {facts.sha256[:16]}…, "
        f"stored in {stored}\ntry: tokenprism encode -t {args.name} FILE  (the web app lists it too)",
        file=sys.stderr,
    )


def _read_template(name: str) -> dict:
    """The chat template file `name`, checked (app/chat/formats/template_files.py), as stored in the facts."""
    path = Path(name)
    try:
        if path.exists() and not path.is_file():
            raise CliError(
                f"--chat-template {name} is not a regular file; give a tokenizer_config.json or a .jinja file"
            )
        with path.open("rb") as handle:
            data = handle.read(template_files.MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise CliError(f"no such file: {name}; check the --chat-template path") from None
    except PermissionError:
        raise CliError(f"cannot read {name}: permission denied") from None
    return template_files.to_facts(template_files.read(data, path.name), path.name)


def cmd_remove(args) -> None:
    registry = get_registry()
    if registry.is_builtin(args.name):
        raise CliError(f"{args.name} is a built-in tokenizer and cannot be removed")
    if not uploads.remove(get_settings().user_tokenizer_dir, args.name):
        raise CliError(f"there is no added or trained tokenizer named {args.name}; see `tokenprism list`")
    print(f"removed {args.name}", file=sys.stderr)


def add_store_commands(add) -> None:
    """Register `add` and `remove` with `add(name, handler, help)` (see `app.cli.build_parser`)."""
    sub = add("add", cmd_add, "add a tokenizer file (tokenizer.json, .tiktoken, SentencePiece .model, .bpe) by name")
    sub.add_argument("file", help="the tokenizer file")
    sub.add_argument("--name", required=True, help="name to use it by (a-z, 0-9, _ . -)")
    sub.add_argument("--kind", choices=uploads.KINDS, help="the file's kind (default: detected from its content)")
    sub.add_argument("--pattern", help="for a .tiktoken file: gpt2, gpt4 (cl100k), o200k, or a split regex")
    sub.add_argument(
        "--special", metavar="JSON", help='for a .tiktoken file: special tokens, {"<|endoftext|>": 100257}'
    )
    sub.add_argument(
        "--chat-template",
        metavar="FILE",
        help="the model's tokenizer_config.json (its chat_template) "
        "or a .jinja template: chats are rendered with it (the 'template' chat format)",
    )
    sub.add_argument("--description", help="one line shown in the tokenizer lists")
    sub.add_argument("--force", action="store_true", help="replace an existing tokenizer of that name")
    sub = add("remove", cmd_remove, "remove a tokenizer that was added or trained")
    sub.add_argument("name", help="its name")
