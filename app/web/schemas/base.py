"""What every request and response model shares: the strict `Request` and the closed `Response` base
classes, the limits on texts, messages and names, the tokenizer-name fields, `allow_special`, and the
error body every failure answers with. Leaves out the models of each endpoint group (the sibling modules)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

# Most texts in one /api/count "texts" batch and most chat messages in one request. The
# characters of all of them together stay within the text limit (see GET /api/limits).
MAX_TEXTS = 10_000
MAX_MESSAGES = 10_000
MAX_NAME_CHARS = 100
MAX_NAMES = 100  # names in one list; the real bound is `max_compare` after duplicates are dropped


# The one default of /api/count (texts) and /api/compare; `default_names` in app/web/api/common.py applies it.
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
