"""The engine's character atoms (app/bpe/csrc/engine/char_atoms.h): a two- or three-byte character, or
the first two bytes of a three-byte one, starts the merge as one piece only where that
cannot change the ids. Checked against tiktoken's own BPE:

- on the real vocabularies (cl100k_base, o200k_base, gpt2): every ordered pair of letters in
  a dozen scripts' blocks, as a word, after a space and between neighbours, and random words
  across all of them;
- on random vocabularies built over a small alphabet of two- and three-byte characters, where
  the tokens that cross a character's edge often rank below the character itself (the case
  where taking the character whole would be wrong), with random texts over that alphabet.

Pairs of ASCII bytes start whole by the same rule: every ordered pair of printable ASCII
characters between neighbours and random ASCII words on the real vocabularies, and random
vocabularies over a few ASCII characters.
"""

from __future__ import annotations

import random

import pytest
import tiktoken

from app.bpe.engine import Encoder
from app.tokenizers.openai_encodings import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN
from tests.reference import tiktoken_reference

BLOCKS = {  # (first, last) code points of letters, a few of each kind of UTF-8 length
    "latin-1": (0xC0, 0xFF),
    "greek": (0x391, 0x3C9),
    "cyrillic": (0x410, 0x44F),
    "hebrew": (0x5D0, 0x5EA),
    "arabic": (0x621, 0x64A),
    "devanagari": (0x905, 0x94D),
    "bengali": (0x985, 0x9CD),
    "thai": (0xE01, 0xE3A),
    "hiragana": (0x3041, 0x3096),
    "hangul": (0xAC00, 0xAC3F),
    "cjk": (0x4E00, 0x4E3F),
    "fullwidth": (0xFF01, 0xFF3F),
}
NEIGHBOURS = ["a", " ", "'", "é", "ж", "ा", "的", "ー"]
PATTERNS = {"cl100k_base": CL100K_PATTERN, "o200k_base": O200K_PATTERN, "gpt2": GPT2_PATTERN}


def first_difference(encoder: Encoder, reference: tiktoken.Encoding, texts: list[str]) -> str | None:
    got = encoder.encode_batch(texts)
    expected = reference.encode_ordinary_batch(texts, num_threads=1)
    for text, ours, theirs in zip(texts, got, expected, strict=True):
        if ours != theirs:
            return f"{text!r}: {ours} != {theirs}"
    return None


@pytest.fixture(scope="module", params=sorted(PATTERNS))
def vocabulary(request) -> tuple[Encoder, tiktoken.Encoding]:
    reference = tiktoken_reference(request.param)
    encoder = Encoder.for_pattern(PATTERNS[request.param], reference._mergeable_ranks, request.param)
    assert encoder is not None
    return encoder, reference


@pytest.mark.parametrize("block", sorted(BLOCKS))
def test_every_pair_of_letters_in_a_block(vocabulary, block):
    encoder, reference = vocabulary
    first, last = BLOCKS[block]
    letters = [chr(cp) for cp in range(first, last + 1) if chr(cp).isprintable()]
    texts = []
    for a in letters:
        for b in letters:
            texts += [a + b + a, " " + a + b]
    rng = random.Random(first)
    texts += [rng.choice(NEIGHBOURS) + a + rng.choice(letters) + rng.choice(NEIGHBOURS) for a in letters * 8]
    assert first_difference(encoder, reference, texts) is None


def test_random_words_across_scripts(vocabulary):
    encoder, reference = vocabulary
    rng = random.Random(2026)
    letters = [chr(cp) for first, last in BLOCKS.values() for cp in range(first, last + 1)]
    texts = []
    for _ in range(20_000):
        script = rng.choice(list(BLOCKS.values()))
        own = [chr(cp) for cp in range(script[0], script[1] + 1)]
        word = "".join(rng.choice(own if rng.random() < 0.85 else letters) for _ in range(rng.randrange(2, 14)))
        texts.append(rng.choice(["", " ", "  ", "\n", "a"]) + word)
    assert first_difference(encoder, reference, texts) is None


ALPHABET = ["é", "ж", "ы", "ा", "क", "的", "一", "a", " "]


def random_vocabulary(rng: random.Random, alphabet: list[str], extra: int, text_chars: int, longest: int):
    """The 256 bytes, the alphabet's characters and `extra` random byte strings of up to
    `longest` bytes cut from texts over it (many cut through a character), all in a random
    order: tokens that cross a character's (or a pair's) edge often rank below it."""
    found = {bytes([b]) for b in range(256)} | {letter.encode() for letter in alphabet}
    while len(found) < 256 + extra:
        text = "".join(rng.choice(alphabet) for _ in range(text_chars)).encode()
        start = rng.randrange(len(text) - 1)
        found.add(text[start : start + rng.randrange(2, longest + 1)])
    tokens = sorted(found)
    rng.shuffle(tokens)
    return {token: rank for rank, token in enumerate(tokens)}


def random_vocabulary_difference(rng: random.Random, name: str, alphabet: list[str], ranks: dict[bytes, int]):
    """first_difference of the engine and tiktoken on 3,000 random texts over the alphabet."""
    reference = tiktoken.Encoding(name, pat_str=O200K_PATTERN, mergeable_ranks=ranks, special_tokens={})
    encoder = Encoder.for_pattern(O200K_PATTERN, ranks, name)
    assert encoder is not None
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 24))) for _ in range(3_000)]
    return first_difference(encoder, reference, texts)


@pytest.mark.parametrize("seed", range(40))
def test_random_vocabularies_where_characters_often_may_not_start_whole(seed):
    rng = random.Random(seed)
    ranks = random_vocabulary(rng, ALPHABET, extra=400, text_chars=6, longest=6)
    assert random_vocabulary_difference(rng, f"atoms{seed}", ALPHABET, ranks) is None


PRINTABLE = [chr(c) for c in range(0x20, 0x7F)] + ["\n", "\t"]


def test_every_pair_of_ascii_characters(vocabulary):
    encoder, reference = vocabulary
    rng = random.Random(7)
    texts = []
    for a in PRINTABLE:
        for b in PRINTABLE:
            texts += [a + b + a, "x" + a + b + "y", " " + a + b + rng.choice(PRINTABLE) + rng.choice(PRINTABLE)]
    assert first_difference(encoder, reference, texts) is None


def test_random_ascii_words(vocabulary):
    encoder, reference = vocabulary
    rng = random.Random(25)
    lower = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    texts = []
    for _ in range(20_000):
        pool = lower if rng.random() < 0.7 else PRINTABLE
        word = "".join(rng.choice(pool) for _ in range(rng.randrange(2, 16)))
        texts.append(rng.choice(["", " ", "  ", "\n", "(", "é"]) + word + rng.choice(["", "'s", ".", " ", "ж"]))
    assert first_difference(encoder, reference, texts) is None


ASCII_ALPHABET = ["a", "b", "c", "x", "'", " ", "1"]


@pytest.mark.parametrize("seed", range(40))
def test_random_vocabularies_where_ascii_pairs_often_may_not_start_whole(seed):
    rng = random.Random(1000 + seed)
    ranks = random_vocabulary(rng, ASCII_ALPHABET, extra=150, text_chars=8, longest=5)
    assert random_vocabulary_difference(rng, f"pairs{seed}", ASCII_ALPHABET, ranks) is None
