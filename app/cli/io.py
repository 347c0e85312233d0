"""Reading and writing for the CLI: exact UTF-8 files and stdin, chat files, the one error type.

Files and stdin are read as exact UTF-8 bytes (a `\\r\\n` stays `\\r\\n`). Every mistake a
user can make raises `CliError` with one line that says what to do; `main` prints it and
exits with status 2. Corpus inputs (count, train) are read by `app.corpus` instead.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


class CliError(Exception):
    """A user mistake the CLI reports in one line (`main` prints it); every command raises it."""


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
