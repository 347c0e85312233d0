"""The engine's lists of ids when a batch lets the GIL go (app/bpe/csrc/engine/id_ints.h): made with the
GIL, filled without it from the ints already made (on 3.12, the ints not made yet made with it
again), while other threads encode and build engines whose ids need new ints (new blocks of
ints on 3.11, a bigger table of them on 3.12)."""

from __future__ import annotations

import threading

from app.bpe._engine import Engine
from app.bpe.engine import family_of
from app.tokenizers.openai_encodings import O200K_PATTERN
from tests.reference import tiktoken_reference

WORDS = [
    "the",
    "engine",
    "fills",
    "lists",
    "of",
    "ids",
    "without",
    "the",
    "lock",
    "über",
    "straße",
    "東京",
    "Москва",
    "😀",
]


def _documents(count: int, seed: int) -> list[str]:
    """`count` texts of ~1 KB, enough for a batch to let the GIL go (4 KB)."""
    return [
        " ".join(WORDS[(seed + d * 7 + w * w) % len(WORDS)] + str((d * w) % 97) for w in range(150))
        for d in range(count)
    ]


def test_ids_never_handed_out_before_are_made_after_the_fill():
    # An id_offset no engine has used: none of the batch's ints exist, every item of every
    # list is made after the fill without the GIL.
    reference = tiktoken_reference("o200k_base")
    tokens = sorted(reference._mergeable_ranks, key=reference._mergeable_ranks.__getitem__)
    engine = Engine(family_of(O200K_PATTERN), tokens, 300_000)
    texts = _documents(40, 1)
    expected = [[i + 300_000 for i in reference.encode_ordinary(text)] for text in texts]
    assert engine.encode_batch(texts) == expected
    assert engine.encode_batch(texts) == expected  # now from the ints made the first time
    assert engine.encode("".join(texts)) == [i + 300_000 for i in reference.encode_ordinary("".join(texts))]


def test_lists_fill_while_other_threads_make_ints_and_outgrow_their_table():
    # (Ints are never freed: the offsets here stay small, ~32 MB of blocks on 3.11.)
    reference = tiktoken_reference("o200k_base")
    tokens = sorted(reference._mergeable_ranks, key=reference._mergeable_ranks.__getitem__)
    family = family_of(O200K_PATTERN)
    texts = _documents(60, 2)
    expected = [reference.encode_ordinary(text) for text in texts]
    failures: list[str] = []
    start = threading.Barrier(3)

    def encode(offset: int) -> None:
        engine = Engine(family, tokens, offset)
        start.wait()
        for _ in range(8):
            if engine.encode_batch(texts) != [[i + offset for i in ids] for ids in expected]:
                failures.append(f"offset {offset}")

    def outgrow() -> None:
        start.wait()
        # new blocks of ints (3.12: past the table, a new one twice as big, then in it)
        for offset in (960_000, 1_180_000):
            engine = Engine(family, tokens, offset)
            if engine.encode(texts[0]) != [i + offset for i in expected[0]]:
                failures.append(f"grown to {offset}")

    threads = [threading.Thread(target=encode, args=(offset,)) for offset in (520_000, 740_000)]
    threads.append(threading.Thread(target=outgrow))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_the_lists_filled_without_the_gil_behave_as_any_list():
    # Their items are not zeroed before the fill (3.11): every one must be set, the size and the
    # room must be a list's own, so that growing, shrinking, slicing and freeing them work.
    reference = tiktoken_reference("o200k_base")
    tokens = sorted(reference._mergeable_ranks, key=reference._mergeable_ranks.__getitem__)
    engine = Engine(family_of(O200K_PATTERN), tokens)
    text = "".join(_documents(16, 3))
    expected = reference.encode_ordinary(text)
    assert len(expected) >= 4096  # enough for the fill without the GIL
    one = engine.encode(text)
    many = engine.encode_batch([text, text[:5000], text])
    for ids in (one, many[0], many[2]):
        assert type(ids) is list and len(ids) == len(expected) and ids == expected
        assert all(type(i) is int for i in ids)
    part = reference.encode_ordinary(text[:5000])
    assert many[1] == part
    one.append(-1)
    one.extend(range(3))
    assert one[: len(expected)] == expected and one[len(expected) :] == [-1, 0, 1, 2]
    del one[100:]
    assert one == expected[:100]
    many[0].sort()
    assert many[0] == sorted(expected)
    many[2].clear()
    assert many[2] == [] and many == [sorted(expected), part, []]


def test_ids_whose_ints_lie_in_one_region_or_in_several_give_the_same_lists():
    # An engine whose ids had no ints yet gets them in one region (found from one base); one
    # whose ids start in blocks an earlier engine made and end in new ones finds each by its
    # block. Both fill without the GIL (one text of > 4,096 ids) and in a batch.
    reference = tiktoken_reference("o200k_base")
    tokens = sorted(reference._mergeable_ranks, key=reference._mergeable_ranks.__getitem__)
    texts = _documents(20, 4)
    expected = [reference.encode_ordinary(text) for text in texts]
    whole = reference.encode_ordinary("".join(texts))
    for offset in (1_500_000, 1_600_000):  # blocks 22-25 made together, then 24-25 again and 26-27 anew
        engine = Engine(family_of(O200K_PATTERN), tokens, offset)
        assert engine.encode("".join(texts)) == [i + offset for i in whole]
        assert engine.encode_batch(texts) == [[i + offset for i in ids] for ids in expected]


def test_short_lists_filled_with_the_gil_held_behave_as_any_list():
    # Fewer ids than the fill without the GIL takes: made unfilled and filled the same way
    # (3.11), so every item set, an empty text's list empty, and each list grows and frees.
    reference = tiktoken_reference("o200k_base")
    tokens = sorted(reference._mergeable_ranks, key=reference._mergeable_ranks.__getitem__)
    engine = Engine(family_of(O200K_PATTERN), tokens)
    texts = ["".join(_documents(1, 5))[:700], "", "one", "naïve 東京 😀 x" * 20]
    expected = [reference.encode_ordinary(text) for text in texts]
    assert all(len(ids) < 4096 for ids in expected)
    for got in ([engine.encode(text) for text in texts], engine.encode_batch(texts)):
        assert got == expected and all(type(i) is int for ids in got for i in ids)
        got[0].append(-1)
        got[1].extend([5, 6])
        got[3].sort()
        del got[2][:]
        assert got == [[*expected[0], -1], [5, 6], [], sorted(expected[3])]
