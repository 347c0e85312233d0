"""Tools in the `mistral` format (app/chat/formats/mistral_format.py), as mistral-common 1.13.1's v3
instruct tokenizer writes them (mistral_v3 and mistral_tekken; mistral_v1 has none), and the
checks its request validator makes first, each a 422 naming the problem.

What the JSON is: Python's `json.dumps(..., ensure_ascii=False)` with its default separators
(", " and ": "), in this key order:
- definitions: `[{"type": "function", "function": {"name", "description", "parameters"}}, ...]`
  (a missing description is "", missing parameters are {});
- an assistant's calls: `[{"name", "arguments", "id"}, ...]`, the arguments parsed as JSON
  when they are JSON (else written as a JSON string; empty arguments are {});
- a tool result: `{"content", "call_id"}`, the content parsed the same way.
Every piece here is framing but the arguments and results (content); definitions are all
marked tools by the format. The schema check is JSON Schema Draft 7's meta-schema, as
mistral-common asks of `parameters` (formats checked: only "regex", with Python's `re`).
Left out: tool_choice, parallel_tool_calls, strict.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.chat.messages import ChatMessage, Tool, ToolCall
from app.errors import InvalidInput, excerpt
from app.tokenizers.tokens import clean_text

# mistral-common's own patterns, with Python's re.match (so "$" also matches before a final "\n")
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
CALL_ID = re.compile(r"^[a-zA-Z0-9]{9}$")
FOLLOWS = {
    "system": {"user", "assistant", "system"},
    "user": {"assistant", "system", "user"},
    "assistant": {"assistant", "user", "tool"},
    "tool": {"assistant", "tool", "user"},
}


@dataclass(frozen=True)
class Piece:
    text: str
    message: int | None
    framing: bool


def dumps(value: Any, what: str) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except RecursionError:
        raise InvalidInput(f"{what} is JSON nested too deeply to write; flatten it") from None
    return clean_text(text)  # a lone surrogate (JSON escapes can make one) becomes U+FFFD, as tiktoken and Tekken do


def parsed(text: str, what: str) -> Any:
    """mistral-common's reading of arguments and results: the JSON value when `text` is JSON,
    else `text` itself; empty text is {}."""
    if not text:
        return {}
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
    except RecursionError:
        raise InvalidInput(f"{what} is JSON nested too deeply to read; flatten it") from None


def definitions(tools: Sequence[Tool]) -> list[Piece]:
    text = dumps(
        [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description or "",
                    "parameters": tool.parameters or {},
                },
            }
            for tool in tools
        ],
        "tools",
    )
    return [Piece(text, None, False)]


def calls(messages: Sequence[ChatMessage], indices: Sequence[int]) -> list[Piece]:
    """The JSON list of the calls of an assistant turn (messages `indices`), each call's
    pieces its own message's."""
    pieces: list[Piece] = []
    for i in indices:
        for call in messages[i].tool_calls:
            opening = "[" if not pieces else ", "
            what = f"message {i}'s call {excerpt(call.name)}"
            pieces += [
                Piece(f'{opening}{{"name": {dumps(call.name, what)}, "arguments": ', i, True),
                Piece(dumps(parsed(call.arguments, what), what), i, False),
                Piece(f', "id": {dumps(call.id, what)}}}', i, True),
            ]
    return [*pieces, Piece("]", indices[-1], True)]


def result(message: ChatMessage, index: int) -> list[Piece]:
    what = f"message {index}"
    return [
        Piece('{"content": ', index, True),
        Piece(dumps(parsed(message.content, what), what), index, False),
        Piece(f', "call_id": {dumps(message.tool_call_id, what)}}}', index, True),
    ]


def check_chat(messages: Sequence[ChatMessage]) -> None:
    """mistral-common's v3 rules for roles in order, calls and results (test mode)."""
    for i in range(1, len(messages)):
        before, role = messages[i - 1].role, messages[i].role
        if role not in FOLLOWS.get(before, ()):
            fix = (
                "a tool result answers an assistant's tool calls: put it right after them or after another result"
                if role == "tool"
                else f"move it before the {before} message or make it a user message"
            )
            article = "an" if before == "assistant" else "a"
            raise InvalidInput(
                f"message {i} is a {role} message right after {article} {before} message, which Mistral refuses; {fix}"
            )
    expected = 0  # results still owed to the last assistant's calls (the first message is not counted)
    for i, message in enumerate(messages[1:], start=1):
        if message.role == "tool":
            expected -= 1
        elif message.role == "assistant":
            if expected:
                raise InvalidInput(
                    f"message {i} is an assistant message, but the calls before it got "
                    f"{'fewer' if expected > 0 else 'more'} tool results than calls; Mistral wants "
                    "one tool message per call before the assistant speaks again"
                )
            expected = len(message.tool_calls)
    for i, message in enumerate(messages):
        if message.role == "assistant":
            if message.content and message.tool_calls:
                raise InvalidInput(
                    f"message {i} has both content and tool calls, which Mistral refuses; "
                    "put the text in an assistant message of its own"
                )
            for call in message.tool_calls:
                _check_call(call, i)
        elif message.role == "tool":
            if message.name is not None and not NAME.match(message.name):
                raise InvalidInput(
                    f"message {i}'s name {excerpt(message.name)} is not a Mistral function name: "
                    "1 to 64 of a-z, A-Z, 0-9, _ and -"
                )
            if message.tool_call_id is None:
                raise InvalidInput(
                    f"message {i} is a tool result without a tool_call_id; Mistral needs the id of the call it answers"
                )
            if not CALL_ID.match(message.tool_call_id):
                raise InvalidInput(
                    f"message {i}'s tool_call_id {excerpt(message.tool_call_id)} is not a Mistral "
                    "call id: exactly 9 letters or digits (a-z, A-Z, 0-9)"
                )
    joined = None  # an assistant turn is the run of assistant messages: text and calls must not meet in one
    for i, message in enumerate(messages):
        if message.role != "assistant":
            joined = None
        elif joined is not None and bool(message.tool_calls) != bool(messages[joined].tool_calls):
            raise InvalidInput(
                f"messages {joined} and {i} are one assistant turn in Mistral's format, one with "
                "text and one with tool calls, which Mistral refuses; put a user message between them"
            )
        else:
            joined = i if joined is None else joined


def _check_call(call: ToolCall, index: int) -> None:
    if not CALL_ID.match(call.id):
        raise InvalidInput(
            f"message {index}'s tool call id {excerpt(call.id)} is not a Mistral call id: exactly "
            "9 letters or digits (a-z, A-Z, 0-9)"
        )
    if not NAME.match(call.name):
        raise InvalidInput(
            f"message {index} calls {excerpt(call.name)}, not a Mistral function name: "
            "1 to 64 of a-z, A-Z, 0-9, _ and -"
        )


def check_tools(tools: Sequence[Tool]) -> None:
    for n, tool in enumerate(tools):
        parameters = {} if tool.parameters is None else tool.parameters
        problem = schema_problem(parameters) if isinstance(parameters, dict) else "it is not a JSON object"
        if problem:
            raise InvalidInput(
                f"tool {n} ({excerpt(tool.name)}): its parameters are not a JSON schema (Draft 7), "
                f"which Mistral requires: {problem}"
            )
        if not NAME.match(tool.name):
            raise InvalidInput(
                f"tool {n}'s name {excerpt(tool.name)} is not a Mistral function name: "
                "1 to 64 of a-z, A-Z, 0-9, _ and -"
            )


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count(value: Any) -> bool:
    return _number(value) and (isinstance(value, int) or value.is_integer()) and value >= 0


def _regex(value: Any) -> bool:
    try:
        re.compile(value)
    except Exception:
        return False
    return True


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value) and len(set(value)) == len(value)


def _schema(value: Any) -> bool:
    return isinstance(value, (dict, bool))


TYPES = {"array", "boolean", "integer", "null", "number", "object", "string"}
STRING = ("$id", "$schema", "$ref", "$comment", "title", "description", "format", "contentMediaType", "contentEncoding")
COUNT = ("maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties")
NUMBER = ("maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum")
ONE_SCHEMA = ("additionalItems", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not")
SCHEMA_LIST = ("allOf", "anyOf", "oneOf")
SCHEMA_MAP = ("definitions", "properties", "patternProperties")
RULES: dict[str, tuple[Any, str]] = {  # keyword -> (test of its value, what it must be)
    **{k: (lambda v: isinstance(v, str), "a string") for k in STRING},
    **{k: (_count, "an integer, 0 or more") for k in COUNT},
    **{k: (_number, "a number") for k in NUMBER},
    **{k: (_schema, "a schema (an object or a boolean)") for k in ONE_SCHEMA},
    **{
        k: (lambda v: isinstance(v, list) and v and all(map(_schema, v)), "a non-empty list of schemas")
        for k in SCHEMA_LIST
    },
    **{
        k: (lambda v: isinstance(v, dict) and all(map(_schema, v.values())), "an object of schemas") for k in SCHEMA_MAP
    },
    "pattern": (lambda v: isinstance(v, str) and _regex(v), "a valid regular expression"),
    "readOnly": (lambda v: isinstance(v, bool), "true or false"),
    "uniqueItems": (lambda v: isinstance(v, bool), "true or false"),
    "examples": (lambda v: isinstance(v, list), "a list"),
    "enum": (lambda v: isinstance(v, list), "a list"),
    "multipleOf": (lambda v: _number(v) and v > 0, "a number above 0"),
    "required": (_strings, "a list of distinct strings"),
    "type": (
        lambda v: v in TYPES if isinstance(v, str) else _strings(v) and v and set(v) <= TYPES,
        f"one of {', '.join(sorted(TYPES))}, or a non-empty list of distinct ones",
    ),
    "items": (
        lambda v: _schema(v) or (isinstance(v, list) and v and all(map(_schema, v))),
        "a schema or a non-empty list of schemas",
    ),
    "dependencies": (
        lambda v: isinstance(v, dict) and all(_schema(d) or _strings(d) for d in v.values()),
        "an object of schemas or lists of distinct strings",
    ),
}


def schema_problem(schema: Any) -> str | None:
    """What keeps `schema` from being a Draft 7 JSON schema (its meta-schema's rules), or None."""
    pending = [(schema, "the schema")]
    while pending:
        node, where = pending.pop()
        if not isinstance(node, dict):
            if not isinstance(node, bool):
                return f"{where} is not an object or a boolean"
            continue
        for key, value in node.items():
            rule = RULES.get(key)
            if rule and not rule[0](value):
                return f"{where}'s {excerpt(key)} must be {rule[1]}"
            if key == "patternProperties":
                bad = next((p for p in value if not _regex(p)), None)
                if bad is not None:
                    return f"{where}'s patternProperties key {excerpt(bad)} is not a valid regular expression"
            if key in ONE_SCHEMA:
                pending.append((value, f"{where}'s {key}"))
            elif key in SCHEMA_LIST or (key == "items" and isinstance(value, list)):
                pending += [(v, f"{where}'s {key}[{n}]") for n, v in enumerate(value)]
            elif key == "items":
                pending.append((value, f"{where}'s items"))
            elif key in SCHEMA_MAP or key == "dependencies":
                pending += [(v, f"{where}'s {key}[{excerpt(k)}]") for k, v in value.items() if _schema(v)]
    return None
