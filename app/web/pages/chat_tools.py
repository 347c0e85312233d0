"""Tools in the pages' chat mode: the tools box, each assistant card's calls box and each tool
card's call id, read from the form as typed and turned into what app/chat renders.

The page keeps what was typed (the tools box and a calls box are JSON text that may not parse
yet), so a card is an `EditorMessage`: a `ChatMessage` with its calls box as text. The tools box
takes the OpenAI list, one tool object, `{"tools": [...]}`, or bare function objects
(`{"name", "description", "parameters"}`); a calls box takes a list of calls or one, each
OpenAI's shape or `{"id", "name", "arguments"}`, arguments as JSON text or as the object itself.
Everything is then read and checked by app/chat/tools.py, so the page says what the API says.
Whether a format renders tools is asked of the format itself (`takes_tools`). Left out: the
legacy `functions` list and `function_call` field, `tool_choice`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from app.chat.messages import ChatMessage, Tool, ToolCall
from app.chat.render import FORMATS
from app.chat.tools import chat_message, check_tool_chat, parse_tools
from app.errors import InvalidInput, TokenprismError
from app.web.engine_calls import check_texts


@dataclass(frozen=True)
class EditorMessage(ChatMessage):
    calls_text: str = ""  # the calls box (assistant cards) as typed: JSON


def _json(text: str, what: str, example: str, verb: str = "is") -> object:
    try:
        return json.loads(text)
    except ValueError as error:
        where = f"line {error.lineno}, column {error.colno}" if isinstance(error, json.JSONDecodeError) else "it"
        reason = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
        raise InvalidInput(f"{what} {verb} not JSON ({reason} at {where}); write it like {example}") from None
    except RecursionError:
        raise InvalidInput(f"{what} {verb} nested too deep to read; flatten it") from None


def _function_shape(item: object) -> object:
    """A bare function object (`{"name": ...}`) as OpenAI's function tool; anything else as it is."""
    if isinstance(item, dict) and "name" in item and "function" not in item and "type" not in item:
        return {"type": "function", "function": item}
    return item


TOOLS_EXAMPLE = (
    '[{"type": "function", "function": {"name": "get_weather", "parameters": '
    '{"type": "object", "properties": {"city": {"type": "string"}}}}}]'
)
CALLS_EXAMPLE = '[{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}]'


def read_tools(text: str) -> tuple[Tool, ...]:
    """The tools box's tools (none when it is blank); an `InvalidInput` naming what is wrong."""
    if not text.strip():
        return ()
    raw = _json(text, "the tools box", TOOLS_EXAMPLE)
    if isinstance(raw, dict):
        raw = raw["tools"] if set(raw) == {"tools"} else [raw]
    tools = parse_tools([_function_shape(item) for item in raw] if isinstance(raw, list) else raw)
    check_tool_chat([], tools)  # the tools alone: names, schemas, how many, how deep
    return tools


def _call_shape(item: object) -> object:
    if not isinstance(item, dict):
        return item
    if "function" not in item and "name" in item:  # the short form
        item = {
            "id": item.get("id"),
            "type": "function",
            "function": {key: item[key] for key in ("name", "arguments") if key in item},
        }
        if item["id"] is None:
            del item["id"]
    function = item.get("function")
    if isinstance(function, dict) and isinstance(function.get("arguments"), (dict, list)):
        item = {**item, "function": {**function, "arguments": json.dumps(function["arguments"], ensure_ascii=False)}}
    return item


def read_calls(text: str, position: int) -> list[object] | None:
    """A calls box as OpenAI's `tool_calls` JSON (None when blank), for app/chat/tools.py to read."""
    if not text.strip():
        return None
    raw = _json(text, f"message {position}'s tool calls", CALLS_EXAMPLE, "are")
    return [_call_shape(item) for item in (raw if isinstance(raw, list) else [raw])]


def chat_of(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """The editor's cards as the chat app/chat renders: calls parsed, call ids set (blank: none)."""
    return [
        chat_message(i, m.role, m.content, m.name, read_calls(getattr(m, "calls_text", ""), i), m.tool_call_id or None)
        for i, m in enumerate(messages)
    ]


def without_tools(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    return [ChatMessage(m.role, m.content, m.name) for m in messages]


def uses_tools(messages: Sequence[ChatMessage], tools_text: str) -> bool:
    """Whether the chat as typed has tools, calls or call ids (what a format without tools leaves out)."""
    return bool(tools_text.strip()) or any(getattr(m, "calls_text", "").strip() or m.tool_call_id for m in messages)


def takes_tools(registry, tokenizer_name: str | None) -> bool:
    """Whether the tokenizer's chat format renders tools: asked of the format with one tiny chat."""
    try:
        formats = registry.chat_formats(tokenizer_name) if tokenizer_name else []
        if not formats:
            return False
        FORMATS[formats[0]].render(registry.get(tokenizer_name), [ChatMessage("user", "hi")], (Tool("probe"),))
    except TokenprismError:
        return False
    return True


@dataclass(frozen=True)
class ToolsBox:
    """The tools box read: its tools, or the problem shown beside it; `used`: the chat has tools,
    calls or call ids (what a format without tools, or a box with a problem, leaves out)."""

    tools: tuple[Tool, ...] = ()
    error: TokenprismError | None = None
    used: bool = False

    @classmethod
    def read(cls, tools_text: str, messages: Sequence[ChatMessage]) -> ToolsBox:
        used = uses_tools(messages, tools_text)
        try:
            return cls(read_tools(tools_text), None, used)
        except InvalidInput as error:
            return cls((), error, used)

    def left_out(self, name: str, fits: bool) -> str | None:
        """Why the chat's tools are not counted for tokenizer `name` (None: they are, or there are none)."""
        if not self.used:
            return None
        if not fits:
            return f"{name}'s chat format has no tools, so the tools, tool calls and call ids are left out of its count"
        if self.error is not None:
            return "The tools, tool calls and call ids are left out of the count until the tools box is fixed"
        return None


def call_ids(messages: Sequence[ChatMessage]) -> list[str]:
    """The ids of the calls typed so far (those that parse), offered to the tool cards."""
    ids: list[str] = []
    for i, message in enumerate(messages):
        try:
            calls = read_calls(getattr(message, "calls_text", ""), i)
        except InvalidInput:
            continue
        for call in calls or []:
            if isinstance(call, dict) and isinstance(call.get("id"), str) and call["id"] not in ids:
                ids.append(call["id"])
    return ids


def check_size(messages: Sequence[ChatMessage], tools_text: str, settings) -> None:
    """The chat as typed within the text limit, every field counted (as POST /api/chat counts its fields)."""
    texts = [text for m in messages for text in (*m.fields(), getattr(m, "calls_text", ""))] + [tools_text]
    check_texts(
        texts, settings, "the message fields and tools" if uses_tools(messages, tools_text) else "the message fields"
    )


def calls_json(calls: Sequence[ToolCall]) -> list[dict]:
    """Calls in OpenAI's shape (shares, the API)."""
    return [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in calls]
