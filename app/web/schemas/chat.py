"""The chat fields and /api/chat: a message, OpenAI's function tools and tool calls (raw JSON, which
app/chat/tools.py checks and names what is wrong), the chat request and its answer with per-message
counts. Leaves out /api/count's chat answer (count.py)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from app.chat.tools import MAX_JSON_DEPTH, MAX_TOOLS
from app.web.schemas.base import MAX_MESSAGES, Request, Response, TokenizerName
from app.web.schemas.budget import BudgetOut, ModelName, ReplyTokens
from app.web.schemas.tokens import TokenOut

TOOL_SCHEMA = {
    "type": "object",
    "required": ["type", "function"],
    "properties": {
        "type": {"const": "function"},
        "function": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
                "description": {"type": "string"},
                "parameters": {"type": "object", "description": "A JSON schema."},
                "strict": {"type": "boolean", "description": "Accepted and not counted."},
            },
        },
    },
}


TOOL_CALL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id", "function"],
    "properties": {
        "id": {"type": "string"},
        "type": {"const": "function"},
        "function": {
            "type": "object",
            "required": ["name", "arguments"],
            "properties": {
                "name": {"type": "string", "description": "A tool listed in `tools`."},
                "arguments": {"type": "string", "description": "JSON text, as the model wrote it."},
            },
        },
    },
}


EXAMPLE_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


EXAMPLE_TOOL_CHAT: list[Any] = [
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "18 °C, sunny"},
]


# tools and tool calls arrive as raw JSON, so that app/chat/tools.py names what is wrong and how to fix it
Tools = Annotated[
    Any,
    Field(
        description='The functions the model may call, as OpenAI\'s API takes them (`[{"type": "function", '
        f'"function": {{"name", "description", "parameters"}}}}]`; at most {MAX_TOOLS}, schemas nested at most '
        f"{MAX_JSON_DEPTH} deep). "
        "Rendered as the format does and counted apart (`tools`); a format without tools answers a 422 that says so.",
        json_schema_extra={"type": "array", "items": TOOL_SCHEMA},
        examples=[[EXAMPLE_TOOL]],
    ),
]


class ChatMessageIn(Request):
    role: str = Field(
        description="system, user, assistant, developer, tool, ...; its tokens count too.", examples=["user"]
    )
    content: str | None = Field(
        None,
        description="The message text (plain text; content-part arrays are not "
        "supported). Null or left out only in an assistant message with `tool_calls`.",
    )
    name: str | None = Field(
        None, description="Optional participant name (chatml and harmony write role:name; mistral has none)."
    )
    tool_calls: Any = Field(
        None,
        description="assistant: the tools it calls (OpenAI's shape; each names a tool "
        "listed in `tools`, arguments are JSON text). Counted in this message.",
        json_schema_extra={"type": "array", "items": TOOL_CALL_SCHEMA},
    )
    tool_call_id: Any = Field(
        None,
        description="role tool: the id of the earlier call this result answers.",
        json_schema_extra={"type": "string"},
    )


class ChatRequest(Request):
    tokenizer: TokenizerName | None = Field(
        None,
        description="A tokenizer or model name; may be left out when "
        "`model` is given. A model name here answers its budget too.",
    )
    messages: list[ChatMessageIn] = Field(
        min_length=1,
        max_length=MAX_MESSAGES,
        description=f"The conversation, in order (at most {MAX_MESSAGES:,} messages).",
        examples=[[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi 👋"}]],
    )
    tools: Tools = None
    format: str | None = Field(
        None,
        description="chatml (cl100k_base, o200k_base), harmony (o200k_harmony) or mistral (mistral_v1, "
        "mistral_v3, mistral_tekken); omitted: the tokenizer's own.",
        examples=["chatml"],
    )
    model: ModelName | None = None
    reply_tokens: ReplyTokens | None = None


class ChatMessageCount(Response):
    role: str
    count: int = Field(description="This message's tokens, its framing included.")


class ChatResponse(Response):
    tokenizer: str = Field(description="The canonical name (a model name is resolved).")
    format: str
    count: int = Field(description="Tokens of the whole prompt, the reply priming included.")
    text: str = Field(description="The prompt as text; the tokens' ranges index into it.")
    tokens: list[TokenOut] = Field(description="As /api/tokenize; the format's special tokens have `special` true.")
    messages: list[ChatMessageCount]
    overhead: int = Field(
        description="Tokens the format adds: `count` minus the tokens of the messages' content and of the tools."
    )
    tools: int = Field(
        description="Tokens of the tools' definitions, wherever the format writes them (0 without "
        "tools); tool calls and results count in their messages."
    )
    note: str | None = Field(
        None,
        description="What the format says of these counts, null for none: chatml's count "
        "follows the prompt tokens OpenAI's API reported (OpenAI publishes no format), not a "
        "published rendering.",
    )
    budget: BudgetOut | None = Field(None, description="With a model: its budget for the whole prompt (`count`).")
