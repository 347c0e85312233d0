"""tiktoken's Encoding is built only when texts need it: a tiktoken-style built-in (whose
pattern the C engine cuts) encodes, counts, gives tokens, decodes and names its vocabulary
size without it, with the reference's answers, and refuses an unknown id without building it;
a special id with several names is decoded as tiktoken does, from its special tokens alone; a
pattern of no engine family builds it at once (the memory budget then counts it); a lazy
Encoding is built once, whichever thread asks."""

from __future__ import annotations

import threading

import pytest

from app.backends.tiktoken_backend import LazyEncoding, TiktokenTokenizer
from app.tokenizers.builtins import builtin_entries
from app.tokenizers.openai_encodings import OpenAIEncoding
from tests.reference import TOKENIZER_DIR, reference_decode, reference_ids, tiktoken_reference

LAZY = ["gpt2", "cl100k_base", "o200k_base", "o200k_harmony", "qwen3_6", "llama3", "llama4", "mistral_tekken"]
TEXT = "Hello world, 123 don't  stop\n Привет 東京 👨‍👩‍👧 <|endoftext|> [INST]"


def fresh(name: str):
    """A new tokenizer from the built-in's factory (the registry's may have built its Encoding)."""
    return {entry.name: entry.factory for entry, _ in builtin_entries(TOKENIZER_DIR)}[name]()


@pytest.mark.parametrize("name", LAZY)
def test_engine_paths_leave_tiktoken_unbuilt(name):
    tokenizer = fresh(name)
    assert not tokenizer._encoding.built
    ids = tokenizer.encode(TEXT)
    assert ids == reference_ids(name, TEXT)
    assert tokenizer.count(TEXT) == len(ids)
    assert tokenizer.count_batch([TEXT, ""]) == [len(ids), 0]
    specials = sorted(tokenizer.special_ids)[:3]
    both = ids + specials
    assert b"".join(tokenizer.token_bytes(ids)) == TEXT.encode("utf-8")
    assert tokenizer.decode(both) == reference_decode(name, both)
    assert [tokenizer.id_to_bytes(i) for i in ids[:5]] == tokenizer.token_bytes(ids[:5])
    assert not tokenizer._encoding.built


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base", "o200k_harmony"])
def test_vocab_size_and_special_bytes_are_tiktokens(name):
    tokenizer, reference = fresh(name), tiktoken_reference(name)
    assert tokenizer.vocab_size == reference.n_vocab
    assert tokenizer.special_ids == frozenset(reference._special_tokens.values())
    single = [i for i in tokenizer.special_ids if i not in tokenizer._special_names]
    assert [tokenizer.id_to_bytes(i) for i in single] == [reference.decode_single_token_bytes(i) for i in single]
    assert not tokenizer._encoding.built


def test_a_special_id_with_several_names_is_decoded_as_tiktoken_does():
    tokenizer, reference = fresh("o200k_harmony"), tiktoken_reference("o200k_harmony")
    several = list(tokenizer._special_names)
    assert several  # 200018: <|endofprompt|> and <|reserved_200018|>
    assert [tokenizer.id_to_bytes(i) for i in several] == [reference.decode_single_token_bytes(i) for i in several]
    assert tokenizer.decode([1, *several]) == reference.decode([1, *several])
    assert not tokenizer._encoding.built


@pytest.mark.parametrize("name", ["o200k_base", "o200k_harmony", "gpt2"])
def test_an_unknown_id_is_refused_without_tiktoken(name):
    tokenizer = fresh(name)
    gaps = [i for i in range(tokenizer.vocab_size) if not tokenizer.has_id(i)][:1]  # o200k_base: 199998
    for wrong in (*gaps, tokenizer.vocab_size, 10**7, -1):
        with pytest.raises(KeyError):
            tokenizer.id_to_bytes(wrong)
        with pytest.raises(KeyError):
            tokenizer.decode([1, wrong])
    assert not tokenizer._encoding.built


def test_a_pattern_of_no_engine_family_builds_tiktoken_at_once():
    spec = OpenAIEncoding(
        name="mine", file="mine", pattern=r" ?\p{L}+| ?\p{N}+|\s+|.", description="", special_tokens={}
    )
    tokenizer = TiktokenTokenizer(spec, tiktoken_reference("gpt2")._mergeable_ranks)
    assert tokenizer._engine is None and tokenizer._encoding.built


def test_tekken_rejects_an_id_past_its_vocabulary():
    tokenizer = fresh("mistral_tekken")
    with pytest.raises(KeyError):
        tokenizer.id_to_bytes(tokenizer.vocab_size)
    with pytest.raises(KeyError):
        tokenizer.id_to_bytes(-1)


def test_the_encoding_is_built_once_whichever_thread_asks():
    calls: list[int] = []
    barrier = threading.Barrier(8)

    def build():
        calls.append(1)
        return object()

    lazy = LazyEncoding(build)  # type: ignore[arg-type]
    got: list[object] = []

    def ask():
        barrier.wait()
        got.append(lazy.get())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and len(got) == 8 and all(found is got[0] for found in got)
