"""tokenprism's own BPE: exact agreement with tiktoken on cl100k_base, the model file,
invalid input, and the shipped default model. Training is checked in test_bpe_vs_naive."""

from __future__ import annotations

import hashlib
import random
import sysconfig
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import InvalidInput, TokenizerFileError
from app.tokenizers import bpe_file, default_model
from app.tokenizers.bpe import BPETokenizer, _merge_long, _merge_short, read_header
from app.tokenizers.files import load_tiktoken_ranks, read_verified
from app.tokenizers.openai_encodings import CL100K_PATTERN, ENDOFTEXT, O200K_PATTERN, OPENAI_ENCODINGS

STDLIB = Path(sysconfig.get_paths()["stdlib"])
CL100K_SPECIALS = OPENAI_ENCODINGS["cl100k_base"].special_tokens


@pytest.fixture(scope="module")
def cl100k_ranks() -> dict[bytes, int]:
    return load_tiktoken_ranks("cl100k_base.tiktoken.gz")


@pytest.fixture(scope="module")
def ours(cl100k_ranks) -> BPETokenizer:
    return BPETokenizer.from_tiktoken_ranks(cl100k_ranks, CL100K_PATTERN, CL100K_SPECIALS, "cl100k_base")


@pytest.fixture(scope="module")
def reference(cl100k_ranks) -> tiktoken.Encoding:
    return tiktoken.Encoding("cl100k_base", pat_str=CL100K_PATTERN, mergeable_ranks=cl100k_ranks, special_tokens=CL100K_SPECIALS)


@pytest.fixture(scope="module")
def small() -> BPETokenizer:
    text = (STDLIB / "textwrap.py").read_text(encoding="utf-8")
    return BPETokenizer.train(text, 600, special_tokens=[ENDOFTEXT, "<|pad|>"], name="small")


VARIED = [
    "",
    "Hello, world! It's 2024; we'll see.",
    "한국어 텍스트를 토큰화합니다. 안녕하세요!",
    "emoji 😀👍🏽👨‍👩‍👧‍👦🇫🇷 and ZWJ",
    "   leading, trailing   \t\t\n\n\n   ",
    "windows\r\nline\r\n\r\nendings\r\n",
    "numbers 1234567890 3.14159 1e10 0xFF",
    "mixed: café naïve Ærøskøbing Ελληνικά русский 中文 العربية",
    "a" * 100_000,
    " " * 5000 + "x",
    "ab" * 20_000,
    "<|endoftext|> is plain text here",
]


@pytest.mark.parametrize("text", VARIED, ids=lambda t: repr(t[:20]))
def test_cl100k_ids_equal_tiktoken(ours, reference, text):
    assert ours.encode(text) == reference.encode_ordinary(text)
    assert ours.decode(ours.encode(text)) == text


def test_cl100k_ids_equal_tiktoken_on_stdlib_sources(ours, reference):
    names = ["argparse.py", "textwrap.py", "pydoc_data/topics.py", "email/_header_value_parser.py", "LICENSE.txt"]
    for name in names:
        text = (STDLIB / name).read_text(encoding="utf-8")
        assert ours.encode(text) == reference.encode_ordinary(text), name


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_cl100k_ids_equal_tiktoken_on_random_unicode(ours, reference, text):
    assert ours.encode(text) == reference.encode_ordinary(text)
    assert ours.decode(ours.encode(text)) == text


def test_cl100k_special_tokens_when_allowed(ours, reference):
    text = "a<|endoftext|>b <|fim_prefix|>c<|endofprompt|>"
    assert ours.encode(text, allow_special=True) == reference.encode(text, allowed_special="all")
    assert ours.encode(text) == reference.encode_ordinary(text)


def test_recovered_merges_rebuild_every_token(ours, cl100k_ranks):
    assert len(ours.merges) == len(cl100k_ranks) - 256
    assert all(ours.id_to_bytes(rank) == token for token, rank in cl100k_ranks.items())
    assert ours.vocab_size == 100277 and not ours.has_id(100261) and ours.has_id(100276)


def test_pattern_name_or_regex_give_the_same_model(cl100k_ranks):
    few = {token: rank for token, rank in cl100k_ranks.items() if rank < 2000}
    by_name = BPETokenizer.from_tiktoken_ranks(few, "gpt4", {}, "a")
    by_regex = BPETokenizer.from_tiktoken_ranks(few, CL100K_PATTERN, {}, "a")
    assert by_name.pattern_name == by_regex.pattern_name == "gpt4"
    assert by_name.dumps() == by_regex.dumps()


@pytest.mark.parametrize("text", ["Hello wörld 😀 it's\r\n", "x" * 300, "déjà vu " * 50])
def test_tokenize_bytes_join_to_the_input(small, ours, text):
    for tokenizer in (small, ours):
        tokens = tokenizer.tokenize(text)
        assert b"".join(t.bytes for t in tokens) == text.encode("utf-8")
        assert tokenizer.decode([t.id for t in tokens]) == text


def test_special_tokens_are_plain_text_unless_allowed(small):
    eot = small.special_tokens[ENDOFTEXT]
    assert small.special_tokens == {ENDOFTEXT: 598, "<|pad|>": 599} and small.vocab_size == 600
    assert eot not in small.encode(f"x{ENDOFTEXT}y")
    ids = small.encode(f"x{ENDOFTEXT}y<|pad|>", allow_special=True)
    assert ids == small.encode("x") + [eot] + small.encode("y") + [599]
    assert small.decode(ids) == f"x{ENDOFTEXT}y<|pad|>"


def test_tiny_hand_checked_model():
    tokenizer = BPETokenizer.train("aaab", 258, pattern="none")
    assert tokenizer.merges == {(97, 97): 256, (256, 97): 257}  # "aa" (2 of 3 pairs), then "aaa"
    assert tokenizer.encode("aaab") == [257, 98]
    assert tokenizer.encode("aaaab") == [256, 256, 98]  # "aa" is merged everywhere first
    assert tokenizer.id_to_bytes(257) == b"aaa"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(97, 100), min_size=2, max_size=80))
def test_heap_merge_equals_rescanning_merge(small, ids):
    merges = {(97, 98): 256, (256, 99): 257, (97, 97): 258, (258, 258): 259, (99, 100): 260, (100, 97): 261}
    assert _merge_long(list(ids), merges) == _merge_short(list(ids), merges)
    model_ids = [ord(c) for c in "    def self.return(".encode().decode()] * 3
    assert _merge_long(list(model_ids), small.merges) == _merge_short(list(model_ids), small.merges)


def test_long_runs_merge_on_the_heap_like_short_ones(small):
    for text in ["a" * 3000, "  " * 1500, "ab" * 1000 + "c", " self.x = self.y\n" * 100]:
        ids = small.encode(text)
        assert small.decode(ids) == text
        assert ids == [i for chunk in small._split(text) for i in _merge_short(list(chunk.encode()), small.merges)]
    assert small.decode(small.encode("a" * 100_000)) == "a" * 100_000  # cl100k's ids: test_cl100k_ids_equal_tiktoken


# -- the model file ------------------------------------------------------------------


def test_save_load_gives_identical_behaviour(small, tmp_path):
    path = tmp_path / "small.bpe"
    small.save(path)
    loaded = BPETokenizer.load(path)
    assert loaded.dumps() == small.dumps() == path.read_bytes()
    assert loaded.merges == small.merges and loaded.special_tokens == small.special_tokens
    assert (loaded.name, loaded.description, loaded.pattern_name, loaded.vocab_size) == (
        small.name, small.description, small.pattern_name, small.vocab_size)
    text = (STDLIB / "argparse.py").read_text(encoding="utf-8")[:20000] + ENDOFTEXT
    for allow in (False, True):
        assert loaded.encode(text, allow_special=allow) == small.encode(text, allow_special=allow)
    assert list(tmp_path.iterdir()) == [path]  # no temp file left behind


def test_read_header_is_cheap_and_right(small, tmp_path):
    path = tmp_path / "small.bpe"
    small.save(path)
    header = read_header(path)
    assert (header.name, header.vocab_size, header.description, header.pattern_name) == (
        "small", 600, small.description, "gpt4")


def test_permuted_bytes_and_custom_regex_survive_saving(cl100k_ranks):
    few = {token: rank for token, rank in cl100k_ranks.items() if rank < 3000}
    model = BPETokenizer.from_tiktoken_ranks(few, O200K_PATTERN, {"<|x|>": 3000}, "o200k-ish")
    assert model.pattern_name == "custom"
    loaded = BPETokenizer.loads(model.dumps(), "o200k-ish.bpe")
    text = "Hello World's 12345 ÆØÅ\n\n"
    assert loaded.encode(text) == model.encode(text) and loaded.byte_ids == model.byte_ids
    assert loaded.pattern_regex == O200K_PATTERN


def _with_checksum(body: bytes) -> bytes:
    return b"tokenprism-bpe v1\nsha256 " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _body(data: bytes) -> bytes:
    return data.split(b"\n", 2)[2]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d[:-7], "checksum"),
        (lambda d: d.replace(b"\n300 ", b"\n301 ", 1), "checksum"),
        (lambda d: d.replace(b"v1", b"v2", 1), "version 'v2'"),
        (lambda d: b"PK\x03\x04" + d, "not a tokenprism BPE model"),
        (lambda d: b"", "not a tokenprism BPE model"),
        (lambda d: _with_checksum(_body(d).replace(b"\n256 ", b"\n256 1 ", 1)), "not two ids"),
        (lambda d: _with_checksum(_body(d).replace(b"merges 342", b"merges 343")), "header says 343 merges"),
        (lambda d: _with_checksum(_body(d).replace(b"pattern gpt4", b"pattern gpt5")), "pattern 'gpt5'"),
        (lambda d: _with_checksum(b"colour blue\n" + _body(d)), "unknown or repeated header field 'colour'"),
        (lambda d: _with_checksum(_body(d).replace(b"\n256 ", b"\n999 ", 1)), "does not build on earlier ids"),
        (lambda d: _with_checksum(_body(d).replace(b'special 598 "', b'special 3 "')), "already has"),
        (lambda d: _with_checksum(_body(d).rstrip(b"\n")), "does not end with a newline"),
    ],
)
def test_damaged_files_are_refused_by_name(small, change, message):
    data = small.dumps()
    assert b"merges 342\n" in data and b"\n256 " in data
    with pytest.raises(TokenizerFileError) as error:
        BPETokenizer.loads(change(data), "damaged.bpe")
    assert "damaged.bpe" in error.value.message and message in error.value.message


def test_missing_file_is_a_file_error(tmp_path):
    with pytest.raises(TokenizerFileError, match="nothing.bpe"):
        BPETokenizer.load(tmp_path / "nothing.bpe")
    with pytest.raises(TokenizerFileError, match="nothing.bpe"):
        read_header(tmp_path / "nothing.bpe")


def test_vocab_listing_is_readable(small):
    listing = small.vocab_text()
    assert "[ ][t] -> [ t]" in listing and listing.count("\n") == 600


# -- invalid input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"vocab_size": 255}, "vocab_size 255 is too small; it must be at least 256"),
        ({"vocab_size": 257, "special_tokens": ["<a>", "<b>"]}, "at least 258"),
        ({"vocab_size": 300, "pattern": "gpt5"}, "unknown split pattern 'gpt5'; use one of: gpt2, gpt4, none"),
        ({"vocab_size": 300, "special_tokens": ["<a>", "<a>"]}, "special token '<a>' is given twice"),
        ({"vocab_size": 300, "special_tokens": [""]}, "not a non-empty string"),
    ],
)
def test_invalid_training_input(kwargs, message):
    with pytest.raises(InvalidInput) as error:
        BPETokenizer.train("some text", **kwargs)
    assert message in error.value.message


def test_unknown_id_is_a_bad_token_id(small):
    from app.errors import BadTokenId

    with pytest.raises(BadTokenId, match="600"):
        small.id_to_bytes(600)
    with pytest.raises(BadTokenId):
        small.decode([1, -1])


def test_progress_is_reported_after_each_merge():
    calls = []
    BPETokenizer.train("hello hello world", 260, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]


# -- the shipped default model -----------------------------------------------------------


def test_shipped_model_loads_as_the_registry_loads_it():
    model = BPETokenizer.loads(read_verified("tokenprism_4k.bpe"), "tokenprism_4k.bpe")
    assert (model.name, model.vocab_size, model.pattern_name) == ("tokenprism_4k", 4096, "gpt4")
    assert model.special_tokens == {ENDOFTEXT: 4095} and model.description == default_model.DESCRIPTION
    text = "def main(argv=None):\n    return 0  # ok\n"
    assert model.decode(model.encode(text)) == text and len(model.encode(text)) < len(text) / 2


def test_recipe_training_is_deterministic():
    documents = [text[:20000] for text in default_model.corpus()[:6]]
    assert default_model.train(documents).dumps() == default_model.train(documents).dumps()


def test_recipe_rebuilds_the_shipped_model_byte_for_byte(capsys):
    if default_model.corpus_sha256(default_model.corpus()) != default_model.CORPUS_SHA256:
        pytest.skip("this Python's standard library differs from the pinned corpus")
    assert default_model.main(["--check"]) == 0
    assert "reproduced byte for byte" in capsys.readouterr().out


def test_random_corpus_shape_does_not_matter_for_saving(tmp_path):
    rnd = random.Random(7)
    text = "".join(rnd.choice("ab\n \r\t😀é") for _ in range(3000))
    for pattern in ("gpt2", "gpt4", "none"):
        model = BPETokenizer.train([text, text[::-1]], 400, pattern=pattern, name=f"r-{pattern}")
        loaded = BPETokenizer.loads(model.dumps(), "r.bpe")
        assert loaded.encode(text) == model.encode(text) and loaded.decode(model.encode(text)) == text
    assert bpe_file.MAGIC == "tokenprism-bpe"
