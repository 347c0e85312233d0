"""How many merge steps the engine's cold path would take under wider "atoms" (issue 25).

    python bench/merge_steps.py [--encoding o200k_base] [--classes multilingual,prose] [--size-kb 256]

A chunk that is not one token and not in the chunk cache is merged from its first pieces
(merge_by_bytes): every step a scan for the lowest rank and two pair lookups, after one
lookup per first pair. app/bpe/csrc/engine/char_atoms.h lets a piece start whole (an atom)
when merging it first cannot change the ids: s is a token its own bytes merge into, I(s) the
highest rank of those merges, and every token holding part of s and a byte outside it ranks
above I(s). This script counts, over the distinct chunks of a text that would be merged, the
first pieces, the merges and the pair lookups under rules that differ in which s they try and
in how much of the chunk around s they know:

- bytes: no atoms;
- tables: a token that holds one byte of s is judged by the byte before (or after) s, the
  longer ones are folded into two flags per s whatever surrounds it; with char_atoms.h's kinds
  of s (a 2- or 3-byte character, the first two bytes of a 3-byte one, two ASCII bytes) this
  is the engine's rule today (bar its `after` table), else any token of up to N bytes;
- one byte each side: every crossing token judged by the byte before s (or after it), what a
  table per s of 2 x 256 bits could hold; with char_atoms.h's kinds, or up to N bytes;
- whole chunk, up to N bytes: every crossing token the chunk's bytes spell, a bound no table
  reaches.

Atoms are taken left to right, the longest that fits first. Every chunk is also merged from
each rule's pieces and must give the ids merging from its bytes gives (`differs` must be 0):
a check of char_atoms.h's argument on real text, for atoms wider than the engine's.

Left out: timing (merge steps are the engine's cold-path work, not its speed: bench/engine_ab.py
and bench_engine.py time builds), the `after` refinement of char_atoms.h, Hugging Face's rule.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Callable
from pathlib import Path

import regex

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


import texts  # noqa: E402

from tests import reference  # noqa: E402

NONE = 1 << 40
MERGE_MAX = 128  # bytes: longer chunks go to the engine's heap merge (engine_encode.h)


class Vocabulary:
    """The ranks, and for every string u the lowest rank of a token ending (`ends`) or
    starting (`starts`) with u, up to `depth` bytes of u."""

    def __init__(self, ranks: dict[bytes, int], depth: int):
        self.ranks, self.ends, self.starts = ranks, {}, {}
        self.longer_ends: dict[bytes, int] = {}  # tokens longer than u ending with u
        self.longer_starts: dict[bytes, int] = {}
        for token, rank in ranks.items():
            for k in range(1, min(len(token), depth) + 1):
                for table, part in ((self.ends, token[-k:]), (self.starts, token[:k])):
                    table[part] = min(table.get(part, NONE), rank)
                if k < len(token):
                    for table, part in ((self.longer_ends, token[-k:]), (self.longer_starts, token[:k])):
                        table[part] = min(table.get(part, NONE), rank)
        self._inner: dict[bytes, int | None] = {}
        self.longest = 16  # the crossing tokens the whole-chunk bound looks at, in bytes

    def merge(self, pieces: list[bytes]) -> tuple[list[bytes], int]:
        """tiktoken's rule from these pieces: the pieces it ends with and the highest rank merged."""
        highest = -1
        while len(pieces) > 1:
            found = [self.ranks.get(a + b, NONE) for a, b in itertools.pairwise(pieces)]
            lowest = min(found)
            if lowest == NONE:
                break
            at = found.index(lowest)
            pieces[at : at + 2] = [pieces[at] + pieces[at + 1]]
            highest = max(highest, lowest)
        return pieces, highest

    def inner(self, s: bytes) -> int | None:
        """I(s): the highest rank merging s's bytes makes, None unless they merge into s."""
        if s not in self._inner:
            pieces, highest = self.merge([bytes([b]) for b in s])
            self._inner[s] = highest if len(pieces) == 1 and s in self.ranks else None
        return self._inner[s]


Fits = Callable[[Vocabulary, bytes, int, int, int], bool]  # (vocabulary, chunk, i, j, I(s))


def _one_byte(v: Vocabulary, c: bytes, i: int, j: int, bound: int) -> bool:
    left = i == 0 or min(v.ends.get(c[i - 1 : i + k], NONE) for k in range(1, j - i + 1)) > bound
    return left and (j == len(c) or min(v.starts.get(c[j - k : j + 1], NONE) for k in range(1, j - i + 1)) > bound)


def _tables(v: Vocabulary, c: bytes, i: int, j: int, bound: int) -> bool:
    s = c[i:j]
    if any(
        v.longer_ends.get(s[:k], NONE) <= bound or v.longer_starts.get(s[-k:], NONE) <= bound
        for k in range(2, len(s) + 1)
    ):
        return False
    return (i == 0 or v.ends.get(c[i - 1 : i + 1], NONE) > bound) and (
        j == len(c) or v.starts.get(c[j - 1 : j + 1], NONE) > bound
    )


def _whole(v: Vocabulary, c: bytes, i: int, j: int, bound: int) -> bool:
    for a in range(max(0, i - v.longest), j):
        for b in range(max(a + 2, i + 1), min(len(c), a + v.longest) + 1):
            crosses = (a < i < b) or (a < j < b)
            if crosses and v.ranks.get(c[a:b], NONE) <= bound:
                return False
    return True


def _char_or_pair(s: bytes) -> bool:
    if len(s) == 2:
        return s.isascii() or (0xC2 <= s[0] < 0xF0 and s[1] & 0xC0 == 0x80)
    return len(s) == 3 and 0xE0 <= s[0] < 0xF0 and s[1] & 0xC0 == 0x80 and s[2] & 0xC0 == 0x80


def first_pieces(v: Vocabulary, c: bytes, longest: int, fits: Fits, kinds: Callable[[bytes], bool]) -> list[bytes]:
    pieces, i = [], 0
    while i < len(c):
        step = 1
        for length in range(min(longest, len(c) - i), 1, -1):
            s = c[i : i + length]
            bound = v.inner(s) if kinds(s) else None
            if bound is not None and fits(v, c, i, i + length, bound):
                step = length
                break
        pieces.append(c[i : i + step])
        i += step
    return pieces


def rules(longest: int) -> list[tuple[str, int, Fits, Callable[[bytes], bool]]]:
    anything = lambda s: True  # noqa: E731
    found = [("bytes", 1, _tables, anything), ("chars and pairs, tables (today)", 3, _tables, _char_or_pair)]
    found += [(f"tables, up to {longest} bytes", longest, _tables, anything)]
    found += [("chars and pairs, one byte each side", 3, _one_byte, _char_or_pair)]
    found += [(f"one byte each side, up to {n}", n, _one_byte, anything) for n in sorted({4, longest})]
    return [*found, (f"whole chunk, up to {longest}", longest, _whole, anything)]


def chunks_to_merge(v: Vocabulary, pattern: str, text: str) -> list[bytes]:
    """The distinct chunks of `text` the engine merges with merge_by_bytes."""
    found = {m.group().encode() for m in regex.compile(pattern).finditer(text)}
    return sorted(c for c in found if c not in v.ranks and len(c) <= MERGE_MAX)


def byte_merges(v: Vocabulary, chunks: list[bytes]) -> list[list[bytes]]:
    """Each chunk's tokens merged from its bytes: what every rule's pieces must merge to."""
    return [v.merge([bytes([b]) for b in c])[0] for c in chunks]


def steps(
    v: Vocabulary,
    chunks: list[bytes],
    longest: int,
    fits: Fits,
    kinds: Callable[[bytes], bool],
    truth: list[list[bytes]] | None = None,
) -> dict:
    """A rule's first pieces, merges and pair lookups, summed over the chunks, and how many
    chunks it merges to other tokens than their bytes do (`truth`: byte_merges of the chunks,
    made here when not given; pass it to try several rules on the same chunks)."""
    found = {"pieces": 0, "merges": 0, "lookups": 0, "differs": 0}
    for c, want in zip(chunks, byte_merges(v, chunks) if truth is None else truth, strict=True):
        first = first_pieces(v, c, longest, fits, kinds)
        merged = v.merge(list(first))[0]
        found["differs"] += merged != want
        found["pieces"] += len(first)
        found["merges"] += len(first) - len(merged)
        found["lookups"] += len(first) - 1 + 2 * (len(first) - len(merged))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoding", default="o200k_base")
    parser.add_argument("--classes", default="multilingual,prose")
    parser.add_argument("--size-kb", type=int, default=256)
    parser.add_argument("--longest", type=int, default=6, help="the widest atom tried, in bytes")
    args = parser.parse_args()
    encoding = reference.tiktoken_reference(args.encoding)
    v = Vocabulary(encoding._mergeable_ranks, depth=12)
    for cls in args.classes.split(","):
        chunks = chunks_to_merge(v, encoding._pat_str, texts.load(cls, args.size_kb * 1024).text)
        n = len(chunks)
        print(f"{args.encoding}, {cls}: {n:,} distinct chunks to merge")
        print(f"  {'rule':36} {'pieces':>7} {'merges':>7} {'lookups':>8} {'differs':>8}  (a chunk)")
        truth = byte_merges(v, chunks)
        for label, longest, fits, kinds in rules(args.longest):
            found = steps(v, chunks, longest, fits, kinds, truth)
            figures = " ".join(f"{found[k] / n:{w}.2f}" for k, w in (("pieces", 7), ("merges", 7), ("lookups", 8)))
            print(f"  {label:36} {figures} {found['differs']:8d}")


if __name__ == "__main__":
    main()
