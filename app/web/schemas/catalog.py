"""The answers of the read-only GET endpoints: /healthz, /api/limits, /api/tokenizers (list, search, one
tokenizer with its special tokens and chat template) and /api/models (names, tokenizers and facts).
Leaves out the POST endpoints' models (tokens.py, chat.py, count.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.web.schemas.base import Response


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
