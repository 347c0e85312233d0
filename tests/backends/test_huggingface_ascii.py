"""ASCII text counted by our own cut into DeepSeek's chunks (app/backends/huggingface/ascii_counter.py) counts
exactly as the library: real code and prose, random ASCII built around digits, spaces and punctuation,
and the texts it must leave to the library (control characters, an added token's string)."""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from app.backends.huggingface import ascii_counter as huggingface_ascii
from app.backends.huggingface.ascii_counter import PIECES, AsciiCounter
from tests.hf_trained import KINDS_TRAINED
from tests.hf_trained import train as _train
from tests.reference import stdlib_texts

ALPHABET = string.ascii_letters[:6] + "Zz" + string.digits[:4] + string.punctuation + " \t\n\r"
FRAGMENTS = ["  ", "\n\n", " \n", "\r\n", "123", "4567", " 12", "'s", " (", ".\n", "x", "AB", "\t", "  9", "!?", " "]
ascii_text = st.lists(st.one_of(st.text(ALPHABET, max_size=6), st.sampled_from(FRAGMENTS)), max_size=60).map("".join)


@pytest.fixture(scope="module")
def deepseek(registry):
    return registry.get("deepseek_v4")


def _library_count(deepseek, text: str) -> int:
    return len(deepseek.library.encode(text, add_special_tokens=False).ids)


def test_real_code_and_prose_take_the_ascii_path_and_count_exactly(deepseek):
    texts = [text for _, text in stdlib_texts(count=12, max_chars=20_000)]
    texts = [text for text in texts if text.isascii()]
    assert len(texts) >= 6
    for text in texts:
        taken = deepseek._ascii.count(text, deepseek._count_chunks)
        if "<" not in text:
            assert taken is not None
        assert deepseek.count(text) == _library_count(deepseek, text)


@hyp_settings(max_examples=300, deadline=None)
@given(ascii_text)
def test_random_ascii_counts_as_the_library(registry, text):
    deepseek = registry.get("deepseek_v4")
    assert "".join(PIECES.findall(text)) == text
    assert deepseek._ascii.count(text, deepseek._count_chunks) == _library_count(deepseek, text)


def test_many_random_ascii_documents_in_one_batch(deepseek):
    rnd = random.Random(25)
    texts = ["".join(rnd.choice(FRAGMENTS + list(ALPHABET)) for _ in range(rnd.randrange(400))) for _ in range(300)]
    assert deepseek.count_batch(texts) == [_library_count(deepseek, text) for text in texts]


@pytest.mark.parametrize(
    "text", ["a\x0bb", "form\x0cfeed 1", "nul\x00", "unit\x1fsep", "del\x7f", "x <think> y", "a<|EOT|>b", "é"]
)
def test_texts_it_leaves_to_the_library(deepseek, text):
    assert deepseek._ascii.count(text, deepseek._count_chunks) is None
    for allow_special in (False, True):
        assert deepseek.count(text, allow_special) == len(deepseek.encode(text, allow_special))


def test_a_full_cache_starts_over_and_counts_stay_exact(deepseek, monkeypatch):
    monkeypatch.setattr(huggingface_ascii, "CACHE_ENTRIES", 50)
    counter = AsciiCounter.for_library(deepseek.library)
    texts = [text for _, text in stdlib_texts(count=4, max_chars=5_000) if text.isascii() and "<" not in text]
    for text in texts:
        assert counter.count(text, deepseek._count_chunks) == _library_count(deepseek, text)
        assert len(counter._cache) <= max(50, len(set(PIECES.findall(text))))  # bounded: a text's own chunks at most


@pytest.mark.parametrize("kind", KINDS_TRAINED)
def test_other_rules_have_no_ascii_path(kind):
    assert AsciiCounter.for_library(_train(kind)) is None


def test_long_chunks_are_counted_but_not_kept(deepseek):
    counter = AsciiCounter.for_library(deepseek.library)
    text = "x" + " " * 300 + "y = " + "z" * 5000 + "\n" * 100
    assert counter.count(text, deepseek._count_chunks) == _library_count(deepseek, text)
    assert counter._cache and max(map(len, counter._cache)) <= huggingface_ascii.CACHE_CHUNK_CHARS
    assert counter.count(text, deepseek._count_chunks) == _library_count(deepseek, text)  # again, from the cache
