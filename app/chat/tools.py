"""Tools in a chat, checked: the checks every chat format relies on, over app/chat/messages.py's
types (read from OpenAI's JSON shapes by tool_json.py: `parse_tools` and `chat_message`,
importable from here too).

`check_tool_chat` (run by `render()` before any format) checks what they mean: tool names
valid and distinct, at most MAX_TOOLS tools, schemas and call arguments nested at most
MAX_JSON_DEPTH deep, calls only in assistant messages, naming a listed tool, with JSON
arguments and ids used once, and a result's `tool_call_id` answering an earlier call.
`chat_texts` is the text the size limit counts (schemas serialised), `cleaned` the chat with
lone surrogates replaced. Left out: which roles, calls and results a format renders (each
format's call), the legacy `function_call` field and `functions` list, tools of another type
than "function", and `tool_choice`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import overload

from app.chat.messages import ChatMessage, Tool, ToolCall
from app.chat.tool_json import MAX_CALLS, MAX_TOOLS, chat_message, check_count, kind, parse_tools
from app.errors import InvalidInput, excerpt
from app.tokenizers.tokens import clean_text

MAX_JSON_DEPTH = 32  # nesting of a schema or of a call's arguments (the schema itself is depth 1)
NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")

__all__ = [
    "MAX_CALLS",
    "MAX_JSON_DEPTH",
    "MAX_TOOLS",
    "chat_message",
    "chat_texts",
    "check_json",
    "check_tool_chat",
    "cleaned",
    "parse_tools",
    "schema_text",
]


def check_tool_chat(messages: Sequence[ChatMessage], tools: Sequence[Tool]) -> None:
    """The checks every format shares; an `InvalidInput` naming the first problem and its fix."""
    check_count("tools", len(tools), MAX_TOOLS, "Send only the tools the model may call")
    names: set[str] = set()
    for index, tool in enumerate(tools):
        where = f"tools[{index}].function"
        if not isinstance(tool.name, str) or not NAME.fullmatch(tool.name):
            raise InvalidInput(
                f"{where}.name is {excerpt(tool.name)}; a tool name is 1 to 64 letters, digits, _ or - (OpenAI's rule)"
            )
        if tool.name in names:
            raise InvalidInput(f"{where}.name {tool.name!r} is listed twice; give each tool its own name")
        names.add(tool.name)
        if tool.parameters is not None:
            if not isinstance(tool.parameters, dict):
                raise InvalidInput(f"{where}.parameters is {kind(tool.parameters)}; give a JSON schema object")
            check_json(tool.parameters, f"{where}.parameters")
    calls: set[str] = set()
    for position, message in enumerate(messages):
        where = f"messages[{position}]"
        if message.tool_calls and message.role != "assistant":
            raise InvalidInput(
                f"{where} has tool_calls but role {excerpt(message.role)}; only assistant messages call tools"
            )
        check_count(
            f"tool calls in {where}", len(message.tool_calls), MAX_CALLS, "Split them over several assistant messages"
        )
        for index, call in enumerate(message.tool_calls):
            _check_call(call, f"{where}.tool_calls[{index}]", names, calls)
        if message.tool_call_id is not None:
            if message.role != "tool":
                raise InvalidInput(
                    f'{where} has a tool_call_id but role {excerpt(message.role)}; a tool result has role "tool"'
                )
            if message.tool_call_id not in calls:
                raise InvalidInput(
                    f"{where}.tool_call_id {excerpt(message.tool_call_id)} answers no earlier call; "
                    "give the id of a call made in an earlier assistant message"
                )


def _check_call(call: ToolCall, where: str, names: set[str], calls: set[str]) -> None:
    if not call.id:
        raise InvalidInput(f'{where}.id is empty; give the call an id such as "call_1"')
    if call.id in calls:
        raise InvalidInput(f"{where}.id {excerpt(call.id)} is used by an earlier call; give each call its own id")
    calls.add(call.id)
    if call.name not in names:
        listed = f"one of {', '.join(sorted(names))}" if names else 'a tool: add its definition to "tools"'
        raise InvalidInput(f"{where}.function.name {excerpt(call.name)} is no listed tool; call {listed}")
    try:
        arguments = json.loads(call.arguments, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        raise InvalidInput(
            f"{where}.function.arguments {excerpt(call.arguments)} is not JSON; give the arguments "
            'as JSON text such as "{\\"city\\": \\"Paris\\"}"'
        ) from None
    check_json(arguments, f"{where}.function.arguments")


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def check_json(value: object, where: str) -> None:
    """A parsed JSON value nested at most MAX_JSON_DEPTH deep, with finite numbers (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_JSON_DEPTH:
                raise InvalidInput(
                    f"{where} is nested more than {MAX_JSON_DEPTH} levels deep; flatten it", code="too_deep"
                )
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
            if isinstance(item, dict) and not all(isinstance(key, str) for key in item):
                raise InvalidInput(f"{where} has an object key that is not a string; JSON keys are strings")
        elif isinstance(item, float) and not math.isfinite(item):
            raise InvalidInput(f"{where} holds {item}, which is not JSON; use a finite number")
        elif not isinstance(item, (str, int, float, bool, type(None))):
            raise InvalidInput(f"{where} holds a {type(item).__name__}, which is not JSON")


def schema_text(tool: Tool) -> str:
    return "" if tool.parameters is None else json.dumps(tool.parameters, ensure_ascii=False)


def chat_texts(messages: Sequence[ChatMessage], tools: Sequence[Tool]) -> list[str]:
    """Every text of a chat the size limit counts: message fields with their calls, then each tool's
    name, description and schema serialised (run `check_tool_chat` first: it bounds the nesting)."""
    texts = [value for message in messages for value in message.fields()]
    return texts + [text for tool in tools for text in (tool.name, tool.description or "", schema_text(tool))]


def cleaned(messages: Sequence[ChatMessage], tools: Sequence[Tool]) -> tuple[list[ChatMessage], tuple[Tool, ...]]:
    """The chat with every lone surrogate (JSON can carry them, UTF-8 cannot) replaced, in every string."""

    @overload
    def clean(text: str) -> str: ...
    @overload
    def clean(text: None) -> None: ...
    def clean(text: str | None) -> str | None:
        return None if text is None else clean_text(text)

    out = [
        replace(
            message,
            role=clean(message.role),
            content=clean(message.content),
            name=clean(message.name),
            tool_calls=tuple(ToolCall(clean(c.id), clean(c.name), clean(c.arguments)) for c in message.tool_calls),
            tool_call_id=clean(message.tool_call_id),
        )
        for message in messages
    ]
    return out, tuple(
        Tool(clean(t.name), clean(t.description), _clean_json(t.parameters), _clean_json(t.sent)) for t in tools
    )


def _clean_json(value):
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(key): _clean_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clean_json(item) for item in value]
    return value
