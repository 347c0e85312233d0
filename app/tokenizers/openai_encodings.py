"""The three OpenAI encodings as data: file, split pattern, special tokens.

These are public facts, as published in tiktoken's `tiktoken_ext/openai_public.py`; the
test suite checks them against tiktoken's own definitions. Only r50k_base (gpt2),
cl100k_base and o200k_base are here; p50k and the harmony variants are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


@dataclass(frozen=True)
class OpenAIEncoding:
    name: str
    file: str
    pattern: str
    special_tokens: dict[str, int]
    description: str
    explicit_n_vocab: int | None = None


OPENAI_ENCODINGS = {
    "gpt2": OpenAIEncoding(
        name="gpt2",
        file="r50k_base.tiktoken.gz",
        pattern=GPT2_PATTERN,
        special_tokens={ENDOFTEXT: 50256},
        description="GPT-2 and GPT-3 (r50k_base): byte-level BPE, 50,257 tokens",
        explicit_n_vocab=50257,
    ),
    "cl100k_base": OpenAIEncoding(
        name="cl100k_base",
        file="cl100k_base.tiktoken.gz",
        pattern=CL100K_PATTERN,
        special_tokens={ENDOFTEXT: 100257, FIM_PREFIX: 100258, FIM_MIDDLE: 100259, FIM_SUFFIX: 100260, ENDOFPROMPT: 100276},
        description="GPT-4, GPT-3.5-turbo and text-embedding-3 (cl100k_base), about 100k tokens",
    ),
    "o200k_base": OpenAIEncoding(
        name="o200k_base",
        file="o200k_base.tiktoken.gz",
        pattern=O200K_PATTERN,
        special_tokens={ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
        description="GPT-4o, GPT-4.1 and o-series models (o200k_base), about 200k tokens",
    ),
}
