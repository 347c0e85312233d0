"""/api/count's request (exactly one of a text, a batch of texts or a chat) and its answer: counts per
tokenizer, per text for a batch, per message for a chat, and budgets. Leaves out tokens (tokens.py)."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from app.web.schemas.base import (
    DEFAULT_TOKENIZERS_DOC,
    MAX_MESSAGES,
    MAX_TEXTS,
    MODELS_AMONG_NAMES_DOC,
    AllowSpecial,
    Request,
    Response,
    TokenizerNames,
)
from app.web.schemas.budget import BudgetOut, ModelName, ReplyTokens
from app.web.schemas.chat import EXAMPLE_TOOL, EXAMPLE_TOOL_CHAT, ChatMessageIn, Tools


class CountRequest(Request):
    """Send exactly one of `text`, `texts` or `messages`."""

    text: str | None = Field(None, description="One text.")
    texts: list[str] | None = Field(
        None, description=f"A batch of texts: one count per text per tokenizer (at most {MAX_TEXTS:,} texts)."
    )
    messages: list[ChatMessageIn] | None = Field(
        None,
        min_length=1,
        description="A chat, rendered in each tokenizer's own chat format as POST /api/chat renders it "
        f"(chatml for cl100k_base and o200k_base gives OpenAI's cookbook counts). At most {MAX_MESSAGES:,} messages.",
    )
    tools: Tools = None
    tokenizers: TokenizerNames | None = Field(
        None,
        description="Which tokenizers to count with. "
        + DEFAULT_TOKENIZERS_DOC
        + MODELS_AMONG_NAMES_DOC
        + " For `messages`, omitted means cl100k_base and o200k_base (OpenAI's chat encodings).",
    )
    allow_special: AllowSpecial = False
    model: ModelName | None = None
    reply_tokens: ReplyTokens | None = None

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"text": "How many tokens is this prompt?", "tokenizers": ["cl100k_base", "o200k_base"]},
                {"texts": ["first text", "second text"], "tokenizers": ["gpt2"]},
                {"text": "What will this prompt cost?", "tokenizers": ["gpt-4o", "gpt-4.1", "llama-3.1-8b-instruct"]},
                {
                    "messages": [
                        {"role": "system", "content": "You are a helpful assistant."},
                        {"role": "user", "content": "Count my tokens, please.", "name": "ada"},
                    ],
                    "tokenizers": ["cl100k_base"],
                },
                {"messages": EXAMPLE_TOOL_CHAT, "tools": [EXAMPLE_TOOL], "tokenizers": ["o200k_harmony"]},
            ]
        }
    )


class CountItem(Response):
    counts: dict[str, int]
    characters: int
    bytes: int


class ChatCountOut(Response):
    formats: dict[str, str] = Field(description="Tokenizer -> the chat format it was rendered in (as /api/chat).")
    per_message: dict[str, list[int]] = Field(
        description="Tokenizer -> tokens of each message with its framing; the reply priming belongs to none."
    )
    overhead: dict[str, int] = Field(description="Tokenizer -> tokens the format adds around the messages' content.")
    tools: dict[str, int] = Field(description="Tokenizer -> tokens of the tools' definitions (as /api/chat's `tools`).")
    notes: dict[str, str | None] = Field(
        description="Tokenizer -> its format's note on these counts (as /api/chat's `note`), null for none."
    )


class CountResponse(Response):
    counts: dict[str, int] = Field(
        description="Tokenizer -> tokens: of `text`; the sum over `texts`; the chat's prompt tokens for `messages`.",
        examples=[{"cl100k_base": 7, "o200k_base": 7}],
    )
    characters: int = Field(
        description="Characters counted (all texts, or all message fields with the tools' "
        "names, descriptions and schemas as JSON, together)."
    )
    bytes: int = Field(description="UTF-8 bytes of the same.")
    items: list[CountItem] | None = Field(None, description="`texts` only: the counts of each text, in order.")
    chat: ChatCountOut | None = Field(None, description="`messages` only: formats, per-message counts, overhead.")
    budgets: list[BudgetOut] | None = Field(
        None,
        description="With models (`model`, model names in `tokenizers`): one budget per model, in the order "
        "asked, for its tokenizer's count (the chat's whole prompt for `messages`; the sum for `texts`).",
    )
