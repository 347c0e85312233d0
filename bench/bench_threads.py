"""Two threads against one: `count_batch` of ~1 KB documents from a thread pool that lives
across calls (as the server's pool and `count --workers` do), cl100k_base and o200k_base;
then `encode` a document a call, on ASCII prose and on translations (bench/texts.py).

    python bench/bench_threads.py [--mb 4] [--repeat 5]

Prints MB/s of UTF-8 input on one thread (one `count_batch` of all the documents) and on
two (the two halves at once, on a persistent two-thread pool), best of --repeat, and their
ratio; the counts of both must agree (the script exits 1 otherwise). The engine releases
the GIL for a batch, so the ratio is bounded by the cores and their shared caches.
"""

from __future__ import annotations

import argparse
import sys
import time
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=4.0, help="MB of stdlib text")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    text = "".join(stdlib_documents(int(args.mb * 1_000_000)))
    docs, mb = documents(text), len(text.encode("utf-8")) / 1e6
    registry = default_registry(get_settings())
    pool = ThreadPoolExecutor(2)
    for name in ("cl100k_base", "o200k_base"):
        tokenizer = registry.get(name)
        half = len(docs) // 2
        one = two = float("inf")
        for _ in range(args.repeat):
            started = time.perf_counter()
            alone = sum(tokenizer.count_batch(docs))
            one = min(one, time.perf_counter() - started)
            started = time.perf_counter()
            both = sum(sum(part) for part in pool.map(tokenizer.count_batch, [docs[:half], docs[half:]]))
            two = min(two, time.perf_counter() - started)
            if alone != both:
                print(f"{name}: counts differ ({alone} on one thread, {both} on two): a bug")
                return 1
        print(
            f"{name}: {len(docs):,} documents, {mb:.1f} MB: one thread {mb / one:.0f} MB/s, two {mb / two:.0f} MB/s, {one / two:.2f}x"
        )
    import texts

    for kind in ("prose", "multilingual"):
        loaded = texts.load(kind, int(args.mb * 250_000)).text
        parts, size = texts.documents(loaded), len(loaded.encode("utf-8")) / 1e6
        for name in ("cl100k_base", "o200k_base"):
            encode, half = registry.get(name).encode, len(parts) // 2
            one = two = float("inf")
            for _ in range(args.repeat):
                started = time.perf_counter()
                alone = [encode(part) for part in parts]
                one = min(one, time.perf_counter() - started)
                started = time.perf_counter()
                halves = list(
                    pool.map(lambda some, encode=encode: [encode(part) for part in some], [parts[:half], parts[half:]])
                )
                two = min(two, time.perf_counter() - started)
                if alone != halves[0] + halves[1]:
                    print(f"{name}: ids differ between one thread and two: a bug")
                    return 1
            print(
                f"{name}, {kind}, encode a ~1 KB document a call: one thread {size / one:.0f} MB/s, "
                f"two {size / two:.0f} MB/s, {one / two:.2f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
