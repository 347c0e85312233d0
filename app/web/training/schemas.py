"""Pydantic models of the training and merge-replay API, with examples for /docs.

Requests are strict like every other request (schemas.py): wrong JSON types and unknown
fields are 422s. The routes return plain dicts; the tests validate them against these.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from app.jobs.spec import MAX_DESCRIPTION_CHARS, MAX_DOCUMENTS, MAX_SPECIAL_TOKENS
from app.web.schemas import Request, Response

MAX_MERGES_LISTED = 1_000  # most merges one GET /api/tokenizers/{name}/merges lists
JobStatus = Literal["queued", "running", "done", "failed", "cancelled", "interrupted"]


class TrainRequest(Request):
    name: str = Field(
        max_length=100, description="The new tokenizer's name: 1 to 48 of a-z, 0-9, '_', '.', '-'.", examples=["my-bpe"]
    )
    text: str | None = Field(None, description="The corpus as one text. Send `text` or `texts` (or both).")
    texts: list[str] | None = Field(
        None, max_length=MAX_DOCUMENTS, description=f"Documents, each split on its own (at most {MAX_DOCUMENTS:,})."
    )
    vocab_size: int = Field(
        description="256 byte tokens + special tokens + merges; at most TOKENPRISM_MAX_TRAIN_VOCAB.", examples=[1000]
    )
    pattern: str = Field("gpt4", description="Split pattern: gpt4 (cl100k_base's), gpt2, or none (no split).")
    special_tokens: list[str] = Field(
        default_factory=list,
        max_length=MAX_SPECIAL_TOKENS,
        description="Special-token strings; they get the ids after the merges.",
        examples=[["<|endoftext|>"]],
    )
    replace: bool = Field(False, description="Replace a trained or added tokenizer of that name.")
    description: str = Field("", max_length=MAX_DESCRIPTION_CHARS, description="One line for the tokenizer lists.")

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"name": "my-bpe", "text": "the cat sat on the mat; the cat sat", "vocab_size": 300, "pattern": "gpt4"}
            ]
        }
    )


class TrainPreviewRequest(Request):
    text: str | None = None
    texts: list[str] | None = Field(None, max_length=MAX_DOCUMENTS)
    vocab_size: int = Field(examples=[1000])
    pattern: str = "gpt4"
    special_tokens: list[str] = Field(default_factory=list, max_length=MAX_SPECIAL_TOKENS)


class TrainPreviewResponse(Response):
    characters: int
    bytes: int
    chunks: int = Field(description="Pre-tokens the pattern cuts the corpus into.")
    distinct_chunks: int = Field(description="Different pre-tokens: what the merge loop works on, each with its count.")
    merges_wanted: int = Field(description="vocab_size - 256 - special tokens.")
    merges_at_most: int = Field(
        description="An upper bound on the merges this corpus can give (training stops when no pair is left)."
    )


class TrainAccepted(Response):
    job: str = Field(description="The job's id (random, unguessable).")
    status: JobStatus
    status_url: str = Field(examples=["/api/train/0hrOtu7DuxA8pnBwFV_PXg"])
    page_url: str = Field(description="The job's page, with its progress bar.")


class JobError(Response):
    code: str
    message: str


class JobSpec(Response):
    vocab_size: int
    pattern: str
    special_tokens: list[str]
    replace: bool


class TrainSummary(Response):
    tokenizer: str
    vocab_size: int
    merges: int = Field(description="Merges made; fewer than `merges_wanted` when the corpus ran out of pairs.")
    merges_wanted: int
    pattern: str
    special_tokens: dict[str, int]
    description: str
    characters: int | None = Field(
        description="Characters of the corpus (null when the CLI counted it on its workers)."
    )
    bytes: int | None
    documents: int | None
    seconds: float
    sha256: str | None = Field(None, description="The sha256 of the model file as written.")
    note: str | None = Field(None, description="How the job ended, when its process stopped after saving the model.")


class MergeOut(Response):
    id: int = Field(description="The merged token's id (256 + the merge's rank).")
    left: int
    right: int
    bytes: str = Field(description="The merged token's bytes, in hex.", examples=["7468"])
    text: str = Field(description="Those bytes as text (a piece of a character shows as U+FFFD).", examples=["th"])
    count: int | None = Field(
        description="How many times the pair occurred in the training corpus when training chose "
        "it (the lecture's get_stats value); null when not recorded (models not trained here, "
        "and model files of format version 1).",
        examples=[18724],
    )


class TrainJob(Response):
    job: str
    status: JobStatus
    phase: Literal["", "starting", "counting", "merging", "saving"] | None = Field(
        None,
        description="While running: starting (the child process), counting (splitting the corpus), merging, saving.",
    )
    name: str
    merges_done: int
    merges_total: int = Field(description="Merges wanted; when done, the merges made (so done reads 100%).")
    elapsed_s: float = Field(description="Seconds since it started running (to its end, once ended).")
    spec: JobSpec
    tokenizer: str | None = Field(None, description="When done: the new tokenizer's name, usable everywhere.")
    summary: TrainSummary | None = None
    error: JobError | None = Field(None, description="When failed, cancelled or interrupted: why.")
    first_merges: list[MergeOut] | None = Field(
        None, description="The first merges made (up to 10), each with how often its pair occurred, as they happen."
    )


class MergesResponse(Response):
    tokenizer: str
    merges_total: int
    offset: int
    limit: int
    merges: list[MergeOut] = Field(description="In merge order, from `offset`.")
