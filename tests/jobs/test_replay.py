"""The merge replay (app/bpe/replay.py): a bpe model cut to its first k merges gives the naive
BPE encoder's ids, and the token counts of every k, made in one pass, equal encoding with each cut."""

from __future__ import annotations

import itertools
import random

import pytest
import regex

from app.bpe import replay
from app.bpe.model import PATTERNS, BPETokenizer
from app.errors import InvalidInput
from tests.bpe.test_bpe_vs_naive import naive_merge
from tests.reference import stdlib_texts


def naive_encode(
    text: str, pattern: str | None, pairs: list[tuple[int, int]], k: int, byte_ids=range(256)
) -> list[int]:
    """minbpe's encoder with only the first k merges: in each chunk, merge the pair of lowest rank, repeatedly."""
    merges = {pair: 256 + i for i, pair in enumerate(pairs[:k])}
    out = []
    for chunk in regex.findall(pattern, text) if pattern else [text] if text else []:
        ids = [byte_ids[b] for b in chunk.encode("utf-8")]
        while len(ids) >= 2:
            pair = min(set(itertools.pairwise(ids)), key=lambda p: merges.get(p, float("inf")))
            if pair not in merges:
                break
            ids = naive_merge(ids, pair, merges[pair])
        out += ids
    return out


@pytest.fixture(scope="module")
def trained() -> BPETokenizer:
    corpus = [text for _, text in stdlib_texts(4, 8_000)]
    return BPETokenizer.train(corpus, 256 + 200 + 1, pattern="gpt4", special_tokens=["<|end|>"], name="replayed")


SAMPLE = stdlib_texts(12, 2_000)[-1][1] + " naïve 😀 한국어 <|end|>"


@pytest.mark.parametrize("k", [0, 1, 2, 13, 99, 200])
def test_first_k_merges_give_the_naive_encoders_ids(trained, k):
    cut = replay.with_first_merges(trained, k)
    pairs = replay.pairs_of(trained)
    assert cut.encode(SAMPLE) == naive_encode(SAMPLE, PATTERNS["gpt4"], pairs, k)
    assert b"".join(t.bytes for t in cut.tokenize(SAMPLE)) == SAMPLE.encode("utf-8")
    assert cut.vocab_size == trained.vocab_size  # the special token keeps its id, after all the merges
    assert cut.encode("<|end|>", allow_special=True) == [trained.special_tokens["<|end|>"]]


def test_the_shipped_model_and_a_permuted_byte_table(registry):
    model = registry.get("tokenprism_4k")
    pairs = replay.pairs_of(model)
    for k in (0, 5, 500, len(pairs)):
        assert replay.with_first_merges(model, k).encode(SAMPLE) == naive_encode(SAMPLE, PATTERNS["gpt4"], pairs, k)
    byte_ids = list(range(256))
    random.Random(7).shuffle(byte_ids)
    permuted = BPETokenizer({}, pattern_name="gpt2", byte_ids=byte_ids)  # no merges: the byte table alone
    assert replay.with_first_merges(permuted, 0).encode("ab") == [byte_ids[97], byte_ids[98]]


@pytest.mark.parametrize("pattern", ["gpt4", "gpt2", "none"])
def test_token_counts_of_every_k_equal_encoding_with_each_cut(pattern):
    corpus = [text for _, text in stdlib_texts(3, 3_000)]
    model = BPETokenizer.train(corpus, 256 + 120, pattern=pattern)
    text = SAMPLE[:600] if pattern != "none" else SAMPLE[:300]
    counts = replay.token_counts(model, text)
    assert len(counts) == len(model.merges) + 1
    assert counts[0] == len(text.encode("utf-8"))
    for k in range(len(counts)):
        assert counts[k] == len(replay.with_first_merges(model, k).encode(text)), k
    assert replay.token_counts(model, text) is counts  # cached for the slider


def test_k_out_of_range_names_the_range(trained):
    for bad in (-1, 201, True, 1.5):
        with pytest.raises(InvalidInput) as caught:
            replay.with_first_merges(trained, bad)
        assert "from 0 (raw bytes) to 200" in caught.value.message


def test_merge_rows_and_the_kind_check(trained, registry):
    rows = replay.merge_rows(trained, 0, 3)
    pairs = replay.pairs_of(trained)
    assert [(r["left"], r["right"]) for r in rows] == pairs[:3]
    assert [r["id"] for r in rows] == [256, 257, 258]
    assert all(bytes.fromhex(r["bytes"]) == trained.id_to_bytes(r["id"]) for r in rows)
    assert replay.merge_rows(trained, 199, 10)[0]["id"] == 455 and replay.merge_rows(trained, 500, 10) == []
    with pytest.raises(InvalidInput) as caught:
        replay.bpe_model(registry, "cl100k_base")
    assert "cl100k_base is a tiktoken tokenizer" in caught.value.message and "tokenprism_4k" in caught.value.message
