"""tokenprism's own BPE: exact agreement with tiktoken on cl100k_base, the C merge
(`_bpe_core.Merger`) against the lecture's encode, the model file, invalid input, and the
shipped default model. Training is checked in test_bpe_vs_naive."""

from __future__ import annotations

import array
import functools
import hashlib
import itertools
import random
import sysconfig
import threading
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bpe import _core as _bpe_core
from app.bpe import default_model, unicode_classes
from app.bpe import model_file as bpe_file
from app.bpe.model import BPETokenizer, read_header
from app.errors import InvalidInput, TokenizerFileError
from app.tokenizers.openai_encodings import CL100K_PATTERN, ENDOFTEXT, O200K_PATTERN, OPENAI_ENCODINGS
from app.tokenizers.storage.files import load_tiktoken_ranks, read_verified

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
    return tiktoken.Encoding(
        "cl100k_base", pat_str=CL100K_PATTERN, mergeable_ranks=cl100k_ranks, special_tokens=CL100K_SPECIALS
    )


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


@functools.cache
def classed_apart() -> frozenset[int]:
    """The code points the `regex` module (Unicode 17) and tiktoken (Unicode 16) put in other
    classes (docs/decisions.md): our own BPE splits with the former, by design, so its chunks
    differ from tiktoken's there (U+3D000 is a letter to one, not to the other)."""
    ours, theirs = unicode_classes.classes("regex"), unicode_classes.classes("tiktoken")
    return frozenset(c for c in range(len(ours)) if ours[c] != theirs[c])


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_cl100k_ids_equal_tiktoken_on_random_unicode(ours, reference, text):
    text = "".join(c for c in text if ord(c) not in classed_apart())
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
    assert ids == [*small.encode("x"), eot, *small.encode("y"), 599]
    assert small.decode(ids) == f"x{ENDOFTEXT}y<|pad|>"


def test_tiny_hand_checked_model():
    tokenizer = BPETokenizer.train("aaab", 258, pattern="none")
    assert tokenizer.merges == {(97, 97): 256, (256, 97): 257}  # "aa" (2 of 3 pairs), then "aaa"
    assert tokenizer.encode("aaab") == [257, 98]
    assert tokenizer.encode("aaaab") == [256, 256, 98]  # "aa" is merged everywhere first
    assert tokenizer.id_to_bytes(257) == b"aaa"


# -- the C merge (_bpe_core.Merger) ---------------------------------------------------

IDENTITY = bytes(range(256))
TOY_PAIRS = [(97, 98), (256, 99), (97, 97), (258, 258), (99, 100), (100, 97)]  # ab, abc, aa, aaaa, cd, da


def lecture_encode(data: bytes, pairs: list[tuple[int, int]], byte_ids: bytes = IDENTITY) -> list[int]:
    """The lecture's encode: merge the pair with the lowest new id everywhere, until no
    adjacent pair has a merge. The reference for the C merge."""
    merges = {pair: 256 + i for i, pair in enumerate(pairs)}  # (int, int) -> int
    ids = [byte_ids[b] for b in data]
    while len(ids) >= 2:
        pair = min(itertools.pairwise(ids), key=lambda p: merges.get(p, float("inf")))
        if pair not in merges:
            break
        out, i = [], 0
        while i < len(ids):
            if ids[i : i + 2] == list(pair):
                out.append(merges[pair])
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return ids


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200).map(lambda b: bytes(97 + x % 4 for x in b)))
def test_c_merge_equals_the_lecture_encode(data):
    # up to 200 bytes: both the rescanning merge (<= 64 ids) and the heap merge
    assert _bpe_core.Merger(IDENTITY, TOY_PAIRS).merge(data) == lecture_encode(data, TOY_PAIRS)


@pytest.mark.parametrize("length", [0, 1, 2, 63, 64, 65, 4095, 4096, 10_000])
@pytest.mark.parametrize("byte", [b"a", b"x"])  # "a" has merges, "x" none
def test_c_merge_on_runs_of_one_byte(length, byte):
    data = byte * length
    assert _bpe_core.Merger(IDENTITY, TOY_PAIRS).merge(data) == lecture_encode(data, TOY_PAIRS)


def test_c_merge_edge_cases_on_cl100k(ours, reference):
    merger = ours._merger
    assert merger.merge(b"") == [] and merger.encode_chunks([""], {}, 10) == []
    assert merger.merge(b"!") == reference.encode_ordinary("!") == [0]
    for data in [b" hello", b"                ", b"\n\n"]:  # each is one cl100k token
        assert merger.merge(data) == [reference.encode_single_token(data)]
    for data in [b"a" * 10_000, b" " * 10_000, "é".encode() * 5000]:
        assert merger.merge(data) == reference.encode_ordinary(data.decode())
    assert merger.merge(bytearray(b"hello")) == merger.merge(memoryview(b"hello")) == merger.merge(b"hello")


def test_c_merge_with_permuted_byte_ids():
    byte_ids = bytes(reversed(range(256)))  # byte b has id 255 - b
    pairs = [(255 - 97, 255 - 98), (256, 255 - 99)]
    for data in [b"abcabc", b"ab" * 50 + b"c", b"cba"]:
        assert _bpe_core.Merger(byte_ids, pairs).merge(data) == lecture_encode(data, pairs, byte_ids)


def test_encode_chunks_fills_the_cache_up_to_its_limit():
    merger = _bpe_core.Merger(IDENTITY, TOY_PAIRS)
    chunks = ["abc", "aaaa", "d", "abc", "é\ud800", "cd"]  # a lone surrogate is encoded with surrogatepass
    expected = [i for c in chunks for i in lecture_encode(c.encode("utf-8", "surrogatepass"), TOY_PAIRS)]
    cache: dict = {}
    assert merger.encode_chunks(chunks, cache, 4) == expected
    unpacked = {chunk: array.array("i", packed).tolist() for chunk, packed in cache.items()}  # native int32s
    assert unpacked == {"abc": [257], "aaaa": [259], "d": [100], "é\ud800": [195, 169, 237, 160, 128]}
    assert merger.encode_chunks(chunks, cache, 4) == expected  # now partly from the cache
    assert merger.encode_chunks(chunks, {}, 0) == expected  # no cache at all
    assert merger.encode_chunks(chunks, {}, 100) == expected


def test_merger_refuses_bad_input():
    with pytest.raises(ValueError, match="256 bytes"):
        _bpe_core.Merger(b"\x00" * 256, [])
    with pytest.raises(ValueError, match="256 bytes"):
        _bpe_core.Merger(IDENTITY[:255], [])
    with pytest.raises(ValueError, match=r"pair 1 \(300, 1\) does not build on earlier ids"):
        _bpe_core.Merger(IDENTITY, [(1, 2), (300, 1)])
    with pytest.raises(ValueError, match="merged twice"):
        _bpe_core.Merger(IDENTITY, [(1, 2), (1, 2)])
    with pytest.raises(TypeError, match="pair 0"):
        _bpe_core.Merger(IDENTITY, [(1, 2, 3)])
    merger = _bpe_core.Merger(IDENTITY, TOY_PAIRS)
    with pytest.raises(TypeError, match="chunks must be str"):
        merger.encode_chunks(["ab", b"ab"], {}, 10)
    for bad_value in [(256,), b"\x01\x01\x00"]:
        with pytest.raises(TypeError, match="ids packed as int32 bytes"):
            merger.encode_chunks(["ab"], {"ab": bad_value}, 10)
    with pytest.raises(ValueError, match="id 999"):
        merger.encode_chunks(["ab"], {"ab": array.array("i", [999]).tobytes()}, 10)
    with pytest.raises(TypeError):
        merger.merge("text, not bytes")


def test_unrecoverable_ranks_name_the_token():
    ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"xyz": 257}
    with pytest.raises(InvalidInput, match=r"token b'xyz' \(rank 257\) is not the merge of two"):
        BPETokenizer.from_tiktoken_ranks(ranks, "gpt4", {}, "bad")
    assert _bpe_core.recover_merges(IDENTITY, [b"ab", b"xyz"]) == [(97, 98)]
    with pytest.raises(InvalidInput, match="256 single bytes first"):
        BPETokenizer.from_tiktoken_ranks({bytes([b]): b for b in range(200)}, "gpt4", {}, "short")


def test_threads_encoding_long_chunks_at_once_agree(ours, reference):
    # chunks of >= 4096 bytes are merged without the GIL; the cache is shared
    texts = ["a" * 20_000, " " * 9000 + "b", "x" * 5000 + " y" * 3000, "é" * 6000]
    expected = [reference.encode_ordinary(text) for text in texts]
    results: dict[int, bool] = {}

    def run(k: int) -> None:
        results[k] = all(ours.encode(texts[(k + j) % 4]) == expected[(k + j) % 4] for j in range(8))

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {0: True, 1: True, 2: True, 3: True}


def test_tiny_trained_model_equals_the_lecture_encode(small):
    pairs = list(small.merges)
    for text in ["a" * 3000, "  " * 1500, "ab" * 1000 + "c", " self.x = self.y\n" * 100]:
        ids = small.encode(text)
        assert small.decode(ids) == text
        assert ids == [i for chunk in small._split(text) for i in lecture_encode(chunk.encode(), pairs)]
    assert small.decode(small.encode("a" * 100_000)) == "a" * 100_000  # cl100k's ids: test_cl100k_ids_equal_tiktoken


# -- the model file ------------------------------------------------------------------


def test_save_load_gives_identical_behaviour(small, tmp_path):
    path = tmp_path / "small.bpe"
    small.save(path)
    loaded = BPETokenizer.load(path)
    assert loaded.dumps() == small.dumps() == path.read_bytes()
    assert loaded.merges == small.merges and loaded.special_tokens == small.special_tokens
    assert (loaded.name, loaded.description, loaded.pattern_name, loaded.vocab_size) == (
        small.name,
        small.description,
        small.pattern_name,
        small.vocab_size,
    )
    text = (STDLIB / "argparse.py").read_text(encoding="utf-8")[:20000] + ENDOFTEXT
    for allow in (False, True):
        assert loaded.encode(text, allow_special=allow) == small.encode(text, allow_special=allow)
    assert list(tmp_path.iterdir()) == [path]  # no temp file left behind


def test_read_header_is_cheap_and_right(small, tmp_path):
    path = tmp_path / "small.bpe"
    small.save(path)
    header = read_header(path)
    assert (header.name, header.vocab_size, header.description, header.pattern_name) == (
        "small",
        600,
        small.description,
        "gpt4",
    )


def test_permuted_bytes_and_custom_regex_survive_saving(cl100k_ranks):
    few = {token: rank for token, rank in cl100k_ranks.items() if rank < 3000}
    model = BPETokenizer.from_tiktoken_ranks(few, O200K_PATTERN, {"<|x|>": 3000}, "o200k-ish")
    assert model.pattern_name == "custom"
    loaded = BPETokenizer.loads(model.dumps(), "o200k-ish.bpe")
    text = "Hello World's 12345 ÆØÅ\n\n"
    assert loaded.encode(text) == model.encode(text) and loaded.byte_ids == model.byte_ids
    assert loaded.pattern_regex == O200K_PATTERN


def _with_checksum(body: bytes) -> bytes:
    return b"tokenprism-bpe v2\nsha256 " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _body(data: bytes) -> bytes:
    return data.split(b"\n", 2)[2]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d[:-7], "checksum"),
        (lambda d: d.replace(b"\n300 ", b"\n301 ", 1), "checksum"),
        (lambda d: d.replace(b"v2", b"v3", 1), "version 'v3'"),
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
    with pytest.raises(TokenizerFileError, match=r"nothing\.bpe"):
        BPETokenizer.load(tmp_path / "nothing.bpe")
    with pytest.raises(TokenizerFileError, match=r"nothing\.bpe"):
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


def test_custom_pattern_without_its_regex_says_so():
    """A model named with the custom split pattern but given no regex is refused for that,
    not run through the pattern sandbox as the regex None (which blamed the engine)."""
    with pytest.raises(InvalidInput, match="no pattern_regex was given"):
        BPETokenizer({}, pattern_name="custom")
