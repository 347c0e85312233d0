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


@pytest.mark.parametrize(
    "text",
    [
        "",
        " " * 25_000,
        " " * 25_001,
        "a" * 50_001,
        "\x1c\x85\u3000\u2028" * 6_251,  # whitespace str.isspace knows and ASCII's \s does not
        "x" + "\u00a0" * 25_001 + "y",
        "y" + "\u1680\u2000\u200a\u202f\u205f" * 5_001 + "z",
        "y " + "\u00e9\u4e2d" * 12_501 + " z",
        "a" * 399_999 + " " * 2,  # a run cut by the block
    ],
    ids=[
        "empty",
        "25,000 spaces",
        "25,001 spaces",
        "50,001 letters",
        "odd whitespace",
        "no-break spaces",
        "spaces past U+1680",
        "letters past ASCII",
        "block",
    ],
)
def test_cut_points_at_the_edges_follow_the_reference_rule(text):
    splitter = llama_reference("llama3")._split_whitespaces_or_nonwhitespaces
    bounds = [0, *cut_points(text), len(text)] if text else [0]
    blocks = [text[i : i + 400_000] for i in range(0, len(text), 400_000)]
    pieces = [piece for block in blocks for piece in splitter(block, 25_000)]
    assert [text[a:b] for a, b in itertools.pairwise(bounds)] == pieces


def test_whitespace_beyond_ascii_is_only_where_run_cuts_asks_for_it():
    # run_cuts.h asks Python's isspace only for U+0085, U+00A0, U+1680 and U+2000..U+3000.
    asked = {0x85, 0xA0, 0x1680, *range(0x2000, 0x3001)}
    assert [hex(c) for c in range(128, 0x110000) if chr(c).isspace() and c not in asked] == []


def test_run_cuts_refuses_a_zero_size():
    from app.bpe._engine import run_cuts

    with pytest.raises(ValueError, match=">= 1"):
        run_cuts("text", 0, 25_000)


@pytest.mark.parametrize("length", [24_999, 25_000, 25_001])
@pytest.mark.parametrize("space", [False, True], ids=["letters", "spaces"])
def test_a_run_found_wherever_it_lies_against_every_25000th_character(length, space):
    """run_cuts.h measures only the runs through every 25,000th character of a block: a run one
    longer than the limit is cut, one at the limit is not, at every offset around those."""
    splitter = llama_reference("llama3")._split_whitespaces_or_nonwhitespaces
    run, other = (" ", "w") if space else ("w", " ")
    for offset in [0, 1, 2, 24_998, 24_999, 25_000, 25_001, 49_999, 50_000, 374_999, 375_000, 375_001]:
        text = ("a b " * 100_000)[:offset] + other + run * length + other + "c d" * 10
        bounds = [0, *cut_points(text), len(text)]
        blocks = [text[i : i + 400_000] for i in range(0, len(text), 400_000)]
        pieces = [piece for block in blocks for piece in splitter(block, 25_000)]
        assert [text[a:b] for a, b in itertools.pairwise(bounds)] == pieces, offset
