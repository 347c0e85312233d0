"""`encode_batch` gives `encode` of each text for every built-in tokenizer (special-token strings
as text and allowed, a text long enough for Llama to cut into runs, text that NFC rewrites).
The backends on the C engine (which also take lone surrogates, as tiktoken does) answer a batch
of plain texts in one engine call, which lets go of the GIL, and encode a text holding a special
token on its own."""

from __future__ import annotations

import pytest

from app.backends.llama_backend import RUN_CHARS
from tests.backends.test_counting import TEXTS
from tests.reference import BUILTIN_NAMES

BATCH = [*TEXTS, ("Long run of words. " * 1500)[: RUN_CHARS + 500]]
SURROGATES = ["a\ud800b\udfffc", "lone \udc80 at the end \ud83d"]  # the app cleans them; tiktoken's backends take them


@pytest.mark.parametrize("name", BUILTIN_NAMES)
@pytest.mark.parametrize("allow_special", [False, True])
def test_encode_batch_equals_encode_of_each_text_for_every_builtin(registry, name, allow_special):
    tokenizer = registry.get(name)
    expected = [tokenizer.encode(text, allow_special) for text in BATCH]
    assert tokenizer.encode_batch(BATCH, allow_special) == expected
    assert tokenizer.encode_batch(BATCH[:3], allow_special) == expected[:3]
    assert tokenizer.encode_batch([], allow_special) == []


ENGINE_BACKED = ["gpt2", "cl100k_base", "o200k_base", "o200k_harmony", "mistral_tekken", "qwen3_6", "llama3", "llama4"]


@pytest.mark.parametrize("name", ENGINE_BACKED)
def test_a_batch_of_plain_texts_is_one_engine_call(registry, name, monkeypatch):
    tokenizer = registry.get(name)
    texts = ["Hello, world!", "  indented\n\tcode()", "naïve café 日本語", "", *SURROGATES]
    expected = [tokenizer.encode(text) for text in texts]
    engine, calls = tokenizer._engine, []
    real = engine.encode_batch

    def spy(batch):
        calls.append(len(batch))
        return real(batch)

    monkeypatch.setattr(engine, "encode_batch", spy)
    assert tokenizer.encode_batch(texts) == expected
    assert calls == [len(texts)]
    special = next(iter(tokenizer.special_tokens))
    with_special = [*texts, f"before {special} after"]
    expected_special = [tokenizer.encode(text, True) for text in with_special]
    calls.clear()
    assert tokenizer.encode_batch(with_special, True) == expected_special
    # Tekken never parses special tokens out of text: still one call; the others cut that text out of the batch
    assert calls == ([len(with_special)] if name == "mistral_tekken" else [])
