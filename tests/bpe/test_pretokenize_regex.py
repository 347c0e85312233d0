"""The C pretokenizer's second class table, the `regex` module's (pretok_next_regex), cuts text
exactly as the `regex` module does with gpt2's and gpt4's patterns: the chunks tokenprism's own
BPE trains and encodes with.

The table is generated at build time from the `regex` module (app/bpe/unicode_classes.py,
the version pinned for the build); here it is read back out of the built extension and
compared with the installed `regex` module asked again, so an upgrade that moves a class
fails here. The chunks are compared with `regex.finditer` itself, on the code points where
tiktoken's Unicode and the `regex` module's differ above all.
"""

from __future__ import annotations

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bpe import _pretokenize_check
from app.bpe import unicode_classes as uc
from app.bpe.families import CL100K, GPT2, PATTERNS
from app.bpe.model import PATTERNS as NAMED
from tests.bpe.pretokenize_oracle import disagreements, regex_table, tiktoken_table
from tests.bpe.test_pretokenize import ALPHABET, FRAGMENTS

FAMILIES = [GPT2, CL100K]  # the named patterns of tokenprism's BPE (app/bpe/model.py PATTERNS)
DIFFERING = st.deferred(lambda: st.sampled_from(sorted(map(chr, disagreements()))))


def regex_chunks(family: int, text: str) -> list[tuple[int, int]]:
    return [m.span() for m in regex.finditer(PATTERNS[family], text)]


def test_the_named_patterns_are_the_families_tested_here():
    assert sorted(FAMILIES) == sorted(
        family for family, pattern in PATTERNS.items() if pattern in NAMED.values() and pattern is not None
    )


def test_the_built_regex_table_is_the_regex_modules_class_of_every_code_point():
    built, truth = _pretokenize_check.table(True), regex_table()
    assert [f"U+{cp:04X}" for cp in uc.code_points() if built[cp] != truth[cp]] == []


def test_the_two_built_tables_differ_where_tiktoken_and_regex_do():
    ours, theirs = _pretokenize_check.table(), _pretokenize_check.table(True)
    differ = {cp for cp in uc.code_points() if ours[cp] != theirs[cp]}
    assert differ == set(disagreements()) and len(differ) > 10_000
    assert ours == tiktoken_table()


def test_the_generator_asks_the_regex_module():
    assert uc.classes("regex") == bytearray(regex_table())


@settings(max_examples=1500, deadline=None)
@given(
    family=st.sampled_from(FAMILIES),
    parts=st.lists(st.sampled_from(ALPHABET) | st.sampled_from(FRAGMENTS) | DIFFERING, max_size=24),
)
def test_chunks_are_the_regex_modules_on_random_text(family, parts):
    text = "".join(parts)
    assert _pretokenize_check.chunks(family, text, True) == regex_chunks(family, text)


@settings(max_examples=300, deadline=None)
@given(family=st.sampled_from(FAMILIES), text=st.text(max_size=200))
def test_chunks_are_the_regex_modules_on_any_text(family, text):
    text = text.encode("utf-8", "replace").decode("utf-8")  # no lone surrogates: not UTF-8
    assert _pretokenize_check.chunks(family, text, True) == regex_chunks(family, text)


def test_every_differing_code_point_in_a_few_contexts():
    text = "".join(f"x{c} {c}{c}1{c}'{c}\n{c}.{c}  {c}" for c in map(chr, sorted(disagreements())))
    for family in FAMILIES:
        assert _pretokenize_check.chunks(family, text, True) == regex_chunks(family, text)


def test_tiktokens_table_would_cut_differently():
    text = "x\ua7ce \U00011de01"  # a letter and a number of Unicode 17 that tiktoken's 16 has as other
    for family in FAMILIES:
        assert _pretokenize_check.chunks(family, text, True) == regex_chunks(family, text)
        assert _pretokenize_check.chunks(family, text) != regex_chunks(family, text)
