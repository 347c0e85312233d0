"""A chat as every chat path takes it (API, CLI, pages, formats): messages and the tools
the model is offered, all plain data.

A `ChatMessage` has a role, text content and an optional name; an assistant message may
carry `tool_calls` (the model calling functions), a `tool` message answers one with its
`tool_call_id`. A `Tool` is one function the model may call, as OpenAI's API lists it
(`{"type": "function", "function": {"name", "description", "parameters"}}`): its JSON
schema is kept as parsed JSON. Which roles, names, tools and calls are allowed is each
format's call (app/chat/render.py); a format without tools refuses them with
`refuse_tools`. Parsing and bounding these from requests is app/chat/tools.py's.
Left out: content arrays and images.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.errors import InvalidInput


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text, as the model wrote it


@dataclass(frozen=True)
class Tool:
    name: str
    description: str | None = None
    parameters: dict | None = None  # a JSON schema (an object), as parsed
    sent: dict | None = field(default=None, compare=False)  # the whole tool as sent (its key order, `strict`),
    # for a format that hands tools on as they came (a chat template, as transformers does)


@dataclass(frozen=True)
class ChatMessage:
    role: str
    content: str
    name: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()  # assistant messages only
    tool_call_id: str | None = None  # tool messages: the call they answer

    def fields(self) -> list[str]:
        """Its text fields: role, content, then the name if it has one, then its calls' and
        call id's text (what the size limits count)."""
        calls = [text for call in self.tool_calls for text in (call.id, call.name, call.arguments)]
        return (
            [self.role, self.content]
            + ([self.name] if self.name is not None else [])
            + calls
            + ([self.tool_call_id] if self.tool_call_id is not None else [])
        )


def refuse_tools(format_name: str, messages: Sequence[ChatMessage], tools: Sequence[Tool]) -> None:
    """An `InvalidInput` when the chat has tools, tool calls or tool results, for a format
    that renders none."""
    if tools:
        raise InvalidInput(
            f'the {format_name} chat format has no tools; leave "tools" out or use a tokenizer whose format takes them'
        )
    for position, message in enumerate(messages):
        if message.tool_calls or message.tool_call_id is not None:
            raise InvalidInput(
                f"message {position} has tool calls or a tool_call_id, which the {format_name} "
                "chat format does not render; leave them out"
            )
