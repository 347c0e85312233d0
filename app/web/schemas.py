"""Pydantic models of every JSON request and response, with examples for /docs.

Requests are strict: a field of the wrong JSON type is a 422 (no `"5"` -> 5, no `1` ->
true) and an unknown field is a 422 too, so a typo such as `"tokenizer"` sent to
/api/count is reported instead of silently ignored. Token ids are the one exception:
they arrive as raw JSON values so that the engine sees exactly what was sent and can
name the bad one (`true`, `"5"`, `1.0`, `-1`, an id in a vocabulary gap).

Responses are documented here; the routes return plain dicts rendered off the event loop
(a long text has hundreds of thousands of tokens), and the tests validate every response
against these models, which forbid undeclared fields.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.chat.tools import MAX_JSON_DEPTH, MAX_TOOLS
from app.web.budget_schemas import BudgetOut, ModelName, ReplyTokens

# Most texts in one /api/count "texts" batch and most chat messages in one request. The
# characters of all of them together stay within the text limit (see GET /api/limits).
MAX_TEXTS = 10_000
MAX_MESSAGES = 10_000
MAX_NAME_CHARS = 100
MAX_NAMES = 100  # names in one list; the real bound is `max_compare` after duplicates are dropped
# The one default of /api/count (texts) and /api/compare; `default_names` in api.py applies it.
DEFAULT_TOKENIZERS_DOC = (
    "Omitted: the first `max_compare` built-in tokenizers in the order GET /api/tokenizers lists them, "
    "listed as `default_tokenizers` by GET /api/limits; with the default limit of 6 these are gpt2, cl100k_base, "
    "o200k_base, mistral_v1, tokenprism_4k and o200k_harmony. Not every built-in: one request takes at most "
    "`max_compare` tokenizers, which bounds its time and memory. Name the others (mistral_v3, mistral_tekken, "
    "qwen3_6, deepseek_v4, llama3, llama4, trained ones) to use them."
)
MODELS_AMONG_NAMES_DOC = (
    " With `model` and no `tokenizers`: the model's tokenizer alone. Model names here ask for their budgets too."
)

TokenizerName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_NAME_CHARS,
        description="A name from GET /api/tokenizers (aliases such as r50k_base work too), or a model name "
        "from GET /api/models (gpt-4o, gpt-4o-2024-08-06, mistral-7b-v0.1, ...); answers name the tokenizer.",
        examples=["cl100k_base"],
    ),
]
TokenizerNames = Annotated[
    list[TokenizerName],
    Field(
        min_length=1,
        max_length=MAX_NAMES,
        description="Tokenizer or model names; duplicates, aliases and models of the same tokenizer count once. "
        "At most `max_compare` (GET /api/limits).",
        examples=[["gpt2", "cl100k_base", "o200k_base"]],
    ),
]
AllowSpecial = Annotated[
    bool,
    Field(
        description="false (default): special-token strings such as `<|endoftext|>` are plain text. "
        "true: they are encoded as the special token (tiktoken tokenizers and own BPE models with "
        "special tokens; SentencePiece never parses them from text)."
    ),
]


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Response(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---- requests ----


class TokenizeRequest(Request):
    tokenizer: TokenizerName | None = Field(
        None,
        description="A tokenizer or model name; may be left out when "
        "`model` is given (its tokenizer is used). A model name here answers its "
        "budget too.",
    )
    text: str = Field(
        description="The text to tokenize (lone surrogates become U+FFFD).", examples=["Hello, world! 👋"]
    )
    allow_special: AllowSpecial = False
    merges: int | None = Field(
        None,
        ge=0,
        description="`bpe` tokenizers only: use only the first k merges (0: raw bytes; the merge replay). "
        "The ids equal the naive BPE encoder's with those merges; k over the tokenizer's merges is a 422.",
    )
    model: ModelName | None = None
    reply_tokens: ReplyTokens | None = None
    chunks: bool = Field(
        False,
        description="Also answer the chunks the tokenizer's split (its regex or pre-tokenizer) "
        "cuts the text into before merging: no token crosses one.",
    )
    encoding: Literal["bpe", "shortest"] = Field(
        "bpe",
        description="`shortest`: the fewest tokens the same vocabulary spells the text with, within the same "
        "chunks (BPE kinds only: `bpe`, `tiktoken`, byte-level `huggingface`; others are a 422), with `bpe_count` "
        "and `differences`; not with `merges`.",
    )

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"tokenizer": "cl100k_base", "text": "Hello, world! 👋", "allow_special": False},
                {"tokenizer": "cl100k_base", "text": "Hello world!!! 12345", "chunks": True},
                {"tokenizer": "tokenprism_4k", "text": "he jumps", "encoding": "shortest"},
                {"tokenizer": "tokenprism_4k", "text": "the cat sat", "merges": 10},
                {"model": "gpt-4o", "text": "Will it fit, and what will it cost?", "reply_tokens": 500},
            ]
        }
    )


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


class CompareRequest(Request):
    text: str = Field(examples=["Tokenizers disagree about 안녕하세요 and 🦜."])
    tokenizers: TokenizerNames | None = Field(
        None, description="Which tokenizers to compare. " + DEFAULT_TOKENIZERS_DOC + MODELS_AMONG_NAMES_DOC
    )
    allow_special: AllowSpecial = False
    model: ModelName | None = None
    reply_tokens: ReplyTokens | None = None

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "text": "Tokenizers disagree about 안녕하세요 and 🦜.",
                    "tokenizers": ["gpt2", "o200k_base", "mistral_v1"],
                }
            ]
        }
    )


class DecodeRequest(Request):
    tokenizer: TokenizerName
    ids: list[Any] = Field(
        description="Token ids: whole numbers from 0 to vocab_size - 1 that exist in the vocabulary. "
        'Anything else (negative, too large, a gap, 1.0, "5", true) is a 422 naming the id and its position.',
        json_schema_extra={"items": {"type": "integer", "minimum": 0}},
        examples=[[9906, 11, 1917, 0]],
    )

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"tokenizer": "cl100k_base", "ids": [9906, 11, 1917, 0]}]}
    )


# ---- responses ----


class ErrorBody(Response):
    code: str = Field(examples=["unknown_tokenizer"], description="Machine-readable; stable.")
    message: str = Field(
        examples=[
            "unknown tokenizer 'gpt5'; use one of: gpt2, cl100k_base, o200k_base, mistral_v1, tokenprism_4k, "
            "or a model name such as gpt-4o (GET /api/models)"
        ],
        description="Names the bad input and says how to fix it.",
    )


class ErrorResponse(Response):
    error: ErrorBody


class HealthResponse(Response):
    status: Literal["ok"]


class TokenizerInfo(Response):
    name: str = Field(examples=["cl100k_base"])
    kind: Literal["bpe", "tiktoken", "sentencepiece", "huggingface"]
    vocab_size: int = Field(description="One more than the largest id (some ids in between may be gaps).")
    description: str
    models: list[str] = Field(
        description="The models that use this tokenizer (GET /api/models); a prefix rule ends in '*' (gpt-4o-*).",
        examples=[["gpt-4", "gpt-3.5-turbo", "text-embedding-3-small", "gpt-4-*"]],
    )


class TokenizersResponse(Response):
    tokenizers: list[TokenizerInfo]


class ChatTemplateInfo(Response):
    template: str = Field(description="The Jinja chat template chats are rendered with.")
    bos_token: str | None = Field(description="The template's bos_token; null when its file gave none (undefined).")
    eos_token: str | None = Field(description="The template's eos_token; null when its file gave none.")
    other_templates: list[str] = Field(description="Names of the file's other templates (e.g. tool_use), kept.")


class TokenizerDetail(TokenizerInfo):
    builtin: bool = Field(description="Shipped with tokenprism (false: trained by a user).")
    special_tokens: dict[str, int] = Field(
        description="Special-token strings and their ids.", examples=[{"<|endoftext|>": 100257}]
    )
    chat_counting: bool = Field(description="Whether /api/count and /api/chat accept `messages` for this tokenizer.")
    chat_formats: list[str] = Field(description="Its chat formats (POST /api/chat), the default first; [] for none.")
    chat_template: ChatTemplateInfo | None = Field(
        None, description="The chat template it was added with (the `template` format); null for none."
    )


class ModelFacts(Response):
    """One row of the model facts (app/pricing/model_facts.tsv, or the deployer's override); null is a fact the
    vendor does not publish, never a guess."""

    context_window: int | None = Field(examples=[128000], description="Most tokens a request's input may have.")
    max_output: int | None = Field(examples=[16384], description="Most tokens one reply may have.")
    input_usd_per_mtok: str | None = Field(
        examples=["2.50"],
        description="USD per 1,000,000 input tokens, the exact decimal as published (a string, so no float rounds it).",
    )
    cached_input_usd_per_mtok: str | None = Field(
        examples=["1.25"], description="USD per 1,000,000 cached input tokens."
    )
    output_usd_per_mtok: str | None = Field(
        examples=["10.00"], description="USD per 1,000,000 output tokens (null for an embedding model)."
    )
    source: str = Field(description="URL of what the figures were read from.")
    read_on: str = Field(examples=["2026-11-25"], description="The day the source was read (YYYY-MM-DD).")


class ModelInfo(Response):
    name: str = Field(examples=["gpt-4o"], description="A model name; with `prefix`, the start of model names.")
    prefix: bool = Field(
        description="true: every name that starts with `name` (case-insensitive) uses this tokenizer, as in "
        "tiktoken: gpt-4o- covers gpt-4o-2024-08-06. Exact names are looked up first; among prefixes the first "
        "listed wins."
    )
    tokenizer: str = Field(
        examples=["o200k_base"], description="The tokenizer it uses (a name of GET /api/tokenizers when `available`)."
    )
    vendor: str = Field(examples=["OpenAI"])
    family: str = Field(examples=["chat"], description="For display: the model family, or tiktoken's group.")
    available: bool = Field(
        description="Whether this server has the tokenizer now (false: tokenprism does not "
        "ship it, e.g. p50k_base; asking for the model is a 404 that says so)."
    )
    covered_by: str | None = Field(
        examples=[None, "gpt-4o-*"],
        description="null for the rows of the model table; for a name that only the facts table holds (gpt-4o-mini, "
        "listed after the table), the prefix rule that gives it its tokenizer.",
    )
    facts: ModelFacts | None = Field(
        description="Its context window, largest output and prices, with source and date; null when none are "
        'known. A prefix rule has facts only when a facts row names it ("gpt-4o-*").'
    )


class ModelsResponse(Response):
    models: list[ModelInfo] = Field(
        description="Exact names and prefix rules, in lookup order; then the names "
        "only the facts table holds (`covered_by` set)."
    )


class LimitsResponse(Response):
    max_text_chars: int = Field(description="Longest text (or all texts / message fields of one request together).")
    max_body_bytes: int = Field(description="Largest request body; larger is a 413 before parsing.")
    max_ids: int = Field(description="Most ids in one /api/decode request.")
    max_compare: int = Field(description="Most tokenizers in one /api/count or /api/compare request.")
    default_tokenizers: list[str] = Field(
        description="The tokenizers /api/count (for texts) and /api/compare use when a request names none: "
        "the first `max_compare` built-ins."
    )
    max_response_tokens: int = Field(
        description="Most tokens one request lists (tokenize, compare: over all its tokenizers; decode). "
        "More is a 413 `too_many_tokens`; /api/count has no such limit."
    )
    max_texts: int = Field(description="Most texts in one /api/count `texts` batch.")
    max_messages: int = Field(description="Most chat messages in one /api/count request.")


class TokenOut(Response):
    id: int
    text: str = Field(description="The token's bytes as text; a piece of a character shows as U+FFFD.")
    bytes: str = Field(description="The token's exact bytes, in hex.", examples=["48656c6c6f"])
    start: int = Field(description="Start of the smallest character range [start, end) that holds the bytes.")
    end: int = Field(description="End of that range (Python string indices, exclusive).")
    special: bool = Field(description="A special or control token.")


class StatsOut(Response):
    tokens: int
    characters: int
    bytes: int
    words: int = Field(description="Whitespace-separated words.")
    chars_per_token: float
    bytes_per_token: float
    tokens_per_word: float


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


class ChunkOut(Response):
    start: int = Field(description="The chunk's first character (Python string index).")
    end: int = Field(description="One past its last character.")


class TokenizeResponse(Response):
    tokenizer: str = Field(description="The canonical name (an alias is resolved).")
    count: int
    tokens: list[TokenOut]
    stats: StatsOut
    merges: int | None = Field(None, description="The merges used, when the request limited them.")
    bpe_count: int | None = Field(None, description="With `encoding: shortest`: the tokenizer's own (BPE) count.")
    differences: list[tuple[int, int]] | None = Field(
        None,
        description="With `encoding: shortest`: the character ranges `[start, end)` the two encodings cut differently.",
    )
    budget: BudgetOut | None = Field(
        None, description="With a model (`model`, or a model name as `tokenizer`): its budget for `count` tokens."
    )
    chunks: list[ChunkOut] | None = Field(
        None,
        description='With `"chunks": true`: the chunks in order; null for a '
        "tokenizer with no split (SentencePiece), which `chunks_note` explains.",
    )
    chunk_count: int | None = Field(None, description='With `"chunks": true`: how many chunks (null with no split).')
    chunks_note: str | None = Field(
        None, description='With `"chunks": true` and no split: what the tokenizer does instead.'
    )


class CompareResult(TokenizeResponse):
    budgets: list[BudgetOut] | None = Field(
        None, description="With models: the budget of each model asked that uses this tokenizer, in the order asked."
    )


class ScriptRow(Response):
    script: str = Field(
        description='A Unicode script ("Latin", "Hangul", "Hiragana/Katakana"), "Emoji", '
        '"Common" (digits, punctuation, spaces, symbols) or "Other".',
        examples=["Hangul"],
    )
    characters: int = Field(description="Characters of the text in this script; the rows sum to the text's length.")
    tokens: dict[str, int] = Field(
        description="Tokenizer -> tokens counted for this script (each token counts once, "
        "for the script most of its characters are in); each column sums to its count."
    )
    tokens_per_character: dict[str, float] = Field(description="Tokenizer -> tokens / characters of this row.")


class CompareResponse(Response):
    results: list[CompareResult] = Field(description="One per tokenizer, in the order asked.")
    by_script: list[ScriptRow] = Field(
        description="Cost by script: one row per script present in the text, most "
        "characters first (docs/api.md, Cost by script)."
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


class DecodeResponse(Response):
    tokenizer: str
    text: str = Field(
        description="What the reference library decodes the ids to (tiktoken's or SentencePiece's decode)."
    )
    count: int
    tokens: list[TokenOut]
    tokens_text: str = Field(
        description="The tokens' bytes joined and decoded (invalid UTF-8 as U+FFFD); tokens' start/end index into "
        "this. Equal to `text` except where the reference decoder drops or rewrites pieces (SentencePiece's "
        "control tokens and its leading-space rule)."
    )
