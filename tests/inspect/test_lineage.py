"""Merge parents for every kind: the parents' bytes join to the token's and both rank lower
(or are base symbols); bytes equal the reference libraries'; kinds without merges say why."""

from __future__ import annotations

import io
import json
import random
from array import array

import pytest
import sentencepiece

from app.backends.huggingface.backend import HuggingFaceTokenizer
from app.backends.sentencepiece_backend import SentencePieceTokenizer
from app.backends.tiktoken_backend import TiktokenTokenizer
from app.inspect import _parents
from app.inspect.cache import inspected
from app.inspect.facts import merge_tree
from app.inspect.lineage import LONGEST_WORKED_OUT, NO_SPLIT_NOTE, TOO_LONG_NOTE, Parents
from app.tokenizers.openai_encodings import OpenAIEncoding
from tests.hf_trained import trained_json
from tests.reference import stdlib_texts, tiktoken_reference

SAMPLE = 3_000


def sampled_ids(found, count=SAMPLE, seed=11):
    ids = list(found.index.ids)
    rng = random.Random(seed)
    return ids if len(ids) <= count else sorted({*ids[:300], *ids[-300:], *rng.sample(ids, count)})


def check_parents(found, ids) -> dict[str, int]:
    """Every token with parents: they join to its bytes and rank lower (or have no rank). Counts by how."""
    lineage, index = found.lineage, found.index
    seen = {"merge": 0, "split": 0, "none": 0}
    for token_id in ids:
        parents = lineage.parents(token_id)
        if parents is None:
            seen["none"] += 1
            assert lineage.note(token_id), token_id
            continue
        seen[parents.how] += 1
        data = index.bytes_of(token_id)
        assert index.bytes_of(parents.left) + index.bytes_of(parents.right) == data, token_id
        rank = lineage.rank(token_id)
        assert rank is not None, token_id
        for parent in parents[:2]:
            assert lineage.rank(parent) is None or lineage.rank(parent) < rank, (token_id, parent)
    return seen


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_openai_bytes_equal_tiktoken_and_every_regular_token_is_a_merge(registry, name):
    found = inspected(registry.get(name))
    reference = tiktoken_reference(name)
    ids = sampled_ids(found)
    for token_id in ids:
        assert found.index.bytes_of(token_id) == reference.decode_single_token_bytes(token_id), token_id
    seen = check_parents(found, ids)
    regular = [i for i in ids if not found.index.is_special(i)]
    assert seen["split"] == 0 and seen["merge"] == len([i for i in regular if i >= 256])
    assert found.lineage.parents(255) is None and "byte" in found.lineage.note(255)


def test_gpt2_whole_vocabulary_and_a_known_tree(registry):
    found = inspected(registry.get("gpt2"))
    assert check_parents(found, list(found.index.ids))["split"] == 0
    tree = merge_tree(found, 43453)  # " SolidGoldMagikarp"
    assert [child.bytes for child in tree.children] == [b" Solid", b"GoldMagikarp"]
    leaves = []
    stack = [tree]
    while stack:
        node = stack.pop()
        stack += node.children[::-1]
        if not node.children:
            leaves.append(node.bytes)
            assert len(node.bytes) == 1  # down to bytes
    assert b"".join(leaves) == b" SolidGoldMagikarp" and tree.depth == 6


@pytest.mark.parametrize("name", ["o200k_harmony", "mistral_tekken", "qwen3_6", "deepseek_v4", "tokenprism_4k"])
def test_other_byte_level_bpes(registry, name):
    found = inspected(registry.get(name))
    seen = check_parents(found, sampled_ids(found))
    assert seen["merge"] > 0.8 * sum(seen.values())


def reference_parents(ranks: dict[bytes, int], data: bytes, rank: int) -> tuple[int, int, str] | None:
    """The rule in plain Python (as the lineage worked it out token by token before the C pass
    `_parents.work_out`): BPE with only the ranks below `rank`, the lowest pair first, leftmost on
    ties; two parts left are the parents, else the split into two lower ranks that merge earliest."""
    parts = [data[i : i + 1] for i in range(len(data))]
    while len(parts) > 2:
        best, at = rank, -1
        for i in range(len(parts) - 1):
            found = ranks.get(parts[i] + parts[i + 1], rank)
            if found < best:
                best, at = found, i
        if at < 0:
            break
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
    if len(parts) == 2 and ranks.get(parts[0], rank) < rank and ranks.get(parts[1], rank) < rank:
        return ranks[parts[0]], ranks[parts[1]], "merge"
    splits = [
        (max(left, right), cut, left, right)
        for cut in range(1, len(data))
        if (left := ranks.get(data[:cut], rank)) < rank and (right := ranks.get(data[cut:], rank)) < rank
    ]
    return (min(splits)[2], min(splits)[3], "split") if splits else None


def worked_out(tokens: list[bytes], first: int = 0, longest: int = LONGEST_WORKED_OUT) -> list:
    left, right, how = _parents.work_out(tokens, first, longest)
    lefts, rights = array("i", left), array("i", right)
    names = {0: "merge", 1: "split"}
    return [(lefts[k], rights[k], names[code]) if code in names else code for k, code in enumerate(how)]


def test_qwen_tokens_past_the_c_pass_are_worked_out(registry):
    """qwen3_6's C pass stops at a whole Chinese phrase; tokens after it are worked out by the
    rule in C when the lineage is built, with the same parents as the rule in Python."""
    found = inspected(registry.get("qwen3_6"))
    lineage = found.lineage
    assert lineage._recovered < 248_044  # the case this test is about
    ids = [i for i in range(lineage._recovered, 248_044, 97)]
    seen = check_parents(found, ids)
    assert seen["split"] > 0 and seen["merge"] > seen["split"]
    first_stop = lineage._rank_ids[lineage._recovered]  # the token the C pass stopped at
    assert found.index.bytes_of(first_stop) == "人力资源".encode()
    assert lineage.parents(first_stop) is None or lineage.parents(first_stop).how == "split"
    rank_ids = list(lineage._rank_ids)
    ranks = {found.index.bytes_of(token_id): rank for rank, token_id in enumerate(rank_ids)}
    odd = [rank_ids[lineage._recovered + k] for k, code in enumerate(lineage._how) if code]  # split or none
    assert len(odd) > 100
    for token_id in sorted({*odd, *rank_ids[lineage._recovered :: 41], *rank_ids[-50:]}):
        rank = lineage.rank(token_id)
        want = reference_parents(ranks, found.index.bytes_of(token_id), rank)
        parents = lineage.parents(token_id)
        got = parents and (lineage.rank(parents.left), lineage.rank(parents.right), parents.how)
        assert got == want, (token_id, got, want)


def test_work_out_equals_the_python_rule_on_random_vocabularies():
    """Small vocabularies over a few letters, in random rank order (so many tokens are no merge
    of two lower ones), the bytes not always first: every rank, from 0, as the Python rule says."""
    rng = random.Random(5)
    for _ in range(300):
        words = {"".join(rng.choice("abcd") for _ in range(rng.randint(1, 7))).encode() for _ in range(40)}
        tokens = list(words)
        rng.shuffle(tokens)
        ranks = {token: rank for rank, token in enumerate(tokens)}
        assert worked_out(tokens) == [reference_parents(ranks, token, rank) or 2 for rank, token in enumerate(tokens)]


def test_work_out_edges():
    tokens = [b"a", b"b", b"", b"ab", b"ba", b"aba", b"abab"]
    assert worked_out(tokens) == [2, 2, 2, (0, 1, "merge"), (1, 0, "merge"), (3, 0, "merge"), (3, 3, "merge")]
    assert worked_out(tokens, first=5) == [(3, 0, "merge"), (3, 3, "merge")]
    assert worked_out(tokens, first=5, longest=3) == [(3, 0, "merge"), 3]  # longer than `longest`: not merged
    assert worked_out([b"x", b"x", b"xx"]) == [2, 2, (1, 1, "merge")]  # bytes repeated: the higher rank, as a dict
    assert worked_out([]) == [] and worked_out(tokens, first=7) == []
    with pytest.raises(ValueError):
        _parents.work_out(tokens, 8, 10)
    with pytest.raises(TypeError):
        _parents.work_out([b"a", "b"], 0, 10)


def test_a_token_too_long_to_work_out_says_so(registry):
    """An uploaded .tiktoken whose C pass stops at once: a token over LONGEST_WORKED_OUT bytes gets a note."""
    ranks = {bytes([b]): b for b in range(256)}
    for token in [b"xyz", b"xy", b"xyzxy", b"q" * (LONGEST_WORKED_OUT + 1)]:
        ranks[token] = len(ranks)
    # a pattern of its own, as an upload may give (a named one would also build the ASCII encoder,
    # which refuses ranks that are not all merges)
    spec = OpenAIEncoding(name="tiny", file="tiny", pattern=r"\s+|\S+", special_tokens={}, description="")
    found = inspected(TiktokenTokenizer(spec, ranks))
    lineage = found.lineage
    assert lineage._recovered == 256  # b"xyz" comes before b"xy": the C pass stops at once
    assert lineage.parents(256) is None and lineage.note(256) == NO_SPLIT_NOTE
    assert lineage.parents(257) == Parents(ord("x"), ord("y"), "merge")
    assert lineage.parents(258) == Parents(256, 257, "merge")  # xy, z, xy -> xyz, xy
    assert lineage.parents(259) is None and lineage.note(259) == TOO_LONG_NOTE
    assert check_parents(found, list(found.index.ids)) == {"merge": 2, "split": 0, "none": 258}


@pytest.mark.parametrize("name", ["mistral_v1", "mistral_v3"])
def test_sentencepiece_pieces_are_built_by_their_pieces(registry, name):
    found = inspected(registry.get(name))
    seen = check_parents(found, list(found.index.ids))
    ranked = [i for i in found.index.ids if found.lineage.rank(i) is not None]  # the pieces of 2+ characters
    assert seen["merge"] + seen["split"] == len(ranked) > 28_000 and seen["split"] < 50
    the = found.index.exact(b" the", special=False)
    parents = found.lineage.parents(the[0])
    assert parents and found.index.bytes_of(parents.left) + found.index.bytes_of(parents.right) == b" the"
    assert found.lineage.score(the[0]) is not None and found.lineage.rank(the[0]) is not None
    assert "byte" in found.lineage.note(found.tokenizer._processor.piece_to_id("<0x00>"))
    assert "special" in found.lineage.note(1)  # <s>


@pytest.mark.parametrize("kind", ["byte_level", "llama"])
def test_huggingface_bpe_from_its_merges(kind):
    tokenizer = HuggingFaceTokenizer(f"hf-{kind}", "", trained_json(kind).encode())
    found = inspected(tokenizer)
    seen = check_parents(found, list(found.index.ids))
    model = json.loads(trained_json(kind))["model"]
    made = {left + right for left, right in model["merges"]}
    assert seen["merge"] == len(made & set(model["vocab"])) > 300


@pytest.mark.parametrize("kind, word", [("wordpiece", "WordPiece"), ("unigram", "Unigram")])
def test_huggingface_without_merges_says_why(kind, word):
    tokenizer = HuggingFaceTokenizer(f"hf-{kind}", "", trained_json(kind).encode())
    found = inspected(tokenizer)
    some = found.index.ids[len(found.index) // 2]
    assert found.lineage.parents(some) is None and found.lineage.note(some).startswith(f"{word} has no merges")
    if kind == "unigram":
        piece, score = json.loads(trained_json(kind))["model"]["vocab"][50]
        assert found.lineage.score(tokenizer._plain.token_to_id(piece)) == score


def _trained_sentencepiece(model_type: str) -> bytes:
    model = io.BytesIO()
    text = "\n".join(text for _, text in stdlib_texts(count=4, max_chars=20_000)).splitlines()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(text),
        model_writer=model,
        vocab_size=400,
        model_type=model_type,
        byte_fallback=True,
        minloglevel=2,
    )
    return model.getvalue()


def test_sentencepiece_unigram_has_scores_and_no_merges():
    found = inspected(SentencePieceTokenizer("sp-unigram", "", _trained_sentencepiece("unigram")))
    some = found.index.ids[-5]
    assert found.lineage.parents(some) is None and "Unigram" in found.lineage.note(some)
    assert found.lineage.score(some) is not None


def test_a_trained_sentencepiece_bpe_replays_to_its_pieces():
    found = inspected(SentencePieceTokenizer("sp-bpe", "", _trained_sentencepiece("bpe")))
    seen = check_parents(found, list(found.index.ids))
    assert seen["merge"] > 50 and seen["split"] <= seen["merge"] // 10
