"""The engine's memo of short whole tokens (app/bpe/csrc/engine/token_memo.h), against tiktoken:
a warm engine's ids when chunks differ only by their trailing NUL bytes (one head word, several
lengths), when thousands of short tokens take turns in the memo's slots, and when more engines
than a thread keeps caches for take turns on one thread, the same chunks having other ranks in
each (a cache's memo is its engine's alone).
"""

from __future__ import annotations

import random

import pytest
import tiktoken

from app.bpe._engine import Engine
from app.bpe.families import CL100K, O200K
from app.tokenizers.openai_encodings import O200K_PATTERN
from tests.reference import tiktoken_reference

NUL_TAILS = [b"!", b"!\x00", b"!\x00\x00", b"!\x00\x00\x00", b"!\x00\x00\x00\x00\x00\x00\x00", b"\x00", b"\x00\x00"]


def vocabulary(order: list[int], longer: list[bytes]) -> tuple[list[bytes], tiktoken.Encoding]:
    """The 256 bytes in `order`, then `longer`: the engine's tokens and tiktoken's encoding of them."""
    tokens = [bytes([b]) for b in order] + longer
    reference = tiktoken.Encoding(
        f"memo-{hash(tuple(tokens))}",
        pat_str=O200K_PATTERN,
        mergeable_ranks={token: rank for rank, token in enumerate(tokens)},
        special_tokens={},
    )
    return tokens, reference


def test_chunks_one_head_word_apart_only_by_their_length():
    tokens, reference = vocabulary(list(range(256)), [t for t in NUL_TAILS if len(t) > 1])
    engine = Engine(O200K, tokens)
    rng = random.Random(3)
    pieces = [t.decode() for t in NUL_TAILS]
    texts = ["1".join(rng.choice(pieces) for _ in range(rng.randrange(1, 60))) for _ in range(300)]
    for _ in range(3):  # the first round fills the memo; the next ones find it full
        for text in texts:
            assert engine.encode(text) == reference.encode_ordinary(text), repr(text)
    assert engine.encode_batch(texts) == [reference.encode_ordinary(text) for text in texts]


@pytest.mark.parametrize("name, family", [("o200k_base", O200K), ("cl100k_base", CL100K)])
def test_thousands_of_short_tokens_taking_turns_in_the_memo(name, family):
    reference = tiktoken_reference(name)
    ranks = reference._mergeable_ranks
    engine = Engine(family, sorted(ranks, key=ranks.__getitem__))
    words = [t.decode() for t in ranks if 2 <= len(t) <= 8 and t[:1] == b" " and t[1:].isalpha() and t.isascii()]
    rng = random.Random(13)
    rng.shuffle(words)
    text = "".join(words[:20000])  # more distinct chunks than the memo has slots: they collide
    assert len(set(words[:20000])) > 2 * 8192
    want = reference.encode_ordinary(text)
    for _ in range(3):
        assert engine.encode(text) == want
        assert engine.count(text) == len(want)


def test_more_engines_than_a_threads_caches_taking_turns():
    rng = random.Random(7)
    built = []
    for k in range(6):  # a thread keeps four engines' caches (chunk_cache.h's THREAD_CACHES)
        order = list(range(256))
        rng.shuffle(order)
        tokens, reference = vocabulary(order, [b"ab", b"abc", b" a", b"\x00\x00"][: k % 4 + 1])
        built.append((Engine(O200K, tokens, id_offset=k), reference, k))
    text = " ab, abc; a\x00\x00 ba! 12 " * 40 + "".join(chr(c) for c in range(32, 127))
    for _ in range(4):
        for engine, reference, offset in built:
            want = [rank + offset for rank in reference.encode_ordinary(text)]
            assert engine.encode(text) == want
            assert engine.count(text) == len(want)
    o200k = tiktoken_reference("o200k_base")
    ranks = o200k._mergeable_ranks
    real = Engine(O200K, sorted(ranks, key=ranks.__getitem__))
    for engine, reference, offset in [*built, (real, o200k, 0)]:  # a real vocabulary after them, and before
        assert engine.encode(text) == [rank + offset for rank in reference.encode_ordinary(text)]
