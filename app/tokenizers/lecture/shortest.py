"""Fewest tokens: the shortest encoding of a text with a BPE tokenizer's own vocabulary.

BPE applies merges in rank order, which is greedy: the same vocabulary can often spell a
text with fewer tokens. `shortest` finds the fewest, within the same chunks BPE works in
(the split pattern, or a Hugging Face pre-tokenizer's own chunks), with special tokens
(and a Hugging Face file's added tokens) where the tokenizer's own encoding has them.
Each chunk is a shortest path over its bytes, an edge being a regular vocabulary entry's
bytes: a dynamic programme from the chunk's end back, trying at each position the
entries that start there (a walk over a table of every entry's prefixes, at most the
longest entry's length), so the work is linear in the text times the longest token.
Ties: among the fewest tokens, the one whose first token is longest, and so on token by
token (the first token longest, then the longest next one that still ends in fewest).

Applies to the BPE kinds: tokenprism's own BPE, tiktoken vocabularies (OpenAI's, Llama's
with its cuts, Qwen's on the NFC text, Tekken's) and Hugging Face byte-level BPE files
whose normalizer leaves the text as it is. SentencePiece and other Hugging Face models are
an `InvalidInput`. Left out: any other notion of "best" (likelihood, fewest characters).
The chunkers here read tokenizer internals; the public chunks API (issue 23, point 1)
should become their single source when both are merged.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import regex

from app.errors import InvalidInput
from app.tokenizers.base import Tokenizer
from app.tokenizers.lecture.shortest_hf import hf_plan
from app.tokenizers.lecture.shortest_plan import APPLIES_TO, Plan, Vocabulary, vocabulary

__all__ = ["APPLIES_TO", "Plan", "Shortest", "Vocabulary", "fewest", "plan_for", "shortest", "vocabulary"]


@dataclass
class Shortest:
    """The fewest-token encoding of `text` and the tokenizer's own one, with the bytes of
    `text` each token stands for (Qwen's: mapped back from the NFC text)."""

    text: str
    ids: list[int]
    pieces: list[bytes]
    bpe_ids: list[int]
    bpe_pieces: list[bytes]

    def differences(self) -> list[tuple[int, int]]:
        """Byte ranges where the two encodings cut the text differently: between two cuts both
        make, a range that is not one token in both."""
        mine, theirs = _cuts(self.pieces), _cuts(self.bpe_pieces)
        common = sorted(mine & theirs)
        return [(a, b) for a, b in itertools.pairwise(common) if not (_single(mine, a, b) and _single(theirs, a, b))]


def _cuts(pieces: list[bytes]) -> set[int]:
    cuts, at = {0}, 0
    for piece in pieces:
        at += len(piece)
        cuts.add(at)
    return cuts


def _single(cuts: set[int], start: int, end: int) -> bool:
    return not any(at in cuts for at in range(start + 1, end))


def shortest(tokenizer: Tokenizer, text: str, allow_special: bool = False) -> Shortest:
    """The shortest encoding of `text` (see the module docstring); an `InvalidInput` for a
    tokenizer it does not apply to."""
    plan = plan_for(tokenizer)
    normalized = plan.normalize(text)
    ids: list[int] = []
    bpe_ids: list[int] = []
    bpe_pieces: list[bytes] = []
    memo: dict[bytes, list[int]] = {}
    for block in plan.blocks(normalized):
        block_ids, pieces = tokenizer.encode_with_pieces(block, allow_special)
        bpe_ids += block_ids
        bpe_pieces += pieces
        data, start, at = block.encode("utf-8"), 0, 0
        for token_id, piece in zip(block_ids, pieces, strict=True):
            if token_id in plan.atomic:
                ids += _spell(plan, data[start:at], memo, tokenizer.name)
                ids.append(token_id)
                start = at + len(piece)
            at += len(piece)
        ids += _spell(plan, data[start:], memo, tokenizer.name)
    own = tokenizer.token_bytes(ids)
    if normalized != text:
        from app.backends.nfc import nfc_pieces

        own, bpe_pieces = (
            nfc_pieces(text, normalized, own),
            nfc_pieces(text, normalized, tokenizer.token_bytes(bpe_ids)),
        )
    elif b"".join(own) != text.encode("utf-8"):  # a special id with several names: its name in the text
        own = _with_text_names(own, ids, plan.atomic, bpe_ids, bpe_pieces)
    return Shortest(text, ids, own, bpe_ids, bpe_pieces)


def _with_text_names(
    own: list[bytes], ids: list[int], atomic, bpe_ids: list[int], bpe_pieces: list[bytes]
) -> list[bytes]:
    names = iter(piece for token_id, piece in zip(bpe_ids, bpe_pieces, strict=True) if token_id in atomic)
    return [next(names) if token_id in atomic else piece for token_id, piece in zip(ids, own, strict=True)]


def _spell(plan: Plan, data: bytes, memo: dict[bytes, list[int]], name: str) -> list[int]:
    """The fewest ids for the text between two special tokens, chunk by chunk."""
    if not data:
        return []
    text = data.decode("utf-8")
    chunks = plan.split(text)
    if "".join(chunks) != text:
        raise InvalidInput(
            f"{name}'s chunks do not cover this text, so it has no fewest-token encoding; use another tokenizer"
        )
    ids: list[int] = []
    for chunk in chunks:
        chunk_bytes = chunk.encode("utf-8")
        found = memo.get(chunk_bytes)
        if found is None:
            found = memo[chunk_bytes] = fewest(plan.vocabulary, chunk_bytes, name)
        ids += found
    return ids


def fewest(vocabulary: Vocabulary, data: bytes, name: str = "this tokenizer") -> list[int]:
    """The fewest regular ids whose bytes join to `data` (ties: see the module docstring)."""
    prefixes, longest, size = vocabulary.prefixes, vocabulary.longest, len(data)
    unreachable = size + 1
    best = [unreachable] * size + [0]  # best[i]: fewest tokens for data[i:]
    step = [0] * (size + 1)
    for i in range(size - 1, -1, -1):
        top, length = unreachable, 0
        for j in range(i + 1, min(size, i + longest) + 1):
            found = prefixes.get(data[i:j])
            if found is None:
                break
            if found >= 0 and best[j] + 1 <= top:  # <=: a longer first token wins a tie
                top, length = best[j] + 1, j - i
        best[i], step[i] = top, length
    if best[0] >= unreachable:
        raise InvalidInput(f"{name}'s vocabulary cannot spell the bytes {data[:40]!r}; use another tokenizer")
    ids, i = [], 0
    while i < size:
        ids.append(prefixes[data[i : i + step[i]]])
        i += step[i]
    return ids


_PLANS: weakref.WeakKeyDictionary[Tokenizer, Plan] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def plan_for(tokenizer: Tokenizer) -> Plan:
    """The tokenizer's plan, built once (a prefix table takes ~0.5 s for 200,000 tokens)."""
    with _LOCK:
        plan = _PLANS.get(tokenizer)
        if plan is None:
            plan = _PLANS[tokenizer] = _build(tokenizer)
        return plan


def _build(tokenizer: Tokenizer) -> Plan:
    from app.backends.huggingface.backend import HuggingFaceTokenizer
    from app.backends.llama_backend import LlamaTokenizer
    from app.backends.nfc import nfc
    from app.backends.qwen_backend import QwenTokenizer
    from app.backends.tekken_backend import TekkenTokenizer
    from app.backends.tiktoken_backend import TiktokenTokenizer
    from app.bpe.model import BPETokenizer

    if isinstance(tokenizer, BPETokenizer):
        return _bpe_plan(tokenizer)
    if isinstance(tokenizer, TiktokenTokenizer):
        plan = Plan(
            vocabulary({piece: rank for rank, piece in enumerate(tokenizer.pieces)}),
            _regex_split(tokenizer.pattern),
            tokenizer.special_ids,
        )
        if isinstance(tokenizer, QwenTokenizer):
            return Plan(plan.vocabulary, plan.split, plan.atomic, normalize=nfc)
        if isinstance(tokenizer, LlamaTokenizer):
            return Plan(plan.vocabulary, plan.split, plan.atomic, blocks=_llama_blocks)
        return plan
    if isinstance(tokenizer, TekkenTokenizer):
        return Plan(vocabulary(tokenizer.regular_tokens()), _regex_split(tokenizer.pattern), tokenizer.special_ids)
    if isinstance(tokenizer, HuggingFaceTokenizer):
        return hf_plan(tokenizer)
    raise InvalidInput(
        f"fewest tokens applies to {APPLIES_TO}; {tokenizer.name} is a {tokenizer.kind} "
        "tokenizer, which does not merge byte pairs; choose another tokenizer",
        code="shortest_not_applicable",
    )


def _bpe_plan(tokenizer) -> Plan:
    from app.bpe import split
    from app.bpe.model import CUSTOM_PATTERN

    tokens = {piece: token_id for token_id, piece in enumerate(tokenizer.pieces)}
    findall = tokenizer.splitter
    if findall is None:
        chunker = lambda text: [text]  # noqa: E731
    elif tokenizer.pattern_name != CUSTOM_PATTERN:  # the named patterns are linear: no deadline
        chunker = findall
    else:
        chunker = lambda text: split.split(findall, text, split.deadline(text), tokenizer.name)  # noqa: E731
    return Plan(vocabulary(tokens), chunker, tokenizer.special_ids)


def _regex_split(pattern: str) -> Callable[[str], list[str]]:
    return regex.compile(pattern).findall


def _llama_blocks(text: str) -> list[str]:
    from app.backends.llama_backend import cut_points

    bounds = [0, *cut_points(text), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)] or [text]


def char_spans(data: bytes, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ordered byte ranges of `data` as character ranges: one that starts or ends inside a
    character takes all of it, as token ranges do (app/tokenizers/tokens.py)."""
    from app.tokenizers.tokens import CONTINUATION_BYTES

    out, at, started = [], 0, 0  # started: characters begun in data[:at]
    for start, end in spans:
        started += len(data[at:start].translate(None, CONTINUATION_BYTES))
        first = started - (start < len(data) and data[start] in CONTINUATION_BYTES)
        started += len(data[start:end].translate(None, CONTINUATION_BYTES))
        out.append((first, started))
        at = end
    return out
