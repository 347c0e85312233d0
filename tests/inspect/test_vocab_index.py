"""The vocabulary index against full scans: substring, prefix, exact, regex and id lookups,
the stats, and the bounds of a search. Queries are drawn by hypothesis from the vocabulary
itself (pieces of real tokens, across byte boundaries) and from random bytes."""

from __future__ import annotations

import random

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.errors import InvalidInput
from app.inspect import search as vocab_search
from app.inspect.cache import inspected

FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def gpt2(registry):
    return inspected(registry.get("gpt2"))


@pytest.fixture(scope="module")
def o200k(registry):
    return inspected(registry.get("o200k_base"))


def full_scan(found, query: bytes) -> list[int]:
    return [p for p, piece in enumerate(found.index.pieces()) if query in piece]


def drawn_query(data):
    """A piece of a random token of the vocabulary, 1 to 8 bytes, sometimes with a random byte added."""

    def draw(found):
        piece = found.index.piece(data.draw(st.integers(0, len(found.index) - 1)))
        start = data.draw(st.integers(0, max(0, len(piece) - 1)))
        query = piece[start : start + data.draw(st.integers(1, 8))]
        if data.draw(st.booleans()):
            query += bytes([data.draw(st.integers(0, 255))])
        return query

    return draw


@FAST
@given(st.data())
def test_substring_equals_a_full_scan_on_queries_from_the_vocabulary(gpt2, data):
    query = drawn_query(data)(gpt2)
    assert gpt2.index.substring(query) == full_scan(gpt2, query)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_substring_equals_a_full_scan_on_o200k_base(o200k, data):
    query = drawn_query(data)(o200k)
    assert o200k.index.substring(query) == full_scan(o200k, query)


@FAST
@given(st.binary(min_size=1, max_size=4))
def test_substring_of_random_bytes_equals_a_full_scan(gpt2, query):
    assert gpt2.index.substring(query) == full_scan(gpt2, query)


def test_common_queries_take_both_search_paths_and_stay_exact(o200k):
    # "e" is a byte list; " t" walks a long candidate list with str.find; "ization" a short one
    for query in (b"e", b" t", b"in", b"ization", b"\xe2\x80", b"\x00", b"zzzzzz"):
        assert o200k.index.substring(query) == full_scan(o200k, query), query


@FAST
@given(st.data())
def test_prefix_and_exact_equal_a_full_scan(gpt2, data):
    query = drawn_query(data)(gpt2)
    pieces = gpt2.index.pieces()
    assert gpt2.index.prefix(query) == [p for p, piece in enumerate(pieces) if piece.startswith(query)]
    assert gpt2.index.exact(query) == [gpt2.index.ids[p] for p, piece in enumerate(pieces) if piece == query]


def test_prefix_past_0xff_and_the_empty_query(gpt2):
    pieces = gpt2.index.pieces()
    assert gpt2.index.prefix(b"\xff") == [p for p, piece in enumerate(pieces) if piece.startswith(b"\xff")]
    assert gpt2.index.prefix(b"") == list(range(len(pieces)))
    assert gpt2.index.substring(b"") == list(range(len(pieces)))


def test_exact_keeps_special_and_regular_tokens_apart(gpt2):
    assert gpt2.index.exact(b"<|endoftext|>", special=True) == [50256]
    assert gpt2.index.exact(b"<|endoftext|>", special=False) == []
    assert gpt2.index.exact(b" the", special=False) == [262]


@pytest.mark.parametrize("pattern", [r"^ [A-Z][a-z]+ing$", r"\d{3}", r"(?i)^magi", r"[\p{Han}]", r"^\s+$"])
def test_regex_equals_a_scan_of_the_token_texts(gpt2, pattern):
    compiled = regex.compile(pattern)
    texts = [piece.decode("utf-8", "replace") for piece in gpt2.index.pieces()]
    assert gpt2.index.regex(pattern, 5.0) == [p for p, text in enumerate(texts) if compiled.search(text)]


def test_a_bad_or_slow_regex_is_refused_with_the_reason(gpt2):
    with pytest.raises(InvalidInput, match="not a valid regular expression: missing \\)"):
        gpt2.index.regex("(ab", 1.0)
    with pytest.raises(InvalidInput, match="took more than"):
        gpt2.index.regex("a", 0.0)


def test_id_ranges_skip_gaps(registry):
    o200k = inspected(registry.get("o200k_base"))
    found = vocab_search.positions(o200k, "199990-200020", "id")
    assert [o200k.index.ids[p] for p in found] == [*range(199990, 199998), 199999, 200018]  # the rest are gaps


def test_stats_match_a_count_by_hand(gpt2):
    pieces = [piece for p, piece in enumerate(gpt2.index.pieces()) if p not in gpt2.index.special]
    stats = gpt2.index.stats
    assert sum(stats["by_length"].values()) == len(pieces) == 50256
    assert stats["by_length"][1] == 256 and stats["longest"] == max(map(len, pieces)) == 128

    def utf8(piece):
        try:
            return piece.decode("utf-8")
        except UnicodeDecodeError:
            return None

    assert stats["not_utf8"] == sum(utf8(p) is None for p in pieces)
    word = regex.compile(r" [\p{L}\p{M}]+")
    assert stats["words_with_leading_space"] == sum(bool(utf8(p) and word.fullmatch(utf8(p))) for p in pieces)
    assert stats["special"] == 1 and stats["tokens"] == 50257


@pytest.mark.parametrize(
    "q, mode, offset, limit, message",
    [
        ("x" * 257, "substring", 0, 50, "at most 256"),
        ("a", "fuzzy", 0, 50, "not one of substring, prefix, regex, id"),
        ("a", "substring", -1, 50, "offset -1 is out of range"),
        ("a", "substring", 0, 0, "limit 0 is out of range"),
        ("a", "substring", 0, 501, "limit 501 is out of range"),
        ("12a", "id", 0, 50, "not a token id"),
        ("20-10", "id", 0, 50, "runs backwards"),
    ],
)
def test_search_bounds_name_the_bad_value(gpt2, q, mode, offset, limit, message):
    with pytest.raises(InvalidInput, match=message):
        vocab_search.search(gpt2, q, mode, offset, limit)


def test_pages_join_to_the_whole_answer(gpt2):
    whole = vocab_search.search(gpt2, "ing", "substring", 0, 500)
    assert whole["total"] > 500
    pages = [
        vocab_search.search(gpt2, "ing", "substring", offset, 137)["matches"]
        for offset in range(0, whole["total"], 137)
    ]
    ids = [m["id"] for page in pages for m in page]
    assert ids == [gpt2.index.ids[p] for p in full_scan(gpt2, b"ing")]
    rng = random.Random(7)
    for match in rng.sample(whole["matches"], 20):
        assert bytes.fromhex(match["bytes"]) == gpt2.index.bytes_of(match["id"]) and match["length"] == len(
            bytes.fromhex(match["bytes"])
        )


def test_sentencepiece_reads_its_space_mark_as_a_space(registry):
    mistral = inspected(registry.get("mistral_v1"))
    marked = vocab_search.search(mistral, "\u2581the", "prefix", 0, 500)
    spaced = vocab_search.search(mistral, " the", "prefix", 0, 500)
    assert marked["total"] == spaced["total"] > 10 and marked["matches"] == spaced["matches"]
    assert vocab_search.search(inspected(registry.get("gpt2")), "\u2581the", "prefix", 0, 5)["total"] == 0
