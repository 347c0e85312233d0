"""Two threads against one: `count_batch` of ~1 KB documents from a thread pool that lives
across calls (as the server's pool and `count --workers` do), cl100k_base and o200k_base;
then, on ASCII prose and on translations (bench/texts.py), `encode` a document a call (a
short ASCII text keeps the GIL: less work than handing it over) and `encode_batch` of each half.

    python bench/bench_threads.py [--mb 4] [--repeat 5]

Prints MB/s of UTF-8 input on one thread (all the documents) and on two, the two halves at
once, two ways: on a persistent two-thread pool while the caller waits ("pool"), and on the
calling thread while one persistent pool thread takes the other half ("caller + 1", as
bench_engine.py's "1KB x2"); best and median of --repeat, and the ratios to one thread. The
counts or ids of all must agree (the script exits 1 otherwise). The engine releases the GIL
for a batch, so the ratio is bounded by the cores, their shared caches and the scheduler: on
a 2-core virtual machine two threads woken at once are often queued on one core for a
balancing tick (3-5 ms), which "pool" pays and "caller + 1" mostly does not.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from statistics import median

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


def one_and_two(
    pools: tuple[ThreadPoolExecutor, ThreadPoolExecutor],
    each: Callable[[list[str]], list],
    docs: list[str],
    repeat: int,
):
    """Seconds of `each(docs)` on one thread, of `each` over the two halves on a two-thread
    pool, and on the calling thread and a one-thread pool (each a list of --repeat runs), and
    whether all gave the same results."""
    pool, helper = pools
    half, times, same = len(docs) // 2, {"one": [], "pool": [], "caller + 1": []}, True
    for _ in range(repeat):
        started = time.perf_counter()
        alone = each(docs)
        times["one"].append(time.perf_counter() - started)
        started = time.perf_counter()
        first, second = pool.map(each, [docs[:half], docs[half:]])
        times["pool"].append(time.perf_counter() - started)
        same = same and alone == first + second
        started = time.perf_counter()
        later = helper.submit(each, docs[half:])
        first = each(docs[:half])
        second = later.result()
        times["caller + 1"].append(time.perf_counter() - started)
        same = same and alone == first + second
    return times, same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=4.0, help="MB of stdlib text")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    text = "".join(stdlib_documents(int(args.mb * 1_000_000)))
    registry = default_registry(get_settings())
    pools = ThreadPoolExecutor(2), ThreadPoolExecutor(1)
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
            times, same = one_and_two(pools, each, docs, args.repeat)
            if not same:
                print(f"{name}, {kind}, {how}: results differ between one thread and two: a bug")
                return 1
            one = min(times["one"])
            print(
                f"{name}, {kind}, {how} ({len(docs):,}, {mb:.1f} MB): one thread {mb / one:.0f} MB/s; two: "
                + "; ".join(
                    f"{way} {mb / min(runs):.0f} MB/s, {one / min(runs):.2f}x best, "
                    f"{median(times['one']) / median(runs):.2f}x median"
                    for way, runs in times.items()
                    if way != "one"
                )
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
