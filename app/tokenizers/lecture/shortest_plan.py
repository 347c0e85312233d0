"""What the fewest-tokens search (shortest.py) needs of a tokenizer: its `Plan` (the prefix
table of its vocabulary, how its text is cut, which ids stay whole) and `vocabulary`, which
builds the table. Below both shortest.py and shortest_hf.py, which make plans.
Left out: the search itself and reading any tokenizer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

APPLIES_TO = "tokenprism's own BPE, the tiktoken vocabularies and Hugging Face byte-level BPE"


@dataclass(frozen=True)
class Vocabulary:
    """Every prefix of every regular token -> the token's id, or -1 for a prefix only."""

    prefixes: dict[bytes, int]
    longest: int


@dataclass(frozen=True)
class Plan:
    """How one tokenizer's text is cut and spelled, for `shortest`."""

    vocabulary: Vocabulary
    split: Callable[[str], list[str]]  # a piece of text between special tokens -> its chunks
    atomic: frozenset[int]  # ids the tokenizer's own encoding keeps whole (special, added)
    normalize: Callable[[str], str] = lambda text: text
    blocks: Callable[[str], list[str]] = lambda text: [text]  # cut before anything else (Llama)


def vocabulary(tokens: dict[bytes, int]) -> Vocabulary:
    """The prefix table of regular tokens (bytes -> id; of two ids with the same bytes, the lower)."""
    prefixes: dict[bytes, int] = {}
    for token, token_id in sorted(tokens.items(), key=lambda item: item[1], reverse=True):
        prefixes[token] = token_id
    for token in tokens:
        for end in range(1, len(token)):
            prefixes.setdefault(token[:end], -1)
    return Vocabulary(prefixes, max(map(len, tokens), default=0))
