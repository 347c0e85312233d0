"""The C engine itself (`app.bpe._engine`, `app.bpe.engine`): its pretokenizer against the
split patterns on ASCII (on all of Unicode the regex module's classes are not tiktoken's:
tests/bpe/test_pretokenize*.py compare with tiktoken's own), its API's edges, and one
Engine shared by threads.

The ids of the tokenizers wired to it are checked against the reference libraries in
tests/backends/test_engine_exact.py.
"""

from __future__ import annotations

import gc
import random
import sys
import threading
import time

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bpe import _engine
from app.bpe.engine import Encoder, family_of
from app.bpe.families import NAMES, PATTERNS
from app.errors import InvalidInput
from app.tokenizers.openai_encodings import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN
from tests.backends.test_engine_exact import FRAGMENTS, LONG_RUNS
from tests.reference import stdlib_texts, tiktoken_reference

FAMILY_IDS = [NAMES[family] for family in PATTERNS]
ascii_text = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.characters(max_codepoint=127)), max_size=40).map("".join)


def chunks(family: int, text: str) -> list[str]:
    return _engine.split(family, text)


def test_every_pattern_has_its_family():
    assert [family_of(PATTERNS[family]) for family in PATTERNS] == list(PATTERNS) == [0, 1, 2, 3, 4, 5]
    assert family_of(r"\w+|\s+") is None


@pytest.mark.parametrize("family", PATTERNS, ids=FAMILY_IDS)
@settings(max_examples=400, deadline=None)
@given(text=ascii_text)
def test_ascii_chunks_are_the_patterns(family, text):
    assert chunks(family, text) == regex.findall(PATTERNS[family], text)


@pytest.mark.parametrize("family", PATTERNS, ids=FAMILY_IDS)
def test_chunks_of_long_runs_and_real_files(family):
    for text in LONG_RUNS + [text for _, text in stdlib_texts(count=20) if text.isascii()]:
        assert chunks(family, text) == regex.findall(PATTERNS[family], text), text[:60]


@pytest.fixture(scope="module")
def cl100k() -> Encoder:
    encoding = tiktoken_reference("cl100k_base")
    encoder = Encoder.for_pattern(CL100K_PATTERN, encoding._mergeable_ranks, "cl100k_base")
    assert encoder is not None
    return encoder


def test_wrong_arguments_are_type_and_value_errors(cl100k):
    engine = cl100k._core
    with pytest.raises(TypeError, match="text must be str"):
        engine.encode(b"bytes")
    with pytest.raises(TypeError, match="text 1 is int"):
        engine.count_batch(["a", 3])
    with pytest.raises(TypeError, match="list of str"):
        engine.encode_batch("abc")
    with pytest.raises(ValueError, match="family 9"):
        _engine.Engine(9, [bytes([b]) for b in range(256)])
    with pytest.raises(ValueError, match="byte 255 is not a token"):
        _engine.Engine(1, [bytes([b]) for b in range(255)])
    with pytest.raises(ValueError, match="repeats"):
        _engine.Engine(1, [bytes([b]) for b in range(256)] + [b"a"])
    with pytest.raises(TypeError, match="token 256"):
        _engine.Engine(1, [bytes([b]) for b in range(256)] + [b""])
    with pytest.raises(ValueError, match="family 7"):
        _engine.split(7, "abc")
    assert _engine.split(0, "") == []


def test_bad_ranks_are_invalid_input():
    with pytest.raises(InvalidInput, match=r"0\.\.n-1"):
        Encoder(1, {bytes([b]): b + 1 for b in range(256)}, "shifted")
    with pytest.raises(InvalidInput, match="byte 7 is not a token"):
        Encoder(1, {bytes([b]) if b != 7 else b"ab": b for b in range(256)}, "no seven")


def test_a_merge_of_higher_ranked_parts_is_taken_as_tiktoken_takes_it():
    """Token "abc" ranks below "bc": tiktoken still merges a + bc into abc once bc exists
    (a + b, its only pair of lower ranks, is not a token), which no table of 'merge of two
    lower-ranked tokens' knows."""
    ranks = {bytes([b]): b for b in range(256)} | {b"abc": 256, b"bc": 257}
    encoder = Encoder(1, ranks, "toy")
    assert encoder.encode("xabcd") == [ord("x"), 256, ord("d")]
    assert encoder.encode("abc") == [256]  # the whole chunk is a token
    assert encoder.encode("abcabc") == [256, 256]


def test_id_offset_shifts_every_id(cl100k):
    ranks = tiktoken_reference("cl100k_base")._mergeable_ranks
    shifted = Encoder.for_pattern(CL100K_PATTERN, ranks, "cl100k_base", id_offset=1000)
    text = "Hello world, a rarely seen wordzzz"
    assert shifted.encode(text) == [i + 1000 for i in cl100k.encode(text)]
    assert shifted.count(text) == cl100k.count(text)


def test_one_engine_shared_by_threads(cl100k):
    texts = [text for _, text in stdlib_texts(count=40) if text.isascii()]
    docs = [text[i : i + 1000] for text in texts for i in range(0, len(text), 1000)]
    expected_ids, expected_counts = cl100k.encode_batch(docs), cl100k.count_batch(docs)
    results: dict[int, tuple[list[list[int]], list[int]]] = {}

    def work(k: int) -> None:
        results[k] = (cl100k.encode_batch(docs), cl100k.count_batch(docs))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(results[k] == (expected_ids, expected_counts) for k in range(4))
    assert expected_ids == [tiktoken_reference("cl100k_base").encode_ordinary(doc) for doc in docs]


def test_an_engine_stays_shared_while_any_of_its_encoders_lives():
    """The second of three encoders of one vocabulary goes: the third still finds the first's
    engine (the table of built engines once forgot it with the encoder it last pointed to)."""
    ranks = tiktoken_reference("gpt2")._mergeable_ranks
    first = Encoder.for_pattern(GPT2_PATTERN, ranks, "first")
    second = Encoder.for_pattern(GPT2_PATTERN, ranks, "second")
    assert first is not None and second is not None and second._core is first._core
    del second
    gc.collect()
    third = Encoder.for_pattern(GPT2_PATTERN, ranks, "third")
    assert third is not None and third._core is first._core


def test_each_engine_has_its_own_chunk_cache_in_a_thread():
    """The per-thread chunk caches are per engine: six engines taking turns (more than a
    thread keeps caches for) on the same words, none of them one token, each give their own ids."""
    words = " ".join(f"zq{a}{b}xv" for a in "abcdefgh" for b in "ijklmnop")
    engines = []
    for name, pattern in [("gpt2", GPT2_PATTERN), ("cl100k_base", CL100K_PATTERN), ("o200k_base", O200K_PATTERN)]:
        ranks = tiktoken_reference(name)._mergeable_ranks
        for offset in (0, 7):
            engines.append((Encoder.for_pattern(pattern, ranks, name, id_offset=offset), name, offset))
    for _ in range(3):
        for encoder, name, offset in engines:
            expected = [i + offset for i in tiktoken_reference(name).encode_ordinary(words)]
            assert encoder.encode(words) == expected


def test_more_distinct_chunks_than_a_chunk_cache_holds(cl100k):
    letters = "bcdfghjklmnpqrstvwxz"
    words = [f" {a}{b}{c}{d}{e}q" for a in letters for b in letters for c in letters for d in "xzk" for e in "bcdfgh"]
    assert len(words) > 2 * 65536  # two generations of GEN_ENTRIES_MAX, had they the budget
    text = "".join(words)
    expected = tiktoken_reference("cl100k_base").encode_ordinary(text)
    assert cl100k.encode(text) == expected and cl100k.encode(text) == expected
    assert cl100k.count_batch(words) == [len(tiktoken_reference("cl100k_base").encode_ordinary(w)) for w in words]


def test_chunks_a_text_keeps_using_survive_the_cache_turning_over(cl100k):
    """Recurring words between ever new ones: the recurring ones move from the old generation
    to the young one as the generations turn (chunk_cache.h), and every id stays tiktoken's."""
    letters = "bcdfghjklmnpqrstvwxz"
    fresh = [f" {a}{b}{c}{d}q" for a in letters for b in letters for c in letters for d in "xzk"]
    recurring = [f" zq{a}{b}xv" for a in "aeiou" for b in "aeiou"]
    words = [w for k, new in enumerate(fresh[:40_000]) for w in (new, recurring[k % len(recurring)])]
    text = "".join(words)
    reference = tiktoken_reference("cl100k_base")
    assert cl100k.encode(text) == reference.encode_ordinary(text)
    assert cl100k.count_batch(words[:5000]) == [len(reference.encode_ordinary(w)) for w in words[:5000]]


def test_cached_chunks_of_every_length_up_to_past_the_cache_limit(cl100k):
    """A chunk's record (chunk_cache.h: its length, bytes padded to a word, then its ids) read
    back for chunks of 1 to 300 bytes (the cache keeps up to 256), ASCII and two-byte letters,
    two of each length with the same first bytes: every repeat is the cached ids, tiktoken's."""
    rng = random.Random(5)
    words = []
    for length in range(1, 301):
        for alphabet in ("qwxzkjvbfg", "щжхцчшъыэю"):
            head = "".join(rng.choice(alphabet) for _ in range(length // len(alphabet[0].encode()) - 1))
            words += [" " + head + tail for tail in alphabet[:2]]
    text = "".join(w for w in words for _ in range(2)) + "".join(words)
    expected = tiktoken_reference("cl100k_base").encode_ordinary(text)
    for _ in range(2):
        assert cl100k.encode(text) == expected and cl100k.count(text) == len(expected)


def _other_thread_ran_during(calls, seconds: float = 1.0) -> bool:
    """Whether the main thread got the GIL while another thread made the calls `calls` yields,
    one after another, for up to `seconds` (forced switches out of the way: only the engine
    letting the GIL go lets the main thread run). A release lasts as long as one call's work,
    and the main thread must be on a core inside that window to take the GIL: on a busy
    machine it may miss many windows, so the calls go on until it runs or the time is up."""
    entered, finished, stop = threading.Event(), threading.Event(), threading.Event()

    def run() -> None:
        entered.set()
        deadline = time.monotonic() + seconds
        for call in calls:
            call()
            if stop.is_set() or time.monotonic() > deadline:
                break
        finished.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(30)
    try:
        thread = threading.Thread(target=run)
        thread.start()
        entered.wait()
        ran = not finished.is_set()
        stop.set()
        thread.join()
    finally:
        sys.setswitchinterval(interval)
    return ran


def _fresh_texts(letters: str, size: int, seed: int):
    """Endless distinct texts of about `size` UTF-8 bytes made of random words of `letters`:
    no chunk cache spares the engine its work, so each call's release lasts a whole merge."""
    rng = random.Random(seed)
    while True:
        words: list[str] = []
        while len(" ".join(words).encode()) < size - 40:
            words.append("".join(rng.choice(letters) for _ in range(rng.randint(3, 9))))
        yield " ".join(words)


def test_the_gil_is_released_while_a_batch_is_counted(cl100k):
    """With forced GIL switches out of the way (a 10 s interval), the main thread can run
    while another thread is inside count_batch only if the engine lets the GIL go."""
    docs = ["Hello world, this is a test of the engine. " * 24] * 20_000  # ~20 MB
    assert _other_thread_ran_during([lambda: cl100k.count_batch(docs)], seconds=60)


def test_a_short_non_ascii_text_lets_the_gil_go_and_short_ascii_keeps_it(cl100k):
    # ~1-4 KB of translations costs a merge a word: worth letting another thread run; 3 KB of
    # ASCII prose is done in microseconds, less than handing the GIL over and back costs.
    wide = _fresh_texts("абвгдежзиклмнопрстуфхцчшщыэюя", 3500, seed=1)
    ascii = _fresh_texts("abcdefghijklmnopqrstuvwxyz", 3500, seed=2)
    first_wide, first_ascii = next(wide), next(ascii)
    assert 256 <= len(first_wide.encode()) < 4096 and len(first_ascii) < 4096
    assert _other_thread_ran_during((lambda text=text: cl100k.encode(text) for text in wide), seconds=10)
    assert not _other_thread_ran_during((lambda text=text: cl100k.encode(text) for text in ascii), seconds=1)


STOPS = [b"<|a|>", b"<|bb|>", b"\xef\xbd\x9cx", b"q", b"<t"]
FIVE_FIRSTS = [*STOPS, b"ab|", b"x>"]  # five first bytes: the scan a byte at a time


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet="<|abtqx>｜ é", max_size=40), max_size=6), st.sampled_from([STOPS, FIVE_FIRSTS]))
def test_stopped_names_the_texts_holding_a_stop_string(texts, stops):
    engine = _engine.Engine(0, [bytes([b]) for b in range(256)], stops=stops)
    expected = [n for n, text in enumerate(texts) if any(stop in text.encode() for stop in stops)]
    assert engine.stopped(texts) == expected


def test_stopped_without_stop_strings_and_its_edges():
    assert _engine.Engine(0, [bytes([b]) for b in range(256)]).stopped(["<|a|>", "q"]) == []
    engine = _engine.Engine(0, [bytes([b]) for b in range(256)], stops=STOPS)
    assert engine.stopped(["", "<|a|", "<|a|>", "x<|bb|>", "｜x"]) == [2, 3, 4]
    long = [
        "é" * 20,
        "aaax>" + "é" * 20,
        "é" * 20 + "x>",
        "é" * 20 + "<|a|>",
        "é" * 9 + "｜x",
        "é" * 7 + "｜x",
    ]  # the last across a block's end
    assert engine.stopped(long) == [3, 4, 5]
    assert _engine.Engine(0, [bytes([b]) for b in range(256)], stops=FIVE_FIRSTS).stopped(long) == [1, 2, 3, 4, 5]
    with pytest.raises(UnicodeEncodeError):
        engine.stopped(["a\ud800"])
    with pytest.raises(TypeError):
        engine.stopped(["a", 1])
    with pytest.raises(TypeError):
        _engine.Engine(0, [bytes([b]) for b in range(256)], stops=[b""])
