"""The split patterns the C pretokenizer (pretokenize.c) implements, and their family numbers.

`FAMILIES` maps each pattern string tokenprism's tiktoken-style tokenizers use to the
`pretok_family` of app/bpe/csrc/split/pretokenize.h that cuts text exactly as that pattern does
under tiktoken's regex engine; a pattern not in it (a user's file) has no C pretokenizer.
The OpenAI ones are imported; llama3's and qwen3_6's are written here as well as in their
backends (which this module must not import: they will import it), and Tekken's comes from
its file: tests/bpe/test_pretokenize_families.py checks that each is here, under its family.

DEEPSEEK is deepseek_v4's pre-tokenizer (pretokenize_deepseek.c): a Sequence of three Splits with
the Hugging Face library's classes, so it has a number and a name but no pattern here.

Left out: the patterns' chunks themselves (pretokenize.c) and special tokens.
"""

from __future__ import annotations

from app.tokenizers.openai_encodings import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN

GPT2, CL100K, O200K, QWEN, TEKKEN, LLAMA3, DEEPSEEK = range(7)  # pretok_family in pretokenize.h

PATTERNS: dict[int, str] = {  # family -> its pattern string
    GPT2: GPT2_PATTERN,  # r50k_base (gpt2)
    CL100K: CL100K_PATTERN,  # cl100k_base
    O200K: O200K_PATTERN,  # o200k_base, o200k_harmony, llama4
    # qwen3_6
    QWEN: r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+""",
    # Mistral's tekken_240911.json
    TEKKEN: r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
    r"""|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
    r"""|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    # llama3
    LLAMA3: r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+""",
}

FAMILIES: dict[str, int] = {pattern: family for family, pattern in PATTERNS.items()}
NAMES: dict[int, str] = {
    GPT2: "gpt2",
    CL100K: "cl100k",
    O200K: "o200k",
    QWEN: "qwen",
    TEKKEN: "tekken",
    LLAMA3: "llama3",
    DEEPSEEK: "deepseek",  # three Hugging Face Splits in a row, not one pattern: no entry in PATTERNS
}
