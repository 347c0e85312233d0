"""Tools in a chat, from JSON and checked: OpenAI's shapes (API bodies, CLI files) read into
app/chat/messages.py's types, and the checks every chat format relies on.

`parse_tools` reads `tools` (`[{"type": "function", "function": {"name", "description",
"parameters"}}]`) and `chat_message` one message with its `tool_calls` and `tool_call_id`;
a wrong JSON shape is an `InvalidInput` naming the field and the fix. `check_tool_chat`
(run by `render()` before any format) checks what they mean: tool names valid and distinct,
at most MAX_TOOLS tools, schemas and call arguments nested at most MAX_JSON_DEPTH deep,
calls only in assistant messages, naming a listed tool, with JSON arguments and ids used
once, and a result's `tool_call_id` answering an earlier call. `chat_texts` is the text the
size limit counts (schemas serialised), `cleaned` the chat with lone surrogates replaced.
Left out: which roles, calls and results a format renders (each format's call), the legacy
`function_call` field and `functions` list, tools of another type than "function", and
`tool_choice`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Literal, overload

from app.chat.messages import ChatMessage, Tool, ToolCall
from app.errors import InvalidInput, excerpt
from app.tokenizers.tokens import clean_text

MAX_TOOLS = 128  # OpenAI's own limit on one request's tools
MAX_CALLS = 128  # tool calls in one assistant message
MAX_JSON_DEPTH = 32  # nesting of a schema or of a call's arguments (the schema itself is depth 1)
NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
TOOL_EXAMPLE = (
    '{"type": "function", "function": {"name": "get_weather", "description": "Weather in a city", '
    '"parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}'
)
CALL_EXAMPLE = (
    '{"id": "call_1", "type": "function", "function": {"name": "get_weather", '
    '"arguments": "{\\"city\\": \\"Paris\\"}"}}'
)


def kind(value: object) -> str:
    """The JSON type of a parsed value, in words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    for types, name in ((str, "a string"), ((int, float), "a number"), (list, "an array"), (dict, "an object")):
        if isinstance(value, types):
            return name
    return type(value).__name__


def _object(value: object, where: str, allowed: tuple[str, ...], example: str) -> dict:
    if not isinstance(value, dict):
        raise InvalidInput(f"{where} is {kind(value)}; send an object like {example}")
    if unknown := [key for key in value if key not in allowed]:
        raise InvalidInput(f"{where} has the field {excerpt(unknown[0])}; it takes only {', '.join(allowed)}")
    return value


@overload
def _string(value: object, where: str, fix: str, optional: Literal[False] = False) -> str: ...
@overload
def _string(value: object, where: str, fix: str, optional: bool) -> str | None: ...
def _string(value: object, where: str, fix: str, optional: bool = False) -> str | None:
    if isinstance(value, str) or (optional and value is None):
        return value
    raise InvalidInput(f"{where} is {kind(value)}; {fix}")


def check_count(what: str, count: int, limit: int, fix: str) -> None:
    if count > limit:
        raise InvalidInput(f"{count:,} {what}; the limit is {limit:,}. {fix}", code="too_many_tools")


def parse_tools(raw: object) -> tuple[Tool, ...]:
    """`tools` as sent (parsed JSON; None for none) -> Tools; their meaning is `check_tool_chat`'s."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InvalidInput(f'"tools" is {kind(raw)}; send an array of tools like [{TOOL_EXAMPLE}]')
    check_count("tools sent", len(raw), MAX_TOOLS, "Send only the tools the model may call")
    return tuple(_tool(item, f"tools[{index}]") for index, item in enumerate(raw))


def _tool(item: object, where: str) -> Tool:
    fields = _object(item, where, ("type", "function"), TOOL_EXAMPLE)
    if fields.get("type") != "function":
        raise InvalidInput(
            f'{where}.type is {excerpt(fields.get("type"))}; only function tools are counted: send "type": "function"'
        )
    function = _object(
        fields.get("function"),
        f"{where}.function",
        ("name", "description", "parameters", "strict"),
        '{"name": "get_weather", "description": "...", "parameters": {"type": "object"}}',
    )
    if "name" not in function:
        raise InvalidInput(f'{where}.function has no name; give it "name": letters, digits, _ or -, at most 64')
    name = _string(function["name"], f"{where}.function.name", "give a name of letters, digits, _ or -, at most 64")
    description = _string(
        function.get("description"), f"{where}.function.description", "give a string, or leave it out", optional=True
    )
    parameters = function.get("parameters")
    if parameters is not None and not isinstance(parameters, dict):
        raise InvalidInput(
            f"{where}.function.parameters is {kind(parameters)}; give a JSON schema object like "
            '{"type": "object", "properties": {...}}, or leave it out'
        )
    if not isinstance(function.get("strict", False), bool):
        raise InvalidInput(
            f"{where}.function.strict is {kind(function['strict'])}; give true or false, or leave it out"
        )
    return Tool(name, description, parameters, sent=fields)


def chat_message(
    position: int,
    role: str,
    content: str | None,
    name: str | None = None,
    tool_calls: object = None,
    tool_call_id: object = None,
) -> ChatMessage:
    """One message as sent (its role, content and name already strings or None) with its tool fields."""
    where = f"messages[{position}]"
    if tool_calls is not None and role != "assistant":
        raise InvalidInput(f"{where} has tool_calls but role {excerpt(role)}; only assistant messages call tools")
    calls = _tool_calls(tool_calls, where)
    if content is None and not (role == "assistant" and calls):
        raise InvalidInput(
            f'{where} has no content (or null); give it text ("" for none); only an assistant '
            "message with tool_calls may leave it out"
        )
    call_id = _string(
        tool_call_id,
        f"{where}.tool_call_id",
        "give the id of the call this tool message answers (a string), or leave it out",
        optional=True,
    )
    return ChatMessage(role, content or "", name, calls, call_id)


def _tool_calls(raw: object, where: str) -> tuple[ToolCall, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InvalidInput(f"{where}.tool_calls is {kind(raw)}; send an array of calls like [{CALL_EXAMPLE}]")
    check_count(f"tool calls in {where}", len(raw), MAX_CALLS, "Split them over several assistant messages")
    return tuple(_call(item, f"{where}.tool_calls[{index}]") for index, item in enumerate(raw))


def _call(item: object, where: str) -> ToolCall:
    fields = _object(item, where, ("id", "type", "function"), CALL_EXAMPLE)
    if fields.get("type", "function") != "function":
        raise InvalidInput(f'{where}.type is {excerpt(fields["type"])}; send "type": "function"')
    for key in ("id", "function"):
        if key not in fields:
            raise InvalidInput(f'{where} has no "{key}"; a call looks like {CALL_EXAMPLE}')
    call_id = _string(fields["id"], f"{where}.id", 'give the call an id such as "call_1"')
    function = _object(
        fields["function"],
        f"{where}.function",
        ("name", "arguments"),
        '{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}',
    )
    for key in ("name", "arguments"):
        if key not in function:
            raise InvalidInput(f'{where}.function has no "{key}"; a call looks like {CALL_EXAMPLE}')
    name = _string(function["name"], f"{where}.function.name", 'give the name of a tool listed in "tools"')
    arguments = _string(
        function["arguments"],
        f"{where}.function.arguments",
        "give the arguments as a string of JSON, as OpenAI sends them (JSON-encode the object)",
    )
    return ToolCall(call_id, name, arguments)


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
