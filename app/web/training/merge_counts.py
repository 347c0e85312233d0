"""The counts behind each merge, drawn for the training pages: how often each merged pair
occurred in the training corpus when training chose it (`BPETokenizer.merge_counts`).

`bar_width` is a merge's bar (0..100, log scale, so a count of 20 still shows next to one of
200,000); `sparkline` is the counts of every merge as SVG coordinates (log scale, at most
SPARK_POINTS points, k marked) for a template to draw: no script, no inline style. Left out:
models whose counts are unknown (not trained here, or saved before counts were kept): both
answer None and the page says so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

SPARK_W, SPARK_H, SPARK_PAD = 1000, 120, 4
SPARK_POINTS = 240


def bar_width(count: int, top: int) -> float:
    """The bar of `count` in a box of width 100 where the largest count, `top`, fills it."""
    if count <= 0 or top <= 0:
        return 0.0
    return round(100 * math.log1p(count) / math.log1p(top), 1)


def sparkline(counts: Sequence[int] | None, k: int) -> dict | None:
    """Counts against merge number (1 .. n) as a path in a SPARK_W x SPARK_H box, log scale,
    with the merge at k (the next one, or the last) marked; None without counts."""
    if not counts:
        return None
    n = len(counts)
    top, low = math.log1p(max(counts)), math.log1p(min(counts))
    span = (top - low) or 1.0
    ranks = sorted({0, n - 1, min(k, n - 1), *(round(i * (n - 1) / (SPARK_POINTS - 1)) for i in range(SPARK_POINTS))})

    def x_of(rank: int) -> float:
        return SPARK_W * rank / (n - 1) if n > 1 else SPARK_W / 2

    def y_of(count: int) -> float:
        return SPARK_PAD + (SPARK_H - 2 * SPARK_PAD) * (top - math.log1p(count)) / span

    path = " ".join(f"{'M' if i == 0 else 'L'}{x_of(r):.1f},{y_of(counts[r]):.1f}" for i, r in enumerate(ranks))
    at = min(k, n - 1)
    return {
        "w": SPARK_W,
        "h": SPARK_H,
        "path": path,
        "kx": round(x_of(at), 1),
        "ky": round(y_of(counts[at]), 1),
        "first": counts[0],
        "last": counts[-1],
        "n": n,
        "summary": f"The pair merged first occurred {counts[0]:,} times in the training corpus, merge {at + 1:,} "
        f"{counts[at]:,} times, the last ({n:,}) {counts[-1]:,} times.",
    }
