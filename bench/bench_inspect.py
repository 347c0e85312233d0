"""Token inspector speed: vocabulary search and merge trees, against naive references.

    python bench/bench_inspect.py [--queries 300] [--trees 2000]

Vocabulary search over o200k_base (200,000 tokens): the index (app/inspect/vocab.py) against
a naive full scan (`query in piece` for every token) measured in the same run, on queries
drawn at random from the vocabulary itself (1 to 8 bytes of a random token) plus common
short ones ("e", " t", "in", ...), where a scan has the most matches to collect. Both must
give the same ids. Also: building the index, the search tables and the lineage (once per
tokenizer), prefix and regex searches.

Merge trees: `facts.merge_tree` of random tokens and of the longest ones, for o200k_base
(merges recovered by the C pass) and qwen3_6 (its tokens past the C pass are worked out in
Python on first use, so each of those is timed cold; the others best of 3), against a naive tree that runs BPE
with the lower ranks on every node's bytes in Python, on the same tokens.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from app.inspect.cache import inspected  # noqa: E402
from app.inspect.facts import merge_tree  # noqa: E402
from app.inspect.vocab import VocabIndex  # noqa: E402
from app.tokenizers.registry import get_registry  # noqa: E402

COMMON = [b"e", b"a", b" t", b"in", b"er", b"ing", b" the", b"ization", "日本".encode(), b"\xe2\x80"]


def timed(run, repeat: int = 1) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - started)
    return best, result


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def summary(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
    return f"median {ms(statistics.median(values))}, p95 {ms(p95)}, max {ms(values[-1])}"


def bench_search(found, queries: int, rng: random.Random) -> None:
    index = found.index
    pieces = index.pieces()
    drawn = []
    for _ in range(queries):
        piece = pieces[rng.randrange(len(pieces))]
        start = rng.randrange(max(1, len(piece)))
        drawn.append(piece[start : start + rng.randint(1, 8)] or b"a")
    ours, naive = [], []
    for query in COMMON + drawn:
        seconds, found_ids = timed(lambda: index.substring(query), repeat=3)
        scan_s, scanned = timed(lambda: [p for p, piece in enumerate(pieces) if query in piece])
        assert found_ids == scanned, query
        ours.append(seconds)
        naive.append(scan_s)
    common = len(COMMON)
    print(f"substring, {len(drawn)} queries drawn from the vocabulary: ours {summary(ours[common:])}")
    print(f"                                   naive scan {summary(naive[common:])}")
    print(f"  ratio of medians: {statistics.median(naive[common:]) / statistics.median(ours[common:]):.0f}x faster")
    print(f"substring, {common} common short queries:      ours {summary(ours[:common])}")
    print(f"                                   naive scan {summary(naive[:common])}")
    print(f"  ratio of medians: {statistics.median(naive[:common]) / statistics.median(ours[:common]):.1f}x faster")
    worst = max(range(len(ours)), key=ours.__getitem__)
    print(f"  slowest query for the index: {(COMMON + drawn)[worst]!r}: {ms(ours[worst])} (scan {ms(naive[worst])})")
    prefix = [timed(lambda: index.prefix(q), repeat=3)[0] for q in drawn[:100]]
    print(f"prefix, 100 queries: {summary(prefix)}")
    regex_s, hits = timed(lambda: index.regex(r"^ [A-Z][a-z]+ing$", 5.0))
    print(f"regex over every token text (^ [A-Z][a-z]+ing$, {len(hits)} matches): {ms(regex_s)}")


def naive_tree(ranks: dict[bytes, int], data: bytes) -> int:
    """BPE with the lower ranks on every node's bytes, in Python: the number of nodes."""
    rank = ranks[data]
    parts = [data[i : i + 1] for i in range(len(data))]
    while len(parts) > 2:
        best, at = rank, -1
        for i in range(len(parts) - 1):
            found = ranks.get(parts[i] + parts[i + 1], rank)
            if found < best:
                best, at = found, i
        if at < 0:
            return 1
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
    return 1 + sum(naive_tree(ranks, part) for part in parts) if len(parts) == 2 else 1


def bench_trees(found, label: str, chosen: list[int], repeat: int = 3) -> None:
    """Best of `repeat` per token (1: the first, cold call, for parents worked out on demand)."""
    index = found.index
    regular = [i for i in index.ids if not index.is_special(i)]
    ranks = {index.bytes_of(i): r for r, i in enumerate(regular)}
    ours = [timed(lambda: merge_tree(found, token_id), repeat)[0] for token_id in chosen]
    naive = [timed(lambda: naive_tree(ranks, index.bytes_of(token_id)), repeat)[0] for token_id in chosen]
    print(f"merge tree, {label}, {len(chosen)} tokens: ours {summary(ours)}")
    print(f"  naive (Python BPE on every node's bytes): {summary(naive)}; "
          f"ratio of medians {statistics.median(naive) / statistics.median(ours):.1f}x, of maxima {max(naive) / max(ours):.1f}x")


def tree_samples(found, count: int, rng: random.Random, pool: list[int] | None = None) -> tuple[list[int], list[int]]:
    """`count` random regular tokens (from `pool` if given) and the 100 longest (of `pool`)."""
    index = found.index
    pool = pool or [i for i in index.ids if not index.is_special(i)]
    return rng.sample(pool, min(count, len(pool))), sorted(pool, key=lambda i: len(index.bytes_of(i)))[-100:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--trees", type=int, default=2000)
    args = parser.parse_args()
    rng = random.Random(2024)
    registry = get_registry()
    tokenizer = registry.get("o200k_base")
    build_s, _ = timed(lambda: VocabIndex(tokenizer))
    found = inspected(tokenizer)
    tables_s, _ = timed(lambda: found.index.substring(b"ab"))
    lineage_s, _ = timed(lambda: found.lineage)
    stats_s, _ = timed(lambda: found.index.stats)
    print(f"o200k_base, {len(found.index):,} tokens: index {build_s:.2f} s, search tables {tables_s:.2f} s, "
          f"lineage {lineage_s:.2f} s, stats {stats_s:.2f} s (each once per tokenizer)")
    bench_search(found, args.queries, rng)
    randoms, longest = tree_samples(found, args.trees, rng)
    bench_trees(found, "o200k_base, random", randoms)
    bench_trees(found, "o200k_base, the 100 longest", longest)
    qwen = inspected(registry.get("qwen3_6"))
    lineage = qwen.lineage
    ranks_s, _ = timed(lambda: lineage.parents(lineage._rank_ids[lineage._recovered]))  # builds its bytes -> rank table
    print(f"qwen3_6: the C pass recovers {lineage._recovered - 256:,} merges; the rest are worked out on demand "
          f"(the bytes -> rank table for that: {ranks_s:.2f} s, once)")
    randoms, longest = tree_samples(qwen, args.trees, rng, list(range(lineage._recovered, 248_044)))
    bench_trees(qwen, "qwen3_6 past the C pass, random, cold", randoms, repeat=1)
    bench_trees(qwen, "qwen3_6 past the C pass, the 100 longest, cold", longest, repeat=1)

if __name__ == "__main__":
    main()
