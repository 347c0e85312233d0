"""The character atoms (app/bpe/csrc/engine/char_atoms.h) under Hugging Face's rule (merge_tables.h's
atoms_listed): a character, the first two bytes of a three-byte one or two ASCII bytes start
the merge as one piece only where the listed merges give the same ids. Checked against the
`tokenizers` library itself:

- deepseek_v4's real file: every ordered pair of letters in a dozen scripts' blocks, as a word,
  after a space and between neighbours, and every pair of printable ASCII characters;
- random files over a small alphabet, their merges cut from random texts at random places, so
  that merges across a character's edge often come before the character's own (the case where
  taking it whole would be wrong), with DeepSeek's pre-tokenizer and random texts.
"""

from __future__ import annotations

import json
import random
from functools import cache

import pytest

import tokenizers
from app.backends.huggingface.engine import ListedMergesEngine
from app.backends.huggingface.pieces import _byte_level_table
from tests.bpe.test_char_atoms import ALPHABET, BLOCKS, NEIGHBOURS, PRINTABLE
from tests.reference import huggingface_reference

BYTE_CHAR = {byte: char for char, byte in _byte_level_table().items()}


def first_difference(library: tokenizers.Tokenizer, texts: list[str]) -> str | None:
    engine = ListedMergesEngine.for_library(library)
    assert engine is not None
    expected = [found.ids for found in library.encode_batch(texts, add_special_tokens=False)]
    for text, ours, theirs in zip(texts, engine.encode_batch(texts), expected, strict=True):
        if ours != theirs:
            return f"{text!r}: {ours} != {theirs}"
    return None


@pytest.mark.parametrize("block", sorted(BLOCKS))
def test_every_pair_of_letters_in_a_block_on_deepseeks_file(block):
    first, last = BLOCKS[block]
    letters = [chr(cp) for cp in range(first, last + 1) if chr(cp).isprintable()]
    rng = random.Random(first)
    texts = [text for a in letters for b in letters for text in (a + b + a, " " + a + b)]
    texts += [rng.choice(NEIGHBOURS) + a + rng.choice(letters) + rng.choice(NEIGHBOURS) for a in letters * 8]
    assert first_difference(huggingface_reference(), texts) is None


def test_every_pair_of_ascii_characters_on_deepseeks_file():
    rng = random.Random(7)
    texts = []
    for a in PRINTABLE:
        for b in PRINTABLE:
            texts += [a + b + a, "x" + a + b + "y", " " + a + b + rng.choice(PRINTABLE) + rng.choice(PRINTABLE)]
    assert first_difference(huggingface_reference(), texts) is None


def byte_level(data: bytes) -> str:
    return "".join(BYTE_CHAR[byte] for byte in data)


@cache
def deepseek_config() -> str:
    """deepseek_v4's file without its vocabulary, merges and added tokens."""
    config = json.loads(huggingface_reference().to_str())
    config["added_tokens"] = []
    config["model"]["vocab"], config["model"]["merges"] = {}, []
    return json.dumps(config)


def random_file(rng: random.Random, alphabet: list[str], merges: int) -> tokenizers.Tokenizer:
    """deepseek_v4's file with its vocabulary and merges replaced: the 256 bytes, then tokens of
    up to 6 bytes cut from random texts over the alphabet (many cut through a character), each
    two tokens made before joined. Up to `merges` of them are made by that merge, one in ten by
    none. Then one in five trades places with one a few behind it, so that a merge may join a
    token made after it; ids go in the final order."""
    made: set[bytes] = {bytes([byte]) for byte in range(256)}
    seen = set(made)
    entries: list[tuple[bytes, int | None]] = []  # (token, where its merge splits it)
    for _ in range(50_000):  # an alphabet of few characters may hold fewer pieces than asked for
        if len(made) - 256 == merges:
            break
        text = "".join(rng.choice(alphabet) for _ in range(6)).encode()
        start = rng.randrange(len(text) - 1)
        piece = text[start : start + rng.randrange(2, 7)]
        splits = [k for k in range(1, len(piece)) if piece[:k] in made and piece[k:] in made]
        if piece in seen or not splits:
            continue
        seen.add(piece)
        if rng.random() < 0.1:
            entries.append((piece, None))
            continue
        entries.append((piece, rng.choice(splits)))
        made.add(piece)
    for i in range(len(entries) - 1):
        if rng.random() < 0.2:
            j = min(len(entries) - 1, i + rng.randrange(1, 8))
            entries[i], entries[j] = entries[j], entries[i]
    vocab = {byte_level(bytes([byte])): byte for byte in range(256)}
    vocab |= {byte_level(token): 256 + n for n, (token, _) in enumerate(entries)}
    listed = [[byte_level(token[:k]), byte_level(token[k:])] for token, k in entries if k is not None]
    config = json.loads(deepseek_config())
    config["model"]["vocab"], config["model"]["merges"] = vocab, listed
    return tokenizers.Tokenizer.from_str(json.dumps(config))


@pytest.mark.parametrize("seed", range(30))
def test_random_files_where_characters_often_may_not_start_whole(seed):
    rng = random.Random(seed)
    library = random_file(rng, ALPHABET, merges=400)
    texts = ["".join(rng.choice(ALPHABET) for _ in range(rng.randrange(1, 24))) for _ in range(3_000)]
    assert first_difference(library, texts) is None


@pytest.mark.parametrize("seed", range(10))
def test_random_files_over_ascii_letters(seed):
    rng = random.Random(100 + seed)
    letters = list("abcdefg ")
    library = random_file(rng, letters, merges=150)
    texts = ["".join(rng.choice(letters) for _ in range(rng.randrange(1, 30))) for _ in range(3_000)]
    assert first_difference(library, texts) is None


def test_a_character_whose_own_merges_make_a_higher_id_than_it_does_starts_as_bytes():
    """क's three bytes: its head has an id but no merge makes it; क itself is made from its
    first byte and its tail, which is made later (id 259). So merging क's own bytes makes id
    259, above the 258 that `a` + its first byte makes: after `a`, क must not start whole."""
    b1, b2, b3 = (bytes([byte]) for byte in "क".encode())
    vocab = {byte_level(bytes([byte])): byte for byte in range(256)}
    vocab |= {
        byte_level(token): id for token, id in ((b1 + b2, 256), (b1 + b2 + b3, 257), (b"a" + b1, 258), (b2 + b3, 259))
    }
    config = json.loads(deepseek_config())
    config["model"]["vocab"] = vocab
    config["model"]["merges"] = [
        [byte_level(b1), byte_level(b2 + b3)],
        [byte_level(b"a"), byte_level(b1)],
        [byte_level(b2), byte_level(b3)],
    ]
    library = tokenizers.Tokenizer.from_str(json.dumps(config))
    assert library.encode("aक", add_special_tokens=False).ids == [258, 259]
    assert first_difference(library, ["aक", "क", " aकक", "कa"]) is None


@pytest.mark.parametrize("seed", range(6))
def test_random_files_on_chunks_long_enough_for_the_heap(seed):
    """A run of CJK is one chunk; over 128 bytes it merges on the heap (merge_long_bytes)."""
    rng = random.Random(200 + seed)
    alphabet = ["的", "一", "是"]
    library = random_file(rng, alphabet, merges=200)
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(40, 400))) for _ in range(300)]
    assert first_difference(library, texts) is None
