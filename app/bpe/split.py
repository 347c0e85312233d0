"""Splitting text into the chunks BPE merges within, by a split pattern from a model file.

The known patterns (gpt2, gpt4) are linear and match every character, so `bpe` runs them
as they are. A custom pattern comes from a file and is not trusted: `compile_custom` has a
sandbox child (app/sandbox) compile it within a memory bound before this process compiles
it, and refuses one that is invalid or too large to compile, one with a capturing group
(findall would return the group, not the match), one whose matches do not cover
PROBE_TEXT, and one that backtracks on it for over PROBE_TIMEOUT_S. `split` then runs it under a deadline that grows with the text and
checks that the chunks cover the whole text; either failure is an `InvalidInput` naming
the tokenizer, never a silent loss of text or a request that runs for minutes.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import regex

from app import sandbox
from app.errors import InvalidInput

SPLIT_TIMEOUT_S = 1.0  # a custom pattern's time for one text: this plus SPLIT_TIMEOUT_PER_CHAR_S per character
SPLIT_TIMEOUT_PER_CHAR_S = 5e-6  # 10 to 50 times what o200k_base's pattern takes
PROBE_TIMEOUT_S = 0.25
FIX = "use a named pattern such as gpt4, or a simpler regex"
PROBE_TEXT = (
    "Hello, World! It's 2024; we'll see... I'M HERE, don't.\n"
    "naïve café Ærøskøbing Ελληνικά русский 中文 한국어 العربية हिन्दी ไทย\n"
    "\tdef f(x):\r\n        return x**2 + 1_000  # ok?\n\n\n"
    "😀👍🏽👨\u200d👩\u200d👧 🇫🇷 e\u0301 \u00a0\u200b\u3000 $€¥ 3.14e-10 0xFF\n"
    + "a" * 40
    + "!"
    + "7" * 40
    + "x"
    + " " * 40
    + "\n"
    + "-" * 40
    + "y"
    + "\n" * 3
    + "   "
)


def compile_custom(pattern: str) -> regex.Pattern:
    """`pattern` compiled, or `InvalidInput` saying why it cannot split text safely."""
    sandbox.check_pattern(pattern, "split pattern", FIX)
    compiled = regex.compile(pattern)
    shown = repr(pattern[:200])
    if compiled.groups:
        raise InvalidInput(f"split pattern {shown} has a capturing group; write (?:...) instead of (...)")
    try:
        chunks = compiled.findall(PROBE_TEXT, timeout=PROBE_TIMEOUT_S)
    except TimeoutError:
        raise InvalidInput(
            f"split pattern {shown} is too slow: it takes over {PROBE_TIMEOUT_S} s on a {len(PROBE_TEXT)}-character "
            "test text (catastrophic backtracking); use the gpt4 pattern"
        ) from None
    if "".join(chunks) != PROBE_TEXT:
        raise InvalidInput(
            f"split pattern {shown} drops text: its matches do not cover a test text, so tokens would lose "
            r"characters; a split pattern must match every character (end it with |\s|.)"
        )
    return compiled


def deadline(text: str) -> float:
    """When a custom pattern must be done splitting `text` (time.monotonic seconds)."""
    return time.monotonic() + SPLIT_TIMEOUT_S + len(text) * SPLIT_TIMEOUT_PER_CHAR_S


def split(findall: Callable[..., list[str]], text: str, until: float, tokenizer: str) -> list[str]:
    """The chunks of `text` by a custom pattern's `findall`, done by `until` and covering `text`."""
    retrain = f"use another tokenizer, or train {tokenizer} again with the gpt4 pattern"
    try:
        chunks = findall(text, timeout=max(until - time.monotonic(), 0.001))
    except TimeoutError:
        raise InvalidInput(
            f"tokenizer {tokenizer}'s split pattern is too slow for this text (it backtracks); {retrain}",
            code="split_pattern_too_slow",
        ) from None
    if sum(map(len, chunks)) != len(text):
        raise InvalidInput(
            f"tokenizer {tokenizer}'s split pattern skips characters of this text from position "
            f"{_first_gap(chunks, text)} on, which no token would show; {retrain}",
            code="split_pattern_drops_text",
        )
    return chunks


def _first_gap(chunks: list[str], text: str) -> int:
    """Where the first character of `text` that no chunk covers is."""
    position = 0
    for chunk in chunks:
        if not text.startswith(chunk, position):
            break
        position += len(chunk)
    return position
