"""Counting (`count`, `count_batch`) equals `len(encode)` for every built-in tokenizer, and the
backends with a batch encoder count through it: the Hugging Face backend without offsets (its
batch path equals its per-text path on normalized text, specials as text and allow_special),
SentencePiece in one call of its batch encoder."""

from __future__ import annotations

import random

import pytest

from app.backends.huggingface.backend import HuggingFaceTokenizer
from tests.engine.test_engine import TRICKY
from tests.hf_trained import KINDS_TRAINED
from tests.hf_trained import train as _train
from tests.reference import BUILTIN_NAMES, stdlib_texts

NFC_SENSITIVE = "e\u0301 A\u030a \u212b \u1100\u1161\u11a8 \u0b47\u0b3e ﬁ Ｆｕｌｌ ㍻ Å café"
SPECIALS_AS_TEXT = "a<|endoftext|>b [CLS] x[SEP]<|endoftext|> <｜begin▁of▁sentence｜><think>"


def _texts() -> list[str]:
    rnd = random.Random(25)
    mixed = "".join(rnd.choice(list(TRICKY.values())) for _ in range(40))
    code = [text[:3000] for _, text in stdlib_texts(count=3, max_chars=3000)]
    return [*TRICKY.values(), NFC_SENSITIVE, SPECIALS_AS_TEXT, mixed, *code, "", " ", "\n\n"]


TEXTS = _texts()


@pytest.mark.parametrize("name", BUILTIN_NAMES)
@pytest.mark.parametrize("allow_special", [False, True])
def test_count_and_count_batch_equal_len_encode_for_every_builtin(registry, name, allow_special):
    tokenizer = registry.get(name)
    expected = [len(tokenizer.encode(text, allow_special)) for text in TEXTS]
    assert [tokenizer.count(text, allow_special) for text in TEXTS] == expected
    assert tokenizer.count_batch(TEXTS, allow_special) == expected
    assert tokenizer.count_batch([], allow_special) == []


@pytest.fixture(scope="module", params=KINDS_TRAINED)
def trained(request) -> HuggingFaceTokenizer:
    return HuggingFaceTokenizer(request.param, "trained in the test", _train(request.param).to_str().encode())


@pytest.mark.parametrize("allow_special", [False, True])
def test_hugging_face_batch_count_equals_the_per_text_path(trained, allow_special):
    texts = [NFC_SENSITIVE, SPECIALS_AS_TEXT, NFC_SENSITIVE + SPECIALS_AS_TEXT, *TEXTS]
    expected = [len(trained.encode(text, allow_special)) for text in texts]
    assert trained.count_batch(texts, allow_special) == expected
    assert [trained.count(text, allow_special) for text in texts] == expected


def test_hugging_face_count_keeps_no_offsets(registry, monkeypatch):
    """Counting goes through the library's encode_batch_fast; encode_batch (offsets) is never asked."""
    tokenizer = registry.get("deepseek_v4")
    expected = [len(tokenizer.encode(text)) for text in TEXTS]
    library = tokenizer.library
    calls = []

    class Spy:
        def __getattr__(self, name):
            if name == "encode_batch":
                raise AssertionError("counting built offsets (encode_batch)")
            return getattr(library, name)

        def encode_batch_fast(self, texts, **kwargs):
            calls.append(len(texts))
            return library.encode_batch_fast(texts, **kwargs)

    monkeypatch.setattr(tokenizer, "_plain", Spy())
    assert tokenizer.count_batch(TEXTS) == expected
    assert calls  # the library's batch encoder without offsets counted what our ASCII path did not
    assert tokenizer.count(TEXTS[0]) == expected[0]


def test_hugging_face_count_batch_cuts_long_batches(registry, monkeypatch):
    from app.backends.huggingface import backend as huggingface_backend

    monkeypatch.setattr(huggingface_backend, "COUNT_BATCH_CHARS", 1000)
    tokenizer = registry.get("deepseek_v4")
    texts = [text for text in TEXTS for _ in range(3)]
    assert tokenizer.count_batch(texts) == [len(tokenizer.encode(text)) for text in texts]


def test_sentencepiece_count_batch_is_one_call_of_its_batch_encoder(registry, monkeypatch):
    tokenizer = registry.get("mistral_v1")
    expected = [len(tokenizer.encode(text)) for text in TEXTS]
    processor = tokenizer.processor
    calls = []

    class Spy:
        def encode(self, texts, **kwargs):
            calls.append(type(texts).__name__)
            return processor.encode(texts, **kwargs)

    monkeypatch.setattr(tokenizer, "_processor", Spy())
    assert tokenizer.count_batch(TEXTS) == expected
    assert calls == ["list"]
