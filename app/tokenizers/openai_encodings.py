"""The OpenAI encodings as data: file, split pattern, special tokens.

These are public facts, as published in tiktoken's `tiktoken_ext/openai_public.py`; the
test suite checks them against tiktoken's own definitions. Here: r50k_base (gpt2),
cl100k_base, o200k_base and o200k_harmony (gpt-oss: o200k_base's ranks and pattern with
the harmony chat format's special tokens); p50k is left out.
"""

from __future__ import annotations

from dataclasses import dataclass

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
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

# o200k_harmony's special tokens, as tiktoken 0.14 defines them (tiktoken_ext/openai_public.py,
# `o200k_harmony`): o200k_base's two, the harmony tokens, and <|reserved_N|> for every id
# from 200013 to 201087. Built in tiktoken's order: 200018 has two names there
# (<|endofprompt|> and <|reserved_200018|>), and which one it decodes to follows the order.
O200K_HARMONY_SPECIALS = {
    ENDOFTEXT: 199999,
    ENDOFPROMPT: 200018,
    "<|startoftext|>": 199998,
    "<|reserved_200000|>": 200000,
    "<|reserved_200001|>": 200001,
    "<|return|>": 200002,
    "<|constrain|>": 200003,
    "<|reserved_200004|>": 200004,
    "<|channel|>": 200005,
    "<|start|>": 200006,
    "<|end|>": 200007,
    "<|message|>": 200008,
    "<|reserved_200009|>": 200009,
    "<|reserved_200010|>": 200010,
    "<|reserved_200011|>": 200011,
    "<|call|>": 200012,
} | {f"<|reserved_{i}|>": i for i in range(200013, 201088)}


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
        special_tokens={
            ENDOFTEXT: 100257,
            FIM_PREFIX: 100258,
            FIM_MIDDLE: 100259,
            FIM_SUFFIX: 100260,
            ENDOFPROMPT: 100276,
        },
        description="GPT-4, GPT-3.5-turbo and text-embedding-3 (cl100k_base), about 100k tokens",
    ),
    "o200k_base": OpenAIEncoding(
        name="o200k_base",
        file="o200k_base.tiktoken.gz",
        pattern=O200K_PATTERN,
        special_tokens={ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
        description="GPT-4o, GPT-4.1 and o-series models (o200k_base), about 200k tokens",
    ),
    "o200k_harmony": OpenAIEncoding(
        name="o200k_harmony",
        file="o200k_base.tiktoken.gz",
        pattern=O200K_PATTERN,
        special_tokens=O200K_HARMONY_SPECIALS,
        description=(
            "gpt-oss-20b/120b (o200k_harmony): o200k_base with the harmony chat format's special tokens, 201,088 ids"
        ),
    ),
}
