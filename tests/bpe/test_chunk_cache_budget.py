"""The chunk caches' budget (app/bpe/csrc/engine/chunk_cache.h): a cache's generations grow
past their own GEN_ENTRIES chunks only on the process's shared budget, which no number of
threads exceeds, and which a thread gives back when it ends or when its cache passes to
another engine; the ids stay tiktoken's whatever the caches hold, on a first pass and on the
passes a long-lived engine makes again. Each scenario runs in a child process of its own: the
budget is the process's, and a test worker's other threads (a server's) hold and free some of it."""

from __future__ import annotations

import itertools
import subprocess
import sys
import threading
import time
from pathlib import Path

from app.bpe import _engine
from app.bpe.engine import Encoder
from app.tokenizers.openai_encodings import CL100K_PATTERN
from tests.reference import tiktoken_reference

OWN = 8192  # chunk_cache.h's GEN_ENTRIES: what a generation holds without the budget
CONSONANTS = "bcdfghjklmnpqrstvwxz"


def words(count: int, first: str) -> list[str]:
    """`count` distinct words none of which is one cl100k_base token, all starting with `first`."""
    made = (f" {first}{''.join(rest)}q" for rest in itertools.product(CONSONANTS, repeat=4))
    return list(itertools.islice(made, count))


ROOT = Path(__file__).resolve().parents[2]


def in_child(scenario: str) -> None:
    """Runs this module's `scenario` in a fresh Python process; fails with its output if it fails."""
    code = f"import tests.bpe.test_chunk_cache_budget as t; t.{scenario}()"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_engines_passes_over_more_chunks_than_a_generation_holds_give_tiktokens_ids():
    in_child("passes_over_more_chunks_than_a_generation_holds")


def test_threads_never_hold_more_than_the_budget_and_give_it_back_when_they_end():
    in_child("threads_within_the_budget")


def test_a_cache_passed_to_another_engine_gives_back_what_it_grew_on_the_budget():
    in_child("cache_passed_to_another_engine")


def cl100k():
    return tiktoken_reference("cl100k_base")


def encoder(reference, offset: int = 0) -> Encoder:
    return Encoder.for_pattern(CL100K_PATTERN, reference._mergeable_ranks, "cl100k_base", id_offset=offset)


def passes_over_more_chunks_than_a_generation_holds() -> None:
    reference = cl100k()
    text = "".join(words(3 * OWN, "b"))
    expected = reference.encode_ordinary(text)
    engine = encoder(reference)
    before = _engine.cache_budget()[0]
    for _ in range(3):
        assert engine.encode(text) == expected
    assert _engine.cache_budget()[0] - before > 0  # the generations grew past their own size on the budget


def threads_within_the_budget() -> None:
    reference = cl100k()
    used_before, budget = _engine.cache_budget()
    texts = ["".join(words(5 * OWN, first)) for first in "cdfghj"]
    expected = [reference.encode_ordinary(text) for text in texts]
    all_grown = threading.Barrier(len(texts))
    held: list[int] = []
    engine = encoder(reference)

    def count(k: int) -> None:
        assert engine.encode(texts[k]) == expected[k]
        assert engine.encode(texts[k]) == expected[k]
        all_grown.wait(timeout=60)  # every thread's caches alive at once
        held.append(_engine.cache_budget()[0])
        all_grown.wait(timeout=60)

    threads = [threading.Thread(target=count, args=(k,)) for k in range(len(texts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(held) == len(texts)
    assert all(used_before < used <= budget for used in held), (held, budget)
    assert returns_to(used_before)


def returns_to(used: int, seconds: float = 10.0) -> bool:
    """Whether the budget in use comes back to `used`: a thread's caches are freed as it exits,
    just after join() has returned."""
    deadline = time.monotonic() + seconds
    while _engine.cache_budget()[0] != used:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def cache_passed_to_another_engine() -> None:
    reference = cl100k()
    big = "".join(words(3 * OWN, "k"))
    small = " zqxv zqxw zqxz"
    start = _engine.cache_budget()[0]
    first = encoder(reference)
    first.encode(big)
    grown = _engine.cache_budget()[0] - start
    others = [encoder(reference, offset) for offset in range(1, 5)]  # a thread keeps four caches
    for offset, other in enumerate(others, start=1):
        assert other.encode(small) == [i + offset for i in reference.encode_ordinary(small)]
    assert grown > 0 and _engine.cache_budget()[0] - start == 0
