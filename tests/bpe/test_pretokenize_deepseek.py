"""DeepSeek's pre-tokenizer in C (pretokenize_deepseek.c, family DEEPSEEK) cuts every text where
the Hugging Face library cuts it with deepseek_v4's tokenizer.json (its three Splits and
ByteLevel), on the library's own Unicode classes, which the build asked it for."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bpe import _pretokenize_check, families
from app.bpe import unicode_classes as uc
from app.bpe._engine import split
from tests.reference import huggingface_reference, stdlib_texts


def library_pieces(text: str) -> list[str]:
    return [text[start:end] for _, (start, end) in huggingface_reference().pre_tokenizer.pre_tokenize_str(text)]


def ours(text: str) -> list[str]:
    return split(families.DEEPSEEK, text)


def test_the_built_table_is_the_librarys_class_of_every_code_point():
    built, truth = _pretokenize_check.table(False, True), uc.classes("tokenizers")  # (regex, onig)
    assert [f"U+{cp:04X}" for cp in uc.code_points() if built[cp] != truth[cp]] == []
    # not the `regex` module's classes: another Unicode version, thousands of letters apart
    regex_letters = uc.members(r"\p{L}", "regex")
    assert len(regex_letters ^ {cp for cp in uc.code_points() if uc.LU <= built[cp] <= uc.LO}) > 10_000


CASES = [
    "Hello world! 12345 東京タワー123 ",
    "a\n  b",
    "  \n\n  x",
    "x  ",
    "x \t y",
    "'s 'S .com it's IT'S foo_bar-baz a.b.c ~~x x~~ \\n",
    "(hello) [a] {b} «guillemets» —— $$$\n\n !!\n",
    "é café naïve \u0301abc a\u0301 x\u200dy \ufeffabc",
    "©2024 ™ ± \u3000\u3000x \x85x \u00a0x a\r\n\r\nb \t\t\n\t a\t\n",
    "ー東京ゝ ゛゙カ ・テスト・ \u3040\u3097x 한국어 텍스트",
    "Привет, мир! مرحبا بالعالم १२३ हिन्दी 12\u0663\u0664 1234567 a1b2c3",
    "\U0001f600\U0001f600 ok \x00\x00a \x00 \U0010ffff\ue000",
    "",
    " ",
    "\n",
]


@pytest.mark.parametrize("text", CASES)
def test_cases_cut_as_the_library_cuts_them(text):
    assert ours(text) == library_pieces(text)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80))
def test_any_text_cuts_as_the_library_cuts_it(text):
    assert ours(text) == library_pieces(text)


# the characters the rules tell apart: white space of each kind, digits, CJK and kana edges, marks
EDGES = " \t\n\r\u3000\u00a0\x85\u2028x!1\u0663東\u9fa6\u3041\u309b\u30fc\u0301\x00aé'_"


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=EDGES, max_size=30))
def test_texts_of_the_edge_characters_cut_as_the_library_cuts_them(text):
    assert ours(text) == library_pieces(text)


def test_real_text_cuts_as_the_library_cuts_it():
    for name, text in stdlib_texts(6, 40_000):
        assert ours(text) == library_pieces(text), name


@pytest.mark.parametrize(
    "run", [" ", "7", "\x00", "\x00a", "\n ", "東", "!", "a", "\u0301", " a"], ids=lambda run: f"{run!r}"
)
def test_long_runs_cut_as_the_library_cuts_them(run):
    text = run * (200_000 // len(run))
    assert ours(text) == library_pieces(text)


# ASCII is cut byte by byte (ascii_chunk) where the chunk and the byte after it are ASCII: every
# ASCII byte, and the wider characters that may continue or end its chunks (a letter, a mark, a
# digit, punctuation, white space, CJK)
ASCII_EDGES = "".join(map(chr, range(128))) + "é\u0301\u0663“\u00a0\x85\u3000東"


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=ASCII_EDGES, max_size=40))
def test_ascii_texts_cut_as_the_library_cuts_them(text):
    assert ours(text) == library_pieces(text)


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=" \t\n\r.,(_'$a1é", max_size=24))
def test_texts_of_few_ascii_kinds_cut_as_the_library_cuts_them(text):
    assert ours(text) == library_pieces(text)


# runs of ideographs (U+4E00-U+9FA5, split 2's CJK pieces): the range's edges and what may
# break a run (kana of each kind, CJK punctuation, the ideographs just outside)
IDEOGRAPH_EDGES = (
    "\u4e00\u4e01\u9fa5\u9fa6\u4dff\u9fff東京\u3041\u309b\u30fc\u30fb\u3001\u3000\u0301a1 \uac00\U00020000"
)


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet=IDEOGRAPH_EDGES, max_size=30))
def test_ideograph_runs_cut_as_the_library_cuts_them(text):
    assert ours(text) == library_pieces(text)


def test_every_two_and_three_byte_character_in_letter_runs_cuts_as_the_library_cuts_it():
    # run_of_kinds' fast path reads these from a bitmap of the table: inside and outside a CJK run,
    # after ASCII letters, after a wider letter and before one
    chars = [chr(cp) for cp in range(0x80, 0x10000) if not 0xD800 <= cp <= 0xDFFF]
    for first in range(0, len(chars), 8192):
        text = "".join(f"a{c}b 東{c}京 é{c}\u0436 {c}{c}\n" for c in chars[first : first + 8192])
        assert ours(text) == library_pieces(text), f"from U+{ord(chars[first]):04X}"
