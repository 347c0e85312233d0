"""How long another Python thread waits for the GIL while a tokenizer counts texts it has not
seen as str objects before (a request's, a corpus document's: no UTF-8 made yet), ours against
tiktoken's on the same texts in the same run.

    python bench/bench_gil.py [--mb 1] [--calls 20] [--tokenizer o200k_base|cl100k_base|gpt2|llama3|deepseek_v4]

A ticking thread sleeps 0.2 ms at a time and notes how long each tick really took while the
main thread counts fresh copies of a text (1 MB by default) of each class, --calls times; with
the switch interval at 0.5 ms, a tick late by more than that waited on a call that held the
GIL. Prints the ticks' median, 99th percentile and longest for ours (the registry's tokenizer,
`count`) and for the reference library (tiktoken's `encode_ordinary`, which writes the text's
UTF-8 with the GIL held before it lets the GIL go; for llama3 llama-models' encode, tiktoken on
each piece it cuts, as our engine's `count_cut`; for deepseek_v4 Hugging Face `tokenizers`,
while our engine looks for the added tokens' strings first), and the ratio of their 99th
percentiles (the reference's over ours: above 1, ours keeps the GIL for less). The counts must
agree (exit 1 otherwise).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import texts  # noqa: E402

from app.settings import get_settings  # noqa: E402
from app.tokenizers.registry import default_registry  # noqa: E402
from tests.reference import reference_ids, tiktoken_reference  # noqa: E402

CLASSES = ("cyrillic", "cjk", "latin", "prose")


def fresh(text: str) -> str:
    """An equal str that has never made its UTF-8."""
    return (text + "!")[:-1]


def tick_gaps(count: Callable[[str], int], text: str, calls: int) -> tuple[list[float], set[int]]:
    """The ticking thread's tick lengths (seconds, sorted) while `count` runs on `calls` fresh
    copies of `text`, and the counts it gave."""
    gaps: list[float] = []
    stop = threading.Event()

    def tick() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            time.sleep(0.0002)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    copies = [fresh(text) for _ in range(calls)]
    ticker = threading.Thread(target=tick)
    ticker.start()
    counts = {count(copy) for copy in copies}
    stop.set()
    ticker.join()
    return sorted(gaps), counts


def quantiles(gaps: list[float]) -> tuple[float, float, float]:
    """Median, 99th percentile and longest, in ms."""
    return 1000 * gaps[len(gaps) // 2], 1000 * gaps[int(len(gaps) * 0.99)], 1000 * gaps[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=1.0, help="MB of each text class")
    parser.add_argument("--calls", type=int, default=20, help="fresh copies counted per class")
    parser.add_argument(
        "--tokenizer", default="o200k_base", choices=("cl100k_base", "o200k_base", "gpt2", "llama3", "deepseek_v4")
    )
    args = parser.parse_args()
    ours = default_registry(get_settings()).get(args.tokenizer)
    if args.tokenizer in ("llama3", "deepseek_v4"):
        reference = ("llama-models" if args.tokenizer == "llama3" else "tokenizers") + " encode"
        contenders = {"tokenprism count": ours.count, reference: lambda text: len(reference_ids(args.tokenizer, text))}
    else:
        encoding = tiktoken_reference(args.tokenizer)
        reference = "tiktoken encode_ordinary"
        contenders = {"tokenprism count": ours.count, reference: lambda text: len(encoding.encode_ordinary(text))}
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    try:
        for name in CLASSES:
            text = texts.load(name, int(args.mb * 1_000_000)).text
            p99s, counts = {}, set()
            for label, count in contenders.items():
                count(text)  # built and warm: the text's chunks are not what is measured
                gaps, found = tick_gaps(count, text, args.calls)
                counts |= found
                median, p99s[label], longest = quantiles(gaps)
                print(
                    f"{args.tokenizer} {name} ({len(text.encode()) / 1e6:.1f} MB, {args.calls} fresh copies), {label}: "
                    f"another thread's tick {median:.2f} ms median, {p99s[label]:.2f} ms p99, {longest:.2f} ms longest"
                )
            if len(counts) != 1:
                print(f"{name}: the counts differ ({sorted(counts)}): a bug")
                return 1
            ratio = p99s[reference] / p99s["tokenprism count"]
            print(f"{args.tokenizer} {name}: p99 tick, {reference.split()[0]}'s over ours: {ratio:.2f}x")
    finally:
        sys.setswitchinterval(interval)
    return 0


if __name__ == "__main__":
    sys.exit(main())
