"""Chunks (Tokenizer.chunks): equal to the reference split of each kind, and no token crosses one.

References: `regex.findall(pattern, text)` for the regex kinds (the pattern of each built-in
as its publisher writes it, own BPE's, a custom one); the Hugging Face library's own
`pre_tokenize_str` for tokenizer.json files. Then, over every built-in: every token's
character range lies inside one chunk, on samples and on generated text.
"""

from __future__ import annotations

import gzip
import unicodedata

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenizers
from app.backends.huggingface.backend import HuggingFaceTokenizer
from app.backends.llama_backend import LLAMA3_PATTERN
from app.backends.qwen_backend import QWEN3_5_PATTERN
from app.bpe.model import BPETokenizer
from app.tokenizers.chunks import NO_PATTERN_NOTE, SENTENCEPIECE_NOTE
from app.tokenizers.openai_encodings import OPENAI_ENCODINGS
from tests.hf_trained import trained_json
from tests.reference import BUILTIN_NAMES, TOKENIZER_DIR, stdlib_texts

CUSTOM = r"""\p{L}+|\p{N}|\s+|[^\s\p{L}\p{N}]+"""
SAMPLES = [
    "Hello, world! It's 2024; we'll see... I'M HERE, don't.",
    "naïve café e\u0301 Å Ａ ﬁ Ærøskøbing Ελληνικά русский 中文 한국어 العربية हिन्दी ไทย",
    "\tdef f(x):\r\n        return x**2 + 1_000  # ok?\n\n\n   ",
    "😀👍🏽👨\u200d👩\u200d👧 🇫🇷 \u00a0\u200b\u3000 $€¥ 3.14e-10 0xFF 1234567",
    "a<|endoftext|>b <|im_start|>user [INST] <s></s> <think>",
    "",
]
SCRIPTS = [
    (0x20, 0x7E),
    (0xA0, 0x24F),
    (0x300, 0x36F),
    (0x370, 0x4FF),
    (0x900, 0x97F),
    (0xE00, 0xE7F),
    (0x3000, 0x30FF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7A3),
    (0x1F300, 0x1FAFF),
    (0x200B, 0x200F),
]
texts = st.lists(
    st.one_of(
        *[
            st.text(st.characters(min_codepoint=lo, max_codepoint=hi, blacklist_categories=("Cs",)), max_size=10)
            for lo, hi in SCRIPTS
        ],
        st.sampled_from([" ", "  ", "\n", "\r\n", "\t", "'s", "'LL", "<|endoftext|>", "123456", "▁"]),
    ),
    max_size=20,
).map("".join)
quick = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _pieces(chunks, text):
    return [text[start:end] for start, end in chunks]


def _assert_cover(chunks, text):
    bounds = [0, *[end for _, end in chunks]]
    assert [start for start, _ in chunks] == bounds[:-1] and bounds[-1] == len(text)


def _own_custom() -> BPETokenizer:
    ranks = {bytes([byte]): byte for byte in range(256)} | {b"at": 256, b"cat": 257}
    return BPETokenizer.from_tiktoken_ranks(ranks, CUSTOM, {"<|endoftext|>": 258}, "custom_test")


def _tekken_pattern() -> str:
    import json

    return json.loads(gzip.decompress((TOKENIZER_DIR / "tekken_240911.json.gz").read_bytes()))["config"]["pattern"]


def _regex_cases(registry):
    """(tokenizer, its pattern as published, the text the pattern runs on) for each regex kind."""
    cases = [
        (registry.get(name), OPENAI_ENCODINGS[name].pattern, None) for name in ("gpt2", "cl100k_base", "o200k_base")
    ]
    cases += [
        (registry.get("o200k_harmony"), OPENAI_ENCODINGS["o200k_base"].pattern, None),
        (registry.get("llama3"), LLAMA3_PATTERN, None),
        (registry.get("llama4"), OPENAI_ENCODINGS["o200k_base"].pattern, None),
        (registry.get("qwen3_6"), QWEN3_5_PATTERN, "NFC"),
        (registry.get("mistral_tekken"), _tekken_pattern(), None),
        (registry.get("tokenprism_4k"), OPENAI_ENCODINGS["cl100k_base"].pattern, None),
        (_own_custom(), CUSTOM, None),
    ]
    return cases


@pytest.fixture(scope="module")
def regex_cases(registry):
    return _regex_cases(registry)


def _check_regex(cases, text):
    for tokenizer, pattern, form in cases:
        chunks = tokenizer.chunks(text)
        if form is None:
            assert _pieces(chunks, text) == regex.findall(pattern, text), f"{tokenizer.name} on {text!r}"
            _assert_cover(chunks, text)
        else:  # qwen: the chunks of NFC(text), on text NFC leaves alone
            assert unicodedata.normalize(form, text) != text or _pieces(chunks, text) == regex.findall(pattern, text)


def test_regex_kinds_equal_findall_on_samples(regex_cases):
    for text in SAMPLES + [text for _, text in stdlib_texts(count=3, max_chars=3_000)]:
        _check_regex(regex_cases, text)


@quick
@given(text=texts)
def test_regex_kinds_equal_findall_on_generated_text(regex_cases, text):
    _check_regex(regex_cases, unicodedata.normalize("NFC", text))


def _hf_files():
    files = {kind: trained_json(kind) for kind in ("byte_level", "wordpiece", "unigram", "llama")}
    files["deepseek_v4"] = gzip.decompress((TOKENIZER_DIR / "deepseek_v4.tokenizer.json.gz").read_bytes()).decode()
    return files


@pytest.fixture(scope="module")
def hf_pairs():
    return [
        (HuggingFaceTokenizer(name, "test", text.encode()), tokenizers.Tokenizer.from_str(text))
        for name, text in _hf_files().items()
    ]


def _check_hf(pairs, text):
    for ours, library in pairs:
        if library.pre_tokenizer is None:
            expected = [(0, len(text))] if text else []
        else:
            normalized = text if library.normalizer is None else library.normalizer.normalize_str(text)
            if normalized != text:
                continue  # the library's offsets are of the normalized text then: see the next test
            expected = [span for _, span in library.pre_tokenizer.pre_tokenize_str(text) if span[0] < span[1]]
        assert ours.chunks(text) == expected, f"{ours.name} on {text!r}"


def test_huggingface_chunks_equal_the_pre_tokenizer_on_samples(hf_pairs):
    for text in [*SAMPLES[:4], "plain words only", "  two  spaces "]:
        _check_hf(hf_pairs, text)


@quick
@given(text=texts.filter(lambda t: "<|endoftext|>" not in t))
def test_huggingface_chunks_equal_the_pre_tokenizer_on_generated_text(hf_pairs, text):
    _check_hf(hf_pairs, text)


def test_huggingface_chunks_are_of_the_text_the_user_typed():
    ours = HuggingFaceTokenizer("wordpiece", "test", trained_json("wordpiece").encode())
    text = "HÉLLO Wörld, ok"  # lowercased and stripped of accents before the split
    assert _pieces(ours.chunks(text), text) == ["HÉLLO", "Wörld", ",", "ok"]


def test_added_tokens_are_chunks_of_their_own():
    ours = HuggingFaceTokenizer("byte_level", "test", trained_json("byte_level").encode())
    text = "a<|endoftext|>b c"
    assert _pieces(ours.chunks(text, allow_special=True), text) == ["a", "<|endoftext|>", "b", " c"]
    cl100k_chunks = ours.chunks(text)
    assert "<|endoftext|>" not in _pieces(cl100k_chunks, text)


def test_special_tokens_are_one_chunk_when_allowed(registry):
    text = "x<|endoftext|>y"
    for name in ("cl100k_base", "llama3"):
        tokenizer = registry.get(name)
        special = "<|end_of_text|>" if name == "llama3" else "<|endoftext|>"
        text = f"x{special}y"
        assert _pieces(tokenizer.chunks(text, allow_special=True), text) == ["x", special, "y"]
        assert special not in _pieces(tokenizer.chunks(text), text)


def test_kinds_without_a_split_say_what_they_do(registry):
    for name in ("mistral_v1", "mistral_v3"):
        assert registry.get(name).chunks("a b") is None
        assert registry.get(name).chunks_note == SENTENCEPIECE_NOTE
    whole = BPETokenizer.train("the cat sat on the mat", vocab_size=260, pattern="none", name="whole")
    assert whole.chunks("a b") is None and whole.chunks_note == NO_PATTERN_NOTE
    assert registry.get("cl100k_base").chunks_note is None


def test_llama_chunks_are_cut_where_encode_cuts_long_runs(registry):
    text = "a" * 30_000 + " b"
    chunks = registry.get("llama3").chunks(text)
    assert chunks[:2] == [(0, 25_000), (25_000, 30_000)]
    _assert_cover(chunks, text)


def test_qwen_chunks_map_back_to_the_text_as_typed(registry):
    text = "cafe\u0301 ok"  # NFC joins e + U+0301
    assert _pieces(registry.get("qwen3_6").chunks(text), text) == ["cafe\u0301", " ok"]


def _assert_no_token_crosses(tokenizer, text, allow_special=False):
    chunks = tokenizer.chunks(text, allow_special)
    if chunks is None:
        return
    ends = sorted({end for _, end in chunks} | {start for start, _ in chunks})
    for token in tokenizer.tokenize(text, allow_special):
        inside = [point for point in ends if token.start < point < token.end]
        assert not inside, (tokenizer.name, text, token)


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_no_token_spans_two_chunks(registry, name):
    tokenizer = registry.get(name)
    for text in SAMPLES + [text for _, text in stdlib_texts(count=2, max_chars=4_000)]:
        for allow_special in (False, True):
            _assert_no_token_crosses(tokenizer, text, allow_special)


@quick
@given(text=texts)
def test_no_token_spans_two_chunks_on_generated_text(registry, text):
    for name in BUILTIN_NAMES:
        _assert_no_token_crosses(registry.get(name), text)


def test_the_docs_example(registry):
    text = "Hello world!!! 1234567"  # docs/web.md, the Chunks paragraph
    assert _pieces(registry.get("cl100k_base").chunks(text), text) == ["Hello", " world", "!!!", " ", "123", "456", "7"]
    assert _pieces(registry.get("gpt2").chunks(text), text)[-1] == " 1234567"


def test_a_backtracking_pattern_is_a_422_not_a_hang():
    from app.backends.tiktoken_backend import TiktokenTokenizer
    from app.errors import InvalidInput
    from app.tokenizers.openai_encodings import OpenAIEncoding

    spec = OpenAIEncoding(name="slow", file="slow", pattern=r"(?:a|aa)*b|\s|.", description="", special_tokens={})
    tokenizer = TiktokenTokenizer(spec, {bytes([byte]): byte for byte in range(256)})
    with pytest.raises(InvalidInput) as caught:
        tokenizer.chunks("a" * 60 + "c")
    assert caught.value.code == "split_pattern_too_slow" and "chunks" in caught.value.message
