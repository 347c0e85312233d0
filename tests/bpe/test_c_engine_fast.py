"""The C engine's fast paths (issue 25): the merge of an unseen chunk by the rank of its
pieces' bytes (the short-token table, the byte-pair array, the filter of longer tokens,
and the heap over byte positions for chunks too long for that merge), exact against tiktoken on every
byte value and chunk length; and the tokenizers' one-call path for plain text.
"""

from __future__ import annotations

import gc
import random
import sys

import pytest
import tiktoken

from app.bpe._engine import Engine
from app.bpe.engine import Encoder, family_of
from app.tokenizers.openai_encodings import CL100K_PATTERN, O200K_PATTERN
from tests.reference import tiktoken_reference


@pytest.fixture(scope="module", params=[("cl100k_base", CL100K_PATTERN), ("o200k_base", O200K_PATTERN)])
def pair(request) -> tuple[Encoder, object]:
    name, pattern = request.param
    reference = tiktoken_reference(name)
    encoder = Encoder.for_pattern(pattern, reference._mergeable_ranks, name)
    assert encoder is not None
    return encoder, reference


def test_every_byte_value_and_every_byte_pair_alone_and_in_words(pair):
    encoder, reference = pair
    texts = [bytes([b]).decode("latin-1") for b in range(256)]
    texts += ["".join(chr(0x400 + (a * 7 + b) % 0x100) for b in range(12)) for a in range(64)]  # Cyrillic words
    rng = random.Random(25)
    texts += [
        " "
        + "".join(
            chr(
                rng.choice([0xE9, 0x3B1, 0x5D0, 0x627, 0x915, 0x4E00 + rng.randrange(500), 0x1F600 + rng.randrange(80)])
            )
            for _ in range(rng.randrange(1, 40))
        )
        for _ in range(500)
    ]
    assert encoder.encode_batch(texts) == [reference.encode_ordinary(text) for text in texts]
    for text in texts[256:]:  # not cached the first time round, cached the second
        assert encoder.encode(text) == reference.encode_ordinary(text)


@pytest.mark.parametrize("length", [3, 4, 5, 8, 9, 63, 64, 65, 66, 127, 128, 129, 130, 200, 1000])
def test_chunks_of_each_length_either_side_of_the_two_merge_loops(pair, length):
    encoder, reference = pair
    rng = random.Random(length)
    for alphabet in ("abcdefghij", "éèêëàâäôöü", "абвгдежзий", "的一是不了人我在有他", "😀😁😂🙂🙃"):
        text = " " + "".join(rng.choice(alphabet) for _ in range(length))
        assert encoder.encode(text) == reference.encode_ordinary(text), (alphabet, length)


def test_long_chunks_repeated_come_from_the_chunk_cache_with_tiktokens_ids(pair):
    # Chunks of up to 256 bytes are cached (chunk_cache.h): a table's ruled lines, an emoji
    # run. The second and third time a chunk comes, its ids are the cache's.
    encoder, reference = pair
    rng = random.Random(256)
    chunks = ["├" + "─" * 78 + "┼" + "─" * 20, "━" * 85, " " + "🚨" * 48, "#" + "-" * 254, "=" * 257]
    chunks += ["".join(rng.choice("├─┼│━") for _ in range(n)) for n in (22, 43, 64, 85, 86, 90)]
    chunks += [" " + "".join(rng.choice("😀😁😂🙂🙃") for _ in range(n)) for n in (16, 40, 63, 64, 70)]
    for chunk in chunks:
        text = f"{chunk}\n{chunk} x{chunk}\n"
        assert encoder.encode(text) == reference.encode_ordinary(text), chunk[:20]
        assert encoder.encode(chunk) == reference.encode_ordinary(chunk), chunk[:20]
        assert encoder.count(text) == len(reference.encode_ordinary(text))


def test_long_chunks_of_real_tokens_merge_on_the_heap_as_tiktoken_does(pair):
    # Chunks over 128 bytes are merged on a heap over byte positions, each pair's rank
    # looked up by its bytes: runs of one token, of a token's pieces, and long runs whose
    # pieces grow past the longest token.
    encoder, reference = pair
    rng = random.Random(129)
    texts = ["hello" * 300, "ing" * 500, " " * 2000 + "x", "-" * 1000, "ab" * 700, "=" * 5000, "\n" * 600]
    texts += ["".join(rng.choice("etaoinshrdlucmfw") for _ in range(rng.randrange(129, 3000))) for _ in range(20)]
    texts += [
        "".join(rng.choice(["tion", "ment", "ness", "über", "straße", "東京"]) for _ in range(200)) for _ in range(5)
    ]
    for text in texts:
        assert encoder.encode(text) == reference.encode_ordinary(text), text[:40]
        assert encoder.count(text) == len(reference.encode_ordinary(text))


def test_tokens_that_share_their_first_eight_bytes_and_length_are_told_apart():
    # The lookup matches a token's first 8 bytes in its slot, the next 8 by the token's tail
    # and the rest in its bytes: in a vocabulary of many such look-alikes, probes pass over
    # the others' slots, and each text must still get its own token (or its bytes).
    rng = random.Random(16)
    letters = "abcdefghijklmnopqrstuvwxyz"
    # Groups that differ only in their last two bytes: bytes 8-9, 12-13, 16-17, 20-21.
    tokens = {
        letters[:same] + rng.choice(letters) + rng.choice(letters) for same in (8, 12, 16, 20) for _ in range(400)
    }
    ranks = {bytes([b]): b for b in range(256)}
    ranks |= {token.encode(): 256 + r for r, token in enumerate(sorted(tokens))}
    encoder = Encoder.for_pattern(O200K_PATTERN, ranks, "look-alikes")
    assert encoder is not None
    reference = tiktoken.Encoding("look-alikes", pat_str=O200K_PATTERN, mergeable_ranks=ranks, special_tokens={})
    texts = sorted(tokens)
    texts += [t[:-1] + ("z" if t[-1] != "z" else "y") for t in texts]  # mostly not tokens
    assert encoder.encode_batch(texts) == [reference.encode_ordinary(text) for text in texts]


def test_a_text_cut_into_pieces_is_the_ids_of_its_pieces(pair):
    encoder, reference = pair
    rng = random.Random(31)
    words = ["naïve", "東京", "1234567", "  ", "\n", "ab" * 30, "😀", "ok", "x\udfffy", "'s", "HTML"]
    for _ in range(60):
        text = "".join(rng.choice(words) for _ in range(rng.randrange(0, 200)))
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randrange(0, 6)))) if text else []
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        expected = [i for piece in pieces for i in encoder.encode(piece)]
        assert encoder.encode_cut(text, cuts) == expected, (text, cuts)
        assert encoder.count_cut(text, cuts) == len(expected)
    assert encoder.encode_cut("", []) == [] and encoder.count_cut("abc", []) == len(reference.encode_ordinary("abc"))


def test_the_id_lists_are_left_out_of_the_garbage_collectors_walks(pair):
    # A list of ints cannot be part of a cycle: handed over untracked, a program that keeps
    # millions of ids does not have the collector read each of them (docs/decisions.md).
    encoder, reference = pair
    text = "Untracked lists, still lists."
    lists = [encoder.encode(text), *encoder.encode_batch([text, "", "x"]), encoder.encode_cut(text, [5])]
    assert [gc.is_tracked(ids) for ids in lists] == [False] * 5
    assert lists[0] == lists[1] == reference.encode_ordinary(text)
    lists[0].append(-1)  # still a list like any other
    assert lists[0][:-1] == lists[1] and gc.is_tracked([*lists[0]])


def test_every_engine_hands_out_the_same_int_for_an_id_and_keeps_it(pair):
    # The ints are made once for the process, not once per engine: a tokenizer built again
    # (or another one, or one whose ids start after its special tokens) finds them made.
    encoder, reference = pair
    tokens = sorted(reference._mergeable_ranks, key=reference._mergeable_ranks.__getitem__)
    family = family_of({"cl100k_base": CL100K_PATTERN, "o200k_base": O200K_PATTERN}[reference.name])
    text = "Shared ints: the same objects, whichever engine gave them."
    first = encoder.encode(text)
    again, shifted = Engine(family, tokens), Engine(family, tokens, 1000)
    second, moved = again.encode(text), shifted.encode(text)
    assert second == first == reference.encode_ordinary(text)
    assert moved == [i + 1000 for i in first]
    assert all(a is b for a, b in zip(first, second, strict=True))
    probe = max(first)
    references = sys.getrefcount(probe)
    for _ in range(50):  # results made and dropped
        again.encode_batch([text, text])
        shifted.encode(text)
    del again, shifted, second, moved
    assert first == reference.encode_ordinary(text)
    if sys.version_info < (3, 12):
        # Lists take their references from the int's stock (id_ints.h) uncounted, and give
        # them back counted: the 50 batches' two lists, then `second`, let go (`moved`'s
        # ids are others); the stock stays out of reach of zero.
        assert references - sys.getrefcount(probe) == (50 * 2 + 1) * first.count(probe)
        assert sys.getrefcount(probe) > 2**61
    else:  # counted as usual: no reference kept or lost
        assert sys.getrefcount(probe) == references - 1


@pytest.mark.parametrize("extra", [-1, 0, 1, 2, 3, 4441])
def test_a_long_results_ints_written_past_the_cache_are_the_ids(pair, extra):
    # A list of 65,536 ids or more is filled four at a time with stores that skip the cache
    # (id_ints.h's fill_items), the last 0-3 one by one: every item is still the id's int.
    encoder, reference = pair
    n = 65536 + extra
    words = [" the", " of", " and", " to", " in", " is", " that", " for"]  # one token each, in both
    rng = random.Random(n)
    text = "".join(rng.choice(words) for _ in range(n - 3)) + " 12345 quelque chose"
    expected = reference.encode_ordinary(text)
    tokens = sorted(reference._mergeable_ranks, key=reference._mergeable_ranks.__getitem__)
    shifted = Engine(family_of(reference._pat_str), tokens, 7)
    assert len(expected) >= n
    assert encoder.encode(text) == expected
    assert encoder.encode_batch(["x", text, ""]) == [reference.encode_ordinary("x"), expected, []]
    assert shifted.encode(text) == [i + 7 for i in expected]
    assert all(a is b for a, b in zip(encoder.encode(text), encoder.encode_batch([text])[0], strict=True))


def test_an_engine_whose_ids_pass_the_shared_ints_limit_is_refused():
    with pytest.raises(ValueError, match="ids"):
        Engine(0, [bytes([b]) for b in range(256)], 2**23)


@pytest.mark.parametrize("cuts", [[0], [3], [5], [2, 2], [2, 1], [-1]])
def test_cuts_outside_the_text_or_not_increasing_are_refused(pair, cuts):
    encoder, _ = pair
    with pytest.raises(ValueError, match="cuts must increase and fall inside the text"):
        encoder.encode_cut("abc", cuts)
    with pytest.raises(ValueError, match="cuts must increase"):
        encoder.count_cut("abc", cuts)


def test_plain_encode_and_count_are_one_call_into_the_engine(registry, monkeypatch):
    tokenizer = registry.get("cl100k_base")

    def slow_path(text: str):
        raise AssertionError("the plain path went through _engine_for")

    monkeypatch.setattr(tokenizer, "_engine_for", slow_path)
    reference = tiktoken_reference("cl100k_base")
    for text in ("Hello world", "héllo wörld <|endoftext|>", ""):
        assert tokenizer.encode(text) == reference.encode_ordinary(text)
        assert tokenizer.count(text) == len(reference.encode_ordinary(text))


def test_lone_surrogates_still_take_the_slow_path(registry):
    tokenizer = registry.get("o200k_base")
    reference = tiktoken_reference("o200k_base")
    assert tokenizer.encode("x\udfffy") == reference.encode("x\udfffy", disallowed_special=())
    assert tokenizer.count("x\udfffy") == len(reference.encode("x\udfffy", disallowed_special=()))
