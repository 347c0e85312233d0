"""The C engine's UTF-8 of the texts it is given (app/bpe/csrc/engine/engine_batch.h, utf8_write.h): a str that
is not ASCII and has not made its UTF-8 is written by the engine itself, without the GIL, and
the str is left as it was; the ids are tiktoken's whichever way the bytes were had, a lone
surrogate is CPython's own UnicodeEncodeError, and the stop strings of `encode_unstopped` and
`stopped` are looked for in the UTF-8 so written; a text cut in pieces (`encode_cut`) is written
piece by piece.
"""

from __future__ import annotations

import ctypes
import itertools
import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bpe import _engine

# One str of each width CPython stores: 1 byte a character (Latin-1), 2 (BMP), 4 (astral).
KINDS = {
    "latin-1": "Ünïcödé façade, ½ price: ©2024 — no, that dash is 2 bytes wide. " * 40,
    "bmp": "Привет, мир! Ελληνικά 東京タワー 한국어 Tiếng Việt. " * 40,
    "astral": "emoji 😀🎉👩‍💻 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𐍈 in text. " * 40,
}


def fresh(text: str) -> str:
    """An equal str that has never made its UTF-8 (slicing builds a new object)."""
    return (text + "!")[:-1]


def made_utf8(text: str) -> str:
    """`text` after CPython made (and kept) its UTF-8, as PyUnicode_AsUTF8 does."""
    as_utf8 = ctypes.pythonapi.PyUnicode_AsUTF8
    as_utf8.argtypes, as_utf8.restype = [ctypes.py_object], ctypes.c_void_p
    as_utf8(text)
    return text


@pytest.mark.parametrize("kind", KINDS)
def test_a_str_the_engine_writes_gives_the_reference_ids_and_stays_as_it_was(o200k, kind):
    encoder, reference = o200k
    engine = encoder._core
    expected = reference.encode_ordinary(KINDS[kind])
    text = fresh(KINDS[kind])
    size = sys.getsizeof(text)
    assert engine.encode(text) == expected
    assert engine.count(text) == len(expected)
    assert engine.encode_batch([fresh(text), "ascii", fresh(text)]) == [
        expected,
        reference.encode_ordinary("ascii"),
        expected,
    ]
    assert engine.count_batch([text] * 3) == [len(expected)] * 3
    assert sys.getsizeof(text) == size, "the engine left a UTF-8 copy with the str"
    # The premise of the size check: a str that made its UTF-8 is bigger, and gives the same ids.
    assert sys.getsizeof(made_utf8(text)) > size
    assert engine.encode(text) == expected


@pytest.mark.parametrize("kind", KINDS)
def test_pieces_of_a_str_the_engine_writes_give_the_reference_ids(o200k, kind):
    encoder, reference = o200k
    engine = encoder._core
    plain = KINDS[kind]
    cuts = [1, 7, 300, len(plain) - 1]
    bounds = itertools.pairwise([0, *cuts, len(plain)])
    expected = [i for a, b in bounds for i in reference.encode_ordinary(plain[a:b])]
    text = fresh(plain)
    size = sys.getsizeof(text)
    assert engine.encode_cut(text, cuts) == expected
    assert engine.count_cut(text, cuts) == len(expected)
    assert sys.getsizeof(text) == size, "the engine left a UTF-8 copy with the str"
    assert engine.encode_cut(made_utf8(text), cuts) == expected  # and from CPython's UTF-8, as before
    broken = fresh(plain[:299] + "\udc80" + plain[300:])
    with pytest.raises(UnicodeEncodeError, match="surrogates not allowed"):
        engine.encode_cut(broken, cuts)
    with pytest.raises(ValueError, match="cuts must increase"):
        engine.count_cut(fresh(plain), [7, 7])


def test_the_stop_scan_of_a_batch_reads_the_utf8_the_engine_writes():
    engine = _engine.Engine(0, [bytes([b]) for b in range(256)], stops=[b"<|a|>", "ｘ".encode()])
    for plain in ("héllo wörld", "Привет " * 20_000):  # a batch that keeps the GIL, one that lets it go
        texts = [fresh(plain), fresh(plain + "<|a|>"), fresh("ｘ" + plain), fresh(plain + "<|a"), "ascii <|a|>"]
        sizes = [sys.getsizeof(text) for text in texts]
        assert engine.stopped(texts) == [1, 2, 4]
        assert [sys.getsizeof(text) for text in texts] == sizes, "the scan left a UTF-8 copy with a str"
        with pytest.raises(UnicodeEncodeError, match="surrogates not allowed"):
            engine.stopped([*texts, fresh(plain + "\ud800")])
    assert engine.stopped([]) == []
    for none in (None, []):  # no stop strings: nothing is held, a lone surrogate still refused
        plain = _engine.Engine(0, [bytes([b]) for b in range(256)], stops=none)
        assert plain.stopped([fresh("Привет <|a|>"), "ascii"]) == []
        with pytest.raises(UnicodeEncodeError):
            plain.stopped([fresh("Привет \udc80")])
    with pytest.raises(TypeError, match="text 1 is bytes"):
        engine.stopped(["ok", b"bytes"])


@pytest.mark.parametrize("at", [0, 1, 2])
def test_a_lone_surrogate_is_cpythons_error_wherever_it_is(o200k, at):
    engine = o200k[0]._core
    texts = [fresh(KINDS["bmp"]), fresh(KINDS["astral"]), fresh(KINDS["latin-1"])]
    texts[at] = texts[at][:50] + "\udc80" + texts[at][50:]
    for call in (engine.encode_batch, engine.count_batch):
        with pytest.raises(UnicodeEncodeError, match="surrogates not allowed"):
            call(texts)
    with pytest.raises(UnicodeEncodeError, match="surrogates not allowed"):
        engine.count(texts[at])
    assert engine.count_batch([texts[(at + 1) % 3]]) == [engine.count(texts[(at + 1) % 3])]  # still serves


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_any_text_written_by_the_engine_matches_tiktoken(o200k, text):
    encoder, reference = o200k
    engine = encoder._core
    expected = reference.encode_ordinary(text)
    assert engine.encode(fresh(text)) == expected
    assert engine.count_batch([fresh(text), fresh(text * 2)]) == [
        len(expected),
        len(reference.encode_ordinary(text * 2)),
    ]


def test_the_stop_scan_reads_the_utf8_the_engine_writes():
    engine = _engine.Engine(0, [bytes([b]) for b in range(256)], stops=[b"<|a|>", "ｘ".encode()])
    for plain in ("héllo wörld", "Привет " * 2000):  # one call that keeps the GIL, one that lets it go
        text = fresh(plain)
        size = sys.getsizeof(text)
        assert engine.encode_unstopped(text) == list(plain.encode())
        assert engine.count_unstopped(fresh(plain + "<|a")) == len((plain + "<|a").encode())
        assert engine.encode_unstopped(fresh(plain + "<|a|>")) is None
        assert engine.count_unstopped(fresh("ｘ" + plain)) is None
        assert sys.getsizeof(text) == size
    with pytest.raises(UnicodeEncodeError):
        engine.encode_unstopped("é\ud800")
    with pytest.raises(TypeError, match="text must be str"):
        engine.count_unstopped(b"bytes")


def _mixed(code_points: list[int], seed: int) -> str:
    """The characters of `code_points` shuffled, in groups of 1-20 with runs of 0-40 ASCII
    letters between them (a writer that takes ASCII a block at a time meets every case)."""
    rng = random.Random(seed)
    rng.shuffle(code_points)
    parts, at = [], 0
    while at < len(code_points):
        take = rng.randint(1, 20)
        parts.append("".join(map(chr, code_points[at : at + take])))
        parts.append("x" * rng.randint(0, 40))
        at += take
    return "".join(parts)


@pytest.mark.parametrize(
    ("kind", "code_points"),
    [
        ("latin-1", list(range(1, 0x100))),
        ("bmp", [c for c in range(1, 0x10000) if not 0xD800 <= c < 0xE000]),
        ("astral", [*range(0x80, 0x800, 7), *range(0xE000, 0x10000, 5), *range(0x10000, 0x110000, 97)]),
    ],
)
def test_every_character_the_engine_writes_is_its_utf8(kind, code_points):
    # The bytes themselves (a vocabulary of the 256 bytes gives each byte back as its id), for
    # every character of a width (a sample of the astral ones), at 17 alignments.
    engine = _engine.Engine(0, [bytes([b]) for b in range(256)])
    text = _mixed(code_points, seed=len(code_points))
    widest = max(map(ord, text))
    assert (1 if widest < 0x100 else 2 if widest < 0x10000 else 4) == {"latin-1": 1, "bmp": 2, "astral": 4}[kind]
    for shift in range(17):  # every alignment of the text against the blocks
        shifted = fresh("a" * shift + text)
        assert engine.encode_unstopped(shifted) == list(shifted.encode())
        assert engine.count_unstopped(fresh(shifted[: 1000 + shift])) == len(shifted[: 1000 + shift].encode())


# One character of each UTF-8 width a str of each kind holds (a 4-byte str's BMP blocks are
# written as a 2-byte str's, its astral ones a character at a time).
WIDTHS = {"latin-1": ("a", "é"), "bmp": ("a", "ж", "語"), "astral": ("a", "ж", "語", "😀")}


@pytest.mark.parametrize("kind", WIDTHS)
def test_every_block_of_widths_is_written_whole(kind):
    # utf8_write.h writes eight characters at a time, packed by which are one, two or three
    # bytes wide: every one of those patterns, at each of the 8 alignments against the blocks.
    engine = _engine.Engine(0, [bytes([b]) for b in range(256)])
    widths = WIDTHS[kind]
    chars = [
        widths[(pattern // len(widths) ** k) % len(widths)] for pattern in range(len(widths) ** 8) for k in range(8)
    ]
    for shift in range(8):
        text = fresh("a" * shift + "".join(chars))
        assert engine.encode_unstopped(text) == list(text.encode())


@pytest.mark.parametrize("surrogate", ["\ud800", "\udbff", "\udc00", "\udfff"])
def test_a_lone_surrogate_is_refused_at_every_place_in_a_block(surrogate):
    engine = _engine.Engine(0, [bytes([b]) for b in range(256)])
    for before in ("", "😀" + "a" * 7):  # a 2-byte str, then a 4-byte one (its first block astral)
        for around in ("a", "ж", "語"):
            for at in range(24):
                text = fresh(before + around * at + surrogate + around * (23 - at))
                with pytest.raises(UnicodeEncodeError, match="surrogates not allowed"):
                    engine.count_unstopped(text)
    assert engine.count_unstopped(fresh("語" * 23 + "\ud7ff" + "\ue000")) == 25 * 3  # its neighbours are not


def test_a_text_whose_most_passes_the_mmap_threshold_is_written_into_its_exact_size():
    # utf8_write.h counts the UTF-8 of a text whose most (four bytes a character of a 4-byte
    # str, three of a 2-byte one) passes 4 MB: the bytes are all written, none past the room.
    engine = _engine.Engine(0, [bytes([b]) for b in range(256)])
    for text in ("😀" + "plain ascii words " * 70_000, "😀a" * 600_000, "語ж a" * 400_000 + "é"):
        assert engine.encode_unstopped(fresh(text)) == list(text.encode())
        assert engine.count_batch([fresh(text), fresh(text[:1000])]) == [len(text.encode()), len(text[:1000].encode())]
