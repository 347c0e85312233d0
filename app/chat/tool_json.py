"""Tools and messages with tool calls read from OpenAI's JSON shapes (API bodies, CLI files)
into app/chat/messages.py's types.

`parse_tools` reads `tools` (`[{"type": "function", "function": {"name", "description",
"parameters"}}]`) and `chat_message` one message with its `tool_calls` and `tool_call_id`;
a wrong JSON shape is an `InvalidInput` naming the field and the fix. Leaves what they mean
(names, ids, nesting) to tools.py's `check_tool_chat`.
"""

from __future__ import annotations

from typing import Literal, overload

from app.chat.messages import ChatMessage, Tool, ToolCall
from app.errors import InvalidInput, excerpt

MAX_TOOLS = 128  # OpenAI's own limit on one request's tools
MAX_CALLS = 128  # tool calls in one assistant message
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
