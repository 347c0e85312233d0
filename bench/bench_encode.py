"""Encoding speed: our BPE loaded with cl100k_base's merges against tiktoken's cl100k.

    python bench/bench_encode.py [--quick]

The text is several MB of stdlib sources, prose and text across scripts (bench/corpus.py).
"cold" is the first pass with an empty chunk cache (every distinct chunk is merged),
"warm" a second pass over the same text (chunks come from the cache). The ids are
checked to be equal. "split only" is the `regex` module's findall with the cl100k
pattern, the part of our encoder that is not ours to speed up (the rest is one call into
the C extension). Also times one 100,000-character run of a single letter, which is one
chunk and is merged on the heap.

Then the C engine the tiktoken tokenizers take (`app/bpe/engine.py`, formerly an ASCII fast path): for
gpt2, cl100k_base and o200k_base, ~1 MB of ASCII stdlib sources cut into texts of 1 KB,
4 KB and 16 KB (what the server encodes this way), ours against tiktoken on the same
texts, ids checked equal.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import tiktoken  # noqa: E402
from corpus import mixed_text, stdlib_documents  # noqa: E402

from app.bpe.engine import Encoder  # noqa: E402
from app.bpe.model import BPETokenizer  # noqa: E402
from app.tokenizers.openai_encodings import CL100K_PATTERN, OPENAI_ENCODINGS  # noqa: E402
from app.tokenizers.storage.files import load_tiktoken_ranks  # noqa: E402


def timed(run) -> tuple[float, object]:
    started = time.perf_counter()
    result = run()
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 MB of text instead of 5 MB")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs (best is kept)")
    args = parser.parse_args()
    text = mixed_text(1_000_000 if args.quick else 5_000_000)
    ranks = load_tiktoken_ranks("cl100k_base.tiktoken.gz")
    specials = OPENAI_ENCODINGS["cl100k_base"].special_tokens
    load_s, ours = timed(lambda: BPETokenizer.from_tiktoken_ranks(ranks, CL100K_PATTERN, specials, "cl100k_base"))
    reference = tiktoken.Encoding("cl100k_base", pat_str=CL100K_PATTERN, mergeable_ranks=ranks, special_tokens=specials)

    cold = warm = tik = split = float("inf")
    for _ in range(args.repeat):
        ours._cache.clear()
        seconds, ids = timed(lambda: ours.encode(text))
        cold = min(cold, seconds)
        warm = min(warm, timed(lambda: ours.encode(text))[0])
        split = min(split, timed(lambda: ours._split(text))[0])
        seconds, expected = timed(lambda: reference.encode_ordinary(text))
        tik = min(tik, seconds)
        if ids != expected:
            raise SystemExit("our ids differ from tiktoken's: this is a bug")
    run = "a" * 100_000
    run_s, run_ids = timed(lambda: ours.encode(run))
    if run_ids != reference.encode_ordinary(run):
        raise SystemExit("our ids differ from tiktoken's on the long run: this is a bug")

    mb = len(text.encode()) / 1e6
    print(f"text: {mb:.1f} MB, {len(expected):,} tokens; merges recovered from ranks in {load_s:.2f} s")
    print(f"{'encoder':28} {'seconds':>8} {'MB/s':>7} {'vs tiktoken':>12}")
    rows = [
        ("tiktoken cl100k", tik),
        ("ours, cold cache", cold),
        ("ours, warm cache", warm),
        ("ours, split only", split),
    ]
    for label, seconds in rows:
        print(f"{label:28} {seconds:8.3f} {mb / seconds:7.2f} {seconds / tik:11.2f}x")
    print(f"{'ours, 100,000 letters a':28} {run_s:8.3f}")
    ascii_fast_path(300_000 if args.quick else 1_000_000, args.repeat)


def ascii_fast_path(chars: int, repeat: int) -> None:
    source = "".join(doc for doc in stdlib_documents(chars * 2) if doc.isascii())[:chars]
    print(f"\nASCII fast path, {len(source):,} characters of stdlib sources, cut into texts of each size:")
    print(f"{'encoding':12} {'text':>6} {'ours us':>9} {'tiktoken us':>12} {'faster':>7}")
    for name, spec in OPENAI_ENCODINGS.items():
        ranks = load_tiktoken_ranks(spec.file)
        ours = Encoder.for_pattern(spec.pattern, ranks, name)
        reference = tiktoken.Encoding(
            name,
            pat_str=spec.pattern,
            mergeable_ranks=ranks,
            special_tokens=spec.special_tokens,
            explicit_n_vocab=spec.explicit_n_vocab,
        )
        for size in (1024, 4096, 16384):
            texts = [source[i : i + size] for i in range(0, len(source) - size + 1, size)]
            ours_s = tik_s = float("inf")
            for _ in range(repeat):
                ours_s = min(ours_s, timed(lambda ours=ours, texts=texts: [ours.encode(t) for t in texts])[0])
                tik_s = min(
                    tik_s,
                    timed(lambda reference=reference, texts=texts: [reference.encode_ordinary(t) for t in texts])[0],
                )
            if [ours.encode(t) for t in texts] != [reference.encode_ordinary(t) for t in texts]:
                raise SystemExit(f"{name}: the ASCII fast path's ids differ from tiktoken's: this is a bug")
            per = 1e6 / len(texts)
            print(f"{name:12} {size:6} {ours_s * per:9.1f} {tik_s * per:12.1f} {tik_s / ours_s:6.1f}x")


if __name__ == "__main__":
    main()
