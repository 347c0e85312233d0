"""Which lineage a tokenizer gets (`lineage_for`): our BPE's and a Hugging Face BPE file's
merges as a table, SentencePiece's replayed (sentencepiece.py), tiktoken's worked out from
ranks, anything else none. Above lineage.py (the kinds of lineage) and sentencepiece.py,
which both stay free of the backends. Left out: the lineages themselves.
"""

from __future__ import annotations

import json

from app.inspect.lineage import BYTE_NOTE, KIND_NOTES, Lineage, RankedLineage, TableLineage
from app.inspect.sentencepiece import sentencepiece_lineage
from app.inspect.vocab import VocabIndex
from app.tokenizers.base import Tokenizer


def lineage_for(tokenizer: Tokenizer, index: VocabIndex) -> Lineage:
    from app.backends.huggingface.backend import HuggingFaceTokenizer
    from app.backends.sentencepiece_backend import SentencePieceTokenizer
    from app.bpe.model import BPETokenizer

    if isinstance(tokenizer, BPETokenizer):
        merges = [(left, right, made) for (left, right), made in tokenizer.merges.items()]
        return TableLineage(index, merges, BYTE_NOTE)
    if isinstance(tokenizer, HuggingFaceTokenizer):
        return _huggingface(tokenizer, index)
    if isinstance(tokenizer, SentencePieceTokenizer):
        return sentencepiece_lineage(tokenizer, index)
    if tokenizer.kind == "tiktoken":
        return RankedLineage(index)
    return Lineage(index, f"tokenprism does not know the merges of a {tokenizer.kind} tokenizer")


def _huggingface(tokenizer, index: VocabIndex) -> Lineage:
    library = tokenizer.library  # the tokenizers.Tokenizer the backend built
    model = json.loads(library.model.__getstate__())
    kind = model.get("type")
    if kind == "Unigram":
        scores = {library.token_to_id(piece): score for piece, score in model.get("vocab", [])}
        return Lineage(index, KIND_NOTES["Unigram"], scores)
    if kind != "BPE":
        return Lineage(index, KIND_NOTES.get(kind, f"a {kind} model has no merges"))
    vocab = model.get("vocab", {})
    prefix = model.get("continuing_subword_prefix") or ""
    merges = []
    for merge in model.get("merges", []):
        left, right = merge.split(" ", 1) if isinstance(merge, str) else merge
        joined = left + (right[len(prefix) :] if prefix and right.startswith(prefix) else right)
        if left in vocab and right in vocab and joined in vocab:
            merges.append((vocab[left], vocab[right], vocab[joined]))
    return TableLineage(index, merges)
