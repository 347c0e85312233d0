"""app/bpe/heap.py: with glibc's top pad and mmap threshold set (the engine's modules do it when
imported), an `encode_batch` reuses the memory of the call before instead of page-faulting fresh
pages for its lists: ~650 minor faults for a MB of 1 KB documents, on one thread or two, before;
none after; and an `encode` of a MB as one text (its 2 MB list and its ids) ~700 before, none
after. Counted with getrusage (the process's minor faults, every thread's), after two warm-up
calls. What an engine's tables give back when it goes: test_memory_server.py."""

from __future__ import annotations

import resource
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from app.bpe import heap
from tests.reference import stdlib_texts

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator only")

ROOT = Path(__file__).resolve().parents[2]
MB_OF_CODE = "".join(text for _, text in stdlib_texts(60, 40_000))[:1_000_000]
FEW_FAULTS = 64  # pages: a call whose lists came from fresh pages faults ten times as many


def faults_of(call) -> int:
    for _ in range(2):
        call()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    result = call()
    after = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    assert result  # the ids were made, not skipped
    return after - before


def test_the_top_pad_is_set_once():
    assert heap.keep() is True
    assert heap.keep() is True


# In a process of its own: what the heap holds decides where a 2 MB block fits, and a test
# process's heap depends on the tests run before (live blocks made between two calls can make
# the next take fresh pages); a server's calls mostly find the room the call before freed.
ONE_TEXT = """
from app.bpe.engine import Encoder
from app.tokenizers.openai_encodings import O200K_PATTERN
from tests.bpe.test_heap import MB_OF_CODE, faults_of
from tests.reference import tiktoken_reference
encoder = Encoder.for_pattern(O200K_PATTERN, tiktoken_reference("o200k_base")._mergeable_ranks, "o200k_base")
print(faults_of(lambda: encoder.encode(MB_OF_CODE)))
"""


def test_one_long_text_reuses_the_memory_of_the_call_before(o200k):
    encoder, reference = o200k
    assert encoder.encode(MB_OF_CODE[:20_000]) == reference.encode_ordinary(MB_OF_CODE[:20_000])
    run = subprocess.run([sys.executable, "-c", ONE_TEXT], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) < FEW_FAULTS


def test_a_batch_reuses_the_memory_of_the_call_before(o200k):
    encoder, reference = o200k
    documents = [MB_OF_CODE[k : k + 1000] for k in range(0, len(MB_OF_CODE), 1000)]
    assert len(MB_OF_CODE) == 1_000_000
    assert encoder.encode_batch(documents[:50]) == [reference.encode_ordinary(d) for d in documents[:50]]
    assert faults_of(lambda: encoder.encode_batch(documents)) < FEW_FAULTS


def test_two_threads_over_a_batch_reuse_it_too(o200k):
    encoder, _ = o200k
    documents = [MB_OF_CODE[k : k + 1000] for k in range(0, len(MB_OF_CODE), 1000)]
    half = len(documents) // 2
    with ThreadPoolExecutor(1) as pool:

        def both_halves():
            later = pool.submit(encoder.encode_batch, documents[half:])
            return encoder.encode_batch(documents[:half]) + later.result()

        assert faults_of(both_halves) < FEW_FAULTS
        assert both_halves() == encoder.encode_batch(documents)
