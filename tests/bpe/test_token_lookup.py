"""The engine's whole-token lookup (app/bpe/csrc/engine/token_lookup.h) on tokens built to sit
where its slot stops deciding alone: a slot holds a token's bytes 0-11 and its length up to 254,
so tokens of 13-16 bytes are told apart by their tails, longer ones by the rest of their bytes,
and lengths of 255 or more by the true length. Each crafted token, and each text one byte or one
letter away from it, gets tiktoken's ids from a vocabulary of the same ranks."""

from __future__ import annotations

import pytest
import tiktoken

from app.bpe import _engine
from app.bpe.engine import family_of
from app.tokenizers.openai_encodings import CL100K_PATTERN


def crafted_tokens() -> list[bytes]:
    letters = set()
    for k in range(9, 21):
        letters.add("a" * k)
        for at in (0, 7, 8, 11, 12, 15, k - 1):  # the head, the slot's last bytes, the tail, the rest
            if at < k:
                letters.add("a" * at + "b" + "a" * (k - at - 1))
    for k in (253, 254, 255, 256, 257, 300):
        letters |= {"a" * k, "a" * (k - 1) + "b", "b" + "a" * (k - 1)}
    return [text.encode() for text in sorted(letters, key=lambda t: (len(t), t))]


@pytest.fixture(scope="module")
def engines() -> tuple[_engine.Engine, tiktoken.Encoding]:
    tokens = [bytes([b]) for b in range(256)] + crafted_tokens()
    ranks = {token: rank for rank, token in enumerate(tokens)}
    reference = tiktoken.Encoding("crafted", pat_str=CL100K_PATTERN, mergeable_ranks=ranks, special_tokens={})
    family = family_of(CL100K_PATTERN)
    assert family is not None
    return _engine.Engine(family, tokens), reference


def near(token: str) -> set[str]:
    """The token and the texts one letter or one byte away from it."""
    found = {token, token[:-1], token + "a", token + "b", "a" + token}
    for at in range(len(token)):
        found.add(token[:at] + ("b" if token[at] == "a" else "a") + token[at + 1 :])
    return {text for text in found if text}


def test_crafted_tokens_and_their_neighbours_get_tiktokens_ids(engines):
    engine, reference = engines
    checked = 0
    for token in crafted_tokens():
        for text in near(token.decode()):
            assert engine.encode(text) == reference.encode_ordinary(text), (len(text), text)
            checked += 1
    assert checked > 3000
    # the premise: each crafted token is one id, found by the lookup as a whole chunk
    assert all(engine.encode(token.decode()) == [reference.encode_single_token(token)] for token in crafted_tokens())


def test_lengths_past_the_slots_field_are_told_apart(engines):
    engine, reference = engines
    for k in (254, 255, 256, 257, 258, 299, 300, 301):
        text = "a" * k
        assert engine.encode(text) == reference.encode_ordinary(text)
        assert engine.count(" " + text) == len(reference.encode_ordinary(" " + text))


M64 = (1 << 64) - 1


def _mix(h: int) -> int:
    h = h * 0xBF58476D1CE4E5B9 & M64
    return h ^ (h >> 31)


def home_slot(data: bytes, bits: int) -> int:
    """token_lookup.h's key_of(...).hash >> (64 - bits): where the lookup starts probing for data."""
    word = int.from_bytes(data[:8], "little")
    h = _mix(word ^ (len(data) * 0x9E3779B97F4A7C15 & M64))
    for at in range(8, len(data), 8):
        h = _mix(h ^ int.from_bytes(data[at : at + 8], "little"))
    return (h ^ (h >> 29)) >> (64 - bits)


def sharing_a_home(chunk: str, variants: list[str], bits: int) -> str:
    """The first of `variants` whose home slot is the chunk's: a lookup of the chunk reads that
    string's slot, and must refuse it."""
    home = home_slot(chunk.encode(), bits)
    return next(v for v in variants if home_slot(v.encode(), bits) == home)


LETTERS = "cdefghijklmnopqrstuvwxyz"
TRIPLES = [x + y + z for x in LETTERS for y in LETTERS for z in LETTERS]


@pytest.mark.parametrize(
    ("text", "prefix", "what"),
    [
        ("a" * 9 + "bbb", "a" * 9, "12 bytes: only the slot's middle bytes tell them apart"),
        ("a" * 12 + "bbb", "a" * 12, "15 bytes: only the tail tells them apart"),
        ("a" * 256, "a" * 256, "a 259-byte string whose first 256 bytes are the text: only the length tells"),
    ],
)
def test_a_string_in_the_probe_path_that_differs_past_what_the_slot_holds_is_refused(text, prefix, what):
    # The stop strings sit in a lookup of their own (stop_strings.h), probed for each length
    # they have, without the filter that keeps most chunks away from the tokens' lookup: a
    # string whose home slot is the text's is read while the text is looked up.
    crafted = sharing_a_home(text, [prefix + t for t in TRIPLES], 10)  # 10 bits: up to 512 strings
    assert crafted != text, what
    stops = [crafted.encode(), ("b" * len(text)).encode()]  # the second: the text's length is looked up
    engine = _engine.Engine(0, [bytes([b]) for b in range(256)], stops=stops)
    assert engine.stopped([text, crafted, "b" * len(text), "x" + text + "x"]) == [1, 2], what


def test_too_many_tokens_for_a_slot_are_refused():
    with pytest.raises(ValueError, match="too many or too long tokens"):
        _engine.Engine(0, [b"x"] * (1 << 24))
