"""Where a token comes from: its two merge parents, its rank and score, for every kind.

`lineage_for(tokenizer, index)` (lineage_of.py) picks the rule of the tokenizer's kind:

- tiktoken-style ranks (gpt2, cl100k_base, o200k_base, o200k_harmony, mistral_tekken,
  qwen3_6, uploaded .tiktoken files): the merges behind the ranks, recovered by the C
  extension (`recover_merges`, as `model.recover_pairs` does): a token's pair is what BPE
  with only lower ranks makes of its bytes. The C pass stops at the first token whose
  bytes do not merge into two (qwen3_6 has many: whole Chinese phrases added to the
  vocabulary); every token from there is worked out when the lineage is built, in one C
  pass (`_parents.work_out`, ~0.2 s for qwen3_6's 148,000) that merges the token's bytes
  by the bytes -> rank table (what tiktoken itself merges by) with only lower ranks. A
  token that BPE never builds from its own bytes (tiktoken only emits it when a whole
  chunk equals it) gets the split into two lower-ranked tokens that merge earliest,
  marked `how="split"`. Kept: two int32 arrays of parent ranks and a byte per token past
  the C pass (about 9 bytes a token), so a merge tree only looks parents up. A token past
  the C pass longer than LONGEST_WORKED_OUT bytes (only in an uploaded file) is not worked
  out: merging it costs the square of its length.
- our own BPE: its merges. Hugging Face BPE: the file's merges (a token made by several
  merges takes the first); rank = the merge's index.
- SentencePiece BPE: the pieces that build the piece, found by replaying SentencePiece's
  BPE on the piece's own text (merge the adjacent pair whose joined piece has the best
  score), using only pieces of lower rank (= better score).
- WordPiece, Unigram (Hugging Face or SentencePiece) and WordLevel have no merges: `note`
  says why; Unigram pieces have a score.

A rank is the merge order (lower merges first); bytes, base characters and special tokens
have none, or, for tiktoken, their own low rank. Every parent has a lower rank than its
child or none. Reads the backends' own tables (the library objects behind the Hugging Face
and SentencePiece tokenizers); no I/O.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from typing import NamedTuple

from app.bpe import _core
from app.inspect import _parents
from app.inspect.vocab import VocabIndex

BYTE_NOTE = "a single byte: the bottom of every merge tree"
SPECIAL_NOTE = "a special token: added whole, never merged"
BASE_NOTE = "a base symbol: BPE starts from these and merges upwards"
NO_SPLIT_NOTE = "no two lower-ranked tokens join to it"
LONGEST_WORKED_OUT = 1_024  # bytes (tiktoken-style ranks past the C pass; the longest built-in token has 128)
TOO_LONG_NOTE = f"longer than {LONGEST_WORKED_OUT:,} bytes: tokenprism does not work out its parents"
KIND_NOTES = {
    "WordPiece": "WordPiece has no merges: it matches the longest vocabulary entry, left to right",
    "Unigram": "Unigram has no merges: it picks the most probable split by its pieces' scores",
    "WordLevel": "WordLevel has no merges: it maps whole words to ids",
    "sentencepiece-unigram": "a Unigram SentencePiece model has no merges: it picks the most probable split by scores",
    "sentencepiece-other": "this SentencePiece model is not BPE: it has no merges",
}


class Parents(NamedTuple):
    left: int
    right: int
    how: str  # "merge": the pair BPE joins last; "split": not built by BPE from its own bytes


class Lineage:
    """No merges at all (the base of every rule); `kind_note` says why, `scores` are a Unigram's."""

    def __init__(self, index: VocabIndex, kind_note: str | None = None, scores: dict[int, float] | None = None):
        self.index = index
        self.kind_note = kind_note
        self._scores = scores or {}

    def parents(self, token_id: int) -> Parents | None:
        return None

    def rank(self, token_id: int) -> int | None:
        return None

    def score(self, token_id: int) -> float | None:
        return self._scores.get(token_id)

    def note(self, token_id: int) -> str | None:
        """Why `token_id` has no parents."""
        if self.index.is_special(token_id):
            return SPECIAL_NOTE
        return self.kind_note or BASE_NOTE


class RankedLineage(Lineage):
    """tiktoken-style ranks: regular tokens in id order are ranks 0, 1, 2, ...; 0..255 the bytes."""

    MERGE, SPLIT, NONE, TOO_LONG = range(4)  # `_parents.work_out`'s codes

    def __init__(self, index: VocabIndex):
        super().__init__(index)
        special, everything = index.special, index.pieces()
        regular = [p for p in range(len(index)) if p not in special]
        self._rank_ids = array("i", (index.ids[p] for p in regular))
        pieces = [everything[p] for p in regular] if special else everything  # rank -> bytes, for the C passes only
        base = pieces[:256]
        self._bytes_first = len(base) == 256 and sorted(base) == [bytes([b]) for b in range(256)]
        self._base = 256 if self._bytes_first else 0  # the rank of _left[0] and _right[0]
        self._left, self._right = array("i"), array("i")  # parent ranks, -1: none
        if self._bytes_first:
            byte_ids = bytearray(256)
            for rank, piece in enumerate(base):
                byte_ids[piece[0]] = rank
            pairs = _core.recover_merges(bytes(byte_ids), pieces[256:])
            self._left.extend(a for a, _ in pairs)
            self._right.extend(b for _, b in pairs)
        self._recovered = self._base + len(self._left)
        self._how = b""  # one code a rank from _recovered on (the tokens the C pass did not reach)
        if self._recovered < len(pieces):
            left, right, self._how = _parents.work_out(pieces, self._recovered, LONGEST_WORKED_OUT)
            self._left.frombytes(left)
            self._right.frombytes(right)

    def rank(self, token_id: int) -> int | None:
        at = bisect_left(self._rank_ids, token_id)
        return at if at < len(self._rank_ids) and self._rank_ids[at] == token_id else None

    def parents(self, token_id: int) -> Parents | None:
        rank = self.rank(token_id)
        if rank is None or rank < self._base or self._left[rank - self._base] < 0:
            return None
        ids = self._rank_ids
        split = rank >= self._recovered and self._how[rank - self._recovered] == self.SPLIT
        return Parents(
            ids[self._left[rank - self._base]], ids[self._right[rank - self._base]], "split" if split else "merge"
        )

    def note(self, token_id: int) -> str | None:
        rank = self.rank(token_id)
        if rank is None:
            return SPECIAL_NOTE
        if rank < self._base:
            return BYTE_NOTE
        if rank >= self._recovered and self._how[rank - self._recovered] == self.TOO_LONG:
            return TOO_LONG_NOTE
        return NO_SPLIT_NOTE


class TableLineage(Lineage):
    """Parents and ranks from a merge table: our own BPE and Hugging Face BPE."""

    def __init__(self, index: VocabIndex, merges: list[tuple[int, int, int]], base_note: str = BASE_NOTE):
        super().__init__(index)  # merges: (left id, right id, made id), in merge order
        size = index.ids[-1] + 1 if len(index) else 0
        self._left = array("i", [-1]) * size
        self._right = array("i", [-1]) * size
        self._rank = array("i", [-1]) * size
        self._base_note = base_note
        for order, (left, right, made) in enumerate(merges):
            if 0 <= made < size and self._rank[made] < 0:
                self._left[made], self._right[made], self._rank[made] = left, right, order

    def parents(self, token_id: int) -> Parents | None:
        if not 0 <= token_id < len(self._rank) or self._rank[token_id] < 0:
            return None
        return Parents(self._left[token_id], self._right[token_id], "merge")

    def rank(self, token_id: int) -> int | None:
        return self._rank[token_id] if 0 <= token_id < len(self._rank) and self._rank[token_id] >= 0 else None

    def note(self, token_id: int) -> str | None:
        return SPECIAL_NOTE if self.index.is_special(token_id) else self._base_note
