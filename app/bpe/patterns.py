"""The split patterns a bpe model names: "gpt2", "gpt4" (cl100k_base's), "none" (the text is
one chunk) and "custom" (a regex of its own, kept in the model file). Leaves splitting itself
to `split` and the model."""

from __future__ import annotations

from app.errors import InvalidInput, excerpt
from app.tokenizers.openai_encodings import CL100K_PATTERN, GPT2_PATTERN

PATTERNS = {"gpt2": GPT2_PATTERN, "gpt4": CL100K_PATTERN, "none": None}  # name -> regex (None: no split)
CUSTOM_PATTERN = "custom"  # pattern_name of a model recovered with a regex that is not one of PATTERNS


def resolve_pattern(pattern: str) -> tuple[str, str | None]:
    """A pattern name ("gpt2", "gpt4", "none") or a raw regex -> (pattern_name, regex)."""
    if pattern in PATTERNS:
        return pattern, PATTERNS[pattern]
    for name, known in PATTERNS.items():
        if known == pattern:
            return name, known
    raise InvalidInput(f"unknown split pattern {excerpt(pattern)}; use one of: {', '.join(PATTERNS)}")
