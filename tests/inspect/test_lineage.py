"""Merge parents for every kind: the parents' bytes join to the token's and both rank lower
(or are base symbols); bytes equal the reference libraries'; kinds without merges say why."""

from __future__ import annotations

import io
import json
import random

import pytest
import sentencepiece

from app.inspect.cache import inspected
from app.inspect.facts import merge_tree
from app.tokenizers.huggingface_backend import HuggingFaceTokenizer
from app.tokenizers.sentencepiece_backend import SentencePieceTokenizer
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


def test_qwen_tokens_past_the_c_pass_are_worked_out(registry):
    """qwen3_6's C pass stops at a whole Chinese phrase; tokens after it come from the Python BPE."""
    found = inspected(registry.get("qwen3_6"))
    lineage = found.lineage
    assert lineage._recovered < 248_044  # the case this test is about
    ids = [i for i in range(lineage._recovered, 248_044, 97)]
    seen = check_parents(found, ids)
    assert seen["split"] > 0 and seen["merge"] > seen["split"]
    first_stop = lineage._rank_ids[lineage._recovered]  # the token the C pass stopped at
    assert found.index.bytes_of(first_stop) == "人力资源".encode()
    assert lineage.parents(first_stop) is None or lineage.parents(first_stop).how == "split"


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
    sentencepiece.SentencePieceTrainer.train(sentence_iterator=iter(text), model_writer=model, vocab_size=400,
                                             model_type=model_type, byte_fallback=True, minloglevel=2)
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
