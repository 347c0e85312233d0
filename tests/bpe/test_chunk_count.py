"""The chunk counting of training in C on threads (app/bpe/csrc/train/_chunk_count.c, wired in
app/bpe/train.py's `count_chunks`) gives exactly what the `regex` module's findall and a
Counter give: the same chunks, the same counts, in the same order of first appearance; so
the merges are those of the Python path and of the naive trainer, on one thread or two.

The documents are cut into groups (one a thread) inside a document too, just before an ASCII
letter after a newline: the tests give text with and without such places, documents of all
sizes, empty ones and one huge one.
"""

from __future__ import annotations

import sys
from collections import Counter

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.bpe import _chunk_count, train
from app.bpe.families import CL100K, GPT2, PATTERNS
from app.bpe.model import PATTERNS as NAMED
from tests.bpe.pretokenize_oracle import disagreements
from tests.bpe.test_bpe_vs_naive import CORPORA, naive_train
from tests.bpe.test_pretokenize import ALPHABET, FRAGMENTS
from tests.reference import stdlib_texts

FAMILIES = [GPT2, CL100K]
DIFFERING = st.deferred(lambda: st.sampled_from(sorted(map(chr, disagreements()))))
PIECES = st.sampled_from(ALPHABET) | st.sampled_from(FRAGMENTS) | st.sampled_from(["\nab", "\nZ", "\n\n x"]) | DIFFERING
DOCUMENTS = st.lists(st.lists(PIECES, max_size=30).map("".join), max_size=8)


def python_counts(documents: list[str], pattern: str) -> Counter[str]:
    """What `train.count_chunks` gave before the C counting: the `regex` module's findall, counted."""
    counts: Counter[str] = Counter()
    for document in documents:
        counts.update(regex.findall(pattern, document))
    return counts


def c_counts(family: int, documents: list[str], threads: int) -> Counter[str]:
    made = _chunk_count.count_chunks(family, documents, threads)
    assert made is not None
    chunks, numbers = made
    assert len(chunks) == len(set(chunks)) == len(numbers)
    return Counter(dict(zip(chunks, numbers, strict=True)))


def same(got: Counter[str], want: Counter[str]) -> bool:
    return list(got.items()) == list(want.items())  # counts and first-appearance order


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family=st.sampled_from(FAMILIES), documents=DOCUMENTS, threads=st.integers(1, 5))
def test_counts_are_the_regex_modules_in_order_on_any_number_of_threads(family, documents, threads):
    assert same(c_counts(family, documents, threads), python_counts(documents, PATTERNS[family]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family=st.sampled_from(list(PATTERNS)), documents=DOCUMENTS, threads=st.integers(2, 5))
def test_every_family_counts_the_same_on_threads_as_on_one(family, documents, threads):
    # The places where groups are cut (before an ASCII letter after a newline) hold for all six families.
    assert same(c_counts(family, documents, threads), c_counts(family, documents, 1))


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_real_text_as_documents_and_as_one_huge_document(family, threads):
    documents = [text for _, text in stdlib_texts(40, 50_000)]
    want = python_counts(documents, PATTERNS[family])
    assert same(c_counts(family, documents, threads), want)
    huge = "\n".join(documents)
    assert same(c_counts(family, [huge], threads), python_counts([huge], PATTERNS[family]))


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize(
    "documents",
    [
        [],
        [""],
        ["", "", ""],
        ["", "a b", "", "a"],
        ["1 2 3 " * 50_000],  # no place to cut inside: one group takes it all
        ["\n" * 10_000 + "x"],
        ["a\nb\nc\nd", "\n", "e\n"],
        ["x\n" * 30_000, "", "é\n" * 20_000],
    ],
)
def test_edges(family, documents):
    for threads in (1, 2, 4):
        assert same(c_counts(family, documents, threads), python_counts(documents, PATTERNS[family]))


def test_first_appearance_order_across_groups():
    # The second group sees "b" first; the total must still list "a" before "b", "c" after them.
    documents = ["a b", "b a c"] * 3
    for threads in (1, 2, 3, 6):
        assert list(c_counts(CL100K, documents, threads)) == ["a", " b", "b", " a", " c"]


def test_a_lone_surrogate_gives_none_and_train_counts_it_in_python():
    documents = ["ok", "bad \ud800 text", "ok"]
    assert _chunk_count.count_chunks(CL100K, documents, 2) is None
    assert same(train.count_chunks(documents, PATTERNS[CL100K]), python_counts(documents, PATTERNS[CL100K]))


def test_bad_arguments_are_errors_not_crashes():
    with pytest.raises(TypeError, match="document 1 is a bytes"):
        _chunk_count.count_chunks(CL100K, ["a", b"b"], 1)
    with pytest.raises(ValueError, match="threads"):
        _chunk_count.count_chunks(CL100K, ["a"], 0)
    with pytest.raises(ValueError, match="family 9"):
        _chunk_count.count_chunks(9, ["a"], 1)
    assert c_counts(CL100K, ("a b", "b"), 1000) == Counter({"a": 1, " b": 1, "b": 1})  # a tuple; threads capped


def test_train_counts_the_named_patterns_in_c_and_a_custom_one_in_python(monkeypatch):
    calls = []
    real = _chunk_count.count_chunks
    monkeypatch.setattr(train._chunk_count, "count_chunks", lambda *a: calls.append(a[0]) or real(*a))
    named = [pattern for pattern in NAMED.values() if pattern is not None]
    for pattern in named:
        assert same(train.count_chunks(["a b", "c"], pattern), python_counts(["a b", "c"], pattern))
    assert calls == [train.FAMILIES[pattern] for pattern in named] and len(calls) == 2
    assert same(train.count_chunks(["a b", "c"], r"\w+|\s"), python_counts(["a b", "c"], r"\w+|\s"))
    assert len(calls) == 2


def test_an_iterator_is_counted_in_batches_added_in_order(monkeypatch):
    monkeypatch.setattr(train, "BATCH_CHARS", 10)
    documents = [text for _, text in stdlib_texts(6, 2_000)] + ["bad \udc80", "a b c", "c b a"]
    pattern = PATTERNS[GPT2]
    assert same(train.count_chunks(iter(documents), pattern), python_counts(documents, pattern))


def test_threads_follow_the_cores_and_the_size():
    assert train.count_threads(0) == 1
    assert train.count_threads(100 * train.MIN_THREAD_CHARS) == min(
        len(train.os.sched_getaffinity(0)), train.MAX_THREADS
    )


@pytest.mark.parametrize("pattern", ["gpt2", "gpt4"])
@pytest.mark.parametrize("threads", [1, 2])
def test_merges_equal_naive_and_the_python_path(pattern, threads):
    documents = [*CORPORA.values(), "", "x\nyz\n" * 300]
    counts = train.count_chunks(documents, NAMED[pattern], threads=threads)
    merges = train.merges_from_counts(counts, 200)
    assert merges == train.merges_from_counts(python_counts(documents, NAMED[pattern]), 200)
    assert merges == naive_train(documents, NAMED[pattern], 200)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents=DOCUMENTS, pattern=st.sampled_from(["gpt2", "gpt4"]), threads=st.integers(1, 3))
def test_merges_equal_naive_on_random_documents(documents, pattern, threads):
    counts = train.count_chunks(documents, NAMED[pattern], threads=threads)
    assert train.merges_from_counts(counts, 40) == naive_train(documents, NAMED[pattern], 40)


def test_the_documents_are_left_as_they_were():
    documents = ["caf\u00e9 na\u00efve " * 100, "\u65e5\u672c\u8a9e " * 100, "ascii " * 100]
    sizes = [sys.getsizeof(d) for d in documents]
    c_counts(CL100K, documents, 2)
    assert [sys.getsizeof(d) for d in documents] == sizes  # no UTF-8 copy kept inside the strs
