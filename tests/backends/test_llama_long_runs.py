"""llama3 and llama4 on long runs: llama-models' encode cuts every whitespace or non-whitespace
run at 25,000 characters and the text into 400,000-character blocks; ours cuts at the same
places, so ids still equal the reference (tests/reference.py) where plain tiktoken's differ."""

from __future__ import annotations

import itertools
import random

import pytest

from app.backends.llama_backend import cut_points
from tests.reference import llama_reference, reference_ids

LONG_TEXTS = {
    "spaces": "a" + " " * 60_001 + "b",
    "digits": "x " + "7" * 50_003 + " y",
    "cjk run": "東京" * 13_000 + " end",
    "newlines and tabs": "line\n" + "\t\n " * 9_000 + "z",
    "special strings as text": "<|eot_id|><|eot|><|header_start|>" * 1_000,
}


@pytest.mark.parametrize("name", ["llama3", "llama4"])
@pytest.mark.parametrize("label", sorted(LONG_TEXTS))
def test_long_runs_equal_the_reference(registry, name, label):
    text = LONG_TEXTS[label]
    assert registry.get(name).encode(text) == reference_ids(name, text)


@pytest.mark.parametrize("name", ["llama3", "llama4"])
def test_the_cut_changes_the_ids(registry, name):
    """Without the cut, tiktoken would merge across the 25,000th digit: the rule is not idle."""
    text = "9" * 25_001
    ours = registry.get(name)
    assert ours.encode(text) == reference_ids(name, text) != ours.encoding.encode(text, disallowed_special=())


@pytest.mark.parametrize("name", ["llama3", "llama4"])
def test_a_text_over_one_block_equals_the_reference(registry, name):
    rng = random.Random(20)
    words = ["naïve", "東京", "1234567", "  ", "\n", "<|eot_id|>", "ab" * 30, "😀", "ok"]
    text = "".join(rng.choice(words) for _ in range(90_000))
    text = text[:399_990] + "q" * 30_000 + text[399_990:]  # a run across the 400,000 boundary
    assert len(text) > 400_000
    for allow_special in (False, True):
        assert registry.get(name).encode(text, allow_special) == reference_ids(name, text, allow_special)
    tokens = registry.get(name).tokenize(text)
    assert b"".join(t.bytes for t in tokens) == text.encode("utf-8")


def test_cut_points_follow_the_reference_rule():
    splitter = llama_reference("llama3")._split_whitespaces_or_nonwhitespaces
    rng = random.Random(7)
    for _ in range(30):
        text = "".join(
            rng.choice(["a" * rng.randint(1, 30_000), " " * rng.randint(1, 30_000), "\u3000", "b c"])
            for _ in range(rng.randint(1, 8))
        )
        text = text[:400_000]
        pieces = list(splitter(text, 25_000))
        bounds = [0, *cut_points(text), len(text)]
        assert [text[a:b] for a, b in itertools.pairwise(bounds)] == pieces
