"""The budget's request fields and response model, for /api/count, /api/tokenize, /api/chat and
/api/compare (the other schemas here use them; app/pricing/budget.py computes the budget).

Money is an exact decimal string ("0.0000175": tokens x price per million / 1,000,000, no
rounding); parse it with a decimal type, not a float, to keep it exact. Left out: the
models' facts themselves (GET /api/models).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

MAX_REPLY_TOKENS = 1_000_000_000  # far past any model's largest output; keeps the arithmetic small

ModelName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=100,
        description="A model name from GET /api/models (gpt-4o, llama-3.1-8b-instruct, ...): the answer carries its "
        "budget (context used, cost). The model decides the tokenizer; a tokenizer given as well must be the model's "
        "(a 422 `model_mismatch` otherwise). A name that is no model's is a 422 `unknown_model`.",
        examples=["gpt-4o"],
    ),
]
ReplyTokens = Annotated[
    int,
    Field(
        ge=0,
        le=MAX_REPLY_TOKENS,
        description="The expected reply length in tokens: the budget then prices it (`output_usd`) and `fits` "
        "counts it (prompt + reply within the window, reply within the largest output).",
        examples=[500],
    ),
]

_MONEY = " An exact decimal string (no rounding); null when the price is not published."


class BudgetOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str = Field(description="The model name, as asked.", examples=["gpt-4o"])
    context_window: int | None = Field(description="Its context window in tokens; null when unknown.")
    used: int = Field(
        description="Tokens of the prompt: the count (for a chat, the whole prompt, framing included; "
        "for `texts`, their sum)."
    )
    share: float | None = Field(description="used / context_window (a JSON number; over 1 when it does not fit).")
    fits: bool | None = Field(
        description="used (+ reply_tokens) <= context_window, and reply_tokens <= the largest "
        "output; null when a fact it needs is unknown."
    )
    room: int | None = Field(
        description="Tokens left for the reply: min(context_window - used, largest output), "
        "at least 0; null when unknown."
    )
    input_usd: str | None = Field(description="used x input price / 1,000,000." + _MONEY, examples=["0.0000175"])
    cached_input_usd: str | None = Field(description="used x cached-input price / 1,000,000." + _MONEY)
    output_usd_per_1k: str | None = Field(description="The price of a 1,000-token reply." + _MONEY)
    prices_as_of: str | None = Field(description="The date the facts were read (ISO).", examples=["2025-06-01"])
    source: str | None = Field(description="URL of the page the facts were read from.")
    note: str | None = Field(description="Why fields are null (no facts for this model, or facts not published).")
    reply_tokens: int | None = Field(None, description="With `reply_tokens` in the request: that length.")
    output_usd: str | None = Field(
        None, description="With `reply_tokens`: reply_tokens x output price / 1,000,000." + _MONEY
    )
