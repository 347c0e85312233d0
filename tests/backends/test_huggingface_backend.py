"""The huggingface backend against the `tokenizers` library itself, on four tokenizers trained
here from standard-library sources (nothing is downloaded): a byte-level BPE, a BERT-style
WordPiece (lowercase, strip accents), a Unigram with NFKC and Metaspace, and a Llama-style
BPE with byte fallback. The reference is always the library: `encode(text,
add_special_tokens=False)` (with `encode_special_tokens` set when special tokens are text),
and `decode(ids, skip_special_tokens=False)`."""

from __future__ import annotations

import itertools
import json
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.backends.huggingface import backend as huggingface_backend
from app.backends.huggingface.backend import HuggingFaceTokenizer
from app.errors import BadTokenId, InvalidInput
from app.tokenizers.base import KINDS
from tests.hf_trained import KINDS_TRAINED, SPECIALS
from tests.hf_trained import train as _train
from tests.reference import stdlib_texts
from tokenizers import Tokenizer

SAMPLES = {
    "specials": "a<|endoftext|>b [CLS] x[SEP]<|endoftext|><|endoftext|>",
    "edges": "  leading and trailing  \n\n ",
    "normalized": "HÉLLO Ｆｕｌｌ ﬁx Ⅻ ½ ㍻ ﷺ café e\u0301 Å",
    "emoji": "family 👨‍👩‍👧‍👦 flags 🇫🇷 👋🏽!",
    "scripts": "東京都は日本の首都です 한국어 토큰 مرحبا שלום नमस्ते ภาษาไทย",
    "controls": "tab\tnul\x00 bell\x07 nbsp\xa0 zwsp\u200b ideographic\u3000space",
    "meta_symbol": "a▁b ▁▁ ▁ Ġx ##y <0x41>",
    "only_spaces": "   ",
    "empty": "",
}
SCRIPT_RANGES = [
    (0x20, 0x7E),
    (0xA0, 0x24F),
    (0x300, 0x36F),
    (0x370, 0x4FF),
    (0x590, 0x6FF),
    (0x900, 0x97F),
    (0xE00, 0xE7F),
    (0x3000, 0x30FF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7A3),
    (0xFB00, 0xFB4F),
    (0xFF00, 0xFFEF),
    (0x1F300, 0x1FAFF),
    (0x200B, 0x200F),
]
unicode_text = st.lists(
    st.one_of(
        *[
            st.text(st.characters(min_codepoint=lo, max_codepoint=hi, blacklist_categories=("Cs",)), max_size=12)
            for lo, hi in SCRIPT_RANGES
        ],
        st.sampled_from([*SPECIALS, " ", "  ", "\n", "\r\n", "\t", "▁", "##"]),
    ),
    max_size=25,
).map("".join)


@pytest.fixture(scope="module", params=KINDS_TRAINED)
def pair(request) -> tuple[HuggingFaceTokenizer, Tokenizer, Tokenizer]:
    """(ours, the library as the file says, the library with special tokens as text)."""
    library = _train(request.param)
    plain = Tokenizer.from_str(library.to_str())
    plain.encode_special_tokens = True
    return HuggingFaceTokenizer(request.param, "trained in the test", library.to_str().encode()), library, plain


def _check_text(ours: HuggingFaceTokenizer, library: Tokenizer, plain: Tokenizer, text: str) -> None:
    for allow_special, reference in ((False, plain), (True, library)):
        expected = reference.encode(text, add_special_tokens=False).ids
        assert ours.encode(text, allow_special) == expected
        ids, pieces = ours.encode_with_pieces(text, allow_special)
        assert ids == expected
        if ids:
            assert b"".join(pieces) == text.encode("utf-8")
        assert ours.pieces_of(text, ids, allow_special) == pieces
        assert ours.pieces_of(text, ids[:3], allow_special) == pieces[:3]
        tokens = ours.tokenize(text, allow_special)
        assert [t.id for t in tokens] == ids
        assert [t.bytes for t in tokens] == pieces
        if tokens:
            assert tokens[0].start == 0 and tokens[-1].end == len(text)
        for before, after in itertools.pairwise(tokens):
            assert before.start <= after.start <= before.end <= after.end or before.start == before.end
        for token in tokens:
            assert token.bytes in text[token.start : token.end].encode("utf-8")
        assert ours.decode(ids) == library.decode(ids, skip_special_tokens=False)
        assert b"".join(ours.token_bytes(ids)).decode("utf-8", "replace") == ours.decode(ids)


def test_the_kind_is_registered():
    assert "huggingface" in KINDS and HuggingFaceTokenizer.kind == "huggingface"


@pytest.mark.parametrize("name", SAMPLES)
def test_samples_match_the_library(pair, name):
    _check_text(*pair, SAMPLES[name])


def test_standard_library_sources_match_the_library(pair):
    for _, text in stdlib_texts(count=6, max_chars=6_000)[1::2]:  # not the training texts' spread
        _check_text(*pair, text)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=unicode_text)
def test_random_unicode_matches_the_library(pair, text):
    _check_text(*pair, text)


def test_special_tokens_are_text_unless_allowed(pair):
    ours, _library, _ = pair
    assert set(SPECIALS) <= set(ours.special_tokens)
    eot = ours.special_tokens["<|endoftext|>"]
    assert ours.special_ids == frozenset(ours.special_tokens.values())
    assert ours.encode("<|endoftext|>", allow_special=True) == [eot]
    assert ours.encode("<|endoftext|>") != [eot]  # (a Unigram may still find the piece inside the text)
    assert ours.id_to_bytes(eot) == b"<|endoftext|>"
    tokens = ours.tokenize("x<|endoftext|>", allow_special=True)
    assert [(t.id, t.special) for t in tokens][-1] == (eot, True)
    as_text = ours.tokenize("x<|endoftext|>")
    assert [t.special for t in as_text] == [t.id in ours.special_ids for t in as_text]
    if ours.name != "unigram":  # a Unigram finds the special piece in plain text too, as the library does
        assert not any(t.special for t in as_text)


def test_every_id_has_the_bytes_the_library_gives_it(pair):
    """An id after an anchor token decodes, in the library, to the anchor's text and then
    this id's bytes (WordPiece: a word that is not a `##` continuation gets a space first)."""
    ours, library, _ = pair
    assert ours.vocab_size == library.get_vocab_size(with_added_tokens=True)
    anchor = library.token_to_id("a") if library.token_to_id("a") is not None else library.token_to_id("▁a")
    head = library.decode([anchor], skip_special_tokens=False)
    for token_id in range(ours.vocab_size):
        assert ours.has_id(token_id)
        piece = ours.piece(token_id)
        both = library.decode([anchor, token_id], skip_special_tokens=False)
        assert both.startswith(head)
        expected = both[len(head) :]
        if ours.name == "wordpiece" and not piece.startswith("##"):
            expected = expected.removeprefix(" ")  # ("x ." is cleaned up to "x." by the decoder)
        assert ours.id_to_bytes(token_id).decode("utf-8", "replace") == expected, piece
        if ours.name == "llama" and re.fullmatch(r"<0x[0-9A-F]{2}>", piece):
            assert ours.id_to_bytes(token_id) == bytes([int(piece[3:5], 16)])
    assert not ours.has_id(ours.vocab_size) and not ours.has_id(-1)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_ids_decode_as_the_library_does(pair, data):
    ours, library, _ = pair
    ids = data.draw(st.lists(st.integers(0, ours.vocab_size - 1), max_size=12))
    if ours.name == "llama":  # an invalid run of <0xNN> pieces: the library writes U+FFFD per piece
        ids = [i for i in ids if not re.fullmatch(r"<0x[0-9A-F]{2}>", ours.piece(i))]
    expected = library.decode(ids, skip_special_tokens=False)
    assert ours.decode(ids) == expected
    text, tokens = ours.tokens_for_ids(ids)
    assert text == expected
    assert [t.id for t in tokens] == ids


def test_byte_fallback_pieces_are_bytes_and_join_to_the_decoded_text(pair):
    ours, library, _ = pair
    text = "👋 ꙮ 𓀀"
    ids = library.encode(text, add_special_tokens=False).ids
    assert b"".join(ours.token_bytes(ids)).decode("utf-8", "replace") == library.decode(ids, skip_special_tokens=False)
    if ours.name == "llama":
        assert any(len(ours.id_to_bytes(i)) == 1 and ours.id_to_bytes(i)[0] >= 0x80 for i in ids)


def test_normalized_text_shows_as_the_user_wrote_it():
    wordpiece = HuggingFaceTokenizer("wp", "", _train("wordpiece").to_str().encode())
    tokens = wordpiece.tokenize("  HÉLLO  World ")
    assert b"".join(t.bytes for t in tokens) == "  HÉLLO  World ".encode()
    assert tokens[0].bytes.startswith(b"  H") and tokens[-1].bytes.endswith(
        b"d "
    )  # uncovered: to the next, or the last
    assert wordpiece.tokenize("   ") == []  # no token at all: nothing to attach the spaces to
    unigram = HuggingFaceTokenizer("uni", "", _train("unigram").to_str().encode())
    tokens = unigram.tokenize("ﬁ")  # NFKC: "▁", "f", "i" (or "▁fi"), all from the one ligature
    assert b"".join(t.bytes for t in tokens) == "ﬁ".encode()
    assert all((t.start, t.end) == ((0, 1) if t.bytes else (0, 0)) for t in tokens)
    assert sum(1 for t in tokens if t.bytes) == len(tokens) - (unigram.piece(tokens[0].id) == "▁")


@pytest.mark.parametrize(
    "text, offsets, own, expected",
    [
        ("ﬁx", [(0, 1), (0, 1), (1, 2)], [b"f", b"i", b"x"], [b"\xef", b"\xac\x81", b"x"]),  # NFKC: f, i share ﬁ
        ("é", [(0, 1)] * 3, [b"e", b"\xcc", b"\x81"], [b"\xc3", b"\xa9", b""]),  # more tokens than bytes
        ("ﬁ", [(0, 1)] * 3, [b" ", b"f", b"i"], [b"", b"\xef", b"\xac\x81"]),
        ("😀", [(0, 1), (0, 1)], [b" ", "😀".encode()], [b"", "😀".encode()]),  # a prepended ▁, then the emoji
        ("😀", [(0, 1)] * 4, [b"\xf0", b"\x9f", b"\x98", b"\x80"], [b"\xf0", b"\x9f", b"\x98", b"\x80"]),
        ("Hi", [(0, 1), (0, 1), (1, 2)], [b" ", b"h", b"i"], [b"", b"H", b"i"]),  # lowercased, prepended ▁
        ("  a  b ", [(2, 3), (5, 6)], [b"a", b"b"], [b"  a", b"  b "]),  # uncovered: to the next token, or the last
        ("a\u0301", [(0, 2), (2, 2)], [b"a", b""], [b"a\xcc\x81", b""]),  # accent stripped; an empty span
    ],
)
def test_text_pieces_rules(text, offsets, own, expected):
    assert huggingface_backend.text_pieces(text, offsets, own) == expected


def test_gaps_in_the_ids_are_not_tokens():
    config = json.loads(_train("byte_level").to_str())
    vocab = config["model"]["vocab"]
    last = max(vocab, key=vocab.get)  # the last merge's token: nothing merges it further
    vocab[last] = 1000
    ours = HuggingFaceTokenizer("gappy", "", json.dumps(config).encode())
    assert ours.vocab_size == 1001 and ours.has_id(1000) and not ours.has_id(800)
    assert ours.encode(last.replace("Ġ", " ")) == [1000]
    with pytest.raises(BadTokenId, match="800 at position 1 is not in gappy's vocabulary"):
        ours.validate_ids([1000, 800])


def _refusal(data: bytes) -> str:
    with pytest.raises(InvalidInput) as refused:
        HuggingFaceTokenizer("upload", "", data)
    message = refused.value.message
    assert "\n" not in message and message.startswith("upload is not a usable huggingface tokenizer.json:")
    assert 400 <= refused.value.status < 500
    return message


def test_bad_files_are_refused_with_a_clear_message():
    good = _train("wordpiece").to_str().encode()
    assert "not valid JSON" in _refusal(good[: len(good) // 2])
    assert "not valid JSON" in _refusal(os.urandom(2000).decode("latin-1").encode("utf-8"))
    assert "not UTF-8" in _refusal(b'{"model": "\xff"}')
    assert "nested too deeply" in _refusal(b"[" * 100_000)
    assert "cannot load it" in _refusal(b'{"model": 3}')
    assert "cannot load it" in _refusal(b"[]")
    assert "cannot load it" in _refusal(good.replace(b'"model":{"type":"WordPiece"', b'"model":{"type":"NoSuchModel"'))
    assert "over the limit of 64 MiB" in _refusal(b" " * (huggingface_backend.MAX_JSON_BYTES + 1))
