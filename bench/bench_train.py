"""Training speed: ours against the naive trainer, rustbpe and Hugging Face tokenizers.

    python bench/bench_train.py [--quick]

(a) ~200 KB of stdlib sources to vocab 512: ours vs the lecture's naive trainer (the
    reference in tests/bpe/test_bpe_vs_naive.py); the merges are also checked to be equal.
(b) ~10 MB (one document per file) to vocab 10,000, the gpt4 split pattern: ours with its
    chunk counting on 1 and on 2 threads (app/bpe/train.py's MAX_THREADS) vs rustbpe 0.1.0
    (its own threads: all cores) and HF `tokenizers` BpeTrainer with the same split
    (pre_tokenizers.Split + ByteLevel(use_regex=False)). rustbpe's merges are compared with
    ours: where they first differ, and whether that is a tie broken otherwise.
All sides are timed in the same run, best of --repeat; ratios > 1 mean we are faster.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from corpus import stdlib_documents  # noqa: E402

from app.bpe import train  # noqa: E402
from app.bpe.model import BPETokenizer  # noqa: E402
from app.tokenizers.openai_encodings import CL100K_PATTERN  # noqa: E402
from tests.bpe.test_bpe_vs_naive import naive_train  # noqa: E402


def best_of(repeat: int, run) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - started)
    return best, result


def hf_train(documents: list[str], vocab_size: int):
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(CL100K_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tokenizer.train_from_iterator(documents, trainer=trainer)
    return tokenizer


def rustbpe_train(documents: list[str], vocab_size: int) -> list[bytes]:
    """rustbpe's merged tokens, in merge order (its ranks 256 and up)."""
    import rustbpe

    tokenizer = rustbpe.Tokenizer()
    tokenizer.train_from_iterator(iter(documents), vocab_size, pattern=CL100K_PATTERN)
    return [token for token, rank in sorted(tokenizer.get_mergeable_ranks(), key=lambda item: item[1])][256:]


def ours_train(documents: list[str], vocab_size: int, threads: int) -> BPETokenizer:
    """BPETokenizer.train with its chunk counting on at most `threads` threads."""
    kept = train.MAX_THREADS
    train.MAX_THREADS = threads
    try:
        return BPETokenizer.train(documents, vocab_size)
    finally:
        train.MAX_THREADS = kept


def merged_tokens(model: BPETokenizer) -> list[bytes]:
    vocab = [bytes([b]) for b in range(256)]
    for left, right in model.merges:
        vocab.append(vocab[left] + vocab[right])
    return vocab[256:]


def compare_merges(ours: list[bytes], counts: list[int], theirs: list[bytes]) -> str:
    """Where rustbpe's merges first differ from ours, and whether it looks like a tie there (its
    pair is one we merge later with the same count)."""
    first = next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), None)
    if first is None:
        return f"rustbpe's {len(theirs):,} merges are ours ({len(ours):,})"
    later = ours.index(theirs[first]) if theirs[first] in ours else None
    tie = later is not None and counts[later] == counts[first]
    common = len(set(ours) & set(theirs))
    return (
        f"rustbpe equals ours for the first {first:,} merges; then ours {ours[first]!r} (count {counts[first]:,}), "
        f"rustbpe {theirs[first]!r}"
        + (f" (ours at {later:,}, count {counts[later]:,}: {'a tie' if tie else 'not a tie'})" if later else "")
        + f"; {common:,} of {len(ours):,} tokens in common"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller corpora (50 KB and 2 MB)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per contender (best is kept)")
    args = parser.parse_args()
    small_chars, big_chars = (50_000, 2_000_000) if args.quick else (200_000, 10_000_000)
    rows = []

    small = stdlib_documents(small_chars)
    ours_s, ours_model = best_of(args.repeat, lambda: BPETokenizer.train(small, 512))
    naive_s, naive_merges = best_of(1, lambda: naive_train(small, CL100K_PATTERN, 256))
    if list(ours_model.merges) != naive_merges:
        raise SystemExit("ours and the naive trainer disagree: this is a bug")
    rows.append((f"(a) {small_chars / 1e3:.0f} KB -> 512, vs naive", ours_s, naive_s))

    big = stdlib_documents(big_chars)
    size = f"(b) {big_chars / 1e6:.0f} MB -> 10,000"
    ours_1, model = best_of(args.repeat, lambda: ours_train(big, 10_000, 1))
    ours_2, model_2 = best_of(args.repeat, lambda: ours_train(big, 10_000, 2))
    if model_2.merges != model.merges:
        raise SystemExit("ours on 1 and 2 threads disagree: this is a bug")
    try:
        rust_b, rust_tokens = best_of(args.repeat, lambda: rustbpe_train(big, 10_000))
    except ImportError:
        rust_b, rust_tokens = float("nan"), None
    try:
        hf_b, _ = best_of(args.repeat, lambda: hf_train(big, 10_000))
    except ImportError:
        hf_b = float("nan")
    rows.append((f"{size}, 1 thread vs rustbpe", ours_1, rust_b))
    rows.append((f"{size}, 2 threads vs rustbpe", ours_2, rust_b))
    rows.append((f"{size}, 2 threads vs HF tokenizers", ours_2, hf_b))

    print(f"{'benchmark':48} {'ours s':>8} {'ref s':>8} {'ref/ours':>9}")
    for label, ours, ref in rows:
        print(f"{label:48} {ours:8.3f} {ref:8.3f} {ref / ours:8.1f}x")
    print(f"2 threads over 1: {ours_1 / ours_2:.2f}x")
    if rust_tokens is not None:
        print(compare_merges(merged_tokens(model), list(model.merge_counts or []), rust_tokens))


if __name__ == "__main__":
    main()
