"""Merge replay: a `bpe` model with only its first k merges, and what each k makes of a text.

`with_first_merges(model, k)` is the model cut to its first k merges (k = 0: raw bytes):
the same byte table, split pattern and special tokens, the vocabulary's first 256 + k
entries and a C `Merger` over k pairs (0.1 µs a merge; building a whole model would cost
1.3 µs a merge). The latest cuts of each model are cached, so a slider over k stays cheap.

`token_counts(model, text)` gives the token count of `text` for every k from 0 to all
merges in one pass: BPE encoding applies merges in rank order, each at most once per
chunk (a merge only creates pairs that contain its new id, whose merges rank later), so
replaying the merges in order over the text's distinct chunks, with a pair -> chunks
index, visits only the chunks each merge changes. The tests check it against encoding
with each cut.

`merge_rows` lists merges as the API shows them, each with its count in the training
corpus when the model has them (`BPETokenizer.merge_counts`).
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections import Counter, OrderedDict, defaultdict

import regex

from app.bpe import split
from app.bpe.model import CUSTOM_PATTERN, BPETokenizer
from app.bpe.train import merge_row
from app.errors import InvalidInput

CUTS_KEPT = 8  # cut models cached per model
COUNTS_KEPT = 4  # texts whose token counts are cached per model
_lock = threading.Lock()
_pairs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model -> its merges, in order
_cuts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model -> OrderedDict k -> cut model
_counts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model -> OrderedDict text -> token counts


def pairs_of(model: BPETokenizer) -> list[tuple[int, int]]:
    """The model's merges in order: merge i makes id 256 + i."""
    with _lock:
        found = _pairs.get(model)
        if found is None:
            found = _pairs[model] = list(model.merges)
        return found


def bpe_model(registry, name: str) -> BPETokenizer:
    """The `bpe` tokenizer `name` from `registry`, or a 422 naming the kind it is."""
    tokenizer = registry.get(name)
    if not isinstance(tokenizer, BPETokenizer):
        bpe = [entry.name for entry in registry.entries() if entry.kind == "bpe"]
        raise InvalidInput(
            f"{tokenizer.name} is a {tokenizer.kind} tokenizer; merges are replayed for bpe tokenizers "
            f"only: {', '.join(bpe)}"
        )
    return tokenizer


def check_k(model: BPETokenizer, k: object) -> int:
    total = len(pairs_of(model))
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= total:
        raise InvalidInput(
            f"merges {k!r} is out of range for {model.name}; use a whole number from 0 (raw bytes) "
            f"to {total:,} (all its merges)"
        )
    return k


def with_first_merges(model: BPETokenizer, k: int) -> BPETokenizer:
    """`model` with only its first `k` merges (checked with `check_k`)."""
    pairs = pairs_of(model)
    if check_k(model, k) == len(pairs):
        return model
    with _lock:
        cuts = _cuts.setdefault(model, OrderedDict())
        if k in cuts:
            cuts.move_to_end(k)
            return cuts[k]
    cut = model.first_merges(pairs, k)
    with _lock:
        cuts[k] = cut
        while len(cuts) > CUTS_KEPT:
            cuts.popitem(last=False)
    return cut


def chunks_of(model: BPETokenizer, text: str) -> list[str]:
    """`text` split by the model's pattern, as encoding splits it (special tokens are text)."""
    if model.pattern_regex is None:
        return [text] if text else []
    if model.pattern_name == CUSTOM_PATTERN:
        findall = split.compile_custom(model.pattern_regex).findall
        return split.split(findall, text, split.deadline(text), model.name)
    return regex.compile(model.pattern_regex).findall(text)


def token_counts(model: BPETokenizer, text: str) -> list[int]:
    """counts[k]: the tokens of `text` with the first k merges, for k = 0 .. all merges (the
    latest texts' counts are cached: a slider over k asks for the same text again and again)."""
    with _lock:
        known = _counts.setdefault(model, OrderedDict())
        if text in known:
            known.move_to_end(text)
            return known[text]
    counts = _count_all(model, text)
    with _lock:
        known[text] = counts
        while len(known) > COUNTS_KEPT:
            known.popitem(last=False)
    return counts


def _count_all(model: BPETokenizer, text: str) -> list[int]:
    chunks = Counter(chunks_of(model, text))
    byte_ids = model.byte_ids
    seqs = [[byte_ids[b] for b in chunk.encode("utf-8", errors="surrogatepass")] for chunk in chunks]
    weights = list(chunks.values())
    total = sum(len(seq) * weight for seq, weight in zip(seqs, weights, strict=True))
    where: defaultdict[tuple[int, int], set[int]] = defaultdict(set)  # pair -> chunks that had it
    for index, seq in enumerate(seqs):
        for pair in itertools.pairwise(seq):
            where[pair].add(index)
    counts = [total]
    for rank, pair in enumerate(pairs_of(model)):
        new_id = 256 + rank
        for index in where.pop(pair, ()):
            seq = seqs[index]
            merged = _merge(seq, pair, new_id)
            if len(merged) < len(seq):
                total -= (len(seq) - len(merged)) * weights[index]
                seqs[index] = merged
                for new_pair in itertools.pairwise(merged):
                    if new_id in new_pair:
                        where[new_pair].add(index)
        counts.append(total)
    return counts


def _merge(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Every occurrence of `pair` in `ids` as `new_id`, left to right."""
    out, i, first, second = [], 0, *pair
    while i < len(ids):
        if ids[i] == first and i + 1 < len(ids) and ids[i + 1] == second:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def merge_rows(model: BPETokenizer, offset: int, limit: int) -> list[dict]:
    """Merges offset .. offset + limit - 1 as {"id", "left", "right", "bytes" (hex), "text", "count"}
    (count None when not recorded)."""
    pairs = pairs_of(model)
    counts = model.merge_counts
    return [
        merge_row(rank, pairs[rank], model.id_to_bytes(256 + rank), None if counts is None else counts[rank])
        for rank in range(max(offset, 0), min(offset + limit, len(pairs)))
    ]
