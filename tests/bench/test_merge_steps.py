"""bench/merge_steps.py: every rule's first pieces merge to the tokens the bytes merge to (the
argument of char_atoms.h, for wider atoms), the check of crossing tokens is what keeps that
so, and the counts add up. On o200k_base's first 6,000 ranks (a prefix of a BPE vocabulary is
one) and chunks drawn from several scripts."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import merge_steps

from tests import reference

ALPHABET = "etaoinshrd lucmfyw .,'-_0123456789 приветмирдоа ώσταλην 東京都人の日本語 جميلة 🎉"


@pytest.fixture(scope="module")
def vocabulary() -> merge_steps.Vocabulary:
    ranks = reference.tiktoken_reference("o200k_base")._mergeable_ranks
    return merge_steps.Vocabulary({t: r for t, r in ranks.items() if r < 6000}, depth=8)


@pytest.fixture(scope="module")
def chunks(vocabulary) -> list[bytes]:
    draw = random.Random(25)
    found = {"".join(draw.choices(ALPHABET, k=draw.randint(2, 14))).encode() for _ in range(1500)}
    return sorted(c for c in found if c not in vocabulary.ranks)


@pytest.fixture(scope="module")
def truth(vocabulary, chunks) -> list[list[bytes]]:
    return merge_steps.byte_merges(vocabulary, chunks)


def test_every_rule_merges_every_chunk_as_its_bytes_do(vocabulary, chunks, truth):
    for label, longest, fits, kinds in merge_steps.rules(6):
        found = merge_steps.steps(vocabulary, chunks, longest, fits, kinds, truth)
        assert found["differs"] == 0, label


def test_the_truth_given_once_counts_as_the_truth_made_each_time(vocabulary, chunks, truth):
    for _, *rest in merge_steps.rules(6)[:2]:
        assert merge_steps.steps(vocabulary, chunks, *rest, truth) == merge_steps.steps(vocabulary, chunks, *rest)


def test_wider_atoms_start_from_fewer_pieces_than_bytes(vocabulary, chunks, truth):
    by_label = {label: merge_steps.steps(vocabulary, chunks, *rest, truth) for label, *rest in merge_steps.rules(6)}
    assert by_label["bytes"]["pieces"] == sum(map(len, chunks))
    assert by_label["whole chunk, up to 6"]["pieces"] < by_label["chars and pairs, tables (today)"]["pieces"]
    assert by_label["chars and pairs, tables (today)"]["pieces"] < by_label["bytes"]["pieces"]


def test_without_the_crossing_check_some_chunk_merges_otherwise(vocabulary, chunks):
    """What the check guards against happens on these chunks: a token taken whole wherever it
    merges from its own bytes gives other tokens somewhere."""
    reckless = merge_steps.steps(vocabulary, chunks, 6, lambda *_: True, lambda s: True)
    assert reckless["differs"] > 0


def test_a_pair_whose_left_byte_merges_first_with_the_byte_before_is_not_an_atom():
    # ranks: b"ab" (3) before b"bc" (4): in "abc" the pair "bc" may not start whole
    v = merge_steps.Vocabulary({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4}, depth=4)
    for fits in (merge_steps._one_byte, merge_steps._tables, merge_steps._whole):
        assert not fits(v, b"abc", 1, 3, v.inner(b"bc"))
        assert merge_steps.first_pieces(v, b"abc", 2, fits, lambda s: True) == [b"ab", b"c"]
        assert merge_steps.first_pieces(v, b"xbc", 2, fits, lambda s: True) == [b"x", b"bc"]
    assert v.merge([b"a", b"bc"]) != v.merge([b"a", b"b", b"c"])  # what taking "bc" would give
