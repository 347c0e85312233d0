"""The JSON answers of the token inspector and the vocabulary search, for /docs and the tests.

The routes (app/web/inspector/routes.py) return plain dicts from `app.inspect`; these models
document them, forbid undeclared fields (`schemas.Response`), and the API tests validate
every answer against them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.web.schemas import Response


class TokenBrief(Response):
    id: int
    bytes: str = Field(description="The token's bytes in hex.", examples=["20536f6c6964"])
    text: str = Field(description="The bytes as UTF-8; a byte that is no whole character is U+FFFD.")
    valid_utf8: bool = Field(
        description="false when the bytes are not valid UTF-8 on their own (a piece of a character)."
    )


class Merge(Response):
    left: TokenBrief
    right: TokenBrief
    how: Literal["merge", "split"] = Field(
        description="merge: the pair BPE joins last to make the token; split: BPE never makes it from its own "
        "bytes (tiktoken emits it only when a whole chunk equals it), so the two lower-ranked tokens that "
        "join to it and merge earliest are given."
    )


class UnderTrainedSource(Response):
    model: str = Field(examples=["openai-community/gpt2"])
    report: str = Field(description="The report in cohere-ai/magikarp, path@commit.")
    threshold: float = Field(description="The report's indicator threshold.")
    indicator: float
    max_prob: float = Field(description="The model's highest probability of repeating the token.")
    verified: bool = Field(description="max_prob below 0.01, the paper's bar for a verified under-trained token.")


class TreeNode(Response):
    id: int
    bytes: str
    text: str
    how: Literal["merge", "split"] | None = None
    depth: int
    children: list[TreeNode] = Field(default_factory=list, description="The two tokens it is made of; [] for a leaf.")


class TokenFacts(TokenBrief):
    tokenizer: str = Field(examples=["gpt2"])
    kind: Literal["bpe", "tiktoken", "sentencepiece", "huggingface"]
    length: int = Field(description="Bytes.")
    special: bool
    merge: Merge | None = Field(
        description="The two tokens it is made of; null for bytes, base symbols, special "
        "tokens and kinds without merges (WordPiece, Unigram): merge_note says why."
    )
    merge_note: str | None
    depth: int = Field(description="Merges below it along the longest path down its merge tree (0: no parents).")
    rank: int | None = Field(
        description="Its place in the merge order (tiktoken: its rank; our BPE, Hugging Face BPE: the "
        "index of its merge; SentencePiece: its place by score); null where there is none."
    )
    score: float | None = Field(description="SentencePiece and Unigram pieces: the piece's score.")
    same_in: dict[str, int | None] = Field(
        description="Every other built-in tokenizer: the id of a token with the same bytes there, or null. "
        "Special tokens match special tokens only.",
        examples=[{"cl100k_base": 11730, "o200k_base": None}],
    )
    under_trained: bool | None = Field(
        description="true: listed as under-trained in the published report on a model that uses this tokenizer "
        "(Land & Bartolo 2024, 'Fishing for Magikarp'); false: that report does not list it; null: no published "
        "list covers this tokenizer."
    )
    under_trained_source: UnderTrainedSource | None
    under_trained_model: str | None = Field(description="The model whose report the flag comes from.")
    tree: TreeNode | None = Field(
        None, description="With ?tree=true: the whole merge tree, down to tokens with no parents."
    )


class VocabMatch(TokenBrief):
    length: int
    special: bool


class VocabStats(Response):
    tokens: int
    special: int
    by_length: dict[int, int] = Field(description="Regular tokens by their length in bytes.")
    words_with_leading_space: int = Field(description="Regular tokens that are a space and then letters only.")
    not_utf8: int = Field(description="Regular tokens whose bytes are not valid UTF-8 on their own.")
    longest: int


class VocabResponse(Response):
    tokenizer: str
    q: str
    mode: Literal["substring", "prefix", "regex", "id"]
    offset: int
    limit: int
    total: int = Field(description="Every match, of which `matches` holds `limit` from `offset`.")
    matches: list[VocabMatch]
    stats: VocabStats
