"""Reading and writing for the CLI: exact UTF-8 files and stdin, chat files, the one error type.

Files and stdin are read as exact UTF-8 bytes (a `\\r\\n` stays `\\r\\n`). Every mistake a
user can make raises `CliError` with one line that says what to do; `main` prints it and
exits with status 2. Corpus inputs (count, train) are read by `app.corpus` instead.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path


class CliError(Exception):
    """A user mistake the CLI reports in one line (`main` prints it); every command raises it."""


def read_text(source: str) -> str:
    """The exact text of a file, or of stdin for '-'."""
    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except FileNotFoundError:
        raise CliError(f"no such file: {source}; check the path") from None
    except IsADirectoryError:
        raise CliError(f"{source} is a directory; give a file") from None
    except PermissionError:
        raise CliError(f"cannot read {source}: permission denied") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        where = "stdin" if source == "-" else source
        raise CliError(
            f"{where} is not UTF-8 text (bad byte at offset {error.start}); convert it to UTF-8 first"
        ) from None


def write_text(text: str) -> None:
    sys.stdout.buffer.write(text.encode("utf-8"))
    if sys.stdout.isatty() and not text.endswith("\n"):
        sys.stdout.buffer.write(b"\n")
    sys.stdout.flush()


def read_json(source: str, what: str):
    try:
        return json.loads(read_text(source))
    except json.JSONDecodeError as error:
        raise CliError(f"{source} is not JSON ({error.msg} at line {error.lineno}); give {what}") from None
    except RecursionError:
        raise CliError(f"{source} is nested too deeply to read; give {what}") from None


def read_chat(source: str, tools_source: str | None = None) -> tuple[list, tuple]:
    """A chat's messages and tools from JSON files, in OpenAI's shapes: `source` holds an array of
    messages or a request body `{"messages": [...], "tools": [...]}` (its other keys, such as "model",
    are ignored: the tokenizers come from the command line); `tools_source` an array of tools (or a body
    with "tools"). Messages may carry tool_calls and tool_call_id; app/chat/tools.py reads and checks
    them, and the chat comes back cleaned of lone surrogates."""
    raw = read_json(source, "a JSON array of messages")
    tools = raw.get("tools") if isinstance(raw, dict) else None
    if isinstance(raw, dict) and "messages" in raw:
        raw = raw["messages"]
    if not isinstance(raw, list) or not raw:
        raise CliError(
            f'{source} must hold a non-empty JSON array of messages like [{{"role": "user", "content": "hi"}}]'
        )
    if tools_source is not None:
        if tools is not None:
            raise CliError(f'{source} has "tools" and --tools gives them too; give the tools once')
        tools = read_json(tools_source, "a JSON array of tools")
        tools = tools.get("tools") if isinstance(tools, dict) and "tools" in tools else tools
    from app.chat.tools import check_tool_chat, cleaned

    messages, tools = _messages(raw, source), _tools(tools, tools_source or source)
    with _in_file(source, tools_source):
        check_tool_chat(messages, tools)  # before cleaning: it bounds the schemas' nesting
    return cleaned(messages, tools)


def _messages(raw: list, source: str) -> list:
    from app.chat.tools import chat_message

    keys = {"role", "content", "name", "tool_calls", "tool_call_id"}
    messages = []
    for position, item in enumerate(raw):
        fields = item if isinstance(item, dict) else {}
        role, content, name = (fields.get(key) for key in ("role", "content", "name"))
        if (
            not isinstance(role, str)
            or not isinstance(content, (str, type(None)))
            or not isinstance(name, (str, type(None)))
            or set(fields) - keys
        ):
            raise CliError(
                f'message {position} in {source} must have string "role" and "content" (and optionally '
                '"name", "tool_calls", "tool_call_id"), nothing else'
            )
        with _in_file(source):
            messages.append(
                chat_message(position, role, content, name, fields.get("tool_calls"), fields.get("tool_call_id"))
            )
    return messages


def _tools(raw: object, source: str) -> tuple:
    from app.chat.tools import parse_tools

    with _in_file(source):
        return parse_tools(raw)


@contextmanager
def _in_file(source: str, tools_source: str | None = None):
    """An `InvalidInput` from reading a chat, as a `CliError` that names the file (the tools' file
    when the problem is in "tools[...]" and they came from one)."""
    from app.errors import InvalidInput

    try:
        yield
    except InvalidInput as error:
        where = tools_source if tools_source and error.message.startswith("tools[") else source
        raise CliError(f"{where}: {error.message}") from None
