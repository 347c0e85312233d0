"""Fewest tokens (app/tokenizers/lecture/shortest.py): valid, no longer than BPE, equal to a brute-force
shortest path on small texts, refused for SentencePiece, and bounded on a 500,000-character text."""

from __future__ import annotations

import time
import unicodedata
from functools import cache

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bpe.model import BPETokenizer
from app.errors import InvalidInput
from app.tokenizers.lecture.shortest import fewest, plan_for, shortest, vocabulary

BPE_KINDS = [
    "gpt2",
    "cl100k_base",
    "o200k_base",
    "o200k_harmony",
    "mistral_tekken",
    "qwen3_6",
    "llama3",
    "llama4",
    "deepseek_v4",
    "tokenprism_4k",
]
SAMPLE = (
    "Hello, world! Internationalization isn't trivial: 1234567 ñandú e\u0301 😀👍🏽 東京 Привет "
    "<|endoftext|>   spaces\n\n\tand tabs   "
)
CORPUS = "the cat sat on the mat; the hat, the rat and that bat sat there at last. " * 20


@pytest.fixture(scope="module")
def tiny() -> BPETokenizer:
    return BPETokenizer.train(CORPUS, 300, pattern="gpt4", special_tokens=["<|end|>"], name="tiny")


def check_valid(tokenizer, text: str, allow_special: bool = False):
    """What every shortest encoding must be: it decodes to the text, each regular token is a
    vocabulary entry, no token crosses a chunk, and it is no longer than BPE's."""
    found = shortest(tokenizer, text, allow_special)
    spelled = unicodedata.normalize("NFC", text) if tokenizer.name == "qwen3_6" else text
    assert tokenizer.decode(found.ids) == tokenizer.decode(found.bpe_ids)
    assert b"".join(tokenizer.token_bytes(found.ids)) == spelled.encode("utf-8") or allow_special
    assert b"".join(found.pieces) == text.encode("utf-8")
    assert found.bpe_ids == tokenizer.encode(text, allow_special)
    assert len(found.ids) <= len(found.bpe_ids)
    plan = plan_for(tokenizer)
    regular = [i for i in found.ids if i not in plan.atomic]
    assert all(plan.vocabulary.prefixes[tokenizer.id_to_bytes(i)] >= 0 for i in regular)
    chunk_ends, at = set(), 0
    for chunk in _chunks(tokenizer, spelled, found):
        at += len(chunk)
        chunk_ends.add(at)
    token_ends, at = set(), 0
    for piece in tokenizer.token_bytes(found.ids):
        at += len(piece)
        token_ends.add(at)
    assert chunk_ends <= token_ends  # every chunk ends where a token ends: none crosses one
    return found


def _chunks(tokenizer, text: str, found) -> list[bytes]:
    """The chunks as the tokenizer splits (specials whole), from the BPE tokens' own bytes:
    BPE never merges across a chunk, so a chunk end is always one of its token ends."""
    plan = plan_for(tokenizer)
    chunks, start, at = [], 0, 0
    data = text.encode("utf-8")
    for token_id, piece in zip(found.bpe_ids, tokenizer.token_bytes(found.bpe_ids), strict=True):
        if token_id in plan.atomic:
            chunks += [c.encode() for c in plan.split(data[start:at].decode())] + [data[at : at + len(piece)]]
            start = at + len(piece)
        at += len(piece)
    return chunks + [c.encode() for c in plan.split(data[start:].decode())]


@pytest.mark.parametrize("name", BPE_KINDS)
def test_valid_on_every_bpe_builtin(registry, name):
    tokenizer = registry.get(name)
    check_valid(tokenizer, SAMPLE)
    check_valid(tokenizer, SAMPLE, allow_special=True)
    check_valid(tokenizer, "")


def test_fewer_than_bpe_somewhere(registry):
    """Greedy BPE is not shortest: on tokenprism_4k some plain English needs fewer tokens."""
    found = shortest(registry.get("tokenprism_4k"), " jumps")  # BPE: j u mp s; fewest: um ps
    assert len(found.ids) < len(found.bpe_ids)
    assert found.differences() == [(2, 6)]


def test_special_tokens_as_tokenize(registry):
    tokenizer = registry.get("cl100k_base")
    text = "a<|endoftext|>b"
    assert tokenizer.special_tokens["<|endoftext|>"] in shortest(tokenizer, text, True).ids
    assert tokenizer.special_tokens["<|endoftext|>"] not in shortest(tokenizer, text, False).ids


@pytest.mark.parametrize("name", ["mistral_v1", "mistral_v3"])
def test_sentencepiece_refused(registry, name):
    with pytest.raises(InvalidInput, match="sentencepiece"):
        shortest(registry.get(name), "hello")


def brute_force(tokens: set[bytes], data: bytes) -> int:
    """Fewest tokens of `tokens` joining to `data`, by trying every split (exponential, memoised)."""

    @cache
    def rest(i: int) -> float:
        if i == len(data):
            return 0
        return min((1 + rest(j) for j in range(i + 1, len(data) + 1) if data[i:j] in tokens), default=float("inf"))

    return rest(0)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="the casmorbd,.; !\n", max_size=40))
def test_equals_brute_force(tiny, text):
    found = check_valid(tiny, text)
    tokens = set(tiny.token_bytes(list(range(256 + len(tiny.merges)))))
    chunks = regex.findall(tiny.pattern_regex, text)
    assert len(found.ids) == sum(brute_force(tokens, chunk.encode()) for chunk in chunks)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=30))
def test_valid_on_any_text(registry, text):
    check_valid(registry.get("cl100k_base"), text)
    check_valid(registry.get("deepseek_v4"), text)


def test_ties_longest_first_token():
    table = vocabulary({b"a": 0, b"b": 1, b"ab": 2, b"ba": 3, b"c": 4})
    assert fewest(table, b"aba") == [2, 0]  # "ab"+"a" and "a"+"ba" tie: the longer first token wins
    assert fewest(table, b"cab") == [4, 2]


def test_long_text_bounded(registry):
    """A 500,000-character text finishes (measured ~0.2 s of prose, ~1-4 s of repetitive text)."""
    tokenizer = registry.get("o200k_base")
    for text in ("the quick brown fox, 12345 ñandú. " * 15_000, "ab ,.1\n" * 71_429):
        started = time.monotonic()
        found = shortest(tokenizer, text[:500_000])
        assert len(found.ids) <= len(found.bpe_ids)
        assert time.monotonic() - started < 60
