"""Training speed: ours against the naive trainer and against Hugging Face tokenizers.

    python bench/bench_train.py [--quick]

(a) ~200 KB of stdlib sources to vocab 512: ours vs the lecture's naive trainer (the
    reference in tests/bpe/test_bpe_vs_naive.py); the merges are also checked to be equal.
(b) ~10 MB (one document per file) to vocab 10,000: ours vs HF `tokenizers` BpeTrainer
    with the same gpt4 split (pre_tokenizers.Split + ByteLevel(use_regex=False)).
Both sides are timed in the same run, best of --repeat; ratios > 1 mean we are faster.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from corpus import stdlib_documents  # noqa: E402

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
    ours_b, _ = best_of(args.repeat, lambda: BPETokenizer.train(big, 10_000))
    try:
        hf_b, _ = best_of(args.repeat, lambda: hf_train(big, 10_000))
    except ImportError:
        hf_b = float("nan")
    rows.append((f"(b) {big_chars / 1e6:.0f} MB -> 10,000, vs HF tokenizers", ours_b, hf_b))

    print(f"{'benchmark':42} {'ours s':>8} {'ref s':>8} {'ref/ours':>9}")
    for label, ours, ref in rows:
        print(f"{label:42} {ours:8.3f} {ref:8.3f} {ref / ours:8.1f}x")


if __name__ == "__main__":
    main()
