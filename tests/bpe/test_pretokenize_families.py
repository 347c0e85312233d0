"""Every split pattern tokenprism's tiktoken-style tokenizers use is a family of the C
pretokenizer (app/bpe/families.py), the right one, with the number pretokenize.h gives it."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import regex

from app.backends.llama_backend import LLAMA3_PATTERN
from app.backends.qwen_backend import QWEN3_5_PATTERN
from app.bpe import families
from app.bpe.families import FAMILIES, NAMES, PATTERNS
from app.tokenizers.openai_encodings import O200K_PATTERN, OPENAI_ENCODINGS

ROOT = Path(__file__).resolve().parents[2]


def tekken_pattern() -> str:
    return json.loads(gzip.decompress((ROOT / "tokenizers/tekken_240911.json.gz").read_bytes()))["config"]["pattern"]


def test_each_tokenizers_pattern_is_its_family():
    used = {
        "gpt2": (OPENAI_ENCODINGS["gpt2"].pattern, families.GPT2),
        "cl100k_base": (OPENAI_ENCODINGS["cl100k_base"].pattern, families.CL100K),
        "o200k_base": (OPENAI_ENCODINGS["o200k_base"].pattern, families.O200K),
        "o200k_harmony": (OPENAI_ENCODINGS["o200k_harmony"].pattern, families.O200K),
        "llama4": (O200K_PATTERN, families.O200K),  # app/tokenizers/builtins.py
        "llama3": (LLAMA3_PATTERN, families.LLAMA3),
        "qwen3_6": (QWEN3_5_PATTERN, families.QWEN),
        "mistral_tekken": (tekken_pattern(), families.TEKKEN),
    }
    assert {name: FAMILIES.get(pattern) for name, (pattern, _) in used.items()} == {
        name: family for name, (_, family) in used.items()
    }


def test_the_families_are_distinct_patterns_that_cut_differently():
    assert len(FAMILIES) == len(PATTERNS) == len(NAMES) - 1  # deepseek's cut is not one pattern
    assert set(NAMES) - set(PATTERNS) == {families.DEEPSEEK}
    # llama3's pattern is cl100k's older form: the same chunks but at the very end of a text.
    text = "a\n  "
    assert regex.findall(PATTERNS[families.CL100K], text) == ["a", "\n  "]
    assert regex.findall(PATTERNS[families.LLAMA3], text) == ["a", "\n", "  "]


def test_the_numbers_are_pretokenize_hs():
    header = (ROOT / "app/bpe/csrc/split/pretokenize.h").read_text()
    numbers = {name.lower(): int(number) for name, number in re.findall(r"PRETOK_(\w+) = (\d+)", header)}
    assert numbers == {name: family for family, name in NAMES.items()}
    assert "PRETOK_FAMILIES\n" in header and max(numbers.values()) == len(NAMES) - 1
