"""A tokenizer's vocabulary as one searchable index: exact, prefix, substring, regex, id.

Built once per tokenizer (see `cache.py`), from the tokenizer's own `id_to_bytes` for
every id it has (`has_id`), so a token's bytes here are the bytes everything else shows.
Positions 0..n-1 stand for the ids in ascending order (`ids[p]`; an id is a position
only where the vocabulary has no gaps). What is kept (about 10 bytes a token plus the
bytes themselves):

- `blob`, every token's bytes joined, and `starts`, where each begins (array of n + 1);
- `by_bytes`, the positions sorted by (bytes, id): exact and prefix lookups bisect it;
- for substring search, built on the first one: `text`, the blob as Latin-1 characters
  with U+0100 between tokens (a character no token and no query can hold, so a match
  never spans two tokens), and for each byte value the positions of the tokens holding
  it. A one-byte query is that list; a longer one walks the shortest list of its bytes
  or, when that list is long, `str.find`s through `text` token by token. Either way the
  answer is every token whose bytes contain the query, in id order (tested against a
  full scan);
- the stats, on first use: tokens by byte length, whole words with a leading space, tokens that are
  not valid UTF-8 on their own, special tokens.

Regex search runs the pattern over each token's text (its bytes as UTF-8, a byte that is
no whole character as U+FFFD) in a sandbox child process (app/sandbox), never here: the
pattern is user input, and compiling one can take gigabytes. The child gets `blob` and
`starts` once per index, keeps the texts, and answers within a time budget and a memory
bound.

The substring tables are kept in the process's memory budget
(app/tokenizers/budget.py) with the index as their parent: when the budget drops them
they are made again on the next search that needs them (a search already running keeps
its own reference). No I/O and no web code here.
"""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_left, bisect_right
from itertools import accumulate, count, pairwise
from typing import NamedTuple, TypeVar

import regex

from app import sandbox
from app.tokenizers import budget as memory
from app.tokenizers.base import Tokenizer

_Part = TypeVar("_Part")
SEPARATOR = "\u0100"  # never in a token's Latin-1 text, nor in a query's
WALK_LIMIT = 30_000  # a candidate list up to this long is checked token by token; longer: str.find
_WORD = regex.compile(r" [\p{L}\p{M}]+")
_keys = count()


class VocabIndex:
    def __init__(self, tokenizer: Tokenizer):
        self.name = tokenizer.name
        self.ids = array("i", filter(tokenizer.has_id, range(tokenizer.vocab_size)))
        special = sorted(p for p in map(self.position, tokenizer.special_ids) if p is not None)
        self.special = frozenset(special)  # positions
        pieces = _all_pieces(tokenizer, self.ids.tolist(), special)
        self.blob = b"".join(pieces)
        self.starts = array("I", accumulate(map(len, pieces), initial=0))
        self.by_bytes = array("I", sorted(range(len(pieces)), key=pieces.__getitem__))  # stable: id order on ties
        self._stats: dict | None = None
        self._tables: _Tables | None = None
        self._key = f"{self.name}#{next(_keys)}"  # this index's texts in the sandbox child
        self._tables_lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def stats(self) -> dict:
        """Computed on first use (the same bytes lookups of other tokenizers do not need them)."""
        if self._stats is None:
            self._stats = _stats(self.pieces(), self.special)
        return self._stats

    # -- one token ------------------------------------------------------------------------

    def pieces(self) -> list[bytes]:
        """Every token's bytes, in position order."""
        blob, starts = self.blob, self.starts
        return [blob[a:b] for a, b in pairwise(starts)]

    def piece(self, position: int) -> bytes:
        return self.blob[self.starts[position] : self.starts[position + 1]]

    def position(self, token_id: int) -> int | None:
        at = bisect_left(self.ids, token_id)
        return at if at < len(self.ids) and self.ids[at] == token_id else None

    def bytes_of(self, token_id: int) -> bytes:
        position = self.position(token_id)
        if position is None:
            raise KeyError(f"no token has id {token_id}")
        return self.piece(position)

    def is_special(self, token_id: int) -> bool:
        return self.position(token_id) in self.special

    def exact(self, data: bytes, special: bool | None = None) -> list[int]:
        """Ids of the tokens whose bytes are `data` (several where a vocabulary repeats bytes,
        such as a SentencePiece byte piece and a character piece), special ones only or
        regular ones only when `special` says so."""
        low = bisect_left(self.by_bytes, data, key=self.piece)
        found = []
        for position in self.by_bytes[low:]:
            if self.piece(position) != data:
                break
            if special is None or (position in self.special) == special:
                found.append(self.ids[position])
        return found

    # -- searches: each returns positions in ascending order -------------------------------

    def prefix(self, query: bytes) -> list[int]:
        low = bisect_left(self.by_bytes, query, key=self.piece)
        upper = _successor(query)
        high = len(self.by_bytes) if upper is None else bisect_left(self.by_bytes, upper, key=self.piece)
        return sorted(self.by_bytes[low:high])

    def substring(self, query: bytes) -> list[int]:
        if not query:
            return list(range(len(self.ids)))
        tables = self._search_tables()
        holding = tables.holding
        if len(query) == 1:
            return list(holding[query[0]])
        shortest = min((holding[byte] for byte in set(query)), key=len)
        if len(shortest) <= WALK_LIMIT:
            blob, starts = self.blob, self.starts
            return [p for p in shortest if blob.find(query, starts[p], starts[p + 1]) >= 0]
        return _find_all(tables, query.decode("latin-1"))

    def regex(self, pattern: str, budget_s: float) -> list[int]:
        """Positions whose text `pattern` matches somewhere; InvalidInput naming the pattern for
        one that is not valid, too large to compile, or takes more than `budget_s`."""
        return sandbox.search_texts(
            self._key,
            lambda: (self.blob, self.starts.tobytes()),
            pattern,
            budget_s,
            "q",
            "fix or simplify it (smaller counts, fewer nested repeats), "
            "or search with mode=substring for the text as it is",
        )

    def _keep(self, part: _Part, grown: int, kind: str, attribute: str) -> _Part | None:
        """`part` kept in the budget under this index (None: not kept; see budget.py)."""

        def drop() -> None:
            if getattr(self, attribute) is part:
                setattr(self, attribute, None)

        cost = max(grown, memory.floor(kind, len(self)))
        return part if memory.shared().keep(part, cost, parent=self, drop=drop) else None

    def id_range(self, first: int, last: int) -> list[int]:
        return list(range(bisect_left(self.ids, first), bisect_right(self.ids, last)))

    # -- substring tables ------------------------------------------------------------------

    def _search_tables(self) -> _Tables:
        """Built on the first substring search, once (a second caller waits for it)."""
        tables = self._tables
        if tables is None:
            with self._tables_lock:
                tables = self._tables
                if tables is None:
                    with memory.measure() as grown:
                        tables = self._build_tables()
                    self._tables = self._keep(tables, grown.grown, "tables", "_tables")
        memory.shared().touch(tables)
        return tables

    def _build_tables(self) -> _Tables:
        n, blob, starts = len(self.ids), self.blob, self.starts
        latin = blob.decode("latin-1")
        text = SEPARATOR + SEPARATOR.join(latin[starts[p] : starts[p + 1]] for p in range(n)) + SEPARATOR
        text_starts = array("I", (starts[p] + p + 1 for p in range(n)))
        holding = [array("I") for _ in range(256)]
        for position in range(n):
            for byte in set(blob[starts[position] : starts[position + 1]]):
                holding[byte].append(position)
        return _Tables(text, text_starts, holding)


class _Tables(NamedTuple):
    """For substring search: the Latin-1 text, where each token starts in it, and byte -> positions."""

    text: str
    text_starts: array
    holding: list[array]


def _find_all(tables: _Tables, query: str) -> list[int]:
    text_starts, find = tables.text_starts, tables.text.find
    last = len(text_starts) - 1
    found = []
    at = find(query)
    while at >= 0:
        position = bisect_right(text_starts, at) - 1
        found.append(position)
        if position == last:
            break
        at = find(query, text_starts[position + 1])
    return found


def _all_pieces(tokenizer: Tokenizer, ids: list[int], special: list[int]) -> list[bytes]:
    """The bytes of every id (`special`: the positions of the special ones, ascending)."""
    if tokenizer.kind not in ("tiktoken", "bpe"):  # SentencePiece and Hugging Face join a sequence's pieces
        return [tokenizer.id_to_bytes(i) for i in ids]  # by their own rules: one id at a time
    # Their token_bytes is id_to_bytes, id by id, only faster, and fastest with no special id
    # among the ids (tiktoken's then reads its own table): the regular ids in one call, the
    # special ones one by one, put back in place.
    regular, last = [], 0
    for position in special:
        regular += ids[last:position]
        last = position + 1
    found = tokenizer.token_bytes(regular + ids[last:])
    pieces, taken, last = [], 0, 0
    for position in special:
        pieces += found[taken : taken + position - last]
        taken += position - last
        pieces.append(tokenizer.id_to_bytes(ids[position]))
        last = position + 1
    return pieces + found[taken:]


def _successor(data: bytes) -> bytes | None:
    """The smallest byte string above every string that starts with `data` (None: no bound)."""
    trimmed = data.rstrip(b"\xff")
    return None if not trimmed else trimmed[:-1] + bytes([trimmed[-1] + 1])


def _stats(pieces: list[bytes], special: frozenset[int]) -> dict:
    by_length = [0] * (max(map(len, pieces), default=0) + 1)
    words = invalid = 0
    for position, piece in enumerate(pieces):
        if position in special:
            continue
        by_length[len(piece)] += 1
        if piece.isascii():
            words += piece[:1] == b" " and piece[1:].isalpha()
            continue
        try:
            text = piece.decode("utf-8")
        except UnicodeDecodeError:
            invalid += 1
            continue
        words += text[:1] == " " and _WORD.fullmatch(text) is not None
    return {
        "tokens": len(pieces),
        "special": len(special),
        "by_length": {length: count for length, count in enumerate(by_length) if count},
        "words_with_leading_space": int(words),
        "not_utf8": invalid,
        "longest": max((length for length, count in enumerate(by_length) if count), default=0),
    }
