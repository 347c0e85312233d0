"""chunks.specials_pattern: a trie of the special-token strings finds what one alternation of
them, longest first, finds (leftmost, then the longest string starting there), at any depth
of nesting; and the built-ins' sets, matched in the text, are where tiktoken puts them."""

from __future__ import annotations

from unittest.mock import patch

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from app.tokenizers import chunks

SPECIAL = st.text(alphabet="<|>ab.", min_size=1, max_size=8)


def one_alternation(strings: set[str]) -> regex.Pattern:
    """What specials_pattern compiled before the trie: every string, longest first."""
    return regex.compile("|".join(regex.escape(s) for s in sorted(strings, key=lambda s: (-len(s), s))))


def nesting(pattern: str) -> int:
    """How deeply the groups of a pattern of escaped literals nest."""
    deepest = depth = at = 0
    while at < len(pattern):
        if pattern[at] == "\\":
            at += 1
        elif pattern.startswith("(?:", at):
            depth += 1
            deepest = max(deepest, depth)
        elif pattern[at] == ")":
            depth -= 1
        at += 1
    return deepest


def spans(pattern: regex.Pattern, text: str) -> list[tuple[int, int]]:
    return [match.span() for match in pattern.finditer(text)]


@settings(max_examples=400, deadline=None)
@given(st.sets(SPECIAL, min_size=1, max_size=12), st.lists(st.one_of(SPECIAL, st.text("<|>ab.x"))), st.integers(0, 3))
def test_the_trie_finds_what_one_alternation_finds(specials, pieces, groups):
    text = "".join(pieces)
    with patch.object(chunks, "TRIE_GROUPS", groups):  # 0-3 groups deep before a node's strings are one alternation
        found = spans(chunks.specials_pattern(specials), text)
    assert found == spans(one_alternation(specials), text)


def test_strings_that_nest_deeper_than_the_bound_still_compile_and_match():
    chain = {"<" + "a" * k + ">" for k in range(300)} | {"<" + "a" * k for k in range(1, 300, 7)}
    text = "".join(sorted(chain)) + "<" + "a" * 400 + ">"
    pattern = chunks.specials_pattern(chain)
    assert nesting(pattern.pattern) == chunks.TRIE_GROUPS + 1  # the last level: one alternation
    assert spans(pattern, text) == spans(one_alternation(chain), text)


def test_no_strings_no_pattern_and_one_string_is_itself():
    assert chunks.specials_pattern([]) is None
    assert chunks.specials_pattern(["<|endoftext|>"]).pattern == regex.escape("<|endoftext|>")


@pytest.mark.parametrize("name", ["o200k_harmony", "llama4", "llama3", "cl100k_base"])
def test_a_built_in_s_specials_are_found_where_its_reference_finds_them(registry, name):
    tokenizer = registry.get(name)
    specials = sorted(tokenizer.special_tokens)
    text = "x<|" + "<|".join(specials[::7]) + "".join(specials[:40]) + "<|" * 50 + specials[-1] + " tail"
    assert spans(chunks.specials_pattern(specials), text) == spans(one_alternation(set(specials)), text)
