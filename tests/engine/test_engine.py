"""The engine against the reference libraries, and the invariants the visualizer relies on."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from app.errors import BadTokenId, UnknownTokenizer
from app.tokenizers.tokens import segments
from tests.reference import BUILTIN_NAMES, reference_ids, stdlib_texts

REFERENCE_NAMES = ["gpt2", "cl100k_base", "o200k_base", "mistral_v1"]

TRICKY = {
    "zwj_family": "family: 👨‍👩‍👧‍👦 and 👩🏽‍💻!",
    "flags": "🇫🇷🇩🇪🇯🇵 flags 🏴‍☠️",
    "korean": "한국어 토큰화는 비싸다. 안녕하세요",
    "combining": "e\u0301 a\u0308\u0323 Z\u0351\u0352\u0353 ñ",
    "crlf": "line one\r\nline two\r\n\r\n",
    "tabs": "\tdef f():\n\t\treturn 1\n",
    "spaces": "a" + " " * 37 + "b    \n     ",
    "endoftext": "before <|endoftext|> after <|fim_prefix|><|endofprompt|>",
    "arabic_bidi": "abc \u202eשלום\u202c مرحبا 123",
    "controls": "nul\x00 bell\x07 esc\x1b del\x7f c1\x85",
    "cjk": "東京都は日本の首都です。中文分词",
    "math": "12345 + 678.9 = 13023.9; 1e-10 ≈ ∑∫",
    "meta_symbol": "a▁b ▁▁ ▁",
    "empty": "",
}

unicode_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), max_codepoint=0x1FFFF), min_size=0, max_size=200
)


@pytest.fixture(scope="module", params=BUILTIN_NAMES)
def tokenizer(request, registry):
    return registry.get(request.param)


@pytest.mark.parametrize("name", REFERENCE_NAMES)
@pytest.mark.parametrize("case", list(TRICKY), ids=list(TRICKY))
def test_ids_equal_reference_on_tricky_text(registry, name, case):
    text = TRICKY[case]
    assert registry.get(name).encode(text) == reference_ids(name, text)


@pytest.mark.parametrize("name", REFERENCE_NAMES)
def test_ids_equal_reference_on_stdlib_sources(registry, name):
    tokenizer = registry.get(name)
    for file_name, text in stdlib_texts(count=40, max_chars=20_000):
        assert tokenizer.encode(text) == reference_ids(name, text), file_name


@pytest.mark.parametrize("name", REFERENCE_NAMES)
def test_ids_equal_reference_on_random_unicode(registry, name):
    tokenizer = registry.get(name)

    @hyp_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(unicode_text)
    def check(text):
        assert tokenizer.encode(text) == reference_ids(name, text)

    check()


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_special_tokens_are_text_unless_allowed(registry, name):
    tokenizer = registry.get(name)
    text = TRICKY["endoftext"]
    plain = tokenizer.encode(text)
    special = tokenizer.encode(text, allow_special=True)
    eot = tokenizer.special_tokens["<|endoftext|>"]
    assert eot not in plain and eot in special
    assert special == reference_ids(name, text, allow_special=True)
    marked = [t for t in tokenizer.tokenize(text, allow_special=True) if t.special]
    assert next(t.bytes for t in marked) == b"<|endoftext|>"


def _check_cover(text, tokens):
    assert b"".join(t.bytes for t in tokens) == text.encode("utf-8")
    position = 0
    for segment in segments(tokens):
        assert segment.start == position, "segments must cover the text in order, without gaps"
        assert segment.end >= segment.start
        position = segment.end
    assert position == len(text)
    for token in tokens:
        assert text[token.start : token.end].encode("utf-8").find(token.bytes) != -1 or token.is_partial


@pytest.mark.parametrize("case", list(TRICKY), ids=list(TRICKY))
def test_tokens_cover_the_input(tokenizer, case):
    text = TRICKY[case]
    _check_cover(text, tokenizer.tokenize(text))


def test_tokens_cover_random_unicode(tokenizer):
    @hyp_settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(unicode_text)
    def check(text):
        tokens = tokenizer.tokenize(text)
        _check_cover(text, tokens)
        assert [t.id for t in tokens] == tokenizer.encode(text)
        # SentencePiece reads its meta symbol "▁" in input as a space (its own behaviour);
        # qwen3_6 encodes the text's NFC form
        expected = text.replace("▁", " ") if tokenizer.kind == "sentencepiece" else text
        if tokenizer.name == "qwen3_6":
            expected = unicodedata.normalize("NFC", expected)
        assert tokenizer.decode(tokenizer.encode(text)) == expected

    check()


def test_split_characters_share_the_character_range(registry):
    text = "hi 👨‍👩‍👧 한"
    tokens = registry.get("gpt2").tokenize(text)
    split = [s for s in segments(tokens) if s.is_split_character]
    assert split, "gpt2 cuts emoji into byte tokens"
    for segment in split:
        shown = text[segment.start : segment.end]
        assert "\ufffd" not in shown and shown.strip()
        assert b"".join(t.bytes for t in segment.tokens) == shown.encode("utf-8")


def test_lone_surrogates_are_cleaned(tokenizer):
    tokens = tokenizer.tokenize("a\ud800b\udfffc")
    assert b"".join(t.bytes for t in tokens).decode("utf-8") == "a\ufffdb\ufffdc"


def test_sentencepiece_dummy_prefix_is_not_input(registry):
    tokens = registry.get("mistral_v1").tokenize("  lead")
    assert [t.bytes for t in tokens] == [b" ", b" lead"]
    assert tokens[0].start == 0 and tokens[-1].end == 6


@pytest.mark.parametrize(
    "ids, fragment",
    [([1, -5], "-5"), ([10**9], "1000000000"), ([True], "True"), (["7"], "'7'"), ([1.5], "1.5"), ([None], "None")],
)
def test_bad_ids_are_named(registry, ids, fragment):
    with pytest.raises(BadTokenId) as caught:
        registry.get("cl100k_base").tokens_for_ids(ids)
    assert fragment in caught.value.message


def test_gap_in_vocabulary_is_a_bad_id(registry):
    with pytest.raises(BadTokenId, match="100256"):
        registry.get("cl100k_base").tokens_for_ids([100256])
    text, tokens = registry.get("cl100k_base").tokens_for_ids([100257])
    assert text == "<|endoftext|>" and tokens[0].special


def test_decoding_partial_bytes_matches_reference(registry):
    tokenizer = registry.get("gpt2")
    ids = tokenizer.encode("😀")[:1] + tokenizer.encode("x")
    text, tokens = tokenizer.tokens_for_ids(ids)
    assert text == tokenizer.decode(ids) == b"".join(tokenizer.token_bytes(ids)).decode("utf-8", "replace")
    assert [(t.start, t.end) for t in tokens] == [(0, 1), (1, 2)]


def test_registry_aliases_and_unknown_names(registry):
    assert registry.get("r50k_base") is registry.get("gpt2")
    with pytest.raises(UnknownTokenizer) as caught:
        registry.get("gpt5")  # "gpt-5" is a model name now (app/tokenizers/models.py)
    for name in BUILTIN_NAMES:
        assert name in caught.value.message


def test_registry_lists_the_builtins(registry):
    infos = {info["name"]: info for info in registry.infos()}
    assert set(BUILTIN_NAMES) <= set(infos)
    for name in BUILTIN_NAMES:
        assert infos[name]["vocab_size"] == registry.get(name).vocab_size
        assert infos[name]["kind"] == registry.get(name).kind


@pytest.mark.parametrize("name", BUILTIN_NAMES)
@pytest.mark.parametrize("cluster", ["👨‍👩‍👧", "🇫🇷", "e\u0301", "👩🏽‍💻"])
def test_a_grapheme_cluster_is_one_segment_given_the_text(registry, name, cluster):
    text = f"ab {cluster} cd"
    found = [s for s in segments(registry.get(name).tokenize(text), text) if cluster in text[s.start : s.end]]
    assert len(found) == 1
    start = text.index(cluster)
    assert found[0].start <= start and found[0].end >= start + len(cluster)
