"""The requests and answers of /api/tokenize, /api/compare and /api/decode: a text in, tokens with
their bytes and character ranges out, with stats, chunks, the shortest encoding, budgets and the
cost by script. Leaves out chats (chat.py) and counts (count.py)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from app.web.schemas.base import (
    DEFAULT_TOKENIZERS_DOC,
    MODELS_AMONG_NAMES_DOC,
    AllowSpecial,
    Request,
    Response,
    TokenizerName,
    TokenizerNames,
)
from app.web.schemas.budget import BudgetOut, ModelName, ReplyTokens


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
