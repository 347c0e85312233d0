"""Two threads against one: `count_batch` of ~1 KB documents from a thread pool that lives
across calls (as the server's pool and `count --workers` do), cl100k_base and o200k_base;
then, on ASCII prose and on translations (bench/texts.py), `encode` a document a call (a
short ASCII text keeps the GIL: less work than handing it over) and `encode_batch` of each half.

    python bench/bench_threads.py [--mb 4] [--repeat 5]

Prints MB/s of UTF-8 input on one thread (all the documents) and on two (the two halves at
once, on a persistent two-thread pool), best of --repeat, and their ratio; the counts or ids
of both must agree (the script exits 1 otherwise). The engine releases
the GIL for a batch, so the ratio is bounded by the cores and their shared caches.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from corpus import stdlib_documents  # noqa: E402

from app.settings import get_settings  # noqa: E402
from app.tokenizers.registry import default_registry  # noqa: E402


def documents(text: str, size: int = 1000) -> list[str]:
    """`text` cut at the first space after each `size` characters."""
    found, start = [], 0
    while start < len(text):
        end = text.find(" ", start + size)
        end = len(text) if end < 0 else end
        found.append(text[start:end])
        start = end
    return found


def one_and_two(pool: ThreadPoolExecutor, each: Callable[[list[str]], list], docs: list[str], repeat: int):
    """Best seconds of `each(docs)` on one thread and of `each` over the two halves at once on two,
    and whether the two gave the same results."""
    half, one, two, same = len(docs) // 2, float("inf"), float("inf"), True
    for _ in range(repeat):
        started = time.perf_counter()
        alone = each(docs)
        one = min(one, time.perf_counter() - started)
        started = time.perf_counter()
        first, second = pool.map(each, [docs[:half], docs[half:]])
        two = min(two, time.perf_counter() - started)
        same = same and alone == first + second
    return one, two, same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=4.0, help="MB of stdlib text")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    text = "".join(stdlib_documents(int(args.mb * 1_000_000)))
    registry = default_registry(get_settings())
    pool = ThreadPoolExecutor(2)
    import texts

    cases = [("stdlib code", documents(text), "count_batch of the documents")]
    for kind in ("prose", "multilingual"):
        cases.append(
            (kind, texts.documents(texts.load(kind, int(args.mb * 250_000)).text), "encode a ~1 KB document a call")
        )
        cases.append((kind, cases[-1][1], "encode_batch of the documents"))
    for kind, docs, how in cases:
        mb = sum(len(doc.encode("utf-8")) for doc in docs) / 1e6
        for name in ("cl100k_base", "o200k_base"):
            tokenizer = registry.get(name)
            each = {
                "count_batch of the documents": tokenizer.count_batch,
                "encode_batch of the documents": tokenizer.encode_batch,
                "encode a ~1 KB document a call": lambda some, encode=tokenizer.encode: [encode(doc) for doc in some],
            }[how]
            one, two, same = one_and_two(pool, each, docs, args.repeat)
            if not same:
                print(f"{name}, {kind}, {how}: results differ between one thread and two: a bug")
                return 1
            print(
                f"{name}, {kind}, {how} ({len(docs):,}, {mb:.1f} MB): one thread {mb / one:.0f} MB/s, "
                f"two {mb / two:.0f} MB/s, {one / two:.2f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
